/**
 * The in-memory queues (shared/adapters/memory/queue.ts and its executor, heartbeat and delivery twins):
 * the queue ports' contracts (test/contract/queues.ts, which the SQS adapters run on the local SQS too),
 * on a clock moved by hand; then what they keep for tests: every send with the delay it asked for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryDeliveryQueue } from '../../../../shared/adapters/memory/delivery-queue.ts';
import { InMemoryExecutorQueue } from '../../../../shared/adapters/memory/executor-queue.ts';
import { InMemoryHeartbeatQueue } from '../../../../shared/adapters/memory/heartbeat-queue.ts';
import { InMemoryProbeQueue } from '../../../../shared/adapters/memory/probe-queue.ts';
import {
  deliveryQueueContract,
  executorQueueContract,
  heartbeatQueueContract,
  probeQueueContract,
} from '../../../contract/queues.ts';

const sideOf = <Q extends { receive(): unknown[] }>(make: (now: () => number) => Q) => {
  const clock = new ManualClock();
  const queue = make(clock.epochMs);
  return {
    queue,
    receive: async () => queue.receive(),
    wait: async (seconds: number) => clock.advanceSeconds(seconds),
  };
};

executorQueueContract('in memory', { make: () => sideOf((now) => new InMemoryExecutorQueue({ now })) });
heartbeatQueueContract('in memory', { make: () => sideOf((now) => new InMemoryHeartbeatQueue({ now })) });
probeQueueContract('in memory', { make: () => sideOf((now) => new InMemoryProbeQueue({ now })) });
deliveryQueueContract('in memory', {
  make: () => {
    const side = sideOf((now) => new InMemoryDeliveryQueue({ now }));
    return { ...side, receiveDeadLetters: async () => side.queue.receiveDeadLetters() };
  },
});

describe('in-memory queues', () => {
  const run = (taskId: string) => ({ tenant: 't', taskId, version: 1 });

  it('keep every send with the delay it asked for (sub-second ones as given), and receive by visibility', async () => {
    const clock = new ManualClock();
    const queue = new InMemoryExecutorQueue({ now: clock.epochMs });
    await queue.enqueue([run('a'), run('b')]);
    await queue.enqueue([run('c')], 0.4);
    await queue.enqueue([run('d')], 30);
    assert.deepEqual(
      queue.sent.map((s) => [s.messages.map((m) => m.taskId), s.delaySeconds]),
      [
        [['a', 'b'], undefined],
        [['c'], 0.4],
        [['d'], 30],
      ],
    );
    assert.deepEqual(
      queue.messages.map((m) => m.taskId),
      ['a', 'b', 'c', 'd'],
    );
    assert.equal(queue.depth, 4);
    assert.deepEqual(
      queue.receive().map((m) => m.taskId),
      ['a', 'b'],
    );
    clock.advance(400);
    assert.deepEqual(
      queue.receive().map((m) => m.taskId),
      ['c'],
    );
    clock.advanceSeconds(60);
    assert.deepEqual(
      queue.receive().map((m) => m.taskId),
      ['d'],
    );
    assert.equal(queue.depth, 0);
    assert.equal(queue.sent.length, 3, 'what was sent is still on record');
  });

  it('keep what was sent, not what the sender changed afterwards', async () => {
    const queue = new InMemoryHeartbeatQueue();
    const watch = { tenant: 't', taskId: 'a', version: 1, claim: 'x' };
    await queue.arm([watch], 10);
    watch.claim = 'changed';
    assert.equal(queue.sent[0]?.messages[0]?.claim, 'x');
    assert.equal(queue.receive().length, 0, 'not visible before its delay (the system clock)');
  });

  it('the delivery queue keeps its dead letters in order, each read once', async () => {
    const queue = new InMemoryDeliveryQueue();
    const message = { tenant: 't', taskId: 'a', contextId: 'c', configId: 'c1', version: 2, attempt: 1 };
    const info = { reason: 'refused' as const, attempt: 1, redrive: 0, at: '2026-01-01T00:00:00.000Z' };
    await queue.deadLetter(message, info);
    assert.deepEqual(queue.receiveDeadLetters(), [{ message, info }]);
    assert.deepEqual(queue.receiveDeadLetters(), []);
    await queue.deadLetter({ ...message, version: 3 }, info);
    assert.deepEqual(
      queue.receiveDeadLetters().map((d) => d.message.version),
      [3],
    );
    assert.equal(queue.deadLetters.length, 2);
  });
});
