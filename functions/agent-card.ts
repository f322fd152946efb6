/**
 * Agent card (GET /.well-known/agent-card.json and the legacy agent.json):
 * built from the configured agent's description; v1.0 shape for clients that
 * send A2A-Version: 1.0, v0.3 shape otherwise. Cacheable, with ETag / 304.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadAgent } from '../shared/agent/load.ts';
import { lowerCaseHeaders, publicUrlOf } from '../shared/http.ts';
import { withObservability } from '../shared/observability/index.ts';
import { buildAgentCard, cardETag, cardVersionFor } from '../shared/protocol/a2a/index.ts';
import { JSONRPC_PATH } from '../shared/routes.ts';

/** The card only changes with a deployment, i.e. with a new container. */
const LAST_MODIFIED = new Date().toUTCString();

export const agentCardHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const headers = lowerCaseHeaders(event.headers);
  const agent = (await loadAgent()).describe();
  const card = buildAgentCard({
    agent,
    jsonRpcUrl: `${publicUrlOf(event)}${JSONRPC_PATH}`,
    capabilities: { streaming: false, pushNotifications: false },
    version: cardVersionFor(headers['a2a-version']),
  });
  const etag = cardETag(card);
  const cacheHeaders = {
    etag,
    'last-modified': LAST_MODIFIED,
    'cache-control': 'public, max-age=300',
    vary: 'A2A-Version',
  };
  const cached = headers['if-none-match']?.split(',').map((t) => t.trim()) ?? [];
  if (cached.includes(etag) || cached.includes('*')) {
    return { statusCode: 304, headers: cacheHeaders, body: '' };
  }
  return {
    statusCode: 200,
    headers: { ...cacheHeaders, 'content-type': 'application/json' },
    body: JSON.stringify(card),
  };
};

export const handler = withObservability(agentCardHandler, { functionName: 'agent-card' });
