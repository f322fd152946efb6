/**
 * Composition root for the Lambda handlers: builds adapters from the
 * environment once per container (module scope) and hands out use cases.
 * The settings it reads are declared in shared/config/ (docs/configuration.md).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import { DynamoPushConfigStore } from '../adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../adapters/dynamodb/task-store.ts';
import { EventBridgeLifecyclePublisher } from '../adapters/eventbridge/lifecycle-publisher.ts';
import { SqsExecutorQueue } from '../adapters/sqs/executor-queue.ts';
import { SqsHeartbeatQueue } from '../adapters/sqs/heartbeat-queue.ts';
import { SqsPoisonQueue } from '../adapters/sqs/poison-queue.ts';
import { EXECUTOR_QUEUE } from '../adapters/sqs/queues.ts';
import type { AgentHandler } from '../agent/api.ts';
import { loadAgent } from '../agent/load.ts';
import { pushNotificationsConfigured } from '../app/a2a/card.ts';
import { HeartbeatWatcher } from '../app/heartbeat/heartbeat.ts';
import { agentSkillOf, parseRemoteSkills } from '../app/synapse/bridge.ts';
import { type LoadedRegistry, RemoteSkillResolver } from '../app/synapse/remote-skills.ts';
import { SynapseRequester } from '../app/synapse/requester.ts';
import { deadlineRulesOf } from '../app/tasks/deadlines.ts';
import { TaskExecutor } from '../app/tasks/executor.ts';
import { type EngineObserver, TaskEngine } from '../app/tasks/task-engine.ts';
import { type RemoteExecution, TaskService } from '../app/tasks/task-service.ts';
import { EVENT_BUS_NAME, EXECUTOR_QUEUE_URL, HEARTBEAT_QUEUE_URL, TABLE_NAME } from '../config/deployment.ts';
import { heartbeatRulesFrom } from '../config/heartbeat.ts';
import { readSetting, requireSetting, type Setting } from '../config/settings.ts';
import { SYNAPSE_REMOTE_SKILLS, TASK_MAX_DEADLINE_SECONDS, TASK_TIMEOUT_SECONDS } from '../config/tasks.ts';
import { countMetric, countTransition, MetricName, metrics } from '../observability/index.ts';
import type { ExecutorQueue } from '../ports/executor-queue.ts';
import type { HeartbeatQueue } from '../ports/heartbeat-queue.ts';
import type { LifecyclePublisher } from '../ports/lifecycle-publisher.ts';
import type { PoisonQueue } from '../ports/poison-queue.ts';
import { registrySkills } from './registry-skills.ts';

// a per-event-type metric is a Powertools single metric (costly to build): only when metrics are on
const metricsObserver: EngineObserver = {
  created: () => countMetric(MetricName.TasksCreated),
  transitioned: (event) => {
    if (metrics.enabled) countTransition(event.type);
  },
  conflictLost: () => countMetric(MetricName.ConflictsLost),
};

let dynamo: DynamoDBClient | undefined;
/** The one DynamoDB client of this container (the benchmark instruments it to count what a task costs). */
export const dynamoClient = (): DynamoDBClient => {
  dynamo ??= awsClient(new DynamoDBClient(SDK_RETRY));
  return dynamo;
};

let store: DynamoTaskStore | undefined;
/** The task store (also the executor's liveness writer). */
export const taskStore = (): DynamoTaskStore => {
  store ??= new DynamoTaskStore(dynamoClient(), { tableName: requireSetting(TABLE_NAME) });
  return store;
};

/** HEARTBEAT_INTERVAL_SECONDS (30), HEARTBEAT_MISSED_LIMIT (2), HEARTBEAT_MAX_RERUNS (3). */
export const heartbeatRules = () => heartbeatRulesFrom();

let engine: TaskEngine | undefined;
export const taskEngine = (): TaskEngine => {
  engine ??= new TaskEngine(taskStore(), {
    observer: metricsObserver,
    leaseSeconds: EXECUTOR_QUEUE.consumerTimeoutSeconds + 60,
    taskTimeoutSeconds: readSetting(TASK_TIMEOUT_SECONDS),
  });
  return engine;
};

let sqs: SQSClient | undefined;
export const sqsClient = (): SQSClient => {
  sqs ??= awsClient(new SQSClient(SDK_RETRY));
  return sqs;
};

export const executorQueueUrl = (): string => requireSetting(EXECUTOR_QUEUE_URL);

export const heartbeatQueueUrl = (): string => requireSetting(HEARTBEAT_QUEUE_URL);

/** Where a consumer sends its poison records: the queue whose URL `setting` holds (a dead-letter queue). */
export const poisonQueueAt = (setting: Setting<string>): PoisonQueue =>
  new SqsPoisonQueue(sqsClient(), requireSetting(setting));

let executorQueue: ExecutorQueue | undefined;
export const executorQueueFromEnv = (): ExecutorQueue => {
  executorQueue ??= new SqsExecutorQueue(sqsClient(), executorQueueUrl());
  return executorQueue;
};

let heartbeatQueue: HeartbeatQueue | undefined;
export const heartbeatQueueFromEnv = (): HeartbeatQueue => {
  heartbeatQueue ??= new SqsHeartbeatQueue(sqsClient(), heartbeatQueueUrl());
  return heartbeatQueue;
};

let publisher: LifecyclePublisher | undefined;
export const lifecyclePublisher = (): LifecyclePublisher => {
  publisher ??= new EventBridgeLifecyclePublisher(
    awsClient(new EventBridgeClient(SDK_RETRY)),
    requireSetting(EVENT_BUS_NAME),
  );
  return publisher;
};

let executor: Promise<TaskExecutor> | undefined;
/** The agent runner (the agent module is loaded once per container). */
export const taskExecutor = (): Promise<TaskExecutor> => {
  executor ??= loadAgent().then(
    (agent) =>
      new TaskExecutor(taskEngine(), agent, undefined, undefined, {
        heartbeat: { writer: taskStore(), intervalSeconds: heartbeatRules().intervalSeconds },
      }),
  );
  return executor;
};

let watcher: Promise<HeartbeatWatcher> | undefined;
/** The heartbeat watch (it reads the agent's `idempotent` declaration). */
export const heartbeatWatcher = (): Promise<HeartbeatWatcher> => {
  watcher ??= loadAgent().then(
    (agent) =>
      new HeartbeatWatcher(taskEngine(), heartbeatQueueFromEnv(), heartbeatRules(), {
        idempotent: agent.idempotent === true,
      }),
  );
  return watcher;
};

let service: Promise<TaskService> | undefined;
/**
 * A task service for `agent`: new tasks get the deadlines the request, the agent and its skills ask for
 * (app/tasks/deadlines.ts), push configs where deliveries are configured; `runner` runs blocking sends inline.
 */
export const taskServiceFor = (agent: AgentHandler, runner?: TaskExecutor, remote?: RemoteExecution) =>
  new TaskService(
    taskEngine().with({
      deadlines: deadlineRulesOf(agent, readSetting(TASK_MAX_DEADLINE_SECONDS)),
    }),
    runner,
    readSetting(TASK_TIMEOUT_SECONDS),
    pushNotificationsConfigured() ? pushConfigStore() : undefined,
    remote,
  );

/** Requester use cases; blocking sends run the agent inline. */
export const taskService = (): Promise<TaskService> => {
  service ??= Promise.all([taskExecutor(), loadAgent()]).then(([runner, agent]) =>
    taskServiceFor(agent, runner, remoteExecution(agent)),
  );
  return service;
};

let registryLoaded: Promise<LoadedRegistry> | undefined;
/** The registry's catalog and the peers, built on the first message that needs them. */
const registryLookup = (): Promise<LoadedRegistry> => {
  registryLoaded ??= Promise.resolve().then(() => registrySkills(dynamoClient(), requireSetting(TABLE_NAME)));
  registryLoaded.catch(() => {
    registryLoaded = undefined; // tried again by the next message
  });
  return registryLoaded;
};

/**
 * The skills Synapse peers carry out (shared/app/synapse/remote-skills.ts): SYNAPSE_REMOTE_SKILLS, then
 * the agent registry's approved agents that are configured peers. Their tasks are delegated, which needs
 * the delivery queue (the messages to the peer are deliveries): without it, only the static map would be
 * a configuration error, and nothing is routed.
 */
/** Who carries out a skill: the static map, this hub's agent, then the registry's approved agents. */
export const skillResolverFor = (
  agent: AgentHandler,
  skills = parseRemoteSkills(readSetting(SYNAPSE_REMOTE_SKILLS)),
): RemoteSkillResolver => {
  const description = agent.describe();
  return new RemoteSkillResolver({
    skills,
    skillOf: agentSkillOf(agent.skillOf?.bind(agent)),
    localSkills: [...description.skills, ...(description.extendedCard?.skills ?? [])].map((s) => s.id),
    registry: registryLookup,
  });
};

const remoteExecution = (agent: AgentHandler): RemoteExecution | undefined => {
  const skills = parseRemoteSkills(readSetting(SYNAPSE_REMOTE_SKILLS));
  if (!pushNotificationsConfigured()) {
    if (Object.keys(skills).length === 0) return undefined;
    throw new Error(
      'SYNAPSE_REMOTE_SKILLS needs the delivery queue (DELIVERY_QUEUE_URL): messages to peers are deliveries',
    );
  }
  const resolver = skillResolverFor(agent, skills);
  return {
    route: (caller, message) => resolver.route(caller, message),
    requester: new SynapseRequester(taskEngine(), pushConfigStore()),
  };
};

let pushConfigs: DynamoPushConfigStore | undefined;
/** Where push-notification configs are kept (beside their tasks, in the task table). */
export const pushConfigStore = (): DynamoPushConfigStore => {
  pushConfigs ??= new DynamoPushConfigStore(dynamoClient(), requireSetting(TABLE_NAME));
  return pushConfigs;
};
