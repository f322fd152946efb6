/**
 * What the local runtime hands a handler besides its event: a Lambda-like
 * `Context`. Handlers run in this process, so the timeout is advisory
 * (getRemainingTimeInMillis counts down) and never enforced.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '123456789012';

/** Where the local runtime reports what CloudWatch would have shown (handler errors, poll failures). */
/** A line of the local runtime's log: a failure (with its error, stack included) or, `info`, an event. */
export type LocalLog = (message: string, error?: unknown, level?: 'error' | 'info') => void;

export const consoleLog: LocalLog = (message, error, level = 'error') => {
  if (level === 'info') console.log(message);
  else if (error === undefined) console.error(message);
  else console.error(message, error);
};

export interface ContextOptions {
  functionName: string;
  timeoutMs: number;
  awsRequestId?: string;
  memoryLimitInMB?: number;
}

const deprecated = () => {
  throw new Error('callback-style completion is not supported: return a promise');
};

export const createLambdaContext = (options: ContextOptions): Context => {
  const deadline = Date.now() + options.timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 1024),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: deprecated,
    fail: deprecated,
    succeed: deprecated,
  };
};
