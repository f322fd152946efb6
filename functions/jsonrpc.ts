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
import { type StreamedResult, streamedResult } from '../shared/adapters/lambda/streamed-response.ts';
import { JsonRpcBinding } from '../shared/app/a2a/jsonrpc.ts';
import { a2aHandler, a2aRequestOf, logA2ARequest } from '../shared/composition-roots/a2a.ts';
import { withObservability } from '../shared/observability/index.ts';

let rpcInstance: Promise<JsonRpcBinding> | undefined;
const rpc = () => {
  rpcInstance ??= a2aHandler().then((handler) => new JsonRpcBinding(handler));
  return rpcInstance;
};

export const jsonRpcHandler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<StreamedResult> => {
  const { meta, ...response } = await (await rpc()).handle(a2aRequestOf(event, context));
  logA2ARequest('jsonrpc request', event, meta ?? {}, response, { method: meta?.method });
  return streamedResult(response);
};

export const handler = withObservability(jsonRpcHandler, {
  functionName: 'jsonrpc',
  streamifyResponse: true,
});
