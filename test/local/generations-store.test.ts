/**
 * Generations on the real store (DynamoTaskStore on DynamoDB Local; docs/generations.md): the generation is
 * the task item's version (one more per recorded change, no read or write of its own); a stale
 * ifGenerationMatch writes nothing, also when it loses the race inside the conditional write; the GetTask
 * long poll answers within a poll interval of a change and reads no more than a stream of the task over the
 * same time. Time is virtual (the stream tests' clock): bounds come from the poll schedule, not a wall clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { A2AHandler } from '../../shared/app/a2a/handler.ts';
import { STREAM_TIMING, type StreamClock } from '../../shared/app/a2a/stream.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../shared/app/tasks/task-service.ts';
import { GenerationMismatchError } from '../../shared/domain/errors.ts';
import type { Principal } from '../../shared/domain/principal.ts';
import type { Message } from '../../shared/domain/task.ts';
import type { TaskRecord } from '../../shared/ports/task-store.ts';
import { GENERATIONS_EXTENSION_URI } from '../../shared/protocol/a2a/generations.ts';
import { v1Codec } from '../../shared/protocol/a2a/v1.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';
import { virtualClock } from '../unit/app/a2a/stream-fakes.ts';

let table: TestTable;
let store: DynamoTaskStore;
let engine: TaskEngine;
let service: TaskService;
const principal: Principal = { tenant: 'acme', owner: 'bob', rights: ['read', 'write'], scheme: 'dev' };
const caller = { tenant: principal.tenant, owner: principal.owner };
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
  service = new TaskService(engine);
});
after(() => table.drop());

/** The request activated the generations extension (`A2A-Extensions`): its answers show them. */
const ACTIVATED = [GENERATIONS_EXTENSION_URI];

const handlerWith = (clock?: StreamClock) =>
  new A2AHandler(service, { store, generations: true, ...(clock ? { clock } : {}) });

/** A task that asked its requester a question (INPUT_REQUIRED): it waits, nothing moves it. */
const waiting = async (): Promise<TaskRecord> => {
  const { head } = await engine.create({ ...caller, message: user('work') });
  return (
    await engine.apply(head, [
      { type: 'confirm' },
      { type: 'start' },
      { type: 'need_info', message: agent('which?') },
    ])
  ).record;
};
/** A running task (WORKING), for status updates. */
const running = async (): Promise<TaskRecord> => {
  const { head } = await engine.create({ ...caller, message: user('work') });
  return (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
};

const rawItem = async (taskId: string) =>
  (
    await table.client.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: `T#acme#${taskId}`, sk: 'T' },
        ConsistentRead: true,
      }),
    )
  ).Item;

const generationOf = async (handler: A2AHandler, id: string, extra: { currentGeneration?: number } = {}) => {
  const got = await handler.getTask(
    principal,
    { id, ...extra },
    { waitBudgetMs: 25_000, extensions: ACTIVATED },
  );
  return v1Codec.encodeGetResult(got.view, got.show).generation;
};

describe('generations on DynamoDB Local', () => {
  it('GetTask shows the item version as the generation: one more per recorded change', async () => {
    const handler = handlerWith();
    const record = await running();
    const id = record.head.taskId;
    assert.equal(await generationOf(handler, id), String(record.head.version));
    let seen = record;
    for (let i = 1; i <= 3; i++) {
      seen = (await engine.apply(seen.head, { type: 'status_update', progress: i * 10 }, { seen })).record;
      assert.equal(await generationOf(handler, id), String(record.head.version + i), `after change ${i}`);
    }
    assert.equal((await rawItem(id))?.v, record.head.version + 3, 'nothing but the version it already kept');
  });

  it('a stale ifGenerationMatch is refused before any write: the item and the write count unchanged', async () => {
    const record = await waiting();
    const { taskId, version } = record.head;
    const itemBefore = await rawItem(taskId);
    table.usage.reset();
    await assert.rejects(
      service.continueTask(caller, taskId, user('Paris'), undefined, { ifGenerationMatch: version - 1 }),
      (e: unknown) =>
        e instanceof GenerationMismatchError && e.actual === version && e.expected === version - 1,
    );
    const usage = table.usage.reset();
    assert.equal(usage.writeUnits, 0, JSON.stringify(usage.byOperation));
    assert.deepEqual(Object.keys(usage.byOperation), ['GetItem'], 'one read of the task, nothing written');
    assert.deepEqual(await rawItem(taskId), itemBefore);
  });

  it('a matching one is applied; one that loses the race inside the conditional write writes nothing', async () => {
    const record = await waiting();
    const { taskId, version } = record.head;
    // another writer moves the task after our read (a push config registered): the version condition
    // refuses our write, and the retry finds the winner's version, not the one we wrote against
    const moved = (
      await engine.apply(record.head, { type: 'push_config', data: { set: 'p1' } }, { seen: record })
    ).record;
    const itemAfterWinner = await rawItem(taskId);
    await assert.rejects(
      engine.apply(
        record.head,
        { type: 'info_provided', message: user('Paris') },
        { seen: record, expectVersion: version },
      ),
      (e: unknown) => e instanceof GenerationMismatchError && e.actual === moved.head.version,
    );
    assert.deepEqual(await rawItem(taskId), itemAfterWinner, "the loser's message is nowhere");
    const applied = await service.continueTask(caller, taskId, user('Paris'), undefined, {
      ifGenerationMatch: moved.head.version,
    });
    assert.equal(applied.head.version, moved.head.version + 1);
    assert.equal(applied.head.state, 'info_provided');
  });

  it('the long poll answers at the first poll after a change, within a poll interval, long before its budget', async () => {
    const record = await running();
    const { taskId, version } = record.head;
    const base = virtualClock();
    const start = base.now();
    const changeAt = start + 5_250;
    let changed = false;
    // the change is committed while the poll sleeps across changeAt (virtual time)
    const clock: StreamClock = {
      now: base.now,
      sleep: async (ms, signal) => {
        await base.sleep(ms, signal);
        if (!changed && base.now() >= changeAt) {
          changed = true;
          await engine.apply(record.head, { type: 'status_update', progress: 50 });
        }
      },
    };
    const generation = await generationOf(handlerWith(clock), taskId, { currentGeneration: version });
    const answeredAt = base.now();
    assert.equal(generation, String(version + 1), 'the new generation');
    assert.ok(answeredAt >= changeAt, 'not before the change');
    assert.ok(
      answeredAt - changeAt <= STREAM_TIMING.maxPollMs,
      `${answeredAt - changeAt} ms after the change: at most one poll interval`,
    );
    assert.ok(answeredAt - start < 25_000, 'it did not wait for its budget');
  });

  it('a generation already past currentGeneration, or a finished task, is answered at once (no poll)', async () => {
    const record = await running();
    const clock = virtualClock();
    const handler = handlerWith(clock);
    assert.equal(
      await generationOf(handler, record.head.taskId, { currentGeneration: record.head.version - 1 }),
      String(record.head.version),
    );
    const done = await engine.apply(record.head, { type: 'complete', message: agent('done') });
    assert.equal(
      await generationOf(handler, record.head.taskId, { currentGeneration: done.head.version + 5 }),
      String(done.head.version),
    );
    assert.deepEqual(clock.sleeps, [], 'no wait');
  });

  it('an idle long poll reads no more than a stream of the task over the same minute', async () => {
    const record = await running();
    const id = record.head.taskId;
    const minute = 60_000;

    table.usage.reset();
    const pollClock = virtualClock();
    const got = await handlerWith(pollClock).getTask(
      principal,
      { id, currentGeneration: record.head.version },
      { waitBudgetMs: minute, extensions: ACTIVATED },
    );
    const longPoll = table.usage.reset();
    assert.equal(got.view.head.version, record.head.version, 'nothing changed: the task as it is');
    assert.ok(pollClock.now() - 1_000_000 >= minute, 'it waited its whole budget');

    const streamClock = virtualClock();
    for await (const _ of handlerWith(streamClock).subscribeToTask(principal, { id }, { budgetMs: minute })) {
      // the snapshot, then heartbeats: nothing happens
    }
    const stream = table.usage.reset();

    console.log(
      `reads over an idle minute: long poll ${longPoll.requests} requests / ${longPoll.readUnits} RRU, ` +
        `stream ${stream.requests} requests / ${stream.readUnits} RRU`,
    );
    assert.deepEqual(Object.keys(longPoll.byOperation), ['GetItem'], 'only the task item is read');
    assert.ok(longPoll.readUnits <= stream.readUnits, `${longPoll.readUnits} > ${stream.readUnits}`);
    assert.ok(longPoll.requests <= stream.requests);
    assert.equal(longPoll.writeUnits, 0);
  });
});
