/**
 * A2A JSON-RPC endpoint (POST /a2a/jsonrpc): hands the request to the
 * JSON-RPC binding over the A2A handler; this file only adapts API Gateway's event.
 *
 * A response-streaming handler (the route's STREAM transfer mode): a streaming
 * method's answer is written to the client event by event, every other answer
 * is a short body through the same stream. The invocation lasts as long as
 * the work a request started: a streamed send's inline agent run goes on (to
 * its hand-back time at most) when its client disconnects.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { a2aHandler, MAX_BLOCKING_MS } from '../shared/a2a-wiring.ts';
import {
  type StreamedResult,
  streamBudgetMs,
  streamedResult,
} from '../shared/adapters/aws/streamed-response.ts';
import { JsonRpcBinding } from '../shared/app/a2a/jsonrpc.ts';
import { lowerCaseHeaders, publicUrlOf } from '../shared/http.ts';
import { appendTaskKeys, logger, withObservability } from '../shared/observability/index.ts';
import { callerOf } from '../shared/wiring.ts';

let rpcInstance: Promise<JsonRpcBinding> | undefined;
const rpc = () => {
  rpcInstance ??= a2aHandler().then((handler) => new JsonRpcBinding(handler));
  return rpcInstance;
};

export const jsonRpcHandler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<StreamedResult> => {
  const body =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const { meta, ...response } = await (await rpc()).handle({
    body,
    headers: lowerCaseHeaders(event.headers),
    caller: callerOf(event),
    blockingBudgetMs: Math.max(0, Math.min(MAX_BLOCKING_MS, context.getRemainingTimeInMillis() - 2_000)),
    streamBudgetMs: streamBudgetMs(context),
    publicUrl: publicUrlOf(event),
  });
  appendTaskKeys({
    taskId: meta?.taskId,
    contextId: meta?.contextId,
    requestId: event.requestContext?.requestId,
  });
  logger.info('jsonrpc request', {
    method: meta?.method,
    errorCode: meta?.errorCode,
    statusCode: response.statusCode,
    ...(response.stream ? { streamed: true } : {}),
  });
  return streamedResult(response);
};

export const handler = withObservability(jsonRpcHandler, {
  functionName: 'jsonrpc',
  streamifyResponse: true,
});
