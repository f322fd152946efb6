/**
 * Costs against the data kept: ListTasks pages for one owner holding 100,
 * 10,000 and 100,000 tasks (first page and a middle page of 50, with and
 * without a status filter), a shard-merged listing checked against the
 * order an unsharded index would give, the expiry sweep with 0 and 100,000
 * finished tasks beside 100 live ones, and the task item's size over
 * 10,000 events. The tasks are written straight into the table (batched,
 * items made by the store's own codec) so the run takes minutes.
 */
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { itemSize } from '../../shared/adapters/dynamodb/item-size.ts';
import { TASK_SK, taskPk } from '../../shared/adapters/dynamodb/keys.ts';
import { CONTEXT_SHARDS, OWNER_SHARDS } from '../../shared/adapters/dynamodb/table.ts';
import { planWrite } from '../../shared/adapters/dynamodb/task-codec.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { sweepExpiredTasks } from '../../shared/app/tasks/expiry.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import type { SynapseState } from '../../shared/domain/states.ts';
import type { TaskEvent, TaskHead } from '../../shared/domain/task.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

export interface ListCost {
  tasks: number;
  filter: 'none' | 'TASK_STATE_COMPLETED';
  page: 'first' | 'middle';
  rru: number;
  roundTrips: number;
  queries: number;
  returned: number;
}

export interface ScaleResult {
  ownerShards: number;
  contextShards: number;
  listTasks: ListCost[];
  /** Pages of 50 through all of the owner's tasks, against the tasks sorted as one unsharded index would. */
  shardMerge: { tasks: number; pages: number; sameOrder: boolean; sameItems: boolean };
  sweep: Array<{ finished: number; live: number; rru: number; queries: number }>;
  longTask: { events: number; maxItemBytes: number; finalItemBytes: number; writeUnitsLastWrite: number };
  /** Seconds to write the tasks of each size (batched puts of the items). */
  loadSeconds: Record<string, number>;
}

const OWNER = 'scale-owner';
const TENANT = 'scale';
const PAGE = 50;

/** A task as the store would have written it after `events` transitions, in `state`, at `statusAt`. */
const taskItem = (i: number, state: SynapseState, statusAt: string) => {
  const taskId = `scale-${String(i).padStart(7, '0')}`;
  const head: TaskHead = {
    taskId,
    tenant: TENANT,
    owner: OWNER,
    contextId: `ctx-${i % 100}`,
    state,
    version: 1,
    role: 'executor',
    protocol: 'a2a',
    createdAt: statusAt,
    statusAt,
    deadlineAt: new Date(Date.parse(statusAt) + 3_600_000).toISOString(),
  };
  const created: TaskEvent = {
    taskId,
    tenant: TENANT,
    version: 1,
    type: 'created',
    from: null,
    to: state,
    at: statusAt,
    message: {
      messageId: `m-${i}`,
      role: 'user',
      parts: [{ text: `task ${i}` }],
      taskId,
      contextId: head.contextId,
    },
  };
  return planWrite(undefined, head, [created], { retentionSeconds: 30 * 86_400 }).item;
};

const putAll = async (doc: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]) => {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        let requests = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (requests.length) {
          const out = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
          requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
        }
      }
    }),
  );
};

export const benchScale = async (table: TestTable, sizes = [100, 10_000, 100_000]): Promise<ScaleResult> => {
  const store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  const engine = new TaskEngine(store);
  const doc = DynamoDBDocumentClient.from(table.client);
  const usage = table.usage;
  // in the recent past: finished tasks stay well inside their retention (TTL)
  const base = Date.now() - 3 * 86_400_000;
  const statusAtOf = (i: number) => new Date(base + i * 1000).toISOString();
  // finished tasks, three in four completed (the filter has pages to read), the others failed
  const stateOf = (i: number): SynapseState => (i % 4 === 3 ? 'failed' : 'completed');

  const listTasks: ListCost[] = [];
  const loadSeconds: Record<string, number> = {};
  let written = 0;
  let shardMerge: ScaleResult['shardMerge'] | undefined;
  for (const size of sizes) {
    const started = performance.now();
    const items = [];
    for (let i = written; i < size; i++) items.push(taskItem(i, stateOf(i), statusAtOf(i)));
    await putAll(doc, table.tableName, items);
    written = size;
    loadSeconds[String(size)] = Math.round((performance.now() - started) / 100) / 10;

    for (const filter of ['none', 'TASK_STATE_COMPLETED'] as const) {
      const query = {
        tenant: TENANT,
        owner: OWNER,
        pageSize: PAGE,
        ...(filter === 'none' ? {} : { states: ['completed' as const] }),
      };
      usage.reset();
      const first = await store.list(query);
      const u1 = usage.reset();
      listTasks.push({
        tasks: size,
        filter,
        page: 'first',
        rru: u1.readUnits,
        roundTrips: u1.roundTrips,
        queries: u1.byOperation.Query ?? 0,
        returned: first.tasks.length,
      });
      // a middle page: walk to the page at about half of the matching tasks
      const matching = filter === 'none' ? size : Math.ceil((size * 3) / 4);
      let token = first.nextPageToken;
      for (let p = 1; p < Math.max(1, Math.floor(matching / PAGE / 2)) && token; p++) {
        token = (await store.list({ ...query, pageToken: token })).nextPageToken;
      }
      usage.reset();
      const middle = token ? await store.list({ ...query, pageToken: token }) : { tasks: [] };
      const u2 = usage.reset();
      listTasks.push({
        tasks: size,
        filter,
        page: 'middle',
        rru: u2.readUnits,
        roundTrips: u2.roundTrips,
        queries: u2.byOperation.Query ?? 0,
        returned: middle.tasks.length,
      });
    }

    if (size === 10_000) {
      // every page of the owner's 10,000 tasks, merged from the shards, against one sorted list
      const seen: string[] = [];
      let token = '';
      let pages = 0;
      do {
        const page = await store.list({
          tenant: TENANT,
          owner: OWNER,
          pageSize: PAGE,
          ...(token ? { pageToken: token } : {}),
        });
        seen.push(...page.tasks.map((t) => `${t.statusAt}#${t.taskId}`));
        token = page.nextPageToken;
        pages++;
      } while (token);
      const expected = Array.from(
        { length: size },
        (_, i) => `${statusAtOf(i)}#scale-${String(i).padStart(7, '0')}`,
      )
        .sort()
        .reverse();
      shardMerge = {
        tasks: size,
        pages,
        sameOrder: seen.join('|') === expected.join('|'),
        sameItems: new Set(seen).size === size && expected.every((k) => seen.includes(k)),
      };
    }
  }

  // the sweep: 100 live tasks (deadline ahead) alone, then beside every finished task above
  const sweep: ScaleResult['sweep'] = [];
  const liveTasks = async (target: TestTable) => {
    const e = new TaskEngine(new DynamoTaskStore(target.client, { tableName: target.tableName }));
    for (let i = 0; i < 100; i++)
      await e.create({
        tenant: TENANT,
        owner: 'live',
        message: { messageId: `live-${i}`, role: 'user', parts: [{ text: 'x' }] },
      });
    return e;
  };
  const measureSweep = async (target: TestTable, finished: number) => {
    const e = await liveTasks(target);
    target.usage.reset();
    const result = await sweepExpiredTasks(e);
    const u = target.usage.reset();
    if (result.due !== 0) throw new Error(`the sweep found ${result.due} tasks due`);
    sweep.push({ finished, live: 100, rru: u.readUnits, queries: u.byOperation.Query ?? 0 });
  };
  const small = await createTestTable();
  try {
    await measureSweep(small, 0);
  } finally {
    await small.drop();
  }
  await measureSweep(table, written);

  // a long task: 10,000 status updates, written one after another with the task in hand
  const created = await engine.create({
    tenant: TENANT,
    owner: 'long',
    message: { messageId: 'long', role: 'user', parts: [{ text: 'long' }] },
  });
  let record = (await engine.apply(created.head, [{ type: 'confirm' }, { type: 'start' }])).record;
  const events = 10_000;
  const storedSize = async () => {
    const out = await doc.send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: taskPk(record.head.tenant, record.head.taskId), sk: TASK_SK },
        ConsistentRead: true,
      }),
    );
    return out.Item ? itemSize(out.Item) : 0;
  };
  let maxItemBytes = 0;
  let lastWrite = 0;
  for (let v = record.head.version; v < events; v++) {
    usage.reset();
    record = (
      await engine.apply(
        record.head,
        {
          type: 'status_update',
          message: { messageId: `s${v}`, role: 'agent', parts: [{ text: `step ${v}` }] },
        },
        { seen: record },
      )
    ).record;
    lastWrite = usage.reset().writeUnits;
    if (v % 250 === 0) maxItemBytes = Math.max(maxItemBytes, await storedSize());
  }
  const finalItemBytes = await storedSize();
  maxItemBytes = Math.max(maxItemBytes, finalItemBytes);

  return {
    ownerShards: OWNER_SHARDS,
    contextShards: CONTEXT_SHARDS,
    listTasks,
    shardMerge: shardMerge ?? { tasks: 0, pages: 0, sameOrder: false, sameItems: false },
    sweep,
    longTask: { events: record.head.version, maxItemBytes, finalItemBytes, writeUnitsLastWrite: lastWrite },
    loadSeconds,
  };
};
