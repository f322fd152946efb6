/**
 * The stream poller on the real store (DynamoTaskStore on DynamoDB Local), on a virtual clock: what an
 * open stream of an idle task costs in DynamoDB read units per minute (the figure docs/streaming.md
 * gives), that the events are read only when the head's version moved, and that a resume from any
 * version of a task whose log spilled into history chunks gets exactly the events after it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { follow, STREAM_TIMING, type StreamItem, storeReader } from '../../shared/app/a2a/stream.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import type { Message } from '../../shared/domain/task.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';
import { virtualClock } from '../unit/app/a2a/stream-fakes.ts';

let table: TestTable;
let store: DynamoTaskStore;
let engine: TaskEngine;
const caller = { tenant: 'acme', owner: 'bob' };
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });
const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});

before(async () => {
  table = await createTestTable();
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
});
after(() => table.drop());

const running = async () => {
  const { head } = await engine.create({ ...caller, message: user('work') });
  return (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
};

const ids = (items: StreamItem[]) => items.flatMap((i) => (i.type === 'event' ? [i.id] : []));

describe('the stream poller on DynamoDB', () => {
  it('an idle stream costs one consistent GetItem (1 read unit) per poll: 62 read units its first minute, 60 a minute after', async () => {
    const idleFor = async (ms: number) => {
      const record = await running();
      const clock = virtualClock();
      let polls = 0;
      table.usage.reset();
      const items: StreamItem[] = [];
      for await (const item of follow(storeReader(store), caller, record, record.head.version, {
        clock,
        timing: STREAM_TIMING,
        deadline: clock.now() + ms,
        lastWrite: clock.now(),
        onPoll: () => {
          polls++;
        },
      })) {
        items.push(item);
      }
      return { polls, usage: table.usage.reset(), items };
    };
    const minute = await idleFor(60_000);
    assert.equal(minute.polls, 62, '100, 300, 700, 1500 ms, then one a second');
    assert.deepEqual(Object.keys(minute.usage.byOperation), ['GetItem'], 'nothing but the task item is read');
    assert.equal(minute.usage.requests, 62);
    assert.equal(minute.usage.readUnits, 62, 'the small task item: 1 read unit per consistent read');
    assert.deepEqual(ids(minute.items), [], 'nothing happened, nothing was sent');
    assert.equal(minute.items.length, 3, 'a comment at 15, 30 and 45 s (the close is at 60 s)');
    const two = await idleFor(120_000);
    assert.equal(two.usage.readUnits - minute.usage.readUnits, 60, 'then 60 read units a minute');
  });

  it('news costs its events only when the version moved, from the item’s log (no further read)', async () => {
    const record = await running();
    const clock = virtualClock();
    const reader = storeReader(store);
    const stream = follow(reader, caller, record, record.head.version, {
      clock,
      timing: STREAM_TIMING,
      // virtual time runs fast: an hour of it leaves the real write below time to land
      deadline: clock.now() + 3_600_000,
      lastWrite: clock.now(),
    });
    const first = stream.next();
    await engine.apply(record.head, { type: 'status_update', progress: 10, message: agent('1/2') });
    const got = await first;
    assert.ok(!got.done && got.value.type === 'event' && got.value.id === 4);
    table.usage.reset();
    await engine.apply(record.head, { type: 'complete', message: agent('done') });
    const writes = table.usage.reset();
    const rest: StreamItem[] = [];
    for await (const item of stream) rest.push(item);
    const reads = table.usage.reset();
    assert.deepEqual(ids(rest), [5]);
    assert.ok(writes.requests > 0);
    assert.deepEqual(Object.keys(reads.byOperation), ['GetItem'], 'the new event came with the task item');
  });

  it('a resume from any version of a task whose log spilled gets exactly the events after it', async () => {
    const record = await running();
    let last = record;
    for (let i = 1; i <= 30; i++) {
      last = (
        await engine.apply(
          record.head,
          { type: 'status_update', progress: i * 3, message: agent(`step ${i} ${'x'.repeat(120)}`) },
          { seen: last },
        )
      ).record;
    }
    last = (await engine.apply(record.head, { type: 'complete', message: agent('done') }, { seen: last }))
      .record;
    const stored = (await store.get(record.head))!;
    assert.ok(stored.recent.length < stored.head.version, 'older events live in history chunks');
    const reader = storeReader(store);
    const all = ids(await collectFrom(reader, stored, 0));
    // created (SUBMITTED), start (WORKING), the 30 reports, complete; confirm (2) changes nothing shown
    const versions = Array.from({ length: stored.head.version }, (_, i) => i + 1);
    assert.deepEqual(
      all,
      versions.filter((v) => v !== 2),
    );
    for (let k = 0; k <= stored.head.version - 1; k++) {
      assert.deepEqual(
        ids(await collectFrom(reader, stored, k)),
        all.filter((v) => v > k),
        `after ${k}`,
      );
    }
  });
});

const collectFrom = async (
  reader: ReturnType<typeof storeReader>,
  record: Parameters<typeof follow>[2],
  after: number,
) => {
  const clock = virtualClock();
  const out: StreamItem[] = [];
  for await (const item of follow(reader, caller, record, after, {
    clock,
    timing: STREAM_TIMING,
    deadline: clock.now() + 10_000,
    lastWrite: clock.now(),
  })) {
    out.push(item);
  }
  return out;
};
