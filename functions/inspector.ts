/**
 * The inspector (docs/inspector.md): `GET /inspector` and `/inspector/assets/…` serve the page (public:
 * no data in it), `GET /hub/…` the read API behind the authorizer (shared/app/inspector/read-api.ts).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalOf } from '../shared/adapters/lambda/auth-context.ts';
import { lowerCaseHeaders } from '../shared/adapters/lambda/http.ts';
import type { InspectorReadApi } from '../shared/app/inspector/read-api.ts';
import type { InspectorSite } from '../shared/app/inspector/site.ts';
import { inspectorReadApi, inspectorSite } from '../shared/composition-roots/inspector.ts';
import { HUB_API_PATH, INSPECTOR_PATH } from '../shared/contracts/routes.ts';
import { appendTaskKeys, logger, withObservability } from '../shared/observability/index.ts';

/** The part of the request's path below `prefix` (API Gateway's path may carry a base path before it). */
const below = (path: string, prefix: string): string => {
  const at = path.indexOf(prefix);
  return at >= 0 ? path.slice(at + prefix.length) : '';
};

const readApi = async (
  api: InspectorReadApi,
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> => {
  const answer = await api.handle({
    method: event.httpMethod,
    path: below(event.path ?? '', HUB_API_PATH),
    query: event.queryStringParameters ?? {},
    principal: principalOf(event),
  });
  appendTaskKeys({ taskId: answer.meta.taskId, requestId: event.requestContext?.requestId });
  logger.info('read api request', { ...answer.meta, statusCode: answer.statusCode });
  return {
    statusCode: answer.statusCode,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...answer.headers },
    body: JSON.stringify(answer.body),
  };
};

/** The handler of the page (`site()`) and the read API (`api()`), each built on first use. */
export const createInspectorHandler =
  (site: () => InspectorSite, api: () => InspectorReadApi) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    if (event.resource?.startsWith(HUB_API_PATH)) return readApi(api(), event);
    if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD')
      return { statusCode: 405, headers: { Allow: 'GET' }, body: '' };
    const headers = lowerCaseHeaders(event.headers);
    return site().get(below(event.path ?? '', INSPECTOR_PATH), headers['if-none-match']);
  };

export const handler = withObservability(createInspectorHandler(inspectorSite, inspectorReadApi), {
  functionName: 'inspector',
});
