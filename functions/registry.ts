/**
 * The agent registry (docs/registry.md): `/registry/…` (ARD search, explore and browse; publishing and
 * review) and the public `GET /.well-known/ai-catalog.json`, handed to the transport-neutral API
 * (shared/app/registry/http-api.ts). Also invoked directly, after a deployment and by `npm start`, with
 * `{ "publishOwnCard": "<the hub's card URL>" }`: the hub's own card is fetched there and published,
 * approved (docs/registry.md#the-hubs-own-card).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalOf } from '../shared/adapters/lambda/auth-context.ts';
import { publicUrlOf } from '../shared/adapters/lambda/http.ts';
import { AI_CATALOG } from '../shared/app/registry/http-api.ts';
import { registry, registryApi } from '../shared/composition-roots/registry.ts';
import { DEFAULT_TENANT } from '../shared/config/auth.ts';
import { readSetting } from '../shared/config/settings.ts';
import { REGISTRY_PATH } from '../shared/contracts/routes.ts';
import { logger, withObservability } from '../shared/observability/index.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export interface PublishOwnCardEvent {
  publishOwnCard: string;
}

/** Fetches the hub's own card (a URL the deployment names, not a caller: no SSRF guard) and publishes it. */
const publishOwnCard = async ({ publishOwnCard: url }: PublishOwnCardEvent) => {
  const answer = await fetch(url, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!answer.ok) throw new Error(`The hub's card at ${url} answered HTTP ${answer.status}`);
  const record = await registry().service.publishOwn(readSetting(DEFAULT_TENANT), url, await answer.json());
  logger.info("published the hub's own card", { recordId: record.id, version: record.liveVersion });
  return { recordId: record.id, identifier: record.identifier, version: record.liveVersion };
};

export const registryHandler = async (
  event: APIGatewayProxyEvent | PublishOwnCardEvent,
): Promise<APIGatewayProxyResult | Awaited<ReturnType<typeof publishOwnCard>>> => {
  if ('publishOwnCard' in event) return publishOwnCard(event);
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
