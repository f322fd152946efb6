/**
 * The DynamoDB store and the engine on DynamoDB Local. The TaskStore port's contract runs here on
 * DynamoTaskStore (test/contract/task-store.ts; the in-memory twin runs it in the unit suite); what follows
 * it is what only DynamoDB has: what a task's items look like (one item, its tenant's partition, the
 * sparse deadline index and TTL), bad input leaving the items exactly as they were, item sizes, large
 * payloads in body items and spilled history, index shards, and what each operation costs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemSize } from '../../../../shared/adapters/dynamodb/item-size.ts';
import { taskPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import { CONTEXT_SHARDS, OWNER_SHARDS } from '../../../../shared/adapters/dynamodb/table.ts';
import { ITEM_TARGET_BYTES } from '../../../../shared/adapters/dynamodb/task-codec.ts';
import { DynamoTaskStore, pageTokenBinding } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import {
  PayloadTooLargeError,
  TaskNotFoundError,
  ValidationError,
} from '../../../../shared/domain/errors.ts';
import type { Message, TaskHead } from '../../../../shared/domain/task.ts';
import type { TaskRecord } from '../../../../shared/ports/task-store.ts';
import { taskStoreContract } from '../../../contract/task-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';
import { recordRequestedKeys } from '../../../support/requested-keys.ts';

let table: TestTable;
let doc: DynamoDBDocumentClient;
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

/** Every item stored under a task's partition (`T#<tenant>#<taskId>`), straight from the table. */
const rawItems = async (taskId: string, of = tenant) =>
  (
    await doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': taskPk(of, taskId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];
const taskItem = async (taskId: string, of = tenant) =>
  (
    await doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: taskPk(of, taskId), sk: 'T' },
        ConsistentRead: true,
      }),
    )
  ).Item;
const allEvents = async (head: Pick<TaskHead, 'tenant' | 'taskId'>) => {
  const record = await store.get(head);
  assert.ok(record);
  return store.events(record, 0);
};

const executingTask = async (who = owner): Promise<TaskRecord> => {
  const { head } = await engine.create({ tenant, owner: who, message: userMessage('work') });
  return (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
};

before(async () => {
  table = await createTestTable();
  doc = DynamoDBDocumentClient.from(table.client);
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
});
after(async () => table.drop());

taskStoreContract('DynamoDB', { make: () => store });

describe('create, transitions and reads', () => {
  it('keeps a small task in one item, one conditional put per write, events in order', async () => {
    table.usage.reset();
    const { head } = await engine.create({ tenant, owner, message: userMessage('hello') });
    assert.equal(head.state, 'pending');
    assert.equal(head.version, 1);
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    await engine.apply(head, { type: 'status_update', progress: 50, message: agentMessage('half way') });
    const usage = table.usage.reset();
    assert.equal(usage.byOperation.PutItem, 3, 'one put per write, the claim (two events) included');
    assert.equal(usage.byOperation.TransactWriteItems, undefined);

    const items = await rawItems(head.taskId);
    assert.deepEqual(
      items.map((i) => [i.pk, i.sk]),
      [[`T#acme#${head.taskId}`, 'T']],
      "a small task is one item, in its tenant's partition",
    );
    const record = await store.get(head);
    assert.ok(record);
    const view = await store.view(record, { includeArtifacts: true });
    assert.equal(view.head.state, 'executing');
    assert.equal(view.head.progress, 50);
    assert.equal(view.head.statusMessage?.parts[0]?.text, 'half way');
    assert.deepEqual(
      view.history.map((m) => m.parts[0]?.text),
      ['hello', 'half way'],
    );
    assert.deepEqual(
      (await allEvents(head)).map((e) => [e.version, e.type, e.from, e.to]),
      [
        [1, 'created', null, 'pending'],
        [2, 'confirm', 'pending', 'confirmed'],
        [3, 'start', 'confirmed', 'executing'],
        [4, 'status_update', 'executing', 'executing'],
      ],
    );
  });

  it('reads a small task in one round trip: the record holds its history and artifacts', async () => {
    const record = await executingTask();
    await engine.apply(record.head, [
      { type: 'artifact', artifact: { artifact: { artifactId: 'a', parts: [{ text: 'out' }] } } },
      { type: 'complete', message: agentMessage('done') },
    ]);
    table.usage.reset();
    const read = await store.get(record.head);
    assert.ok(read);
    const view = await store.view(read, { includeArtifacts: true, historyLength: 100 });
    const usage = table.usage.reset();
    assert.equal(usage.requests, 1, 'one GetItem, nothing else');
    assert.equal(usage.readUnits, 1);
    assert.deepEqual(view.artifacts, [{ artifactId: 'a', parts: [{ text: 'out' }] }]);
    assert.equal(view.head.state, 'completed');
  });

  it('gives every task a deadline, keeps live tasks in the sparse deadline index, and finished ones under TTL', async () => {
    const { head } = await executingTask();
    const live = await taskItem(head.taskId);
    assert.ok(live?.dl && live.dp, 'a live task is in the deadline index');
    assert.equal(live?.ttl, undefined, 'TTL never applies to a live task');
    await engine.apply(head, { type: 'complete' });
    const done = await taskItem(head.taskId);
    assert.equal(done?.dp, undefined, 'a finished task leaves the deadline index');
    const retention = 30 * 86_400;
    assert.ok(Number(done?.ttl) >= Math.floor(Date.parse(String(done?.dl)) / 1000) + retention - 1);
  });
});

describe('bad input changes nothing', () => {
  it('refuses malformed events, unknown types and unknown states with typed errors', async () => {
    const { head } = await executingTask();
    const before = await taskItem(head.taskId);
    const bad: unknown[] = [
      { type: 'teleport' },
      { type: 'status_update', progress: 101 },
      { type: 'status_update', message: { messageId: 'x', role: 'robot', parts: [{ text: 'hi' }] } },
      { type: 'status_update', message: { messageId: 'x', role: 'agent', parts: [] } },
      { type: 'artifact' },
      { type: 'status_update', unexpected: true },
      'not an object',
      [{ type: 'status_update', progress: 1 }, { type: 'teleport' }],
      [],
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
    assert.deepEqual(await taskItem(head.taskId), before);
  });

  it('refuses oversized payloads naming the limit, and writes nothing', async () => {
    const { head } = await executingTask();
    const before = await rawItems(head.taskId);
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
    assert.deepEqual(await rawItems(head.taskId), before);
  });

  it('refuses an inline file beyond the limit, naming the limit and the way out (a url part), and writes nothing', async () => {
    const { head } = await executingTask();
    const before = await rawItems(head.taskId);
    const raw = Buffer.alloc(60 * 1024, 7).toString('base64'); // 80 KB of base64
    const withFile = {
      ...userMessage('see attached'),
      parts: [{ text: 'see attached' }, { raw, mediaType: 'image/png' }],
    };
    const inlineFileRefusal = (e: unknown) =>
      e instanceof PayloadTooLargeError &&
      e.limitBytes === 65536 &&
      /limit is 65536 bytes: inline file bytes .* url part/.test(e.message);
    const owner2 = `file-${crypto.randomUUID()}`;
    await assert.rejects(engine.create({ tenant, owner: owner2, message: withFile }), inlineFileRefusal);
    await assert.rejects(
      engine.apply(head, {
        type: 'artifact',
        artifact: { artifact: { artifactId: 'scan', parts: [{ raw, mediaType: 'image/png' }] } },
      }),
      inlineFileRefusal,
    );
    // the same bytes of text are refused without the file hint
    await assert.rejects(
      engine.create({ tenant, owner: owner2, message: userMessage(raw) }),
      (e: unknown) => e instanceof PayloadTooLargeError && !/url part/.test(e.message),
    );
    assert.equal((await store.list({ tenant, owner: owner2, pageSize: 10 })).totalSize, 0);
    assert.deepEqual(await rawItems(head.taskId), before);
  });

  it('keeps every item under 400 KB: large event data is refused, and so is a write whose events would pass the item limit', async () => {
    const { head } = await executingTask();
    const before = await rawItems(head.taskId);
    await assert.rejects(
      engine.apply(head, { type: 'status_update', data: { notes: 'n'.repeat(9 * 1024) } }),
      (e: unknown) => e instanceof PayloadTooLargeError && e.limitBytes === 8192,
    );
    // 25 events each with the most data and reason an event may carry: about 400 KB if kept together
    const heavy = Array.from({ length: 25 }, (_, i) => ({
      type: 'status_update',
      progress: i,
      data: { notes: 'd'.repeat(8000) },
      reason: { code: 'progress', message: 'm'.repeat(4096), details: { more: 'r'.repeat(4000) } },
    }));
    await assert.rejects(
      engine.apply(head, heavy),
      (e: unknown) => e instanceof PayloadTooLargeError && /one write/.test(e.message),
    );
    assert.deepEqual(await rawItems(head.taskId), before, 'nothing was written');
    // the same events one write at a time are fine: the log spills, the item stays small
    for (const event of heavy.slice(0, 5)) await engine.apply(head, event);
    const item = await taskItem(head.taskId);
    assert.ok(item && itemSize(item) < 64 * 1024);
  });
});

describe('duplicates', () => {
  it('a retried create returns the same task for one write unit and no read', async () => {
    const message = userMessage('once', `m-${crypto.randomUUID()}`);
    const first = await engine.create({ tenant, owner, message, dedupScope: owner });
    table.usage.reset();
    const again = await engine.create({ tenant, owner, message, dedupScope: owner });
    const usage = table.usage.reset();
    assert.equal(again.duplicate, true);
    assert.equal(again.head.taskId, first.head.taskId);
    assert.equal(again.head.version, 1);
    assert.equal(usage.failedConditions, 1);
    assert.equal(usage.writeUnits, 1, 'a refused put of a small item: one write unit');
    assert.equal(usage.readUnits, 0, 'the existing task comes back with the refusal');
  });
});

describe('large payloads and long histories', () => {
  it('keeps a large status message in a body item: the task item stays small', async () => {
    const { head } = await executingTask();
    const text = 'y'.repeat(6000);
    table.usage.reset();
    const { record } = await engine.apply(head, { type: 'status_update', message: agentMessage(text) });
    const usage = table.usage.reset();
    assert.ok(usage.writeUnits <= 10, `a 6,000-character status update costs ${usage.writeUnits} WRU`);
    const item = await taskItem(head.taskId);
    assert.ok(itemSize(item!) <= ITEM_TARGET_BYTES, 'the task item stays within one write unit');
    assert.ok(
      (await rawItems(head.taskId)).some((i) => String(i.sk).startsWith('B#')),
      'a body item holds it',
    );
    // the record written holds it; a fresh read resolves it from the body
    const textOf = (m: Message | undefined) => m?.parts[0]?.text;
    assert.ok(textOf(record.head.statusMessage) === text, 'the record written holds it');
    const view = await store.view((await store.get(head))!, { historyLength: 1 });
    assert.ok(textOf(view.head.statusMessage) === text, 'a fresh read resolves it from the body');
    assert.ok(textOf(view.history[0]) === text, 'and so does the history');
    const listed = await store.list({ tenant, owner, states: ['executing'], pageSize: 100 });
    assert.ok(
      textOf(listed.tasks.find((t) => t.taskId === head.taskId)?.statusMessage) === text,
      'a list shows it',
    );
  });

  it('spills older events into history chunks: bounded item, same cost at 100 and 1,000 events, nothing lost', async () => {
    let mid = await executingTask();
    for (let i = 0; i < 97; i++)
      mid = (
        await engine.apply(
          mid.head,
          { type: 'status_update', message: agentMessage(`m ${i}`) },
          { seen: mid },
        )
      ).record;
    let long = await executingTask();
    let maxItem = 0;
    for (let i = 0; i < 997; i++) {
      long = (
        await engine.apply(
          long.head,
          { type: 'status_update', message: agentMessage(`step ${i}`) },
          { seen: long },
        )
      ).record;
      if (i % 50 === 0) maxItem = Math.max(maxItem, itemSize((await taskItem(long.head.taskId))!));
    }
    assert.equal(long.head.version, 1000);
    assert.ok(
      maxItem <= ITEM_TARGET_BYTES,
      `the task item stays at most ${ITEM_TARGET_BYTES} bytes (${maxItem})`,
    );
    const kinds = new Set((await rawItems(long.head.taskId)).map((i) => String(i.sk)[0]));
    assert.ok(kinds.has('M') && kinds.has('S'), 'message and status chunks were written');

    table.usage.reset();
    const view = await store.view((await store.get(long.head))!, { historyLength: 5 });
    const read = table.usage.reset();
    assert.deepEqual(
      view.history.map((m) => m.parts[0]?.text),
      ['step 992', 'step 993', 'step 994', 'step 995', 'step 996'],
    );
    assert.ok((read.byOperation.Query ?? 0) <= 1, 'at most one query for the last N messages');

    // the same run of 20 transitions costs the same at 100 and at 1,000 events (spills included)
    const cost = async (start: TaskRecord) => {
      let r = start;
      const units: number[] = [];
      for (let i = 0; i < 20; i++) {
        table.usage.reset();
        r = (
          await engine.apply(r.head, { type: 'status_update', message: agentMessage(`s${i}`) }, { seen: r })
        ).record;
        units.push(table.usage.reset().writeUnits);
      }
      return units;
    };
    const midUnits = await cost(mid);
    const longUnits = await cost(long);
    assert.equal(Math.max(...longUnits), Math.max(...midUnits), 'the dearest transition costs the same');
    assert.ok(
      Math.abs(longUnits.reduce((a, b) => a + b) - midUnits.reduce((a, b) => a + b)) <= 1,
      `20 transitions cost the same at 1,000 events: ${longUnits} vs ${midUnits}`,
    );

    const events = await store.events((await store.get(long.head))!, 0);
    assert.deepEqual(
      events.map((e) => e.version),
      Array.from({ length: 1020 }, (_, i) => i + 1),
    );
    const after = await store.events((await store.get(long.head))!, 500, 3);
    assert.deepEqual(
      after.map((e) => [e.version, e.message?.parts[0]?.text]),
      [
        [501, 'step 497'],
        [502, 'step 498'],
        [503, 'step 499'],
      ],
    );
  });

  it('keeps large artifacts in body items and reduces them with the spilled ones', async () => {
    let record = await executingTask();
    const big = 'z'.repeat(3000);
    for (let i = 0; i < 12; i++) {
      record = (
        await engine.apply(
          record.head,
          {
            type: 'artifact',
            artifact: {
              artifact: { artifactId: 'doc', parts: [{ text: i % 2 ? big : `part ${i}` }] },
              append: i > 0,
            },
          },
          { seen: record },
        )
      ).record;
    }
    const view = await store.view((await store.get(record.head))!, {
      includeArtifacts: true,
      historyLength: 0,
    });
    assert.equal(view.artifacts.length, 1);
    assert.equal(view.artifacts[0]?.parts.length, 12);
    assert.deepEqual(
      view.artifacts[0]?.parts.map((p) => (p.text === big ? 'big' : p.text)),
      Array.from({ length: 12 }, (_, i) => (i % 2 ? 'big' : `part ${i}`)),
    );
    assert.ok(itemSize((await taskItem(record.head.taskId))!) <= ITEM_TARGET_BYTES);
  });
});

describe('listing', () => {
  it('lists by owner newest status first across states, with filters, pages and totals', async () => {
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
    await engine.apply(created[3]!, [{ type: 'confirm' }, { type: 'start' }]);

    const all = await store.list({ tenant, owner: lister, pageSize: 3 });
    assert.equal(all.totalSize, 4, 'before the last page, totalSize is a lower bound: these 3 and more');
    assert.equal(all.tasks.length, 3);
    assert.deepEqual(
      all.tasks.slice(0, 2).map((t) => t.taskId),
      [created[3]!.taskId, created[1]!.taskId],
      'the latest status changes come first, whatever their state',
    );
    const seen = [...all.tasks];
    let token = all.nextPageToken;
    let lastTotal = all.totalSize;
    while (token) {
      const page = await store.list({ tenant, owner: lister, pageSize: 3, pageToken: token });
      seen.push(...page.tasks);
      token = page.nextPageToken;
      lastTotal = page.totalSize;
    }
    assert.equal(seen.length, 7);
    assert.equal(lastTotal, 7, 'the last page counts them all');
    assert.equal(new Set(seen.map((h) => h.taskId)).size, 7);
    const times = seen.map((t) => t.statusAt);
    assert.deepEqual(times, [...times].sort().reverse(), 'pages continue in order');

    table.usage.reset();
    const canceled = await store.list({ tenant, owner: lister, states: ['cancelled'], pageSize: 10 });
    const filtered = table.usage.reset();
    assert.deepEqual(
      canceled.tasks.map((h) => h.taskId),
      [created[1]!.taskId],
    );
    assert.equal(canceled.totalSize, 1);
    assert.equal(filtered.byOperation.Query, OWNER_SHARDS, "a status filter reads that state's shards");
    assert.equal(filtered.roundTrips, 1, 'in parallel');
    assert.equal(filtered.byOperation['Query(COUNT)'], undefined, 'and counts nothing');

    const recent = await store.list({
      tenant,
      owner: lister,
      statusAfter: created[5]!.statusAt,
      pageSize: 10,
    });
    assert.deepEqual(
      new Set(recent.tasks.map((h) => h.taskId)),
      new Set([created[1]!.taskId, created[3]!.taskId, created[5]!.taskId, created[6]!.taskId]),
    );

    const inContext = await store.list({ tenant, owner: lister, contextId, pageSize: 10 });
    assert.equal(inContext.totalSize, 4);
    assert.equal(inContext.nextPageToken, '');
    assert.ok(inContext.tasks.every((h) => h.contextId === contextId));
    const workingInContext = await store.list({
      tenant,
      owner: lister,
      contextId,
      states: ['executing'],
      pageSize: 10,
    });
    assert.deepEqual(
      workingInContext.tasks.map((t) => t.taskId),
      [created[3]!.taskId],
    );

    const stranger = await store.list({ tenant, owner: 'mallory', contextId, pageSize: 10 });
    assert.equal(stranger.totalSize, 0);
    assert.equal(stranger.tasks.length, 0);
  });

  it('a status-filtered page is one query however many tasks of other states there are', async () => {
    const lister = `busy-${crypto.randomUUID()}`;
    for (let i = 0; i < 60; i++)
      await engine.create({ tenant, owner: lister, message: userMessage(`n${i}`) });
    const { head } = await engine.create({ tenant, owner: lister, message: userMessage('the one') });
    await engine.apply(head, { type: 'cancel' });
    table.usage.reset();
    const page = await store.list({ tenant, owner: lister, states: ['cancelled'], pageSize: 1 });
    const usage = table.usage.reset();
    assert.equal(usage.byOperation.Query, OWNER_SHARDS);
    assert.equal(usage.roundTrips, 1);
    assert.deepEqual(
      page.tasks.map((t) => t.taskId),
      [head.taskId],
    );
  });

  it('pages through a context spread over its shards in creation order, newest first, none lost or repeated', async () => {
    const lister = `ctx-${crypto.randomUUID()}`;
    const contextId = crypto.randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) {
      ids.push(
        (await engine.create({ tenant, owner: lister, contextId, message: userMessage(`c${i}`) })).head
          .taskId,
      );
      await new Promise((r) => setTimeout(r, 2));
    }
    const seen: string[] = [];
    let token = '';
    let total = 0;
    do {
      table.usage.reset();
      const page = await store.list({
        tenant,
        owner: lister,
        contextId,
        pageSize: 2,
        ...(token ? { pageToken: token } : {}),
      });
      const usage = table.usage.reset();
      assert.equal(usage.byOperation.Query, CONTEXT_SHARDS, 'every shard of the context, in parallel');
      seen.push(...page.tasks.map((t) => t.taskId));
      token = page.nextPageToken;
      total = page.totalSize;
    } while (token);
    assert.deepEqual(seen, [...ids].reverse());
    assert.equal(total, 9);
  });

  it('a well-formed position before statusTimestampAfter is an empty page, not a DynamoDB error', async () => {
    const query = { tenant, owner, pageSize: 5, statusAfter: '2020-01-01T00:00:00.000Z' };
    // made up, but bound to this query as a token of this server would be
    const early = Buffer.from(
      JSON.stringify({
        at: `2000-01-01T00:00:00.000Z#${crypto.randomUUID()}`,
        n: 5,
        q: pageTokenBinding(query),
      }),
    ).toString('base64url');
    const page = await store.list({ ...query, pageToken: early });
    assert.deepEqual([page.tasks, page.nextPageToken], [[], '']);
  });
});

describe('tenant isolation in the key', () => {
  // B's name starts with A's, its keys do not: the tenant ends at the next '#' (`T#acme.rival#…`)
  const A = tenant;
  const B = `${tenant}.rival`;
  const aPrefix = `T#${A}#`;

  it('tasks of two tenants under the same task id coexist, and each tenant reads only its own', async () => {
    const who = `twins-${crypto.randomUUID()}`;
    const taskId = crypto.randomUUID();
    const a = await engine.create({ tenant: A, owner: who, message: userMessage('for A') }, taskId);
    const b = await engine.create({ tenant: B, owner: who, message: userMessage('for B') }, taskId);
    assert.deepEqual(
      [a.duplicate, b.duplicate],
      [false, false],
      'two tasks, neither a duplicate of the other',
    );
    assert.equal(a.head.taskId, b.head.taskId);
    await engine.apply({ tenant: B, taskId }, { type: 'cancel' });

    assert.equal((await taskItem(taskId, A))?.pk, `T#acme#${taskId}`);
    assert.equal((await taskItem(taskId, B))?.pk, `T#acme.rival#${taskId}`);
    const readA = await store.get({ tenant: A, taskId });
    const readB = await store.get({ tenant: B, taskId });
    assert.ok(readA && readB);
    assert.deepEqual([readA.head.tenant, readA.head.state], [A, 'pending'], "B's cancel left A's task alone");
    assert.deepEqual([readB.head.tenant, readB.head.state], [B, 'cancelled']);
    const text = async (r: TaskRecord) => (await store.view(r, {})).history.map((m) => m.parts[0]?.text);
    assert.deepEqual(await text(readA), ['for A']);
    assert.deepEqual(await text(readB), ['for B']);
    assert.deepEqual(
      (await allEvents({ tenant: A, taskId })).map((e) => [e.tenant, e.type]),
      [[A, 'created']],
    );
    const listed = async (t: string) =>
      (await store.list({ tenant: t, owner: who, pageSize: 10 })).tasks.map((s) => [s.tenant, s.state]);
    assert.deepEqual(await listed(A), [[A, 'pending']]);
    assert.deepEqual(await listed(B), [[B, 'cancelled']]);
  });

  it("a guessed task id of another tenant answers not-found as a missing one does, and reads none of that tenant's items", async () => {
    const who = `guess-${crypto.randomUUID()}`;
    // B's task, with a large status message (a body item) and a long history (chunks) in its partition
    const theirs = (await engine.create({ tenant: B, owner: who, message: userMessage('B secret') })).head;
    await engine.apply(theirs, [{ type: 'confirm' }, { type: 'start' }]);
    for (let i = 0; i < 15; i++)
      await engine.apply(theirs, {
        type: 'status_update',
        message: agentMessage(`B ${i} ${'x'.repeat(200)}`),
      });
    await engine.apply(theirs, { type: 'status_update', message: agentMessage('B'.repeat(6_000)) });
    const bKinds = new Set((await rawItems(theirs.taskId, B)).map((i) => String(i.sk)[0]));
    assert.ok(bKinds.has('B') && bKinds.has('M'), "B's partition holds a body and chunks to be guarded");
    const missing = crypto.randomUUID();

    const keys = recordRequestedKeys(table.client);
    try {
      const attempt = async (taskId: string) => {
        keys.reset();
        const read = await store.get({ tenant: A, taskId });
        await assert.rejects(engine.apply({ tenant: A, taskId }, { type: 'cancel' }), TaskNotFoundError);
        await assert.rejects(
          engine.apply({ tenant: A, taskId }, { type: 'status_update', progress: 1 }),
          TaskNotFoundError,
        );
        const listed = await store.list({ tenant: A, owner: who, pageSize: 10 });
        const context = await store.list({
          tenant: A,
          owner: who,
          contextId: theirs.contextId,
          pageSize: 10,
        });
        return {
          read,
          listed: [listed.tasks, context.tasks],
          partitions: keys.tablePartitions.map((k) => ({ ...k, pk: k.pk.replace(taskId, '<id>') })),
          indexes: keys.indexPartitions.map((k) => k.partition),
        };
      };
      const guessed = await attempt(theirs.taskId);
      const absent = await attempt(missing);

      assert.equal(guessed.read, undefined);
      assert.deepEqual(guessed.listed, [[], []]);
      assert.ok(guessed.partitions.length >= 3, 'the reads were recorded');
      for (const { command, pk } of guessed.partitions)
        assert.ok(pk.startsWith(aPrefix), `${command} addressed ${pk}, outside tenant ${A}'s partitions`);
      for (const partition of guessed.indexes)
        assert.ok(partition.startsWith(`${A}#`), `an index query addressed ${partition}`);
      assert.deepEqual(guessed, absent, 'the same answer and the same requests as for a missing id');
    } finally {
      keys.detach();
    }
    // and B's task is as B left it
    assert.equal((await store.get({ tenant: B, taskId: theirs.taskId }))?.head.state, 'executing');
  });
});
