/**
 * Agent card (GET /.well-known/agent-card.json and the legacy agent.json),
 * built from the configured agent's description: the v1.0 card by default
 * (card fetchers send no A2A-Version), the v0.3 card for `?A2A-Version=0.3` or
 * the header `A2A-Version: 0.3` (see shared/protocol/a2a/agent-card.ts).
 * Cacheable, with ETag / 304 and `Vary: A2A-Version`. Signed (A2A v1.0 §8.4, docs/registry.md#trust)
 * with the push-signing key set when one is configured, both versions' cards: the ETag follows the
 * signature, so it changes when the signing key rotates. Also the Synapse JSON Schemas
 * (GET /synapse/schemas/{name}).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { lowerCaseHeaders, publicUrlOf, queryParameter } from '../shared/adapters/lambda/http.ts';
import type { AgentHandler } from '../shared/agent/api.ts';
import { loadAgent } from '../shared/agent/load.ts';
import { hubCard } from '../shared/app/a2a/card.ts';
import type { HubCardSigner } from '../shared/app/a2a/card-signer.ts';
import { JWKS_PATH, SYNAPSE_SCHEMAS_PATH } from '../shared/contracts/routes.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import {
  A2A_VERSION_HEADER,
  type A2AVersion,
  type AgentCard,
  cardETag,
  cardVersionFor,
} from '../shared/protocol/a2a/index.ts';

/** The card only changes with a deployment, i.e. with a new container. */
const LAST_MODIFIED = new Date().toUTCString();

/**
 * The signer of the configured key set, or none: loaded on the first request (the keys' adapters are
 * not in the bundle's cold-start import).
 */
const signerFromEnv = async (): Promise<HubCardSigner | undefined> =>
  (await import('../shared/composition-roots/card-signing.ts')).hubCardSignerFromEnv();

interface CardAnswer {
  body: string;
  etag: string;
}

const answerOf = (card: AgentCard): CardAnswer => ({ body: JSON.stringify(card), etag: cardETag(card) });

/**
 * A card handler for the agent `agent()` resolves to (the configured one in Lambda), signed by the
 * signer `signer()` resolves to, if any.
 */
export const createAgentCardHandler = (
  agent: () => Promise<AgentHandler> = loadAgent,
  signer: () => Promise<HubCardSigner | undefined> = signerFromEnv,
) => {
  /** The card depends only on the agent, the public URL and the version: serialize and hash it once each. */
  const cards = new Map<string, Promise<{ card: AgentCard; unsigned: CardAnswer }>>();
  /** The signed card per card and signing key: a signature (ES256's is random) is made once per key. */
  const signed = new Map<string, { kid: string; d: unknown; answer: Promise<CardAnswer> }>();
  const cardFor = (key: string, publicUrl: string, version: A2AVersion) => {
    let entry = cards.get(key);
    if (!entry) {
      entry = agent().then((handler) => {
        const card = hubCard({ agent: handler.describe(), publicUrl, version });
        return { card, unsigned: answerOf(card) };
      });
      entry.catch(() => cards.delete(key));
      cards.set(key, entry);
    }
    return entry;
  };
  const answerFor = async (publicUrl: string, version: A2AVersion): Promise<CardAnswer> => {
    const key = `${version} ${publicUrl}`;
    const { card, unsigned } = await cardFor(key, publicUrl, version);
    try {
      const cardSigner = await signer();
      if (!cardSigner) return unsigned;
      // the key set is re-read every few minutes (KEY_CACHE_SECONDS): a rotation re-signs the card
      const jwk = await cardSigner.currentKey();
      const hit = signed.get(key);
      if (hit && hit.kid === jwk.kid && hit.d === jwk.d) return await hit.answer;
      const answer = cardSigner.sign(card, { key: jwk, jwksUrl: `${publicUrl}${JWKS_PATH}` }).then(answerOf);
      signed.set(key, { kid: jwk.kid, d: jwk.d, answer });
      answer.catch(() => {
        if (signed.get(key)?.answer === answer) signed.delete(key);
      });
      return await answer;
    } catch (e) {
      // a card is better served unsigned than not at all (the JWKS answers 503 meanwhile); never a key in the log
      logger.warn('agent card: served unsigned, the signing keys are not available', {
        error: e instanceof Error ? e.message : String(e),
      });
      return unsigned;
    }
  };

  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    if ((event.path ?? '').includes(SYNAPSE_SCHEMAS_PATH)) return synapseSchema(event);
    const headers = lowerCaseHeaders(event.headers);
    const version = cardVersionFor(
      headers['a2a-version'],
      queryParameter(event.queryStringParameters, A2A_VERSION_HEADER),
    );
    const { body, etag } = await answerFor(publicUrlOf(event), version);
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
