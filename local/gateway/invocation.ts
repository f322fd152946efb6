/**
 * Invoking the route's function as API Gateway's Lambda proxy integration does: within the
 * integration timeout (504 past it), a malformed or failed answer a 502.
 */
import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LocalLog } from '../lambda-context.ts';
import { isStreamingHandler } from '../lambda-streaming.ts';
import { isProxyResult, json, writeResult } from './responses.ts';
import { streamInvocation } from './streaming.ts';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** One invocation of a route's function, answering `res`. */
export interface Invocation {
  event: APIGatewayProxyEvent;
  context: Context;
  res: ServerResponse;
  requestId: string;
  /** The route's integration timeout. */
  timeoutMs: number;
  log: LocalLog;
  /** The function's name, for the log. */
  name: string;
}

/**
 * Invokes the handler: a response-streaming one (`awslambda.streamifyResponse`, told by its marker) with a
 * response stream, any other for its proxy result.
 */
export const invoke = (handler: ApiHandler, invocation: Invocation): Promise<void> =>
  isStreamingHandler(handler)
    ? streamInvocation(handler, invocation)
    : bufferedInvocation(handler, invocation);

const bufferedInvocation = async (
  handler: ApiHandler,
  { event, context, res, requestId, timeoutMs, log, name }: Invocation,
): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  // async wrapper: a handler that throws synchronously is a failed invocation too
  const invocation = (async () => handler(event, context))();
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const result = await Promise.race([invocation, timeout]);
    if (result === 'timeout') {
      invocation.catch((e: unknown) => log(`${name} failed after its timeout`, e));
      return json(res, 504, { message: 'Endpoint request timed out' });
    }
    if (!isProxyResult(result)) {
      log(`${name} returned a malformed proxy response: ${JSON.stringify(result)}`);
      return json(res, 502, { message: 'Internal server error' });
    }
    writeResult(res, result, requestId);
  } catch (e) {
    log(`${name} threw`, e);
    json(res, 502, { message: 'Internal server error' });
  } finally {
    clearTimeout(timer);
  }
};
