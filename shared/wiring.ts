/**
 * Composition root for the Lambda handlers: builds adapters from the
 * environment once per container (module scope) and hands out use cases.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoTaskStore } from './adapters/dynamodb/task-store.ts';
import { SqsExecutorQueue } from './adapters/sqs/executor-queue.ts';
import { EXECUTOR_QUEUE } from './adapters/sqs/queues.ts';
import type { ExecutorQueue } from './app/ports.ts';
import { type EngineObserver, TaskEngine } from './app/task-engine.ts';
import { DEFAULT_TASK_TIMEOUT_SECONDS, TaskService } from './app/task-service.ts';
import { countMetric, countTransition, MetricName, traceAwsClient } from './observability/index.ts';

const metricsObserver: EngineObserver = {
  created: () => countMetric(MetricName.TasksCreated),
  transitioned: (event) => countTransition(event.type),
  conflictLost: () => countMetric(MetricName.ConflictsLost),
};

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

let engine: TaskEngine | undefined;
let executorQueue: ExecutorQueue | undefined;

export const taskEngine = (): TaskEngine => {
  engine ??= new TaskEngine(
    new DynamoTaskStore(traceAwsClient(new DynamoDBClient({})), { tableName: required('TABLE_NAME') }),
    { observer: metricsObserver, leaseSeconds: EXECUTOR_QUEUE.consumerTimeoutSeconds + 60 },
  );
  return engine;
};

let sqs: SQSClient | undefined;
export const sqsClient = (): SQSClient => {
  sqs ??= traceAwsClient(new SQSClient({}));
  return sqs;
};

export const executorQueueUrl = (): string => required(EXECUTOR_QUEUE.urlEnv);

export const executorQueueFromEnv = (): ExecutorQueue => {
  executorQueue ??= new SqsExecutorQueue(sqsClient(), executorQueueUrl());
  return executorQueue;
};

export const taskService = (): TaskService =>
  new TaskService(
    taskEngine(),
    executorQueueFromEnv(),
    Number(process.env.TASK_TIMEOUT_SECONDS ?? DEFAULT_TASK_TIMEOUT_SECONDS),
  );

/** Tenant of unauthenticated callers until authentication lands. */
export const defaultCaller = () => ({ tenant: process.env.DEFAULT_TENANT ?? 'default', owner: 'anonymous' });

/** Until authentication lands every caller is the anonymous owner of the default tenant. */
export const callerOf = (_event: unknown) => defaultCaller();
