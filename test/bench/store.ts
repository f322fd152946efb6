/**
 * Store benchmark: DynamoDB requests, sequential round trips and capacity
 * units per operation, measured on DynamoDB Local with ReturnConsumedCapacity.
 * Capacity is what DynamoDB Local reports (it follows the AWS sizing rules;
 * a transaction costs 2x the item writes, as on AWS).
 */

import { demoAgent } from '../../agents/demo/index.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import type { UsageTotals } from '../../shared/adapters/dynamodb/usage.ts';
import { TaskExecutor } from '../../shared/app/executor.ts';
import { TaskEngine } from '../../shared/app/task-engine.ts';
import type { Message, TaskHead } from '../../shared/domain/task.ts';
import type { TestTable } from '../support/dynamo.ts';

export interface OperationCost {
  operation: string;
  requests: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
}

export interface StoreBenchResult {
  operations: OperationCost[];
  transitionByHistory: Array<{
    historyLength: number;
    writeUnits: number;
    readUnits: number;
    roundTrips: number;
  }>;
  readLastTenByHistory: Array<{
    historyLength: number;
    readUnits: number;
    queries: number;
    roundTrips: number;
  }>;
  simpleTask: OperationCost;
  executorTask: OperationCost;
}

const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });

export const benchStore = async (table: TestTable): Promise<StoreBenchResult> => {
  const store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  const engine = new TaskEngine(store);
  const tenant = 'bench';
  const owner = 'bench';
  const cost = (operation: string, t: UsageTotals): OperationCost => ({
    operation,
    requests: t.requests,
    roundTrips: t.roundTrips,
    readUnits: t.readUnits,
    writeUnits: t.writeUnits,
  });
  const measure = async (operation: string, fn: () => Promise<unknown>): Promise<OperationCost> => {
    table.usage.reset();
    await fn();
    return cost(operation, table.usage.reset());
  };

  const operations: OperationCost[] = [];
  let head: TaskHead | undefined;
  operations.push(
    await measure('engine.create (task + first message, dedup)', async () => {
      head = (await engine.create({ tenant, owner, message: user('bench'), dedupScope: owner })).head;
    }),
  );
  const ref = { tenant, taskId: head!.taskId };
  operations.push(
    await measure('engine.apply (read head + transition)', () => engine.apply(ref, { type: 'confirm' })),
  );
  await engine.apply(ref, { type: 'start' });
  operations.push(await measure('store.getHead', () => store.getHead(ref)));
  operations.push(
    await measure('store.read (historyLength 10, artifacts)', () =>
      store.read(ref, { historyLength: 10, includeArtifacts: true }),
    ),
  );
  operations.push(await measure('store.events (all)', () => store.events(ref, 0)));
  operations.push(
    await measure('store.list (pageSize 50)', () => store.list({ tenant, owner, pageSize: 50 })),
  );

  // the same transition (cancel) on tasks whose history is 1, 100 and 1,000 events long
  const transitionByHistory: StoreBenchResult['transitionByHistory'] = [];
  const readLastTenByHistory: StoreBenchResult['readLastTenByHistory'] = [];
  for (const length of [1, 100, 1000]) {
    const task = (await engine.create({ tenant, owner, message: user('long') })).head;
    if (length > 1) {
      await engine.apply(task, { type: 'confirm' });
      await engine.apply(task, { type: 'start' });
      for (let v = 3; v < length; v++)
        await engine.apply(task, { type: 'status_update', message: agent(`step ${v}`) });
    }
    table.usage.reset();
    await store.read(task, { historyLength: 10 });
    const r = table.usage.reset();
    readLastTenByHistory.push({
      historyLength: length,
      readUnits: r.readUnits,
      queries: r.byOperation.Query ?? 0,
      roundTrips: r.roundTrips,
    });
    await engine.apply(task, { type: 'cancel' });
    const t = table.usage.reset();
    transitionByHistory.push({
      historyLength: length,
      writeUnits: t.writeUnits,
      readUnits: t.readUnits,
      roundTrips: t.roundTrips,
    });
  }

  // one whole simple task: created → working → artifact → completed
  table.usage.reset();
  const simple = (await engine.create({ tenant, owner, message: user('echo'), dedupScope: owner })).head;
  await engine.apply(simple, { type: 'confirm' });
  await engine.apply(simple, { type: 'start' });
  await engine.apply(simple, {
    type: 'artifact',
    artifact: { artifact: { artifactId: 'a1', parts: [{ text: 'echo' }] }, lastChunk: true },
  });
  await engine.apply(simple, { type: 'complete', message: agent('done') });
  const simpleTask = cost(
    'whole simple task (create, confirm, start, artifact, complete)',
    table.usage.reset(),
  );

  // the same task as the hub runs it: submitted, then the executor (demo agent, echo) does the rest
  table.usage.reset();
  const submitted = (await engine.create({ tenant, owner, message: user('echo'), dedupScope: owner })).head;
  await new TaskExecutor(engine, demoAgent).run({ tenant, taskId: submitted.taskId, version: 1 });
  const executorTask = cost(
    'echo task: create + executor run (read, confirm, start, artifact, complete)',
    table.usage.reset(),
  );

  return { operations, transitionByHistory, readLastTenByHistory, simpleTask, executorTask };
};
