/**
 * Agent card (GET /.well-known/agent-card.json and the legacy agent.json),
 * built from the configured agent's description: the v1.0 card by default
 * (card fetchers send no A2A-Version), the v0.3 card for `?A2A-Version=0.3` or
 * the header `A2A-Version: 0.3` (see shared/protocol/a2a/agent-card.ts).
 * Cacheable, with ETag / 304 and `Vary: A2A-Version`. Also the Synapse JSON Schemas
 * (GET /synapse/schemas/{name}).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lowerCaseHeaders, publicUrlOf, queryParameter } from '../shared/adapters/lambda/http.ts';
import type { AgentHandler } from '../shared/agent/api.ts';
import { loadAgent } from '../shared/agent/load.ts';
import { hubCard } from '../shared/app/a2a/card.ts';
import { SYNAPSE_SCHEMAS_PATH } from '../shared/contracts/routes.ts';
import { withObservability } from '../shared/observability/index.ts';
import {
  A2A_VERSION_HEADER,
  type A2AVersion,
  cardETag,
  cardVersionFor,
} from '../shared/protocol/a2a/index.ts';

/** The card only changes with a deployment, i.e. with a new container. */
const LAST_MODIFIED = new Date().toUTCString();

/** A card handler for the agent `agent()` resolves to (the configured one in Lambda). */
export const createAgentCardHandler = (agent: () => Promise<AgentHandler> = loadAgent) => {
  /** The card depends only on the agent, the public URL and the version: serialize and hash it once each. */
  const cards = new Map<string, Promise<{ body: string; etag: string }>>();
  const cardFor = (publicUrl: string, version: A2AVersion) => {
    const key = `${version} ${publicUrl}`;
    let entry = cards.get(key);
    if (!entry) {
      entry = agent().then((handler) => {
        const card = hubCard({ agent: handler.describe(), publicUrl, version });
        return { body: JSON.stringify(card), etag: cardETag(card) };
      });
      entry.catch(() => cards.delete(key));
      cards.set(key, entry);
    }
    return entry;
  };

  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    if ((event.path ?? '').includes(SYNAPSE_SCHEMAS_PATH)) return synapseSchema(event);
    const headers = lowerCaseHeaders(event.headers);
    const version = cardVersionFor(
      headers['a2a-version'],
      queryParameter(event.queryStringParameters, A2A_VERSION_HEADER),
    );
    const { body, etag } = await cardFor(publicUrlOf(event), version);
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
};

/**
 * `GET /synapse/schemas/{name}`: the JSON Schemas Synapse messages are validated against (discovery
 * documents, like the card). Generated on first request, so a card request never loads them.
 */
const synapseSchema = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const { synapseSchemaByName } = await import('../shared/protocol/synapse/json-schema.ts');
  const name = event.pathParameters?.name ?? '';
  const schema = synapseSchemaByName(name, SYNAPSE_SCHEMAS_PATH);
  if (!schema)
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: `No schema ${name}: see ${SYNAPSE_SCHEMAS_PATH}/index.json` }),
    };
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/schema+json', 'cache-control': 'public, max-age=300' },
    body: JSON.stringify(schema),
  };
};

export const agentCardHandler = createAgentCardHandler();

export const handler = withObservability(agentCardHandler, { functionName: 'agent-card' });
