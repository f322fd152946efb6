/**
 * Composition root for the Lambda handlers: builds adapters from the
 * environment once per container (module scope) and hands out use cases.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoTaskStore } from './adapters/dynamodb/task-store.ts';
import { EventBridgeLifecyclePublisher } from './adapters/eventbridge/lifecycle-publisher.ts';
import { SqsExecutorQueue } from './adapters/sqs/executor-queue.ts';
import { EXECUTOR_QUEUE } from './adapters/sqs/queues.ts';
import { loadAgent } from './agent/load.ts';
import { TaskExecutor } from './app/executor.ts';
import type { ExecutorQueue, LifecyclePublisher } from './app/ports.ts';
import { type EngineObserver, TaskEngine } from './app/task-engine.ts';
import { DEFAULT_TASK_TIMEOUT_SECONDS, TaskService } from './app/task-service.ts';
import { countMetric, countTransition, MetricName, metrics } from './observability/index.ts';

// a per-event-type metric is a Powertools single metric (costly to build): only when metrics are on
const metricsObserver: EngineObserver = {
  created: () => countMetric(MetricName.TasksCreated),
  transitioned: (event) => {
    if (metrics.enabled) countTransition(event.type);
  },
  conflictLost: () => countMetric(MetricName.ConflictsLost),
};

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

let dynamo: DynamoDBClient | undefined;
/** The one DynamoDB client of this container (the benchmark instruments it to count what a task costs). */
export const dynamoClient = (): DynamoDBClient => {
  dynamo ??= new DynamoDBClient({});
  return dynamo;
};

let engine: TaskEngine | undefined;
export const taskEngine = (): TaskEngine => {
  engine ??= new TaskEngine(new DynamoTaskStore(dynamoClient(), { tableName: required('TABLE_NAME') }), {
    observer: metricsObserver,
    leaseSeconds: EXECUTOR_QUEUE.consumerTimeoutSeconds + 60,
    taskTimeoutSeconds: Number(process.env.TASK_TIMEOUT_SECONDS ?? DEFAULT_TASK_TIMEOUT_SECONDS),
  });
  return engine;
};

let sqs: SQSClient | undefined;
export const sqsClient = (): SQSClient => {
  sqs ??= new SQSClient({});
  return sqs;
};

export const executorQueueUrl = (): string => required(EXECUTOR_QUEUE.urlEnv);

let executorQueue: ExecutorQueue | undefined;
export const executorQueueFromEnv = (): ExecutorQueue => {
  executorQueue ??= new SqsExecutorQueue(sqsClient(), executorQueueUrl());
  return executorQueue;
};

let publisher: LifecyclePublisher | undefined;
export const lifecyclePublisher = (): LifecyclePublisher => {
  publisher ??= new EventBridgeLifecyclePublisher(new EventBridgeClient({}), required('EVENT_BUS_NAME'));
  return publisher;
};

let executor: Promise<TaskExecutor> | undefined;
/** The agent runner (the agent module is loaded once per container). */
export const taskExecutor = (): Promise<TaskExecutor> => {
  executor ??= loadAgent().then((agent) => new TaskExecutor(taskEngine(), agent));
  return executor;
};

let service: Promise<TaskService> | undefined;
/** Requester use cases; blocking sends run the agent inline. */
export const taskService = (): Promise<TaskService> => {
  service ??= taskExecutor().then(
    (runner) =>
      new TaskService(
        taskEngine(),
        runner,
        Number(process.env.TASK_TIMEOUT_SECONDS ?? DEFAULT_TASK_TIMEOUT_SECONDS),
      ),
  );
  return service;
};

/** Tenant of unauthenticated callers until authentication lands. */
export const defaultCaller = () => ({ tenant: process.env.DEFAULT_TENANT ?? 'default', owner: 'anonymous' });

/** Until authentication lands every caller is the anonymous owner of the default tenant. */
export const callerOf = (_event: unknown) => defaultCaller();
