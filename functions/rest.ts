/**
 * A2A HTTP+JSON (REST) endpoint (ANY /a2a/rest/{proxy+}): hands the request to
 * the REST binding over the same A2A handler as JSON-RPC; this file only
 * adapts API Gateway's event (the path below /a2a/rest, the query, the body).
 *
 * A response-streaming handler, like functions/jsonrpc.ts: `message:stream`
 * and `tasks/{id}:subscribe` are written event by event, every other answer
 * is a short body through the same stream.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { type StreamedResult, streamedResult } from '../shared/adapters/lambda/streamed-response.ts';
import { RestBinding } from '../shared/app/a2a/rest.ts';
import { a2aHandler, a2aRequestOf, logA2ARequest } from '../shared/composition-roots/a2a.ts';
import { REST_PATH } from '../shared/contracts/routes.ts';
import { withObservability } from '../shared/observability/index.ts';

let restInstance: Promise<RestBinding> | undefined;
const rest = () => {
  restInstance ??= a2aHandler().then((handler) => new RestBinding(handler));
  return restInstance;
};

/**
 * The path below the interface's base, still percent-encoded where the client encoded it (the binding
 * decodes path parameters once): API Gateway's `path` is the resource path as requested.
 */
const routePathOf = (event: APIGatewayProxyEvent): string => {
  const path = event.path ?? '';
  const at = path.indexOf(REST_PATH);
  return at >= 0 ? path.slice(at + REST_PATH.length) || '/' : `/${event.pathParameters?.proxy ?? ''}`;
};

export const restHandler = async (event: APIGatewayProxyEvent, context: Context): Promise<StreamedResult> => {
  const query = Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).map(([k, v]) => [k, v ?? undefined]),
  );
  const { meta, ...response } = await (await rest()).handle({
    ...a2aRequestOf(event, context),
    method: event.httpMethod,
    path: routePathOf(event),
    query,
  });
  logA2ARequest('rest request', event, meta ?? {}, response, { route: meta?.route });
  return streamedResult(response);
};

export const handler = withObservability(restHandler, { functionName: 'rest', streamifyResponse: true });
