/**
 * The outbox relay (shared/app/delivery/relay.ts) on the in-memory ports, fed by the in-memory store's
 * change feed (the twin of the table's stream): the changes the engine commits fan out to the executor
 * queue (runs, lease watches), the heartbeat queue (watches of claims), the lifecycle publisher (one event
 * per state change, ids unique) and the delivery queue (one delivery per event and push config); then the
 * loop the hub runs: relayed runs taken off the queue by the executor, whose changes are relayed in turn.
 * The relay's decisions on hand-made changes are test/unit/app/delivery/relay.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryDeliveryQueue } from '../../../../shared/adapters/memory/delivery-queue.ts';
import { InMemoryExecutorQueue } from '../../../../shared/adapters/memory/executor-queue.ts';
import { InMemoryHeartbeatQueue } from '../../../../shared/adapters/memory/heartbeat-queue.ts';
import { InMemoryLifecyclePublisher } from '../../../../shared/adapters/memory/lifecycle-publisher.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import { askForInput, complete } from '../../../../shared/agent/api.ts';
import { DetailType, MAX_DELAY_SECONDS, relayChanges } from '../../../../shared/app/delivery/relay.ts';
import { TaskExecutor } from '../../../../shared/app/tasks/executor.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import type { HeartbeatRules } from '../../../../shared/domain/heartbeat.ts';
import type { EventDraft, Message } from '../../../../shared/domain/task.ts';
import type { DeliveryQueue } from '../../../../shared/ports/delivery-queue.ts';

const tenant = 'acme';
const owner = 'bob';
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });
const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});
const RULES: HeartbeatRules = { intervalSeconds: 30, missedLimit: 2, maxReruns: 3 };

const setup = (options: { heartbeats?: boolean; deliveries?: boolean; leaseSeconds?: number } = {}) => {
  const clock = new ManualClock('2026-06-01T08:00:00.000Z');
  const store = new InMemoryTaskStore();
  const engine = new TaskEngine(store, { clock, leaseSeconds: options.leaseSeconds ?? 960 });
  const executor = new InMemoryExecutorQueue({ now: clock.epochMs });
  const heartbeats = new InMemoryHeartbeatQueue({ now: clock.epochMs });
  const lifecycle = new InMemoryLifecyclePublisher();
  const deliveries = new InMemoryDeliveryQueue({ now: clock.epochMs });
  /** Relays what was committed since the last relay, as the stream hands it over. */
  const relay = () =>
    relayChanges(store.takeChanges(), {
      executor,
      lifecycle,
      clock,
      ...(options.heartbeats ? { heartbeats: { queue: heartbeats, rules: RULES } } : {}),
      ...(options.deliveries === false ? {} : { deliveries }),
    });
  return { clock, store, engine, executor, heartbeats, lifecycle, deliveries, relay };
};

describe('the relay on the in-memory ports', () => {
  it('a submission gets one run and a Task Created event; relaying it again adds nothing', async () => {
    const { engine, executor, lifecycle, relay } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    const result = await relay();
    assert.deepEqual([result.changes, result.runs, result.events], [1, 1, 1]);
    assert.deepEqual(executor.receive(), [{ tenant, taskId: head.taskId, version: 1 }]);
    assert.deepEqual(
      lifecycle.events.map((e) => [e.detailType, e.id, e.detail.state]),
      [[DetailType.Created, `${head.taskId}:1`, 'pending']],
    );
    assert.deepEqual(await relay(), { changes: 0, runs: 0, watches: 0, events: 0, deliveries: 0 });
    assert.equal(executor.depth, 0);
  });

  it('a claim without a heartbeat queue gets a lease watch when the lease ends, at most 15 minutes on', async () => {
    const { engine, executor, relay, clock } = setup({ leaseSeconds: 120 });
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    await relay();
    assert.deepEqual(
      executor.sent.map((s) => [s.messages.map((r) => r.watch ?? 'run'), s.delaySeconds]),
      [[['lease'], 120]],
      'created and claimed in one batch: no run, a watch',
    );
    assert.deepEqual(executor.receive(), [], 'not before the lease ends');
    clock.advanceSeconds(120);
    assert.deepEqual(executor.receive(), [{ tenant, taskId: head.taskId, version: 3, watch: 'lease' }]);
    const long = setup({ leaseSeconds: 3600 });
    const second = await long.engine.create({ tenant, owner, message: user('long') });
    await long.engine.apply(second.head, [{ type: 'confirm' }, { type: 'start' }]);
    await long.relay();
    assert.equal(long.executor.sent[0]?.delaySeconds, MAX_DELAY_SECONDS);
  });

  it('with a heartbeat queue, a claim is watched there instead, due when its run would be lost', async () => {
    const { engine, executor, heartbeats, relay } = setup({ heartbeats: true });
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await relay();
    const { head: claimed } = await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    const result = await relay();
    assert.equal(result.watches, 1);
    assert.deepEqual(heartbeats.sent, [
      {
        messages: [{ tenant, taskId: head.taskId, version: 3, claim: claimed.leaseUntil }],
        delaySeconds: RULES.intervalSeconds * RULES.missedLimit + 1,
      },
    ]);
    assert.deepEqual(
      executor.messages.map((r) => r.watch ?? 'run'),
      ['run'],
      'the submission’s run only: no lease watch',
    );
  });

  it('every event a stream shows goes to every push config the task lists, in commit order', async () => {
    const { engine, deliveries, relay } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await engine.apply(head, { type: 'push_config', data: { set: 'a' } });
    await relay();
    assert.equal(deliveries.sent.length, 0, 'a registration on a live task is not delivered');
    await engine.apply(head, [
      { type: 'confirm' },
      { type: 'start' },
      { type: 'push_config', data: { set: 'b' } },
    ]);
    await engine.apply(head, [
      { type: 'status_update', message: agent('working') },
      { type: 'complete', message: agent('done') },
    ]);
    const result = await relay();
    const received = deliveries.receive().map((d) => [d.configId, d.version, d.attempt]);
    assert.equal(result.deliveries, received.length);
    // 3 (confirm) shows nothing (still submitted), 4 (start) does, 5 registers b: 6 and 7 go to both
    assert.deepEqual(received, [
      ['a', 4, 1],
      ['a', 6, 1],
      ['b', 6, 1],
      ['a', 7, 1],
      ['b', 7, 1],
    ]);
    assert.deepEqual(
      deliveries.sent.map((s) => s.delaySeconds),
      [undefined],
      'one enqueue, no delay',
    );
  });

  it('without a delivery queue nothing is delivered, the rest is relayed as ever', async () => {
    const { engine, executor, relay } = setup({ deliveries: false });
    const then: EventDraft[] = [{ type: 'push_config', data: { set: 'a' } }];
    const { head } = await engine.create({
      tenant,
      owner,
      message: user('go'),
      then,
    });
    await engine.apply(head, { type: 'cancel' });
    const result = await relay();
    assert.deepEqual([result.deliveries, result.events, result.runs], [0, 2, 0]);
    assert.equal(executor.depth, 0, 'created and canceled in one batch: no run');
  });

  it('a change that cannot be relayed fails the whole batch (to be retried), whichever port failed', async () => {
    const { engine, store, executor, lifecycle } = setup();
    const then: EventDraft[] = [{ type: 'push_config', data: { set: 'a' } }];
    await engine.create({
      tenant,
      owner,
      message: user('go'),
      then,
    });
    const { head } = await engine.create({ tenant, owner, message: user('second') });
    await engine.apply(head, [{ type: 'push_config', data: { set: 'a' } }, { type: 'cancel' }]);
    const changes = store.takeChanges();
    const failing: DeliveryQueue = {
      enqueue: async () => Promise.reject(new Error('SQS down')),
      deadLetter: async () => {},
    };
    await assert.rejects(relayChanges(changes, { executor, lifecycle, deliveries: failing }), /SQS down/);
    // the stream hands the same batch over again: relayed whole this time
    const queue = new InMemoryDeliveryQueue();
    const again = await relayChanges(changes, { executor, lifecycle, deliveries: queue });
    assert.equal(again.changes, 3);
    assert.ok(queue.messages.length > 0);
  });
});

describe('the outbox loop on the in-memory ports', () => {
  it('runs come off the queue to the executor; what it commits is relayed in turn, until the task settles', async () => {
    const { engine, executor: queue, lifecycle, relay } = setup();
    const executor = new TaskExecutor(
      engine,
      {
        describe: () => ({}) as never,
        execute: async (ctx) =>
          ctx.resumption ? complete(`got ${ctx.resumption.text}`) : askForInput('which one?'),
      },
      undefined,
      undefined,
    );
    const { head } = await engine.create({ tenant, owner, message: user('pick') });
    const drain = async () => {
      const results: string[] = [];
      for (let round = 0; round < 5; round++) {
        await relay();
        const runs = queue.receive().filter((r) => !r.watch);
        if (runs.length === 0) break;
        for (const run of runs) results.push((await executor.run(run)).result);
      }
      return results;
    };
    assert.deepEqual(await drain(), ['waiting']);
    await engine.apply(head, { type: 'info_provided', message: user('the red one') });
    assert.deepEqual(await drain(), ['completed']);
    assert.equal((await engine.store.get(head))?.head.statusMessage?.parts[0]?.text, 'got the red one');
    assert.deepEqual(
      lifecycle.events.map((e) => [e.detailType, e.detail.state]),
      [
        [DetailType.Created, 'pending'],
        [DetailType.StateChanged, 'executing'],
        [DetailType.StateChanged, 'info_needed'],
        [DetailType.StateChanged, 'info_provided'],
        [DetailType.StateChanged, 'executing'],
        [DetailType.Completed, 'completed'],
      ],
    );
    assert.equal(new Set(lifecycle.events.map((e) => e.id)).size, lifecycle.events.length, 'ids are unique');
  });
});
