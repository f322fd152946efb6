/**
 * The agent registry (docs/registry.md): `/registry/…` (ARD search, explore and browse; publishing and
 * review) and the public `GET /.well-known/ai-catalog.json`, handed to the transport-neutral API
 * (shared/app/registry/http-api.ts).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalOf } from '../shared/adapters/lambda/auth-context.ts';
import { publicUrlOf } from '../shared/adapters/lambda/http.ts';
import { AI_CATALOG } from '../shared/app/registry/http-api.ts';
import { registryApi } from '../shared/composition-roots/registry.ts';
import { REGISTRY_PATH } from '../shared/contracts/routes.ts';
import { logger, withObservability } from '../shared/observability/index.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export const registryHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const path = event.path ?? '';
  const at = path.indexOf(REGISTRY_PATH);
  const below = path.endsWith(AI_CATALOG)
    ? AI_CATALOG
    : at >= 0
      ? path.slice(at + REGISTRY_PATH.length)
      : path;
  const body =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const query: Record<string, string | undefined> = { ...(event.queryStringParameters ?? {}) };
  const answer = await registryApi(publicUrlOf(event)).handle({
    method: event.httpMethod,
    path: below,
    query,
    body: body ?? undefined,
    principal: principalOf(event),
  });
  logger.info('registry request', { ...answer.meta, statusCode: answer.statusCode });
  return {
    statusCode: answer.statusCode,
    headers: { ...JSON_HEADERS, ...answer.headers },
    body: JSON.stringify(answer.body),
  };
};

export const handler = withObservability(registryHandler, { functionName: 'registry' });
