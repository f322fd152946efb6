/**
 * Store figures on DynamoDB Local (ReturnConsumedCapacity; DynamoDB Local
 * follows the AWS sizing rules): what one write costs as a task's history
 * grows, a large status message, a retried create, reading the last
 * messages of a long task, and a status-filtered ListTasks page as the
 * owner's other tasks pile up. The whole task's cost on the hub's real path
 * is in cost.ts.
 */
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { DynamoUsage, type UsageTotals } from '../../shared/adapters/dynamodb/usage.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import type { Message } from '../../shared/domain/task.ts';
import type { TaskRecord } from '../../shared/ports/task-store.ts';
import type { TestTable } from '../support/dynamo.ts';

export interface WriteCost {
  wru: number;
  rru: number;
  roundTrips: number;
}

export interface StoreBenchResult {
  /**
   * A status update written with the task in hand (as the executor chains its writes), by history length:
   * the mean of UPDATES_MEASURED in a row (spills included), and the most one of them cost.
   */
  transitionByHistory: Array<{ history: number; maxWru: number } & WriteCost>;
  /** A cancel as the API does it: read the task, then write, by history length (1: a task just created). */
  cancelByHistory: Array<{ history: number } & WriteCost>;
  /** Reading a task with its last 10 messages, by history length. */
  readLastTenByHistory: Array<{ history: number; rru: number; queries: number; roundTrips: number }>;
  /** One status update carrying a 6,000-character message. */
  largeStatusUpdate: WriteCost;
  /** A create retried with the same message: the units of the retry alone, and whether it found the task. */
  retriedCreate: WriteCost & { sameTask: boolean };
  /** A status-filtered ListTasks page (pageSize 10), by how many tasks of other states the owner holds. */
  filteredListPage: Array<{
    otherTasks: number;
    pageQueries: number;
    countQueries: number;
    roundTrips: number;
    /** Read units of the whole call (page and count). */
    rru: number;
  }>;
}

const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });
/** Updates in a row measured per history length: several spill cycles. */
const UPDATES_MEASURED = 40;
const round2 = (x: number) => Math.round(x * 100) / 100;

const cost = (t: UsageTotals): WriteCost => ({
  wru: t.writeUnits,
  rru: t.readUnits,
  roundTrips: t.roundTrips,
});

export const benchStore = async (table: TestTable): Promise<StoreBenchResult> => {
  const store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  const engine = new TaskEngine(store);
  const tenant = 'bench';
  const usage = table.usage;

  /** A claimed task with `history` events, and the record its last write returned. */
  const taskWithHistory = async (history: number, owner = 'history'): Promise<TaskRecord> => {
    const created = await engine.create({ tenant, owner, message: user('long') });
    let record = (await engine.apply(created.head, [{ type: 'confirm' }, { type: 'start' }])).record;
    for (let v = record.head.version; v < history; v++) {
      record = (
        await engine.apply(
          record.head,
          { type: 'status_update', message: agent(`step ${v}`) },
          { seen: record },
        )
      ).record;
    }
    return record;
  };

  const transitionByHistory: StoreBenchResult['transitionByHistory'] = [];
  const cancelByHistory: StoreBenchResult['cancelByHistory'] = [];
  const readLastTenByHistory: StoreBenchResult['readLastTenByHistory'] = [];
  // a task just created (history 1) can only be claimed or canceled: it has a cancel row and a read row
  const created = (await engine.create({ tenant, owner: 'history', message: user('new') })).record;
  usage.reset();
  await store.view((await store.get(created.head))!, { historyLength: 10 });
  const fresh = usage.reset();
  readLastTenByHistory.push({
    history: 1,
    rru: fresh.readUnits,
    queries: (fresh.byOperation.Query ?? 0) + (fresh.byOperation.BatchGetItem ?? 0),
    roundTrips: fresh.roundTrips,
  });
  usage.reset();
  await engine.apply(created.head, { type: 'cancel' });
  cancelByHistory.push({ history: 1, ...cost(usage.reset()) });

  for (const history of [3, 100, 1000]) {
    const record = await taskWithHistory(history);
    // the mean of UPDATES_MEASURED updates in a row: a live task's item spills its log into history
    // chunks once it passes one write unit, every few updates, so a single update costs 3 or 4 units by
    // where it falls in that cycle (which the keys' length shifts); the mean is what an update costs
    usage.reset();
    // a task of its own, so the read and the cancel below still see `history` events
    let seen = await taskWithHistory(history, 'updates');
    usage.reset();
    let maxWru = 0;
    const total = DynamoUsage.empty();
    for (let i = 0; i < UPDATES_MEASURED; i++) {
      seen = (await engine.apply(seen.head, { type: 'status_update', message: agent('one more') }, { seen }))
        .record;
      const one = usage.reset();
      maxWru = Math.max(maxWru, one.writeUnits);
      total.writeUnits += one.writeUnits;
      total.readUnits += one.readUnits;
      total.roundTrips += one.roundTrips;
    }
    transitionByHistory.push({
      history,
      wru: round2(total.writeUnits / UPDATES_MEASURED),
      rru: round2(total.readUnits / UPDATES_MEASURED),
      roundTrips: round2(total.roundTrips / UPDATES_MEASURED),
      maxWru,
    });

    usage.reset();
    const read = await store.get(record.head);
    await store.view(read!, { historyLength: 10 });
    const r = usage.reset();
    readLastTenByHistory.push({
      history,
      rru: r.readUnits,
      queries: (r.byOperation.Query ?? 0) + (r.byOperation.BatchGetItem ?? 0),
      roundTrips: r.roundTrips,
    });

    usage.reset();
    await engine.apply(record.head, { type: 'cancel' });
    cancelByHistory.push({ history, ...cost(usage.reset()) });
  }

  const claimed = await taskWithHistory(3);
  usage.reset();
  await engine.apply(
    claimed.head,
    { type: 'status_update', message: agent('x'.repeat(6000)) },
    { seen: claimed },
  );
  const largeStatusUpdate = cost(usage.reset());

  const message = user('retried');
  const first = await engine.create({ tenant, owner: 'retry', message, dedupScope: 'retry' });
  usage.reset();
  const again = await engine.create({ tenant, owner: 'retry', message, dedupScope: 'retry' });
  const retriedCreate = { ...cost(usage.reset()), sameTask: again.head.taskId === first.head.taskId };

  // one owner with 20 working tasks, then 1,000 finished ones besides them
  const filteredListPage: StoreBenchResult['filteredListPage'] = [];
  const owner = 'lister';
  for (let i = 0; i < 20; i++) await taskWithHistory(3, owner);
  let others = 0;
  for (const target of [0, 1000]) {
    for (; others < target; others += 25) {
      await Promise.all(
        Array.from({ length: 25 }, async () => {
          const t = await taskWithHistory(3, owner);
          await engine.apply(t.head, { type: 'complete' }, { seen: t });
        }),
      );
    }
    usage.reset();
    const page = await store.list({ tenant, owner, states: ['executing'], pageSize: 10 });
    const u = usage.reset();
    if (page.tasks.length !== 10) throw new Error(`expected a full page, got ${page.tasks.length}`);
    filteredListPage.push({
      otherTasks: others,
      pageQueries: u.byOperation.Query ?? 0,
      countQueries: u.byOperation['Query(COUNT)'] ?? 0,
      roundTrips: u.roundTrips,
      rru: u.readUnits,
    });
  }

  return {
    transitionByHistory,
    cancelByHistory,
    readLastTenByHistory,
    largeStatusUpdate,
    retriedCreate,
    filteredListPage,
  };
};
