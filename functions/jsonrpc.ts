/**
 * A2A JSON-RPC endpoint (POST /a2a/jsonrpc): hands the request to the
 * JSON-RPC binding over the A2A handler; this file only adapts API Gateway's event.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type JsonRpcBinding, jsonRpcOver } from '../shared/app/a2a/jsonrpc.ts';
import { lowerCaseHeaders } from '../shared/http.ts';
import { appendTaskKeys, logger, withObservability } from '../shared/observability/index.ts';
import { callerOf, taskService } from '../shared/wiring.ts';

/** API Gateway REST APIs give up after 29 s: a blocking send answers with the current task before that. */
const MAX_BLOCKING_MS = Number(process.env.BLOCKING_WAIT_MS ?? 25_000);

let rpcInstance: Promise<JsonRpcBinding> | undefined;
const rpc = () => {
  rpcInstance ??= taskService().then((tasks) => jsonRpcOver(tasks));
  return rpcInstance;
};

export const jsonRpcHandler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<APIGatewayProxyResult> => {
  const body =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const { meta, ...response } = await (await rpc()).handle({
    body,
    headers: lowerCaseHeaders(event.headers),
    caller: callerOf(event),
    blockingBudgetMs: Math.max(0, Math.min(MAX_BLOCKING_MS, context.getRemainingTimeInMillis() - 2_000)),
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
  });
  return response;
};

export const handler = withObservability(jsonRpcHandler, { functionName: 'jsonrpc' });
