/**
 * JSON-RPC figures: sequential DynamoDB round trips per method (through the
 * same A2AJsonRpc use case the Lambda runs, on an instrumented client), the
 * local runtime's start-up time, and requests per second through it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { demoAgent } from '../../agents/demo/index.ts';
import { freePort } from '../../local/dynamodb-local.ts';
import { startLocalHub } from '../../local/hub.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { A2AJsonRpc } from '../../shared/app/a2a-jsonrpc.ts';
import { TaskExecutor } from '../../shared/app/executor.ts';
import type { ExecutorQueue, ExecutorRun } from '../../shared/app/ports.ts';
import { TaskEngine } from '../../shared/app/task-engine.ts';
import { TaskService } from '../../shared/app/task-service.ts';
import type { TestTable } from '../support/dynamo.ts';

const root = join(import.meta.dirname, '..', '..');
const caller = { tenant: 'bench', owner: 'bench' };

const body = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const sendParams = (text: string, returnImmediately: boolean) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  configuration: { returnImmediately },
});

export interface MethodCost {
  method: string;
  roundTrips: number;
  requests: number;
  readUnits: number;
  writeUnits: number;
}

export const benchRoundTrips = async (table: TestTable): Promise<MethodCost[]> => {
  const engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
  const executor = new TaskExecutor(engine, demoAgent);
  const pending: ExecutorRun[] = [];
  // SQS is not DynamoDB: runs are collected here and executed outside the measured window
  const queue: ExecutorQueue = { enqueue: async (run) => void pending.push(run) };
  const rpc = new A2AJsonRpc(new TaskService(engine, queue));
  const headers = { 'a2a-version': '1.0' };
  const call = async (method: string, params: unknown, label = method) => {
    table.usage.reset();
    const res = await rpc.handle({ body: body(method, params), headers, caller, blockingBudgetMs: 10_000 });
    const t = table.usage.reset();
    const parsed = JSON.parse(res.body) as {
      result?: { task?: { id: string }; id?: string };
      error?: unknown;
    };
    if (parsed.error) throw new Error(`${label}: ${JSON.stringify(parsed.error)}`);
    return {
      cost: {
        method: label,
        roundTrips: t.roundTrips,
        requests: t.requests,
        readUnits: t.readUnits,
        writeUnits: t.writeUnits,
      },
      result: parsed.result,
    };
  };
  const drain = async () => {
    while (pending.length) await executor.run(pending.shift()!);
  };

  const costs: MethodCost[] = [];
  const sent = await call('SendMessage', sendParams('hello', true), 'SendMessage (returnImmediately)');
  costs.push(sent.cost);
  const taskId = sent.result!.task!.id;
  await drain();
  costs.push((await call('GetTask', { id: taskId })).cost);
  costs.push((await call('GetTask', { id: taskId, historyLength: 1 }, 'GetTask (historyLength 1)')).cost);
  costs.push((await call('ListTasks', { pageSize: 50 }, 'ListTasks (pageSize 50)')).cost);
  costs.push(
    (await call('ListTasks', { pageSize: 10, includeArtifacts: true }, 'ListTasks (10, includeArtifacts)'))
      .cost,
  );
  const slow = await call('SendMessage', sendParams('slow 60', true));
  costs.push((await call('CancelTask', { id: slow.result!.task!.id })).cost);
  return costs;
};

/** Wall time from `npm start` (tsx local/main.ts) to its "ready" line, and its own figure. */
export const benchStartup = async (): Promise<{ wallMs: number; reportedMs: number | undefined }> => {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'local', 'main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const result = await new Promise<{ wallMs: number; reportedMs: number | undefined }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready in 60 s:\n${out}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready in ([\d.]+) s/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ wallMs: Date.now() - started, reportedMs: Math.round(Number(m[1]) * 1000) });
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
  });
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
  return result;
};

/** Requests per second through the local runtime (HTTP → gateway → handler → DynamoDB Local / SQS). */
export const benchThroughput = async (
  requests = 200,
  concurrency = 8,
): Promise<Array<{ method: string; requests: number; concurrency: number; perSecond: number }>> => {
  const hub = await startLocalHub({ port: 0, sweepIntervalMs: 600_000, executorConcurrency: 4 });
  const url = `${hub.url}/a2a/jsonrpc`;
  const post = async (method: string, params: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: body(method, params),
    });
    return (await res.json()) as { result?: { task?: { id: string; status: { state: string } } } };
  };
  const run = async (label: string, one: () => Promise<unknown>) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < requests) await one();
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { method: label, requests, concurrency, perSecond: Math.round((requests / seconds) * 10) / 10 };
  };
  try {
    const first = await post('SendMessage', sendParams('warm up', false));
    const id = first.result!.task!.id;
    const results = [];
    results.push(await run('GetTask', () => post('GetTask', { id })));
    results.push(
      await run('SendMessage (blocking echo)', async () => {
        const r = await post('SendMessage', sendParams('echo', false));
        if (r.result?.task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete');
      }),
    );
    return results;
  } finally {
    await hub.stop();
  }
};
