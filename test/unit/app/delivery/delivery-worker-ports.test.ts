/**
 * The delivery worker on the in-memory ports (task store, push configs, delivery log, delivery queue and
 * webhook sender): one push per delivery message, every attempt claimed in the log before anything is
 * sent, retries queued with backoff (or the receiver's Retry-After) until the policy gives up and the
 * delivery goes to the dead-letter queue with why; redelivered messages sending nothing twice, attempts cut
 * off recorded as such, deliveries dropped when there is nothing to send, a claim given back when nothing
 * was sent. The retry loop is driven through the queue twin on a clock moved by hand. The pipeline on
 * DynamoDB Local, the local SQS and a real receiver is test/integration/functions/deliver.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log.ts';
import { InMemoryDeliveryQueue } from '../../../../shared/adapters/memory/delivery-queue.ts';
import { InMemoryPushConfigStore } from '../../../../shared/adapters/memory/push-config-store.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import { InMemoryWebhookSender } from '../../../../shared/adapters/memory/webhook-sender.ts';
// the one import of the worker: repoint it here when its module moves
import { DeliveryWorker } from '../../../../shared/app/delivery/delivery-worker.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import type { DeliveryPolicy } from '../../../../shared/domain/delivery.ts';
import type { EventDraft, Message } from '../../../../shared/domain/task.ts';
import type { DeliveryAttempt } from '../../../../shared/ports/delivery-log.ts';
import type { DeliveryMessage } from '../../../../shared/ports/delivery-queue.ts';
import type { StoredPushConfig } from '../../../../shared/ports/push-config-store.ts';
import type { PushSignInput } from '../../../../shared/ports/push-signer.ts';
import type { DeliveryResult } from '../../../../shared/ports/webhook-sender.ts';

const tenant = 'acme';
const POLICY: DeliveryPolicy = {
  maxAttempts: 3,
  baseDelaySeconds: 2,
  factor: 2,
  maxDelaySeconds: 900,
  jitter: 0,
};
const IN_FLIGHT_SECONDS = 60;
const RETRY: DeliveryResult = { outcome: 'retry', status: 503, latencyMs: 5, error: 'HTTP 503' };
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });
const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});

const setup = (options: { signer?: (input: PushSignInput) => Promise<string> } = {}) => {
  const clock = new ManualClock('2026-07-01T09:00:00.000Z');
  const store = new InMemoryTaskStore();
  const engine = new TaskEngine(store, { clock });
  const configs = new InMemoryPushConfigStore();
  const log = new InMemoryDeliveryLog();
  const queue = new InMemoryDeliveryQueue({ now: clock.epochMs });
  const sender = new InMemoryWebhookSender();
  const signed: PushSignInput[] = [];
  const recorded: DeliveryAttempt[] = [];
  let claims = 0;
  const worker = new DeliveryWorker(
    {
      store,
      configs,
      log,
      sender,
      signer: {
        sign:
          options.signer ??
          (async (input) => {
            signed.push(input);
            return `jwt-${signed.length}`;
          }),
      },
      queue,
    },
    {
      policy: POLICY,
      inFlightSeconds: IN_FLIGHT_SECONDS,
      clock,
      random: () => 0.5,
      newClaim: () => `claim-${++claims}`,
      observer: { recorded: (a) => void recorded.push(a) },
    },
  );

  /** A running task with one push config, and the delivery of its status update (version 5). */
  const delivery = async (config: Partial<StoredPushConfig> = {}) => {
    const then: EventDraft[] = [{ type: 'push_config', data: { set: 'hook' } }];
    const { head } = await engine.create({
      tenant,
      owner: 'bob',
      message: user('go'),
      then,
    });
    await configs.put(
      {
        tenant,
        taskId: head.taskId,
        id: 'hook',
        url: 'https://hooks.example/a',
        token: 'notify-token',
        version: '1.0',
        createdAt: head.createdAt,
        ...config,
      },
      '2030-01-01T00:00:00.000Z',
    );
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    const { head: after } = await engine.apply(head, { type: 'status_update', message: agent('half way') });
    const message: DeliveryMessage = {
      tenant,
      taskId: head.taskId,
      contextId: head.contextId,
      configId: 'hook',
      version: after.version,
      attempt: 1,
    };
    return { head, message };
  };

  /** Delivers what the queue holds now (visible by its clock), as the worker's consumer would. */
  const consume = async () => {
    const results = [];
    for (const m of queue.receive()) results.push(await worker.deliver(m));
    return results;
  };

  return { clock, store, engine, configs, log, queue, sender, signed, recorded, worker, delivery, consume };
};

describe('a delivery', () => {
  it('is posted once, signed, with the config’s token and the delivery headers, and recorded delivered', async () => {
    const { worker, delivery, sender, signed, log, queue, recorded } = setup();
    const { head, message } = await delivery();
    const result = await worker.deliver(message);
    assert.equal(result.result, 'recorded');
    assert.equal(sender.requests.length, 1);
    const [request] = sender.requests;
    assert.equal(request?.url, 'https://hooks.example/a');
    const body = JSON.parse(request!.body);
    assert.equal(body.statusUpdate?.taskId, head.taskId);
    assert.equal(body.statusUpdate?.status?.message?.parts?.[0]?.text, 'half way');
    assert.deepEqual(signed, [
      { taskId: head.taskId, body: request!.body, audience: 'https://hooks.example/a' },
    ]);
    const headers = request!.headers!;
    assert.equal(headers['Content-Type'], 'application/a2a+json');
    assert.equal(headers.Authorization, 'Bearer jwt-1');
    assert.equal(headers['X-A2A-Notification-Token'], 'notify-token');
    assert.equal(headers['Idempotency-Key'], `${head.taskId}:hook:${message.version}`);
    assert.equal(headers['A2A-Event-Version'], String(message.version));
    assert.equal(headers['A2A-Delivery-Attempt'], '1');
    const [attempt] = await log.list(tenant, head.taskId);
    assert.deepEqual(
      [attempt?.status, attempt?.httpStatus, attempt?.claim, attempt?.attempt],
      ['delivered', 200, 'claim-1', 1],
    );
    assert.equal(queue.sent.length, 0, 'nothing follows a delivery');
    assert.deepEqual(
      recorded.map((a) => a.status),
      ['delivered'],
    );
  });

  it('to a v0.3 config is the task as it is now, with the config’s own credentials', async () => {
    const { worker, delivery, sender } = setup();
    const { head, message } = await delivery({
      version: '0.3',
      authentication: { scheme: 'Basic', credentials: 'dXNlcjpwYXNz' },
    });
    await worker.deliver(message);
    const [request] = sender.requests;
    const body = JSON.parse(request!.body);
    assert.equal(body.id, head.taskId);
    assert.equal(body.kind, 'task');
    assert.equal(request?.headers?.['Content-Type'], 'application/json');
    assert.equal(request?.headers?.Authorization, 'Basic dXNlcjpwYXNz', 'the config’s, not the JWT');
  });
});

describe('retries', () => {
  it('back off from the policy’s base, doubling, then the delivery goes to the dead-letter queue', async () => {
    const { worker, delivery, sender, queue, log, clock, consume } = setup();
    const { head, message } = await delivery();
    sender.respondWith(() => RETRY);
    await worker.deliver(message);
    assert.deepEqual(
      queue.sent.map((s) => [s.messages[0]?.attempt, s.delaySeconds]),
      [[2, 2]],
    );
    assert.deepEqual(await consume(), [], 'not before its delay');
    clock.advanceSeconds(2);
    await consume();
    clock.advanceSeconds(4);
    await consume();
    assert.deepEqual(
      queue.sent.map((s) => [s.messages[0]?.attempt, s.delaySeconds]),
      [
        [2, 2],
        [3, 4],
      ],
    );
    assert.equal(sender.requests.length, 3);
    assert.deepEqual(
      sender.requests.map((r) => r.headers?.['A2A-Delivery-Attempt']),
      ['1', '2', '3'],
    );
    assert.deepEqual(
      new Set(sender.requests.map((r) => r.headers?.['Idempotency-Key'])).size,
      1,
      'one idempotency key for every attempt',
    );
    const [letter] = queue.receiveDeadLetters();
    assert.deepEqual(
      letter?.message,
      { ...message, attempt: 1, redrive: 1 },
      'a redrive brings the next round',
    );
    assert.deepEqual(
      [letter?.info.reason, letter?.info.error, letter?.info.attempt, letter?.info.redrive],
      ['attempts_exhausted', 'HTTP 503', 3, 0],
    );
    assert.deepEqual(
      (await log.list(tenant, head.taskId)).map((a) => [a.attempt, a.status, a.retryInSeconds, a.deadLetter]),
      [
        [1, 'retrying', 2, undefined],
        [2, 'retrying', 4, undefined],
        [3, 'failed', undefined, 'attempts_exhausted'],
      ],
    );
  });

  it('a receiver’s Retry-After replaces the backoff; a final answer (4xx) gives up at once', async () => {
    const { worker, delivery, sender, queue } = setup();
    const { message } = await delivery();
    sender.respondInTurn(
      { ...RETRY, status: 429, retryAfterSeconds: 7 },
      { outcome: 'final', status: 410, latencyMs: 3, error: 'HTTP 410' },
    );
    await worker.deliver(message);
    assert.equal(queue.sent[0]?.delaySeconds, 7);
    const result = await worker.deliver({ ...message, attempt: 2 });
    assert.ok(result.result === 'recorded');
    assert.deepEqual(
      [result.attempt.status, result.attempt.deadLetter, result.attempt.httpStatus],
      ['failed', 'refused', 410],
    );
    assert.deepEqual(
      queue.receiveDeadLetters().map((d) => d.info.reason),
      ['refused'],
    );
    assert.equal(queue.sent.length, 1, 'no retry after a final answer');
  });

  it('a redriven delivery is a round of its own, not a duplicate of the round before', async () => {
    const { worker, delivery, sender, log } = setup();
    const { head, message } = await delivery();
    sender.respondWith(() => ({ outcome: 'final', status: 400, latencyMs: 1 }));
    await worker.deliver(message);
    sender.respondWith(() => ({ outcome: 'delivered', status: 204, latencyMs: 1 }));
    const redriven = await worker.deliver({ ...message, redrive: 1 });
    assert.equal(redriven.result, 'recorded');
    assert.deepEqual(
      (await log.list(tenant, head.taskId)).map((a) => [a.redrive, a.status]),
      [
        [0, 'failed'],
        [1, 'delivered'],
      ],
    );
  });
});

/** Attempt 1 of the delivery as another invocation claimed it, now, and has not recorded an outcome (yet, or ever). */
const heldElsewhere = (
  head: { taskId: string },
  message: DeliveryMessage,
  claim: string,
  now: Date,
): DeliveryAttempt => ({
  tenant,
  taskId: head.taskId,
  configId: 'hook',
  version: message.version,
  redrive: 0,
  attempt: 1,
  status: 'sending',
  claim,
  startedAt: now.toISOString(),
  keepUntil: '2030-01-01T00:00:00.000Z',
});

describe('each attempt is sent at most once', () => {
  it('a message redelivered after its outcome sends nothing and queues nothing', async () => {
    const { worker, delivery, sender, queue } = setup();
    const { message } = await delivery();
    await worker.deliver(message);
    const again = await worker.deliver(message);
    assert.equal(again.result, 'duplicate');
    assert.ok(again.result === 'duplicate' && again.existing.status === 'delivered');
    assert.equal(sender.requests.length, 1);
    assert.equal(queue.sent.length, 0);
  });

  it('an attempt another invocation holds is left to it; one held past its time was cut off and the next follows', async () => {
    const { worker, delivery, sender, queue, log, clock } = setup();
    const { head, message } = await delivery();
    await log.claim(heldElsewhere(head, message, 'someone-else', clock.now()));
    clock.advanceSeconds(15);
    assert.deepEqual(await worker.deliver(message), {
      result: 'in_flight',
      retryInSeconds: IN_FLIGHT_SECONDS - 15 + 1,
    });
    assert.equal(sender.requests.length, 0);
    assert.deepEqual(
      queue.sent.map((s) => [s.messages, s.delaySeconds]),
      [[[message], IN_FLIGHT_SECONDS - 15 + 1]],
      'the same attempt queued again for a second after its holder must have ended',
    );
    clock.advanceSeconds(IN_FLIGHT_SECONDS);
    const cut = await worker.deliver(message);
    assert.ok(cut.result === 'recorded');
    assert.deepEqual(
      [cut.attempt.status, cut.attempt.claim, cut.attempt.retryInSeconds],
      ['interrupted', 'someone-else', 2],
    );
    assert.equal(
      sender.requests.length,
      0,
      'whether it went out is unknown: not sent again under this attempt',
    );
    assert.deepEqual(
      queue.sent.slice(1).map((s) => [s.messages[0]?.attempt, s.delaySeconds]),
      [[2, 2]],
    );
    assert.equal((await log.list(tenant, head.taskId))[0]?.status, 'interrupted');
  });

  it('an attempt whose request is ready only after the time an invocation may hold it is not sent: the next one follows', async () => {
    // preparing it took that long (the signing keys slow to come): another invocation may have taken it over
    let slow = () => {};
    const { worker, delivery, sender, queue, log, clock } = setup({
      signer: async () => {
        slow();
        return 'jwt';
      },
    });
    slow = () => clock.advanceSeconds(IN_FLIGHT_SECONDS);
    const { head, message } = await delivery();
    const late = await worker.deliver(message);
    assert.ok(late.result === 'recorded');
    assert.deepEqual(
      [late.attempt.status, late.attempt.error],
      ['interrupted', 'not sent: its claim outlived the time an invocation may hold an attempt'],
    );
    assert.equal(sender.requests.length, 0, 'nothing sent');
    assert.deepEqual(
      queue.sent.map((s) => [s.messages[0]?.attempt, s.delaySeconds]),
      [[2, 2]],
    );
    assert.equal((await log.list(tenant, head.taskId))[0]?.status, 'interrupted');
  });

  it('a takeover whose holder gives the claim back late still records it interrupted: it is not claimed and sent again', async () => {
    const { worker, delivery, sender, queue, log, clock } = setup();
    const { head, message } = await delivery();
    const held = heldElsewhere(head, message, 'slow-holder', clock.now());
    await log.claim(held);
    clock.advanceSeconds(IN_FLIGHT_SECONDS);
    // the holder, still alive, gives the attempt back between the takeover's queueing of the next one and
    // its record
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = async (messages, delay) => {
      await enqueue(messages, delay);
      await log.finish({ ...held, status: 'released' });
    };
    const taken = await worker.deliver(message);
    assert.ok(taken.result === 'recorded' && taken.attempt.status === 'interrupted');
    assert.equal((await log.list(tenant, head.taskId))[0]?.status, 'interrupted');
    queue.enqueue = enqueue;
    const copy = await worker.deliver(message);
    assert.equal(copy.result, 'duplicate', 'the holder’s copy finds it taken over');
    assert.equal(sender.requests.length, 0);
  });

  it('a holder that fails past the time it may hold the claim leaves it to the takeover, not given back', async () => {
    let slow = () => {};
    const { worker, delivery, log, clock } = setup({
      signer: async () => {
        slow();
        throw new Error('signing keys unavailable');
      },
    });
    slow = () => clock.advanceSeconds(IN_FLIGHT_SECONDS);
    const { head, message } = await delivery();
    await assert.rejects(worker.deliver(message), /signing keys unavailable/);
    assert.equal((await log.list(tenant, head.taskId))[0]?.status, 'sending', 'not released');
  });

  it('a failure before anything is sent gives the claim back: the retry of the message claims it again', async () => {
    let failing = true;
    const { worker, delivery, sender, log } = setup({
      signer: async () => {
        if (failing) throw new Error('signing keys unavailable');
        return 'jwt';
      },
    });
    const { head, message } = await delivery();
    await assert.rejects(worker.deliver(message), /signing keys unavailable/);
    assert.deepEqual(
      (await log.list(tenant, head.taskId)).map((a) => [a.status, a.error]),
      [['released', 'signing keys unavailable']],
    );
    assert.equal(sender.requests.length, 0);
    failing = false;
    const retried = await worker.deliver(message);
    assert.ok(retried.result === 'recorded' && retried.attempt.status === 'delivered');
    assert.equal(sender.requests.length, 1);
  });
});

describe('nothing to send', () => {
  it('a task gone, a config no longer listed or removed, an event a stream would not show: dropped and recorded', async () => {
    const { worker, delivery, engine, configs, sender, log, queue } = setup();
    const gone = await worker.deliver({
      tenant,
      taskId: 'missing',
      contextId: 'c',
      configId: 'hook',
      version: 2,
      attempt: 1,
    });
    assert.ok(gone.result === 'recorded' && gone.attempt.status === 'task_missing');

    const { head, message } = await delivery();
    const noEvent = await worker.deliver({ ...message, version: 99 });
    assert.ok(noEvent.result === 'recorded' && noEvent.attempt.status === 'not_deliverable');
    const confirm = await worker.deliver({ ...message, version: 3 });
    assert.ok(
      confirm.result === 'recorded' && confirm.attempt.status === 'not_deliverable',
      'confirm shows nothing',
    );

    await configs.remove(tenant, head.taskId, 'hook');
    const removed = await worker.deliver(message);
    assert.ok(removed.result === 'recorded' && removed.attempt.status === 'config_removed');

    const { head: other, message: otherMessage } = await delivery();
    await engine.apply(other, { type: 'push_config', data: { deleted: 'hook' } });
    const unlisted = await worker.deliver(otherMessage);
    assert.ok(unlisted.result === 'recorded' && unlisted.attempt.status === 'config_removed');

    assert.equal(sender.requests.length, 0);
    assert.equal(queue.sent.length + queue.deadLetters.length, 0, 'nothing queued for them');
    assert.deepEqual(
      (await log.list(tenant, head.taskId)).map((a) => [a.version, a.status]),
      [
        [3, 'not_deliverable'],
        [5, 'config_removed'],
        [99, 'not_deliverable'],
      ],
    );
  });

  it('a config registered on a finished task gets the final status once', async () => {
    const { worker, delivery, engine, sender } = setup();
    const { head, message } = await delivery();
    await engine.apply(head, { type: 'complete', message: agent('all done') });
    const { head: late } = await engine.apply(head, { type: 'push_config', data: { set: 'hook' } });
    await worker.deliver({ ...message, version: late.version });
    const body = JSON.parse(sender.requests[0]!.body);
    assert.equal(body.statusUpdate?.status?.state, 'TASK_STATE_COMPLETED');
    assert.equal(body.statusUpdate?.status?.message?.parts?.[0]?.text, 'all done');
  });
});
