/**
 * The whole hub on one machine: DynamoDB Local, the local SQS, the HTTP
 * gateway, the executor, heartbeat and delivery queues' event sources and the sweeper's schedule,
 * wired to the same Lambda handlers that are deployed.
 *
 * Push deliveries go to any URL the guard lets through: PUSH_URL_ALLOWLIST (e.g. `127.0.0.1`, in
 * `env`) lets local receivers in. Deliveries queued when the hub stops are not re-derived by a restart
 * (the relay's checkpoint is past their changes): docs/deliveries.md.
 *
 * Push signing keys: generated at start, kept in `<dataDir>/push-signing-keys.json`
 * with a data directory (a restart publishes the same JWKS), handed to the handlers
 * as PUSH_SIGNING_KEYS; unless the environment names keys already
 * (PUSH_SIGNING_KEYS or PUSH_SIGNING_SECRET_ARN, in the process environment or `env`).
 *
 * The handlers read their configuration from the process environment when they
 * first need it (shared/config/, docs/configuration.md), so the environment is set
 * before they are imported; stop() puts the previous values back. Modules stay
 * cached, so a second hub in the same process reuses handler modules (and any
 * client they built at import time).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { setAwsClientHook } from '../shared/adapters/aws/clients.ts';
import { relayWants, STREAM_RELAY } from '../shared/adapters/dynamodb/stream.ts';
import { createTableInput } from '../shared/adapters/dynamodb/table.ts';
import { DynamoTaskStore } from '../shared/adapters/dynamodb/task-store.ts';
import { SIGNING_KEYS_ENV } from '../shared/adapters/keys/env.ts';
import { localKeySet } from '../shared/adapters/keys/local.ts';
import { SqsExecutorQueue } from '../shared/adapters/sqs/executor-queue.ts';
import { SqsHeartbeatQueue } from '../shared/adapters/sqs/heartbeat-queue.ts';
import {
  DELIVERY_QUEUE,
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  QUEUES,
  REGISTRY_PROBE_QUEUE,
  RELAY_FAILURES_URL_ENV,
} from '../shared/adapters/sqs/queues.ts';
import { resetAgentCache } from '../shared/agent/load.ts';
import { type RecoveryResult, recoverPendingWork } from '../shared/app/tasks/recovery.ts';
import { DELIVERY_IN_FLIGHT_SECONDS } from '../shared/config/delivery.ts';
import { AGENT_MODULE } from '../shared/config/deployment.ts';
import { setEnvironment } from '../shared/config/environment.ts';
import { FAULTS } from '../shared/config/faults.ts';
import { heartbeatRulesFrom } from '../shared/config/heartbeat.ts';
import { INSPECTOR_ASSETS_DIR } from '../shared/config/inspector.ts';
import { SYNAPSE_DYNAMO_ENDPOINT } from '../shared/config/local.ts';
import { PUSH_SIGNING_KEYS, PUSH_SIGNING_SECRET_ARN, PUSH_URL_ALLOWLIST } from '../shared/config/push.ts';
import { probeScheduleFrom } from '../shared/config/registry-probe.ts';
import { readSetting } from '../shared/config/settings.ts';
import { TENANT_THROTTLE } from '../shared/contracts/gateway-responses.ts';
import { type FunctionName, HTTP_FUNCTION_MEMORY_MB, ROUTES, STREAMING } from '../shared/contracts/routes.ts';
import { type DynamoLocal, startDynamoLocal } from './dynamodb-local.ts';
import { type BusEvent, type LocalEventBus, startLocalEventBus } from './event-bus.ts';
import { type EventSource, type SqsHandler, startEventSource } from './event-source.ts';
import { describeFaults, FaultLayer } from './faults/layer.ts';
import { installSdkFaults } from './faults/sdk.ts';
import { FUNCTION_MODULES } from './functions.ts';
import { type ApiHandler, type AuthorizerHandler, startHttpGateway } from './http-gateway.ts';
import { localInspectorAssets } from './inspector-assets.ts';
import { consoleLog, createLambdaContext, LOCAL_REGION, type LocalLog } from './lambda-context.ts';
import { installLambdaStreaming } from './lambda-streaming.ts';
import { type Schedule, type ScheduledHandler, startSchedule } from './scheduler.ts';
import { type LocalSqs, startLocalSqs } from './sqs.ts';
import {
  fileCheckpoints,
  type StreamHandler,
  type StreamSource,
  startStreamSource,
} from './stream-source.ts';

/**
 * The handlers of the hub's functions: one per HTTP function of the route table (buffered or, as
 * functions/jsonrpc.ts and functions/rest.ts are, response-streaming), loaded by name, and the others.
 */
export type HubHandlers = Record<FunctionName, ApiHandler> & {
  /** The REQUEST authorizer of every non-public route (functions/authorizer.ts); used unless in dev mode. */
  authorizer: AuthorizerHandler;
  executor: SqsHandler;
  /** The heartbeat queue's consumer (heartbeat watches of running tasks). */
  heartbeat: SqsHandler;
  /** The delivery queue's consumer (push notifications: docs/deliveries.md). */
  deliver: SqsHandler;
  sweeper: ScheduledHandler;
  relay: StreamHandler;
  /** The registry's probe queue's consumer (ticks and probes: docs/registry.md#health). */
  'registry-probe': SqsHandler;
};
export type HubFunctionName = keyof HubHandlers;

export interface LocalHubOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * Keep DynamoDB data (the relay's stream position, the push signing keys) here across restarts;
   * in memory when absent.
   * Queued messages are never kept: a restart re-derives them from the live tasks.
   */
  dataDir?: string;
  /**
   * A DynamoDB Local already running (SYNAPSE_DYNAMO_ENDPOINT by default): the hub makes its table there
   * (named `tableName`, or a fresh name) and drops it when it stops, instead of starting a JVM of its own.
   * Ignored with `dataDir`, whose data needs its own instance; `false`: start one of its own regardless.
   */
  dynamoEndpoint?: string | false;
  tableName?: string;
  /** Handlers to use instead of `functions/<name>.ts` (each loaded only when not given here). */
  handlers?: Partial<HubHandlers>;
  /** Extra environment for the handlers; wins over the hub's own values. */
  env?: Record<string, string>;
  /**
   * The agent the functions run: a module (absolute, or relative to the working directory) exporting an
   * agent handler, as AGENT_MODULE names one (docs/configuration.md); wins over `env`. Default the
   * `#agent` import, the demo agent (package.json `imports`).
   */
  agentModule?: string;
  /** The sweeper's rate; EventBridge runs it every minute. */
  sweepIntervalMs?: number;
  /**
   * Executor invocations in flight at most (each a batch of up to EXECUTOR_QUEUE.batchSize records).
   * As with Lambda's SQS event source, every batch received is its own invocation and the pollers go on
   * receiving while it runs, so long tasks hold back nothing but their own slots. Lambda would scale to
   * the account's concurrency (1,000 by default); locally 100 (DEFAULT_EXECUTOR_CONCURRENCY), far more
   * than a few long tasks take, while every agent runs in this one process against one DynamoDB Local.
   */
  executorConcurrency?: number;
  /** Long-poll time of an idle poller (bounds how long stop() waits for it). */
  pollWaitSeconds?: number;
  maxBodyBytes?: number;
  /** Pause of the stream poller after an empty read (Lambda polls about four times a second). */
  streamPollMs?: number;
  /**
   * stop(): how long handler invocations in flight (HTTP requests, executor batches, the relay's batch,
   * a sweep) get to finish, 3 s by default (DEFAULT_STOP_GRACE_MS). What still runs then is left behind
   * as by a Lambda runtime shut down mid-invocation: its tasks stay executing until their heartbeat
   * watch finds them silent and resolves them (run again or failed; a restart on the same data directory
   * arms the watches again).
   */
  stopGraceMs?: number;
  /** Called with every lifecycle event the relay publishes (the CLI prints them). */
  onLifecycleEvent?: (event: BusEvent) => void;
  log?: LocalLog;
  /**
   * `dev` (the default): no authentication, every request is the anonymous owner of DEFAULT_TENANT
   * (AUTH_MODE=none). Otherwise the authorizer guards every non-public route as on AWS, with API keys
   * and tenants kept in the table (the admin CLI, `npm run auth`) and the JWT issuer of the AUTH_JWT_*
   * environment; each tenant throttled to `throttle` (TENANT_THROTTLE; false: none).
   */
  auth?: 'dev' | { cacheTtlMs?: number; throttle?: { rateLimit: number; burstLimit: number } | false };
  /**
   * The fault layer (docs/reliability.md#the-fault-layer): this one, or one made from FAULTS (in `env` or
   * the process environment) when that is set. It hooks the AWS clients the handlers build from now on
   * in this process, and the event sources of this hub.
   */
  faults?: FaultLayer;
  /**
   * Messages a consumer received stay hidden at most this long (each queue's visibility timeout, 960 s
   * for the executor's, otherwise): how soon the work of an invocation that died comes back. For a
   * fault run that should not wait a quarter of an hour; the claims keep a message back early harmless.
   */
  visibilityTimeoutCapSeconds?: number;
}

export interface LocalHub {
  url: string;
  port: number;
  tableName: string;
  /** By queue name, dead-letter queues included. */
  queueUrls: Record<string, string>;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  /**
   * The local SQS's own client: the event sources receive and delete through it (the handlers send
   * through theirs, shared/composition-roots/core.ts). Exposed so a benchmark can count those requests too.
   */
  sqsClient: SQSClient;
  /** The local lifecycle event bus (what the relay published). */
  bus: LocalEventBus;
  /** What the start-up re-derived for the live tasks of a data directory (undefined without one). */
  recovered: RecoveryResult | undefined;
  /** Resolves once the relay has handled every change committed before the call. */
  relayCaughtUp(): Promise<void>;
  /** Runs the sweeper now instead of waiting for its next tick. */
  sweep(): Promise<void>;
  /** The fault layer injecting into this hub, when one does. */
  faults: FaultLayer | undefined;
  /**
   * Stops taking work everywhere at once (gateway, executor queue, stream, schedule), gives what is in
   * flight `graceMs` (the stopGraceMs option by default) to finish, then stops the rest (reverse order of
   * start) whether or not it did, and restores the environment.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Dev mode calls no authorizer; this one stands for it in the handler list. */
const refuseAll: AuthorizerHandler = async () => {
  throw new Error('Unauthorized');
};

export const DEFAULT_TABLE_NAME = 'synapse-local';
export const DEFAULT_EXECUTOR_CONCURRENCY = 100;
export const DEFAULT_STOP_GRACE_MS = 3000;

/** Values that keep Powertools and the SDK quiet locally, unless the caller's environment says otherwise. */
const QUIET_DEFAULTS: Record<string, string> = {
  POWERTOOLS_SERVICE_NAME: 'synapse',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  POWERTOOLS_METRICS_NAMESPACE: 'Synapse',
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

const loadHandler = async <N extends HubFunctionName>(name: N): Promise<HubHandlers[N]> => {
  // the Lambda runtime's response streaming (jsonrpc and rest stream), before the module wraps its handler
  installLambdaStreaming();
  let mod: { handler?: unknown };
  try {
    mod = await FUNCTION_MODULES[name]();
  } catch (e) {
    throw new Error(`Cannot load the ${name} handler from functions/${name}.ts: ${String(e)}`, { cause: e });
  }
  if (typeof mod.handler !== 'function') throw new Error(`functions/${name}.ts does not export a handler`);
  return mod.handler as HubHandlers[N];
};

const createTableIfMissing = async (endpoint: string, tableName: string) => {
  const client = localDynamo(endpoint);
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (e) {
    // a data directory from an earlier run already has it
    if (!(e instanceof ResourceInUseException)) throw e;
  } finally {
    client.destroy();
  }
};

const dropTable = async (endpoint: string, tableName: string) => {
  const client = localDynamo(endpoint);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } finally {
    client.destroy();
  }
};

const localDynamo = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

const streamArnOf = async (endpoint: string, tableName: string): Promise<string> => {
  const client = localDynamo(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.LatestStreamArn)
      throw new Error(`table ${tableName} has no stream (made by an older version?)`);
    return Table.LatestStreamArn;
  } finally {
    client.destroy();
  }
};

const recover = async (endpoint: string, tableName: string, sqs: LocalSqs): Promise<RecoveryResult> => {
  const client = localDynamo(endpoint);
  try {
    return await recoverPendingWork(
      new DynamoTaskStore(client, { tableName }),
      new SqsExecutorQueue(sqs.client, sqs.queues[EXECUTOR_QUEUE.name]!.url),
      {
        heartbeats: {
          queue: new SqsHeartbeatQueue(sqs.client, sqs.queues[HEARTBEAT_QUEUE.name]!.url),
          // the environment the handlers run with (set before recovery), so the same rules
          rules: heartbeatRulesFrom(),
        },
      },
    );
  } finally {
    client.destroy();
  }
};

export const startLocalHub = async (options: LocalHubOptions = {}): Promise<LocalHub> => {
  const log = options.log ?? consoleLog;
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  const sharedDynamo =
    dataDir || options.dynamoEndpoint === false
      ? undefined
      : (options.dynamoEndpoint ?? readSetting(SYNAPSE_DYNAMO_ENDPOINT));
  const tableName =
    options.tableName ?? (sharedDynamo ? `${DEFAULT_TABLE_NAME}-${randomUUID()}` : DEFAULT_TABLE_NAME);
  const apiHandlers: Partial<Record<FunctionName, ApiHandler>> = {};
  const cleanup: (() => Promise<void> | void)[] = [];
  // what takes work in and invokes handlers: each stops taking it at once and waits up to graceMs
  const workers: ((graceMs: number) => Promise<void>)[] = [];
  /** For a source whose stop() waits without a bound: stop waiting after the grace. */
  const withGrace = (name: string, stop: () => Promise<void>) => async (graceMs: number) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const result = await Promise.race([stop(), late]);
    clearTimeout(timer);
    if (result === 'late') log(`local hub: the ${name} was still busy after ${graceMs} ms; left behind`);
  };
  // intake stops everywhere first, so no request or message reaches a half-stopped hub; then the
  // rest in reverse order of start
  const stopAll = async (graceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS) => {
    const report = (e: unknown) => log('local hub: a component did not stop cleanly', e);
    await Promise.all(workers.splice(0).map((stop) => stop(graceMs).catch(report)));
    for (const step of cleanup.splice(0).reverse()) {
      try {
        await step();
      } catch (e) {
        report(e);
      }
    }
  };

  const auth = options.auth ?? 'dev';
  let authorizer: AuthorizerHandler | undefined;
  try {
    // the port first: a taken port fails before Java starts, and PUBLIC_URL needs the bound port
    const api = await startHttpGateway({
      routes: ROUTES,
      handlers: apiHandlers,
      ...(auth === 'dev'
        ? {}
        : {
            authorizer: {
              handler: (event, context) => {
                if (!authorizer) throw new Error('the authorizer is not loaded yet');
                return authorizer(event, context);
              },
              ...(auth.cacheTtlMs ? { cacheTtlMs: auth.cacheTtlMs } : {}),
              ...(auth.throttle === false ? {} : { throttle: auth.throttle ?? TENANT_THROTTLE }),
            },
          }),
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      log,
      streamTimeoutMs: STREAMING.integrationTimeoutSeconds * 1000,
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    });
    workers.push((graceMs) => api.stop(graceMs));
    const publicUrl = api.url.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//127.0.0.1');

    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const dynamo: Pick<DynamoLocal, 'endpoint'> = sharedDynamo
      ? { endpoint: sharedDynamo }
      : await startDynamoLocal({ ...(dataDir ? { dataDir } : {}), tuning: 'throughput' });
    if (!sharedDynamo) cleanup.push(() => (dynamo as DynamoLocal).stop());
    await createTableIfMissing(dynamo.endpoint, tableName);
    if (sharedDynamo) cleanup.push(() => dropTable(dynamo.endpoint, tableName));

    const cap = options.visibilityTimeoutCapSeconds;
    const sqs: LocalSqs = await startLocalSqs({
      queues: cap
        ? QUEUES.map((q) => ({ ...q, visibilityTimeoutSeconds: Math.min(q.visibilityTimeoutSeconds, cap) }))
        : QUEUES,
      plainQueues: [STREAM_RELAY.failureQueueName],
    });
    cleanup.push(() => sqs.stop());

    const bus = await startLocalEventBus({
      ...(options.onLifecycleEvent ? { log: options.onLifecycleEvent } : {}),
    });
    cleanup.push(() => bus.stop());

    const keysGiven = [PUSH_SIGNING_KEYS, PUSH_SIGNING_SECRET_ARN].some(
      (s) => (options.env ? readSetting(s, options.env) : undefined) ?? readSetting(s),
    );
    const signingKeys: Record<string, string> = keysGiven
      ? {}
      : { [SIGNING_KEYS_ENV]: (await localKeySet(dataDir ? { dataDir } : {})).text };
    // the handlers read these as Lambda hands them over; the quiet defaults only where the caller set nothing
    const restoreEnv = setEnvironment(
      {
        TABLE_NAME: tableName,
        ...Object.fromEntries(QUEUES.map((q) => [q.urlEnv, sqs.queues[q.name]!.url])),
        // each consumer sends poison messages to its dead-letter queue, saying why (and the delivery
        // worker the deliveries that gave up, DELIVERY_DLQ_URL)
        ...Object.fromEntries(QUEUES.map((q) => [q.dlqUrlEnv, sqs.queues[q.name]!.deadLetterUrl])),
        // the relay describes an undecodable stream record there
        [RELAY_FAILURES_URL_ENV]: sqs.urls[STREAM_RELAY.failureQueueName]!,
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_ENDPOINT_URL_SQS: sqs.endpoint,
        AWS_ENDPOINT_URL_EVENTBRIDGE: bus.endpoint,
        EVENT_BUS_NAME: 'synapse-local',
        AWS_REGION: LOCAL_REGION,
        AWS_DEFAULT_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        PUBLIC_URL: publicUrl,
        AUTH_MODE: auth === 'dev' ? 'none' : 'required',
        [INSPECTOR_ASSETS_DIR.name]: await localInspectorAssets(),
        ...signingKeys,
        // a delivery an invocation that died left claimed is taken over as soon as its message comes back
        ...(cap ? { [DELIVERY_IN_FLIGHT_SECONDS.name]: String(cap) } : {}),
        ...options.env,
        ...(options.agentModule ? { [AGENT_MODULE.name]: options.agentModule } : {}),
        // the registry probes the hub's own agent, as on AWS (there its URL is public): the guard lets its
        // own address through, and nothing else it would refuse
        PUSH_URL_ALLOWLIST: [
          (options.env ? readSetting(PUSH_URL_ALLOWLIST, options.env) : undefined) ??
            readSetting(PUSH_URL_ALLOWLIST),
          new URL(publicUrl).host,
        ]
          .filter(Boolean)
          .join(','),
      },
      QUIET_DEFAULTS,
    );
    cleanup.push(restoreEnv);
    // an agent loaded by an earlier hub of this process is not this one's
    if (options.agentModule) resetAgentCache();

    // the handlers' AWS clients are built from here on: hooked before any is
    const faultSpec = readSetting(FAULTS, options.env ?? {}) ?? readSetting(FAULTS);
    const faults = options.faults ?? (faultSpec ? new FaultLayer(faultSpec) : undefined);
    if (faults) {
      setAwsClientHook((client) => installSdkFaults(faults, client));
      cleanup.push(() => setAwsClientHook(undefined));
      log(`local hub: faults on (${describeFaults(faults.spec)})`, undefined, 'info');
    }

    const given = options.handlers ?? {};
    const http = {} as Record<FunctionName, ApiHandler>;
    for (const name of Object.keys(HTTP_FUNCTION_MEMORY_MB) as FunctionName[]) {
      http[name] = given[name] ?? (await loadHandler(name));
      apiHandlers[name] = http[name];
    }
    const handlers: HubHandlers = {
      ...http,
      authorizer: given.authorizer ?? (auth === 'dev' ? refuseAll : await loadHandler('authorizer')),
      executor: given.executor ?? (await loadHandler('executor')),
      heartbeat: given.heartbeat ?? (await loadHandler('heartbeat')),
      deliver: given.deliver ?? (await loadHandler('deliver')),
      sweeper: given.sweeper ?? (await loadHandler('sweeper')),
      relay: given.relay ?? (await loadHandler('relay')),
      'registry-probe': given['registry-probe'] ?? (await loadHandler('registry-probe')),
    };
    authorizer = handlers.authorizer;

    const executor: EventSource = startEventSource({
      client: sqs.client,
      queue: sqs.queues[EXECUTOR_QUEUE.name]!,
      handler: handlers.executor,
      functionName: 'executor',
      concurrency: options.executorConcurrency ?? DEFAULT_EXECUTOR_CONCURRENCY,
      waitTimeSeconds: options.pollWaitSeconds ?? 1,
      ...(faults ? { faults } : {}),
      log,
    });
    workers.push(async (graceMs) => {
      const left = await executor.stop(graceMs);
      if (left > 0)
        log(
          `local hub: ${left} executor batch(es) still running after ${graceMs} ms were left behind; ` +
            'their tasks stay executing until their heartbeat watch finds them silent (a restart on the same data directory arms it)',
        );
    });

    // heartbeat watches are consumed like the executor queue (a function of their own on AWS)
    const heartbeats: EventSource = startEventSource({
      client: sqs.client,
      queue: sqs.queues[HEARTBEAT_QUEUE.name]!,
      handler: handlers.heartbeat,
      ...(faults ? { faults } : {}),
      functionName: 'heartbeat',
      concurrency: 10,
      waitTimeSeconds: options.pollWaitSeconds ?? 1,
      log,
    });
    workers.push(async (graceMs) => void (await heartbeats.stop(graceMs)));

    // push deliveries, as on AWS: one invocation per batch, each record a POST of up to the timeout
    const deliveries: EventSource = startEventSource({
      client: sqs.client,
      queue: sqs.queues[DELIVERY_QUEUE.name]!,
      handler: handlers.deliver,
      ...(faults ? { faults } : {}),
      functionName: 'deliver',
      concurrency: 10,
      waitTimeSeconds: options.pollWaitSeconds ?? 1,
      log,
    });
    workers.push(async (graceMs) => void (await deliveries.stop(graceMs)));

    // the queues live in memory: after a restart, re-derive the runs and heartbeat watches live tasks need
    const recovered = dataDir ? await recover(dynamo.endpoint, tableName, sqs) : undefined;

    const streams = new DynamoDBStreamsClient({
      endpoint: dynamo.endpoint,
      region: LOCAL_REGION,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    cleanup.push(() => streams.destroy());
    const streamArn = await streamArnOf(dynamo.endpoint, tableName);
    const relay: StreamSource = await startStreamSource({
      client: streams,
      streamArn,
      handler: handlers.relay,
      functionName: 'relay',
      batchSize: STREAM_RELAY.batchSize,
      maxRetryAttempts: STREAM_RELAY.maxRetryAttempts,
      bisectBatchOnError: STREAM_RELAY.bisectBatchOnError,
      filter: relayWants,
      timeoutMs: STREAM_RELAY.timeoutSeconds * 1000,
      ...(dataDir
        ? { checkpoints: fileCheckpoints(resolve(dataDir, 'stream-checkpoints.json'), streamArn) }
        : {}),
      onFailure: async (failed) => {
        await sqs.client.send(
          new SendMessageCommand({
            QueueUrl: sqs.urls[STREAM_RELAY.failureQueueName]!,
            MessageBody: JSON.stringify({
              requestContext: { condition: failed.reason },
              DDBStreamBatchInfo: failed,
            }),
          }),
        );
      },
      ...(options.streamPollMs !== undefined ? { idlePollMs: options.streamPollMs } : {}),
      ...(faults ? { faults } : {}),
      log,
    });
    workers.push(withGrace('relay', () => relay.stop()));

    const sweeper: Schedule = startSchedule({
      handler: handlers.sweeper,
      functionName: 'sweeper',
      ...(faults ? { faults } : {}),
      intervalMs: options.sweepIntervalMs ?? 60_000,
      log,
    });
    workers.push(withGrace('sweeper', () => sweeper.stop()));

    // the registry's probes: the rule's tick is a message on the probe queue, whose consumer queues the
    // probes due and carries them out (infra/constructs/registry.ts)
    const probeQueue = sqs.queues[REGISTRY_PROBE_QUEUE.name]!;
    const probes: EventSource = startEventSource({
      client: sqs.client,
      queue: probeQueue,
      handler: handlers['registry-probe'],
      ...(faults ? { faults } : {}),
      functionName: 'registry-probe',
      concurrency: 10,
      waitTimeSeconds: options.pollWaitSeconds ?? 1,
      log,
    });
    workers.push(async (graceMs) => void (await probes.stop(graceMs)));
    const probeTicks: Schedule = startSchedule({
      handler: async (event) =>
        void (await sqs.client.send(
          new SendMessageCommand({
            QueueUrl: probeQueue.url,
            MessageBody: JSON.stringify({ probeTick: event.time }),
          }),
        )),
      functionName: 'registry-probe-tick',
      intervalMs: probeScheduleFrom().tickSeconds * 1000,
      log,
    });
    workers.push(withGrace('registry-probe-tick', () => probeTicks.stop()));

    // the hub's own card in its registry, approved, as a deployment's trigger publishes it (functions/registry-probe.ts)
    try {
      const publish = handlers['registry-probe'] as unknown as (
        event: unknown,
        context: Context,
      ) => Promise<unknown>;
      await publish({}, createLambdaContext({ functionName: 'registry-probe', timeoutMs: 60_000 }));
    } catch (e) {
      log(`local hub: the hub's own card was not published to its registry: ${(e as Error).message}`);
    }

    return {
      url: publicUrl,
      port: api.port,
      tableName,
      queueUrls: sqs.urls,
      dynamoEndpoint: dynamo.endpoint,
      sqsEndpoint: sqs.endpoint,
      sqsClient: sqs.client,
      bus,
      recovered,
      relayCaughtUp: () => relay.caughtUp(),
      sweep: () => sweeper.fire(),
      faults,
      stop: (graceMs) => stopAll(graceMs),
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
};
