import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { TaskEngine } from '../../shared/app/task-engine.ts';
import {
  ConflictError,
  InvalidTransitionError,
  PayloadTooLargeError,
  TaskNotCancelableError,
  TaskNotFoundError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import { isTerminal } from '../../shared/domain/states.ts';
import type { Message, TaskHead } from '../../shared/domain/task.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

let table: TestTable;
let store: DynamoTaskStore;
let engine: TaskEngine;
const tenant = 'acme';
const owner = 'alice';

const userMessage = (text: string, messageId: string = crypto.randomUUID()): Message => ({
  messageId,
  role: 'user',
  parts: [{ text }],
});
const agentMessage = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});

/** Everything stored under a task's partition, straight from the table. */
const rawItems = async (taskId: string) => {
  const out = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: `TASK#${taskId}` } },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
};
const eventItems = async (taskId: string) =>
  (await rawItems(taskId)).filter((i) => i.sk?.S?.startsWith('EVT#'));

const executingTask = async (): Promise<TaskHead> => {
  const { head } = await engine.create({ tenant, owner, message: userMessage('work') });
  await engine.apply(head, { type: 'confirm' });
  return (await engine.apply(head, { type: 'start' })).head;
};

before(async () => {
  table = await createTestTable();
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
});
after(async () => table.drop());

describe('create and read', () => {
  it('writes a head and one event per transition, and reads them back', async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('hello') });
    assert.equal(head.state, 'pending');
    assert.equal(head.version, 1);
    await engine.apply(head, { type: 'confirm' });
    await engine.apply(head, { type: 'start' });
    await engine.apply(head, { type: 'status_update', progress: 50, message: agentMessage('half way') });
    const view = await store.read(head, { includeArtifacts: true });
    assert.ok(view);
    assert.equal(view.head.state, 'executing');
    assert.equal(view.head.version, 4);
    assert.equal(view.head.progress, 50);
    assert.equal(view.head.statusMessage?.parts[0]?.text, 'half way');
    assert.deepEqual(
      view.history.map((m) => m.parts[0]?.text),
      ['hello', 'half way'],
    );
    assert.equal((await eventItems(head.taskId)).length, 4);
    const events = await store.events(head, 0);
    assert.deepEqual(
      events.map((e) => [e.version, e.type, e.from, e.to]),
      [
        [1, 'created', null, 'pending'],
        [2, 'confirm', 'pending', 'confirmed'],
        [3, 'start', 'confirmed', 'executing'],
        [4, 'status_update', 'executing', 'executing'],
      ],
    );
  });

  it('hides a task from another tenant', async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('secret') });
    assert.equal(await store.getHead({ tenant: 'other', taskId: head.taskId }), undefined);
    assert.equal(await store.read({ tenant: 'other', taskId: head.taskId }, {}), undefined);
    assert.deepEqual(await store.events({ tenant: 'other', taskId: head.taskId }, 0), []);
    await assert.rejects(
      engine.apply({ tenant: 'other', taskId: head.taskId }, { type: 'cancel' }),
      TaskNotFoundError,
    );
  });

  it('reduces artifact chunks: append adds parts, a new chunk without append replaces', async () => {
    const head = await executingTask();
    const chunk = (artifactId: string, text: string, append?: boolean) => ({
      type: 'artifact' as const,
      artifact: { artifact: { artifactId, parts: [{ text }] }, ...(append !== undefined ? { append } : {}) },
    });
    await engine.apply(head, chunk('a', 'one'));
    await engine.apply(head, chunk('b', 'other'));
    await engine.apply(head, chunk('a', 'two', true));
    await engine.apply(head, chunk('b', 'replaced'));
    const view = await store.read(head, { includeArtifacts: true, historyLength: 0 });
    assert.deepEqual(view?.artifacts, [
      { artifactId: 'a', parts: [{ text: 'one' }, { text: 'two' }] },
      { artifactId: 'b', parts: [{ text: 'replaced' }] },
    ]);
    assert.deepEqual(view?.history, []);
  });
});

describe('bad input changes nothing', () => {
  it('refuses malformed events, unknown event types and unknown states with typed errors', async () => {
    const head = await executingTask();
    const before = await eventItems(head.taskId);
    const bad: unknown[] = [
      { type: 'teleport' },
      { type: 'status_update', progress: 101 },
      { type: 'status_update', message: { messageId: 'x', role: 'robot', parts: [{ text: 'hi' }] } },
      { type: 'status_update', message: { messageId: 'x', role: 'agent', parts: [] } },
      { type: 'artifact' },
      { type: 'status_update', unexpected: true },
      'not an object',
    ];
    for (const draft of bad)
      await assert.rejects(engine.apply(head, draft), ValidationError, JSON.stringify(draft));
    await assert.rejects(
      engine.create({ tenant, owner, initialState: 'executing' as 'pending', message: userMessage('x') }),
      ValidationError,
    );
    await assert.rejects(
      engine.create({ tenant: 'bad#tenant', owner, message: userMessage('x') }),
      ValidationError,
    );
    assert.deepEqual(await eventItems(head.taskId), before);
    assert.equal((await store.getHead(head))?.version, head.version);
  });

  it('refuses oversized payloads naming the limit, and writes nothing', async () => {
    const head = await executingTask();
    const big = 'x'.repeat(70 * 1024);
    await assert.rejects(
      engine.apply(head, {
        type: 'artifact',
        artifact: { artifact: { artifactId: 'big', parts: [{ text: big }] } },
      }),
      (e: unknown) =>
        e instanceof PayloadTooLargeError && e.limitBytes === 65536 && /65536 bytes/.test(e.message),
    );
    await assert.rejects(
      engine.apply(head, { type: 'status_update', message: agentMessage('y'.repeat(9 * 1024)) }),
      (e: unknown) => e instanceof PayloadTooLargeError && e.limitBytes === 8192,
    );
    const owner2 = `big-${crypto.randomUUID()}`;
    await assert.rejects(
      engine.create({ tenant, owner: owner2, message: userMessage(big) }),
      PayloadTooLargeError,
    );
    assert.equal((await store.list({ tenant, owner: owner2, pageSize: 10 })).totalSize, 0);
    assert.equal((await eventItems(head.taskId)).length, head.version);
  });

  it('refuses transitions the table does not allow, and terminal tasks never change', async () => {
    const head = await executingTask();
    await assert.rejects(engine.apply(head, { type: 'confirm' }), InvalidTransitionError);
    await engine.apply(head, { type: 'complete' });
    await assert.rejects(engine.apply(head, { type: 'cancel' }), TaskNotCancelableError);
    await assert.rejects(engine.apply(head, { type: 'status_update', progress: 1 }), InvalidTransitionError);
    const stored = await store.getHead(head);
    assert.equal(stored?.state, 'completed');
    assert.equal(stored?.version, 4);
    assert.equal((await eventItems(head.taskId)).length, 4);
  });
});

describe('races', () => {
  const TRIALS = 200;
  const WRITERS = 20;
  const KINDS = ['cancel', 'complete', 'fail', 'status_update', 'status_update'] as const;

  it(`${WRITERS} concurrent writers x ${TRIALS} trials: one terminal state wins, no event lost or duplicated`, async () => {
    let conflictsGivenUp = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const head = await executingTask();
      const writers = Array.from({ length: WRITERS }, () => KINDS[Math.floor(Math.random() * KINDS.length)]!);
      if (!writers.some((k) => k !== 'status_update')) writers[0] = 'cancel';
      const results = await Promise.allSettled(
        writers.map(async (type) => {
          await new Promise((r) => setTimeout(r, Math.random() * 3));
          return engine.apply(head, type === 'status_update' ? { type, progress: trial % 100 } : { type });
        }),
      );
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      for (const r of results) {
        if (r.status === 'rejected') {
          if (r.reason instanceof ConflictError) conflictsGivenUp++;
          else assert.ok(r.reason instanceof InvalidTransitionError, String(r.reason));
        }
      }
      const terminalWins = won.filter((w) => isTerminal(w.head.state));
      assert.equal(terminalWins.length, 1, `trial ${trial}: exactly one terminal write wins`);

      const final = await store.getHead(head);
      assert.ok(final);
      assert.equal(final.state, terminalWins[0]!.head.state);
      const stored = await store.events(head, 0);
      assert.equal(stored.length, final.version, 'head version equals the number of event items');
      assert.deepEqual(
        stored.map((e) => e.version),
        Array.from({ length: final.version }, (_, i) => i + 1),
        'versions are contiguous: nothing lost',
      );
      // every successful write is stored exactly once, as what it claimed to be
      const byVersion = new Map(stored.map((e) => [e.version, e]));
      assert.equal(new Set(won.map((w) => w.event?.version)).size, won.length, 'no version written twice');
      for (const w of won) assert.equal(byVersion.get(w.event!.version)?.type, w.event!.type);
      assert.equal(stored.length, 3 + won.length, 'only successful writes left events');
      // the terminal event is the last one: nothing changed after it
      assert.ok(isTerminal(stored[stored.length - 1]!.to));
      assert.equal(stored.filter((e) => isTerminal(e.to)).length, 1);
    }
    // writers that gave up are allowed, but they must be rare
    assert.ok(conflictsGivenUp < TRIALS * WRITERS * 0.05, `gave up ${conflictsGivenUp} times`);
  });
});

describe('duplicates', () => {
  it('message ids of any length and script make valid keys', async () => {
    const message = userMessage('long id', '消'.repeat(256));
    const first = await engine.create({ tenant, owner, message, dedupScope: '送'.repeat(256) });
    const again = await engine.create({ tenant, owner, message, dedupScope: '送'.repeat(256) });
    assert.equal(again.duplicate, true);
    assert.equal(again.head.taskId, first.head.taskId);
  });

  it('the same id sent to another context is not a duplicate of the first', async () => {
    const message = userMessage('hello', crypto.randomUUID());
    await engine.create({
      tenant,
      owner,
      message: { ...message, contextId: 'ctx-a' },
      contextId: 'ctx-a',
      dedupScope: owner,
    });
    await assert.rejects(
      engine.create({
        tenant,
        owner,
        message: { ...message, contextId: 'ctx-b' },
        contextId: 'ctx-b',
        dedupScope: owner,
      }),
      ValidationError,
    );
  });

  it('a duplicate message id creates one task and returns the same result', async () => {
    const message = userMessage('once', `m-${crypto.randomUUID()}`);
    const owner3 = `dup-${crypto.randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => engine.create({ tenant, owner: owner3, message, dedupScope: owner3 })),
    );
    const ids = new Set(results.map((r) => r.head.taskId));
    assert.equal(ids.size, 1);
    assert.equal(results.filter((r) => !r.duplicate).length, 1);
    const list = await store.list({ tenant, owner: owner3, pageSize: 50 });
    assert.equal(list.totalSize, 1);
    // the same id from another sender is a different message
    const other = await engine.create({ tenant, owner: owner3, message, dedupScope: 'someone-else' });
    assert.equal(other.duplicate, false);
  });

  it('a duplicate continuation applies once', async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('slow') });
    await engine.apply(head, { type: 'need_info', message: agentMessage('how long?') });
    const answer = userMessage('5');
    const first = await engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner });
    // the task is no longer info_needed, so the event itself would be refused: the message id says it is a retry
    const again = await engine.apply(
      { tenant, taskId: head.taskId },
      { type: 'info_provided', message: answer },
      { dedupScope: owner },
    );
    assert.equal(first.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.equal(again.head.version, 3);
    assert.equal((await store.getHead(head))?.version, 3);
    assert.equal(
      (await store.findDedup({ tenant, scope: owner, messageId: answer.messageId }))?.taskId,
      head.taskId,
    );
    // the same id for a message that is not a retry of it is refused
    await assert.rejects(
      engine.apply(
        head,
        { type: 'status_update', message: { ...answer, parts: [{ text: 'other' }] } },
        { dedupScope: owner },
      ),
      ValidationError,
    );
  });

  it('concurrent duplicate continuations: one applies, the others are answered as duplicates', async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('ask') });
    await engine.apply(head, { type: 'need_info', message: agentMessage('question?') });
    const answer = userMessage('42');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner }),
      ),
    );
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value.duplicate : String(r.reason))),
      results.map((_, i) => i !== results.findIndex((r) => r.status === 'fulfilled' && !r.value.duplicate)),
      'every call succeeds; exactly one is not a duplicate',
    );
    const events = await store.events(head, 0);
    assert.equal(events.filter((e) => e.type === 'info_provided').length, 1);
  });
});

describe('outbox', () => {
  it('writes outbox items in the transition transaction, and none when the transition loses', async () => {
    const head = await executingTask();
    const outboxCount = async (id: string) => {
      let n = 0;
      for (let shard = 0; shard < 8; shard++) {
        const out = await table.client.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'id = :id',
            ExpressionAttributeValues: { ':pk': { S: `OUTBOX#${shard}` }, ':id': { S: id } },
          }),
        );
        n += out.Count ?? 0;
      }
      return n;
    };
    const okId = crypto.randomUUID();
    await engine.apply(
      head,
      { type: 'complete' },
      { outbox: [{ id: okId, kind: 'push', payload: { a: 1 } }] },
    );
    assert.equal(await outboxCount(okId), 1);
    const lostId = crypto.randomUUID();
    await assert.rejects(
      store.append({
        seen: head, // stale: version moved on
        next: { ...head, version: head.version + 1 },
        event: {
          taskId: head.taskId,
          tenant,
          version: head.version + 1,
          type: 'cancel',
          from: 'executing',
          to: 'cancelled',
          at: new Date().toISOString(),
        },
        allowedFrom: ['executing'],
        outbox: [{ id: lostId, kind: 'push', payload: {} }],
      }),
    );
    assert.equal(await outboxCount(lostId), 0);
  });
});

describe('listing', () => {
  it('lists by owner and by context, newest status first, with filters, pages and totals', async () => {
    const lister = `list-${crypto.randomUUID()}`;
    const contextId = crypto.randomUUID();
    const created: TaskHead[] = [];
    for (let i = 0; i < 7; i++) {
      const { head } = await engine.create({
        tenant,
        owner: lister,
        message: userMessage(`t${i}`),
        ...(i < 4 ? { contextId } : {}),
      });
      created.push(head);
      await new Promise((r) => setTimeout(r, 3));
    }
    await engine.apply(created[1]!, { type: 'cancel' });

    const all = await store.list({ tenant, owner: lister, pageSize: 3 });
    assert.equal(all.totalSize, 7);
    assert.equal(all.heads.length, 3);
    assert.equal(all.heads[0]?.taskId, created[1]!.taskId, 'the canceled task has the newest status');
    const seen = [...all.heads];
    let token = all.nextPageToken;
    while (token) {
      const page = await store.list({ tenant, owner: lister, pageSize: 3, pageToken: token });
      seen.push(...page.heads);
      token = page.nextPageToken;
    }
    assert.equal(seen.length, 7);
    assert.equal(new Set(seen.map((h) => h.taskId)).size, 7);

    const inContext = await store.list({ tenant, owner: lister, contextId, pageSize: 10 });
    assert.equal(inContext.totalSize, 4);
    assert.equal(inContext.nextPageToken, '');
    assert.ok(inContext.heads.every((h) => h.contextId === contextId));

    const canceled = await store.list({ tenant, owner: lister, states: ['cancelled'], pageSize: 10 });
    assert.deepEqual(
      canceled.heads.map((h) => h.taskId),
      [created[1]!.taskId],
    );
    assert.equal(canceled.totalSize, 1);

    const recent = await store.list({
      tenant,
      owner: lister,
      statusAfter: created[5]!.statusAt,
      pageSize: 10,
    });
    assert.deepEqual(
      new Set(recent.heads.map((h) => h.taskId)),
      new Set([created[1]!.taskId, created[5]!.taskId, created[6]!.taskId]),
    );

    const stranger = await store.list({ tenant, owner: 'mallory', contextId, pageSize: 10 });
    assert.equal(stranger.totalSize, 0);
  });

  it('refuses a page token that was not issued for the query', async () => {
    const forged = Buffer.from(
      JSON.stringify({ pk: 'TASK#x', sk: 'HEAD', ownerPk: 'other#bob', statusSk: 'z' }),
    ).toString('base64url');
    await assert.rejects(store.list({ tenant, owner, pageSize: 5, pageToken: forged }), ValidationError);
    await assert.rejects(store.list({ tenant, owner, pageSize: 5, pageToken: '%%%' }), ValidationError);
  });
});

describe('cost does not grow with history', () => {
  it('reads the last N messages of a 1,000-event task with one query, and a transition costs the same', async () => {
    const fresh = await executingTask();
    const long = await executingTask();
    for (let i = 0; i < 997; i++) {
      await engine.apply(long, { type: 'status_update', message: agentMessage(`step ${i}`) });
    }
    assert.equal((await store.getHead(long))?.version, 1000);

    table.usage.reset();
    const view = await store.read(long, { historyLength: 5 });
    const read = table.usage.reset();
    assert.deepEqual(
      view?.history.map((m) => m.parts[0]?.text),
      ['step 992', 'step 993', 'step 994', 'step 995', 'step 996'],
    );
    assert.equal(read.byOperation.Query, 1, 'one query for the last N messages');
    assert.equal(read.roundTrips, 1, 'head and messages are read in parallel');

    await store.read(fresh, { historyLength: 5 });
    const freshRead = table.usage.reset();
    assert.equal(read.readUnits, freshRead.readUnits, 'reading the last 5 costs the same at 1,000 events');

    await engine.apply(fresh, { type: 'status_update', message: agentMessage('x') });
    const freshWrite = table.usage.reset();
    await engine.apply(long, { type: 'status_update', message: agentMessage('x') });
    const longWrite = table.usage.reset();
    assert.ok(freshWrite.writeUnits > 0);
    assert.equal(longWrite.writeUnits, freshWrite.writeUnits, 'a transition costs the same at 1,000 events');
  });
});
