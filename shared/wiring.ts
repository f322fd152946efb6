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
    new DynamoTaskStore(new DynamoDBClient({}), { tableName: required('TABLE_NAME') }),
  );
  return engine;
};

export const executorQueueFromEnv = (): ExecutorQueue => {
  executorQueue ??= new SqsExecutorQueue(traceAwsClient(new SQSClient({})), required(EXECUTOR_QUEUE.urlEnv));
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

type Headers = Record<string, string | undefined> | null | undefined;

export const lowerCaseHeaders = (headers: Headers): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

/** Until authentication lands every caller is the anonymous owner of the default tenant. */
export const callerOf = (_event: unknown) => defaultCaller();

/**
 * The base URL clients reach us at: PUBLIC_URL when configured (custom domain),
 * else the API Gateway host and stage the request came through.
 */
export const publicUrlOf = (event: {
  headers: Headers;
  requestContext?: { stage?: string; domainName?: string };
}): string => {
  const configured = process.env.PUBLIC_URL;
  if (configured) return configured.replace(/\/+$/, '');
  const headers = lowerCaseHeaders(event.headers);
  const host = event.requestContext?.domainName ?? headers.host ?? 'localhost';
  const proto = headers['x-forwarded-proto'] ?? 'https';
  const stage = event.requestContext?.stage;
  // execute-api URLs carry the stage in the path; custom domains map it away
  const stagePath = stage && host.includes('.execute-api.') ? `/${stage}` : '';
  return `${proto}://${host}${stagePath}`;
};
