/**
 * The contracts of the queue ports (shared/ports/executor-queue.ts, heartbeat-queue.ts, delivery-queue.ts):
 * run against the in-memory twins in the unit suite (the queue's clock moved by hand) and against the SQS
 * adapters on the local SQS in the integration suite (real time). What is sent is received, each message
 * once and as sent (batches of any size), not before its delay; a delivery that gave up reaches the
 * dead-letter queue with why. SQS keeps no order between messages: neither does the contract.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { DeadLetterInfo, DeliveryMessage, DeliveryQueue } from '../../shared/ports/delivery-queue.ts';
import type { ExecutorQueue, ExecutorRun } from '../../shared/ports/executor-queue.ts';
import type { HeartbeatQueue, HeartbeatWatch } from '../../shared/ports/heartbeat-queue.ts';
import type { ProbeQueue, ProbeRequest } from '../../shared/ports/probe-queue.ts';

/** A queue under test as its consumer sees it. */
export interface QueueSide<Q> {
  queue: Q;
  /** Takes every message visible now off the queue (as their bodies say). */
  receive(): Promise<unknown[]>;
  /** Lets `seconds` pass (a clock moved on, or a real wait). */
  wait(seconds: number): Promise<void>;
}

export interface QueueHarness<Q> {
  /** An empty queue of its own (called before each group of tests; `receive` drains it between tests). */
  make(): QueueSide<Q> | Promise<QueueSide<Q>>;
}

const sorted = (messages: readonly unknown[]): unknown[] =>
  [...messages].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** The part every queue shares: `send` puts messages on the queue with a delay. */
const sendReceiveContract = <Q, T>(
  side: () => QueueSide<Q>,
  send: (queue: Q, items: T[], delaySeconds?: number) => Promise<void>,
  sample: (i: number) => T,
): void => {
  it('receives what is sent, each message once and as sent, however many go in one send', async () => {
    const { queue, receive } = side();
    const items = Array.from({ length: 23 }, (_, i) => sample(i));
    await send(queue, items);
    await send(queue, [sample(99)]);
    let received: unknown[] = [];
    for (let i = 0; i < 5 && received.length < 24; i++) received = [...received, ...(await receive())];
    assert.deepEqual(sorted(received), sorted([...items, sample(99)]));
    assert.deepEqual(await receive(), [], 'each once');
  });

  it('a delayed message is received after its delay, not before', async () => {
    const { queue, receive, wait } = side();
    await send(queue, [sample(1)], 2);
    await send(queue, [sample(2)]);
    assert.deepEqual(await receive(), [sample(2)]);
    assert.deepEqual(await receive(), [], 'not yet');
    await wait(2.5);
    assert.deepEqual(await receive(), [sample(1)]);
  });

  it('sending nothing sends nothing', async () => {
    const { queue, receive } = side();
    await send(queue, []);
    await send(queue, [], 5);
    assert.deepEqual(await receive(), []);
  });
};

const withSide = <Q>(harness: QueueHarness<Q>): (() => QueueSide<Q>) => {
  let side: QueueSide<Q>;
  before(async () => {
    side = await harness.make();
  });
  return () => side;
};

export const executorQueueContract = (name: string, harness: QueueHarness<ExecutorQueue>): void => {
  describe(`ExecutorQueue contract: ${name}`, () => {
    const run = (i: number): ExecutorRun => ({
      tenant: 'acme',
      taskId: `task-${i}`,
      version: i + 1,
      ...(i % 2 ? { watch: 'lease' as const } : {}),
    });
    sendReceiveContract(withSide(harness), (q, runs, delay) => q.enqueue(runs, delay), run);
  });
};

export const heartbeatQueueContract = (name: string, harness: QueueHarness<HeartbeatQueue>): void => {
  describe(`HeartbeatQueue contract: ${name}`, () => {
    const watch = (i: number): HeartbeatWatch => ({
      tenant: 'acme',
      taskId: `task-${i}`,
      version: i + 1,
      ...(i % 3 ? { claim: `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00.000Z` } : {}),
    });
    sendReceiveContract(withSide(harness), (q, watches, delay) => q.arm(watches, delay ?? 0), watch);
  });
};

export const probeQueueContract = (name: string, harness: QueueHarness<ProbeQueue>): void => {
  describe(`ProbeQueue contract: ${name}`, () => {
    const request = (i: number): ProbeRequest => ({ tenant: `t${i % 3}`, id: `record-${i}` });
    const side = withSide(harness);
    sendReceiveContract(
      side,
      (q, requests, delay) => q.schedule(requests.map((r) => ({ request: r, delaySeconds: delay ?? 0 }))),
      request,
    );

    it('delays each probe by its own delay', async () => {
      const { queue, receive, wait } = side();
      await queue.schedule([
        { request: request(1), delaySeconds: 2 },
        { request: request(2), delaySeconds: 0 },
        { request: request(3), delaySeconds: 4 },
      ]);
      assert.deepEqual(await receive(), [request(2)]);
      await wait(2.5);
      assert.deepEqual(await receive(), [request(1)]);
      await wait(2);
      assert.deepEqual(await receive(), [request(3)]);
    });
  });
};

/** The delivery queue's consumer side adds its dead-letter queue. */
export interface DeliveryQueueSide extends QueueSide<DeliveryQueue> {
  /** Takes every dead letter off the dead-letter queue: what a redrive brings back, and why it gave up. */
  receiveDeadLetters(): Promise<Array<{ message: DeliveryMessage; info: DeadLetterInfo }>>;
}

export const deliveryQueueContract = (
  name: string,
  harness: { make(): DeliveryQueueSide | Promise<DeliveryQueueSide> },
): void => {
  describe(`DeliveryQueue contract: ${name}`, () => {
    const message = (i: number): DeliveryMessage => ({
      tenant: 'acme',
      taskId: `task-${i}`,
      contextId: 'ctx',
      configId: i % 4 ? 'c1' : 'synapse',
      version: i + 2,
      attempt: (i % 3) + 1,
      ...(i % 5 === 1 ? { redrive: 1 } : {}),
      ...(i % 7 === 2 ? { waited: 2 } : {}),
      ...(i % 6 === 3 ? { heartbeat: { claim: '2026-01-01T00:16:00.000Z', beat: 4 } } : {}),
    });
    let side: DeliveryQueueSide;
    before(async () => {
      side = await harness.make();
    });
    sendReceiveContract(
      () => side,
      (q, messages, delay) => q.enqueue(messages, delay),
      message,
    );

    it('a delivery that gave up reaches the dead-letter queue with why, and not the queue', async () => {
      const gaveUp = { ...message(5), attempt: 1, redrive: 2 };
      const info: DeadLetterInfo = {
        reason: 'attempts_exhausted',
        error: 'HTTP 503',
        attempt: 5,
        redrive: 1,
        at: '2026-01-01T00:00:10.000Z',
      };
      await side.queue.deadLetter(gaveUp, info);
      const refused: DeadLetterInfo = {
        reason: 'refused',
        attempt: 1,
        redrive: 0,
        at: '2026-01-01T00:00:11.000Z',
      };
      await side.queue.deadLetter(message(6), refused);
      let letters: Array<{ message: DeliveryMessage; info: DeadLetterInfo }> = [];
      for (let i = 0; i < 5 && letters.length < 2; i++)
        letters = [...letters, ...(await side.receiveDeadLetters())];
      assert.deepEqual(
        sorted(letters),
        sorted([
          { message: gaveUp, info },
          { message: message(6), info: refused },
        ]),
      );
      assert.deepEqual(await side.receive(), []);
    });
  });
};
