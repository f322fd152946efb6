/**
 * Agent card (GET /.well-known/agent-card.json and the legacy agent.json):
 * built from the configured agent's description; v1.0 shape for clients that
 * send A2A-Version: 1.0, v0.3 shape otherwise. Cacheable, with ETag / 304.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { loadAgent } from '../shared/agent/load.ts';
import { lowerCaseHeaders, publicUrlOf } from '../shared/http.ts';
import { withObservability } from '../shared/observability/index.ts';
import { type A2AVersion, buildAgentCard, cardETag, cardVersionFor } from '../shared/protocol/a2a/index.ts';
import { JSONRPC_PATH } from '../shared/routes.ts';

/** The card only changes with a deployment, i.e. with a new container. */
const LAST_MODIFIED = new Date().toUTCString();

/** The card depends only on the agent, the public URL and the version: serialize and hash it once each. */
const cards = new Map<string, Promise<{ body: string; etag: string }>>();
const cardFor = (publicUrl: string, version: A2AVersion) => {
  const key = `${version} ${publicUrl}`;
  let entry = cards.get(key);
  if (!entry) {
    entry = loadAgent().then((agent) => {
      const card = buildAgentCard({
        agent: agent.describe(),
        jsonRpcUrl: `${publicUrl}${JSONRPC_PATH}`,
        capabilities: { streaming: false, pushNotifications: false },
        version,
      });
      return { body: JSON.stringify(card), etag: cardETag(card) };
    });
    cards.set(key, entry);
  }
  return entry;
};

export const agentCardHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const headers = lowerCaseHeaders(event.headers);
  const { body, etag } = await cardFor(publicUrlOf(event), cardVersionFor(headers['a2a-version']));
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
    body,
  };
};

export const handler = withObservability(agentCardHandler, { functionName: 'agent-card' });
