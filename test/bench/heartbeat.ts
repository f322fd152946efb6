/**
 * What a running task's heartbeat costs, per task-minute at the default
 * 30 s interval: silent agents run for a ten (scaled-down, 3 s) intervals
 * on DynamoDB Local, with the real pieces around them: the executor's
 * liveness writes, the table's stream relayed by `relayChanges` onto a local
 * SQS heartbeat queue, and the watches consumed from it by HeartbeatWatcher
 * (what functions/heartbeat.ts calls). Counted in the window after every
 * task was claimed and before any finished:
 * - DynamoDB: the store's requests and units (DynamoUsage), the liveness
 *   writes and the watches' reads;
 * - SQS: the watch messages sent (re-arms); each later costs a receive and a
 *   delete, so a message is 3 requests (the cost model of test/bench/cost.ts,
 *   unbatched: an upper bound). The requests the pollers made that carried
 *   messages are reported too; empty long polls are per queue, not per task.
 * Every count scales with the number of intervals, so a count per task per
 * interval is the same at 3 s and at 30 s (but for the rounding of delays up to whole seconds, which weighs less at 30 s): per task-minute it is doubled.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSEvent } from 'aws-lambda';
import { startEventSource } from '../../local/event-source.ts';
import { startLocalSqs } from '../../local/sqs.ts';
import { startStreamSource } from '../../local/stream-source.ts';
import { STREAM_RELAY, taskChangeOf } from '../../shared/adapters/dynamodb/stream.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { SqsHeartbeatQueue } from '../../shared/adapters/sqs/heartbeat-queue.ts';
import { HEARTBEAT_QUEUE } from '../../shared/adapters/sqs/queues.ts';
import { type AgentHandler, complete } from '../../shared/agent/api.ts';
import { relayChanges } from '../../shared/app/delivery/relay.ts';
import { HeartbeatWatcher } from '../../shared/app/heartbeat/heartbeat.ts';
import { TaskExecutor } from '../../shared/app/tasks/executor.ts';
import { randomIds, TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../shared/app/tasks/task-service.ts';
import { DEFAULT_HEARTBEAT_RULES, type HeartbeatRules } from '../../shared/domain/heartbeat.ts';
import type { HeartbeatWatch } from '../../shared/ports/heartbeat-queue.ts';
import type { TaskChange } from '../../shared/ports/task-changes.ts';
import { createTestTable } from '../support/dynamo.ts';

export interface HeartbeatCost {
  /** Write units per running task-minute (30 s interval): the liveness writes. */
  wruPerTaskMinute: number;
  /** Read units per running task-minute: the watches' reads of the task. */
  rruPerTaskMinute: number;
  /** SQS requests per running task-minute: each watch message sent, received and deleted (upper bound). */
  sqsRequestsPerTaskMinute: number;
  /** What those are made of, per task-minute. */
  livenessWritesPerTaskMinute: number;
  watchFiringsPerTaskMinute: number;
  /** SQS requests the run made that carried a watch (sends, non-empty receives, deletes), batched as they came. */
  sqsRequestsMeasuredPerTaskMinute: number;
  /** WRU of one liveness write of a small task. */
  wruPerLivenessWrite: number;
  tasks: number;
  /** The scaled-down interval measured at, and how many intervals the window spanned. */
  intervalSeconds: number;
  intervals: number;
  /** Runs lost during the measurement (must be 0: the liveness writes keep them alive). */
  lost: number;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const benchHeartbeat = async (
  tasks = 5,
  intervals = 10,
  intervalSeconds = 3,
): Promise<HeartbeatCost> => {
  const rules: HeartbeatRules = { ...DEFAULT_HEARTBEAT_RULES, intervalSeconds };
  const table = await createTestTable();
  const sqs = await startLocalSqs({ queues: [HEARTBEAT_QUEUE] });
  const queue = sqs.queues[HEARTBEAT_QUEUE.name]!;
  const counted = { sent: 0, requests: 0 };
  let counting = false;
  sqs.client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (!counting) return result;
      const name = String(context.commandName);
      const input = args.input as { Entries?: unknown[] };
      const output = result.output as { Messages?: unknown[] };
      if (name === 'SendMessageBatchCommand') {
        counted.sent += input.Entries?.length ?? 0;
        counted.requests++;
      } else if (name === 'ReceiveMessageCommand' && (output.Messages?.length ?? 0) > 0) counted.requests++;
      else if (name === 'DeleteMessageBatchCommand') counted.requests++;
      return result;
    },
    { step: 'initialize', name: 'benchHeartbeatSqs' },
  );
  const store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  const engine = new TaskEngine(store);
  const heartbeats = new SqsHeartbeatQueue(sqs.client, queue.url);
  const watcher = new HeartbeatWatcher(engine, heartbeats, rules, { idempotent: false });
  let lost = 0;
  const watches = startEventSource({
    client: sqs.client,
    queue,
    functionName: 'heartbeat',
    concurrency: 10,
    waitTimeSeconds: 1,
    log: () => {},
    handler: async (event: SQSEvent) => {
      for (const record of event.Records) {
        const outcome = await watcher.check(JSON.parse(record.body) as HeartbeatWatch);
        if (outcome.result === 'failed' || outcome.result === 'rerun') lost++;
      }
      return { batchItemFailures: [] };
    },
  });
  const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
  const streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const executorRuns: Array<{ tenant: string; taskId: string; version: number }> = [];
  const relay = await startStreamSource({
    client: streams,
    streamArn: Table!.LatestStreamArn!,
    functionName: 'relay',
    batchSize: STREAM_RELAY.batchSize,
    maxRetryAttempts: 0,
    bisectBatchOnError: false,
    idlePollMs: 10,
    log: () => {},
    handler: async (event) => {
      const changes = event.Records.flatMap((r): TaskChange[] => {
        const change = taskChangeOf(r);
        return change ? [change] : [];
      });
      await relayChanges(changes, {
        executor: { enqueue: async (runs) => void executorRuns.push(...runs.filter((r) => !r.watch)) },
        lifecycle: { publish: async () => {} },
        heartbeats: { queue: heartbeats, rules },
      });
    },
  });

  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const silent: AgentHandler = {
    describe: () => ({ name: 'silent', description: 'says nothing', version: '1', skills: [] }),
    async execute() {
      await released;
      return complete('done');
    },
  };
  const executor = new TaskExecutor(engine, silent, randomIds, undefined, {
    heartbeat: { writer: store, intervalSeconds },
  });
  try {
    const service = new TaskService(engine);
    const caller = { tenant: 'bench', owner: 'heartbeat' };
    for (let i = 0; i < tasks; i++)
      await service.submit(caller, {
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ text: 'run' }],
      });
    await relay.caughtUp();
    const running = executorRuns.splice(0).map((run) => executor.run(run));
    // every task claimed, its watch armed: the steady state starts
    for (let i = 0; i < 500; i++) {
      const heads = await Promise.all(
        (await store.dueDeadlines('9999', 100)).map(async (ref) => (await store.get(ref))?.head.state),
      );
      if (heads.length === tasks && heads.every((s) => s === 'executing')) break;
      await sleep(10);
    }
    await relay.caughtUp();
    table.usage.reset();
    counting = true;
    const started = performance.now();
    await sleep(intervals * intervalSeconds * 1000);
    counting = false;
    const windowMs = performance.now() - started;
    const usage = table.usage.reset();
    release();
    await Promise.all(running);

    // per task per interval, then per task-minute at the default interval
    const perTaskMinute = (n: number) =>
      round(
        (n / tasks / (windowMs / (intervalSeconds * 1000))) * (60 / DEFAULT_HEARTBEAT_RULES.intervalSeconds),
      );
    const beats = usage.byOperation.PutItem ?? 0;
    const firings = usage.byOperation.GetItem ?? 0;
    return {
      wruPerTaskMinute: perTaskMinute(usage.writeUnits),
      rruPerTaskMinute: perTaskMinute(usage.readUnits),
      sqsRequestsPerTaskMinute: perTaskMinute(counted.sent * 3),
      livenessWritesPerTaskMinute: perTaskMinute(beats),
      watchFiringsPerTaskMinute: perTaskMinute(firings),
      sqsRequestsMeasuredPerTaskMinute: perTaskMinute(counted.requests),
      wruPerLivenessWrite: beats ? round(usage.writeUnits / beats) : 0,
      tasks,
      intervalSeconds,
      intervals: round(windowMs / (intervalSeconds * 1000), 1),
      lost,
    };
  } finally {
    release();
    await watches.stop(2000);
    await relay.stop();
    streams.destroy();
    await sqs.stop();
    await table.drop();
  }
};
