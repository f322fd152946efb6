/**
 * The contract of a task store's change feed, what the relay reads (shared/ports/task-changes.ts): run
 * against the in-memory store's `takeChanges` in the unit suite and against the DynamoDB table's stream
 * (decoded by shared/adapters/dynamodb/stream.ts, filtered as the event source mapping filters it) in the
 * integration suite. One change per create and per commit, in commit order per task: the head before
 * (none for a new task), the task after, the events the write appended; a liveness write, a reply and a
 * commit that lost make none. The relay's unit tests (test/unit/app/delivery/relay-ports.test.ts) rely on
 * the in-memory feed being this.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import type { EventDraft, Message } from '../../shared/domain/task.ts';
import type { LivenessWriter } from '../../shared/ports/liveness-writer.ts';
import type { TaskChange } from '../../shared/ports/task-changes.ts';
import { StaleTaskError, type TaskStore } from '../../shared/ports/task-store.ts';

export interface TaskChangesSide {
  store: TaskStore & LivenessWriter;
  /** Every change committed since the last take (once it has come through), oldest first per task. */
  take(): Promise<TaskChange[]>;
}

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });

export const taskChangesContract = (
  name: string,
  harness: { make(): TaskChangesSide | Promise<TaskChangesSide> },
): void => {
  describe(`TaskChanges contract (the store's change feed): ${name}`, () => {
    let side: TaskChangesSide;
    let engine: TaskEngine;
    before(async () => {
      side = await harness.make();
      engine = new TaskEngine(side.store);
    });
    const changesOf = (changes: TaskChange[], taskId: string) =>
      changes.filter((c) => c.after?.head.taskId === taskId);

    it('one change per create and commit, in order: the head before, the task after, the events appended', async () => {
      const then: EventDraft[] = [{ type: 'confirm' }, { type: 'start' }];
      const { head } = await engine.create({
        tenant: 'acme',
        owner: 'bob',
        message: user('go'),
        then,
      });
      await engine.apply(head, { type: 'status_update', progress: 50 });
      await engine.apply(head, [
        { type: 'artifact', artifact: { artifact: { artifactId: 'a', parts: [{ text: 'out' }] } } },
        { type: 'complete' },
      ]);
      const changes = changesOf(await side.take(), head.taskId);
      assert.deepEqual(
        changes.map((c) => [
          c.before?.version ?? null,
          c.before?.state ?? null,
          c.after?.head.version,
          c.after?.head.state,
          c.events.map((e) => `${e.version}:${e.type}`),
        ]),
        [
          [null, null, 3, 'executing', ['1:created', '2:confirm', '3:start']],
          [3, 'executing', 4, 'executing', ['4:status_update']],
          [4, 'executing', 6, 'completed', ['5:artifact', '6:complete']],
        ],
      );
      assert.equal(changes[0]?.events[0]?.message?.parts[0]?.text, 'go', 'the events with their content');
      assert.deepEqual(changes[2]?.events[0]?.artifact?.artifact.parts, [{ text: 'out' }]);
      assert.equal(changes[1]?.after?.head.progress, 50);
      assert.equal(changes[2]?.after?.recent.at(-1)?.version, 6, 'the task after ends at its version');
      assert.equal(new Set(changes.map((c) => c.sequence)).size, 3, 'each its own position');
      assert.deepEqual(await side.take(), [], 'each change once');
    });

    it('a liveness write, a reply and a commit that lost make no change', async () => {
      const then: EventDraft[] = [{ type: 'confirm' }, { type: 'start' }];
      const { head, record } = await engine.create({
        tenant: 'acme',
        owner: 'bob',
        message: user('quiet'),
        then,
      });
      assert.deepEqual(await side.store.beat(record, new Date().toISOString()), { written: true });
      await side.store.putReply({
        tenant: 'acme',
        key: crypto.randomUUID(),
        message: { messageId: crypto.randomUUID(), role: 'agent', parts: [{ text: 'pong' }] },
        createdAt: new Date().toISOString(),
      });
      const moved = (await engine.apply(head, { type: 'status_update', progress: 1 }, { seen: record }))
        .record;
      await assert.rejects(
        side.store.commit(record, { ...record.head, progress: 2 }, [], ['executing']),
        StaleTaskError,
      );
      const changes = changesOf(await side.take(), head.taskId);
      assert.deepEqual(
        changes.map((c) => c.after?.head.version),
        [3, 4],
        'the create and the one commit that won',
      );
      assert.equal(changes[1]?.after?.head.progress, moved.head.progress);
      assert.deepEqual(
        (await side.take()).filter(
          (c) => c.after?.head.taskId !== head.taskId && c.after?.head.owner === 'bob',
        ),
        [],
        'and nothing for the reply',
      );
    });
  });
};
