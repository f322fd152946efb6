/**
 * What a task costs on the hub's real path: the local hub of `npm start`
 * (demo agent, the very Lambda handlers, DynamoDB Local, its stream, the
 * relay, the local SQS and event bus) started in this process, with meters
 * on what the deployed stack pays for:
 * - DynamoDB: every request of the handlers' one DynamoDB client (requests,
 *   sequential round trips, read and write units from ReturnConsumedCapacity);
 * - SQS: the messages the handlers send (each later costs a receive and a
 *   delete: the model counts both, unbatched, as an upper bound);
 * - EventBridge: the lifecycle events the relay puts on the bus;
 * - Lambda: invocations and duration of each handler (billed per ms at the
 *   function's memory size from infra/bundling.ts);
 * - API Gateway: one REST request per client call.
 * Heartbeat watches are delayed messages (due when a claim's run would be
 * lost: 60 s later at the default heartbeat): the bench captures them as
 * they are sent and hands them to the heartbeat handler at once, so their
 * cost is counted without waiting; the measurement ends before the first
 * real one is due (checked).
 * The client's own polls are not part of a task's cost (a blocking send needs
 * none). DynamoDB Streams reads by the relay's event source are free on AWS.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { FUNCTION_MEMORY_MB, type FunctionId } from '../../infra/functions.ts';
import { type HubHandlers, type LocalHub, startLocalHub } from '../../local/hub.ts';
import { createLambdaContext } from '../../local/lambda-context.ts';
import { DynamoUsage, type UsageTotals } from '../../shared/adapters/dynamodb/usage.ts';
import { HEARTBEAT_QUEUE } from '../../shared/adapters/sqs/queues.ts';
import { heartbeatRulesFrom } from '../../shared/config/heartbeat.ts';
import { silenceLimitMs } from '../../shared/domain/heartbeat.ts';
import { PRICES } from './prices.ts';

export interface PathCost {
  path: string;
  tasks: number;
  /** Per task (means over `tasks`). */
  wru: number;
  rru: number;
  dynamoRequests: number;
  dynamoRoundTrips: number;
  apiRequests: number;
  sqsMessages: number;
  /** Of which heartbeat watches (delayed messages; the field keeps its name from the lease watches). */
  leaseWatches: number;
  lifecycleEvents: number;
  invocations: Partial<Record<FunctionId, number>>;
  /** Billed GB-seconds per task, all functions. */
  lambdaGbSeconds: number;
  /** Mean handler duration per invocation, ms. */
  durationMs: Partial<Record<FunctionId, number>>;
}

export interface Dollars {
  dynamodb: number;
  lambda: number;
  apiGateway: number;
  sqs: number;
  eventBridge: number;
  total: number;
}

export interface CostResult {
  /** The simple task: a blocking echo SendMessage, the agent run inline. */
  simpleTask: PathCost;
  /** The same echo task sent with returnImmediately: the relay enqueues it, the executor runs it. */
  executorTask: PathCost;
  /** $ per million simple tasks, from the measured usage and PRICES. */
  costPerMillionTasks: Dollars;
  costPerMillionExecutorTasks: Dollars;
  getTask: { roundTrips: number; rru: number; requests: number };
  /** The same message sent again: what the retry costs on top, and whether it returned the same task. */
  retriedSend: { extraWru: number; extraRru: number; sameTask: boolean };
  prices: typeof PRICES;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

interface Meter {
  usage: DynamoUsage;
  sqsMessages: number;
  leaseWatches: string[];
  watchesSent: number;
  events: number;
  invocations: Map<FunctionId, { count: number; ms: number; billedMs: number }>;
}

const newMeterState = (m: Meter) => {
  m.usage.reset();
  m.sqsMessages = 0;
  m.leaseWatches = [];
  m.watchesSent = 0;
  m.events = 0;
  m.invocations.clear();
};

type AnyHandler = (event: never, context: Context) => Promise<unknown>;

const timed = <H extends AnyHandler>(fn: FunctionId, handler: H, meter: Meter): H =>
  (async (event: never, context: Context) => {
    const started = performance.now();
    try {
      return await handler(event, context);
    } finally {
      const ms = performance.now() - started;
      const entry = meter.invocations.get(fn) ?? { count: 0, ms: 0, billedMs: 0 };
      entry.count++;
      entry.ms += ms;
      entry.billedMs += Math.max(1, Math.ceil(ms));
      meter.invocations.set(fn, entry);
    }
  }) as H;

const loadHandler = async (fn: FunctionId): Promise<AnyHandler> =>
  ((await import(`../../functions/${fn}.ts`)) as { handler: AnyHandler }).handler;

/** Starts the hub with metered handlers; the meters see only what the handlers do. */
const startMeteredHub = async (): Promise<{ hub: LocalHub; meter: Meter; watches: AnyHandler }> => {
  const meter: Meter = {
    usage: new DynamoUsage(),
    sqsMessages: 0,
    leaseWatches: [],
    watchesSent: 0,
    events: 0,
    invocations: new Map(),
  };
  // the handlers' logger is built when they are imported: as quiet as npm start's
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const ids: FunctionId[] = ['agent-card', 'jsonrpc', 'executor', 'heartbeat', 'sweeper', 'relay'];
  const loaded = Object.fromEntries(
    await Promise.all(ids.map(async (fn) => [fn, timed(fn, await loadHandler(fn), meter)] as const)),
  ) as unknown as HubHandlers;
  const hub = await startLocalHub({ port: 0, handlers: loaded, sweepIntervalMs: 3_600_000, log: () => {} });
  const wiring = await import('../../shared/composition-roots/core.ts');
  meter.usage.attach(wiring.dynamoClient());
  wiring.sqsClient().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as {
        Entries?: Array<{ MessageBody?: string; DelaySeconds?: number }>;
        MessageBody?: string;
        DelaySeconds?: number;
      };
      const entries = input.Entries ?? (input.MessageBody ? [input] : []);
      for (const e of entries) {
        meter.sqsMessages++;
        if ((e.DelaySeconds ?? 0) > 0 && e.MessageBody) {
          meter.watchesSent++;
          meter.leaseWatches.push(e.MessageBody);
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchSqsMeter' },
  );
  hub.bus.subscribe(() => {
    meter.events++;
  });
  return { hub, meter, watches: loaded.heartbeat as AnyHandler };
};

const rpc = async (hub: LocalHub, method: string, params: unknown) => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as {
    result?: { task?: { id: string; status: { state: string } }; id?: string };
    error?: unknown;
  };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result!;
};

const message = (text: string, messageId: string = crypto.randomUUID()) => ({
  messageId,
  role: 'ROLE_USER',
  parts: [{ text }],
});

/** Hands the captured heartbeat watches to the heartbeat handler now instead of when they are due. */
const runLeaseWatches = async (bodies: string[], watches: AnyHandler) => {
  if (bodies.length === 0) return;
  const event: SQSEvent = {
    Records: bodies.map((body) => ({
      messageId: crypto.randomUUID(),
      receiptHandle: 'bench',
      body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'bench',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${HEARTBEAT_QUEUE.name}`,
      awsRegion: 'us-east-1',
    })),
  };
  await watches(event as never, createLambdaContext({ functionName: 'heartbeat', timeoutMs: 60_000 }));
};

const pathCost = (path: string, tasks: number, meter: Meter, usage: UsageTotals, api: number): PathCost => {
  const per = (n: number) => round(n / tasks, 3);
  let gbSeconds = 0;
  const invocations: PathCost['invocations'] = {};
  const durationMs: PathCost['durationMs'] = {};
  for (const [fn, v] of meter.invocations) {
    gbSeconds += (v.billedMs / 1000) * (FUNCTION_MEMORY_MB[fn] / 1024);
    invocations[fn] = per(v.count);
    durationMs[fn] = round(v.ms / v.count, 1);
  }
  return {
    path,
    tasks,
    wru: per(usage.writeUnits),
    rru: per(usage.readUnits),
    dynamoRequests: per(usage.requests),
    dynamoRoundTrips: per(usage.roundTrips),
    apiRequests: per(api),
    sqsMessages: per(meter.sqsMessages),
    leaseWatches: per(meter.watchesSent),
    lifecycleEvents: per(meter.events),
    invocations,
    lambdaGbSeconds: round(gbSeconds / tasks, 6),
    durationMs,
  };
};

/** $ per million tasks of a path. */
export const dollarsPerMillion = (c: PathCost): Dollars => {
  const m = 1e6;
  const dynamodb = m * (c.wru * PRICES.dynamodb.perWriteUnit + c.rru * PRICES.dynamodb.perReadUnit);
  const invocations = Object.values(c.invocations).reduce((a, b) => a + (b ?? 0), 0);
  const lambda = m * (invocations * PRICES.lambda.perRequest + c.lambdaGbSeconds * PRICES.lambda.perGbSecond);
  const apiGateway = m * c.apiRequests * PRICES.apiGateway.perRestRequest;
  // a message is sent, received and deleted
  const sqs = m * c.sqsMessages * 3 * PRICES.sqs.perRequest;
  const eventBridge = m * c.lifecycleEvents * PRICES.eventBridge.perEvent;
  const total = dynamodb + lambda + apiGateway + sqs + eventBridge;
  return {
    dynamodb: round(dynamodb),
    lambda: round(lambda),
    apiGateway: round(apiGateway),
    sqs: round(sqs),
    eventBridge: round(eventBridge),
    total: round(total),
  };
};

export const benchCost = async (tasks = 30): Promise<CostResult> => {
  const { hub, meter, watches } = await startMeteredHub();
  const started = Date.now();
  // the earliest a real heartbeat watch can come back: the loss limit after a claim
  const firstWatchDueMs = silenceLimitMs(heartbeatRulesFrom(process.env)) * 0.9;
  // what a path leaves behind: the relay's last records, and the delayed watches it sent
  const settle = async () => {
    await hub.relayCaughtUp();
    await runLeaseWatches(meter.leaseWatches.splice(0), watches);
    if (Date.now() - started > firstWatchDueMs)
      throw new Error('the cost bench ran past the first heartbeat watch: its figures would count it twice');
  };
  const completed = new Set<string>();
  hub.bus.subscribe((e) => {
    if (e.detailType === 'Task Completed') completed.add(String(e.detail.taskId));
  });
  const waitCompleted = async (taskId: string) => {
    for (let i = 0; i < 2000 && !completed.has(taskId); i++) await new Promise((r) => setTimeout(r, 5));
    if (!completed.has(taskId)) throw new Error(`task ${taskId} did not complete`);
  };
  try {
    // warm up both paths (JIT, connections), uncounted
    for (let i = 0; i < 20; i++) {
      await rpc(hub, 'SendMessage', { message: message('hello') });
      const sent = await rpc(hub, 'SendMessage', {
        message: message('hello'),
        configuration: { returnImmediately: true },
      });
      await waitCompleted(sent.task!.id);
    }
    await settle();

    newMeterState(meter);
    for (let i = 0; i < tasks; i++) {
      const r = await rpc(hub, 'SendMessage', { message: message('hello') });
      if (r.task?.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete inline');
    }
    await settle();
    const simpleTask = pathCost(
      'blocking SendMessage (agent inline)',
      tasks,
      meter,
      meter.usage.reset(),
      tasks,
    );

    newMeterState(meter);
    for (let i = 0; i < tasks; i++) {
      const sent = await rpc(hub, 'SendMessage', {
        message: message('hello'),
        configuration: { returnImmediately: true },
      });
      await waitCompleted(sent.task!.id);
    }
    await settle();
    const executorTask = pathCost(
      'SendMessage returnImmediately (relay → executor)',
      tasks,
      meter,
      meter.usage.reset(),
      tasks,
    );

    // GetTask of a small finished task
    const done = await rpc(hub, 'SendMessage', { message: message('hello') });
    await settle();
    meter.usage.reset();
    await rpc(hub, 'GetTask', { id: done.task!.id });
    const got = meter.usage.reset();

    // the same message again: answered from the task it created
    const again = message('hello');
    const first = await rpc(hub, 'SendMessage', { message: again });
    await settle();
    meter.usage.reset();
    const second = await rpc(hub, 'SendMessage', { message: again });
    await hub.relayCaughtUp();
    const retry = meter.usage.reset();

    return {
      simpleTask,
      executorTask,
      costPerMillionTasks: dollarsPerMillion(simpleTask),
      costPerMillionExecutorTasks: dollarsPerMillion(executorTask),
      getTask: { roundTrips: got.roundTrips, rru: got.readUnits, requests: got.requests },
      retriedSend: {
        extraWru: retry.writeUnits,
        extraRru: retry.readUnits,
        sameTask: first.task?.id === second.task?.id,
      },
      prices: PRICES,
    };
  } finally {
    await hub.stop();
  }
};
