/**
 * The HTTP routes and the function serving each, in one place: the CDK API
 * and the local runtime's gateway are both built from this list.
 */
export type FunctionName = keyof typeof HTTP_FUNCTION_MEMORY_MB;

export interface RouteDefinition {
  /** `ANY`: every method (the function answers 405 for those its route does not take). */
  method: 'GET' | 'POST' | 'ANY';
  /** API Gateway resource path. */
  path: string;
  function: FunctionName;
  /**
   * Answered with a streamed response (SSE): API Gateway's STREAM transfer mode, invoking the function
   * through response-streaming invocations with STREAMING.integrationTimeoutSeconds; the function's
   * handler is a response-streaming one (`withObservability(…, { streamifyResponse: true })`), and it
   * answers every request of the route that way, short JSON answers included.
   */
  stream?: boolean;
  /**
   * Open to anyone: the public agent card, the JWKS, the Synapse schemas, and the Synapse callback (its
   * messages are authenticated by their HMAC signature, docs/synapse-protocol.md). Every other route is
   * behind the authorizer (functions/authorizer.ts) and the per-tenant usage plan (docs/security.md).
   */
  public?: true;
}

/** The public agent card (A2A: agent discovery, RFC 8615). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Path of the JSON-RPC interface, relative to the deployment's public URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc';

/** The JWKS push receivers verify the hub's push JWTs with (docs/push-signing.md). */
export const JWKS_PATH = '/.well-known/jwks.json';

/** Base path of the HTTP+JSON (REST) interface: its routes (`/message:send`, `/tasks/{id}`…) are below it. */
export const REST_PATH = '/a2a/rest';

/** Where Synapse peers POST their p2p messages (docs/synapse-protocol.md#the-endpoint). */
export const SYNAPSE_CALLBACK_PATH = '/synapse/callback';

/** The requester's API: delegate a task to a Synapse peer, read it, answer it, cancel it. */
export const SYNAPSE_TASKS_PATH = '/synapse/tasks';

/** Where the hub serves the Synapse JSON Schemas (`/synapse/schemas/index.json`, `…/envelope.json`, …). */
export const SYNAPSE_SCHEMAS_PATH = '/synapse/schemas';

/** The agent registry's API (docs/registry.md): ARD discovery and the management routes below it. */
export const REGISTRY_PATH = '/registry';

/** The public AI Catalog of the registry's approved public agents (ARD, ai-catalog.schema.json). */
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';

/**
 * The inspector, a web page (docs/inspector.md): `/inspector` its page, `/inspector/assets/…` its bundled
 * script and styles. Public: they hold no data; everything the page shows it reads through the
 * authorized APIs with the credentials its user enters.
 */
export const INSPECTOR_PATH = '/inspector';

/**
 * The hub's read API (docs/inspector.md#the-read-api): what A2A does not carry of a task (its whole event
 * log, its deliveries, its Synapse messages) and who the caller is; behind the authorizer, read right.
 */
export const HUB_API_PATH = '/hub';

/**
 * Time limits of streamed routes (docs/streaming.md). API Gateway REST APIs allow a streamed response up
 * to 15 minutes, and close it after 5 idle minutes (regional endpoints; 30 s edge-optimized): the hub
 * gives a streamed route a 5-minute integration timeout and its function the same timeout; a stream
 * closes STREAMING.closeMarginMs before the function's time is up (cold start and the gateway's own
 * latency come out of the same 5 minutes), at a position the client resumes from.
 */
export const STREAMING = {
  integrationTimeoutSeconds: 300,
  functionTimeoutSeconds: 300,
  closeMarginMs: 20_000,
} as const;

export const ROUTES: readonly RouteDefinition[] = [
  { method: 'GET', path: AGENT_CARD_PATH, function: 'agent-card', public: true },
  { method: 'GET', path: '/.well-known/agent.json', function: 'agent-card', public: true },
  // public: the keys that verify push notifications' JWTs
  { method: 'GET', path: JWKS_PATH, function: 'jwks', public: true },
  // SendStreamingMessage and SubscribeToTask answer text/event-stream on the JSON-RPC route
  { method: 'POST', path: JSONRPC_PATH, function: 'jsonrpc', stream: true },
  // the HTTP+JSON routes (`/message:send`, `/tasks/{id}:subscribe`, `/{tenant}/…`) are the REST
  // binding's to match: API Gateway resource paths cannot hold `:verb` suffixes or an optional prefix
  { method: 'ANY', path: `${REST_PATH}/{proxy+}`, function: 'rest', stream: true },
  // Synapse P2P: signed p2p messages in, their synchronous answers out; the JSON Schemas they follow
  // (discovery documents, served with the card)
  { method: 'POST', path: SYNAPSE_CALLBACK_PATH, function: 'synapse', public: true },
  { method: 'GET', path: `${SYNAPSE_SCHEMAS_PATH}/{name}`, function: 'agent-card', public: true },
  { method: 'POST', path: SYNAPSE_TASKS_PATH, function: 'synapse' },
  { method: 'ANY', path: `${SYNAPSE_TASKS_PATH}/{proxy+}`, function: 'synapse' },
  // the agent registry: discovery and management behind the authorizer, the AI Catalog public
  { method: 'ANY', path: `${REGISTRY_PATH}/{proxy+}`, function: 'registry' },
  { method: 'GET', path: AI_CATALOG_PATH, function: 'registry', public: true },
  // the inspector page and its assets (public: no data), and the read API it calls (authorized)
  { method: 'GET', path: INSPECTOR_PATH, function: 'inspector', public: true },
  { method: 'GET', path: `${INSPECTOR_PATH}/{proxy+}`, function: 'inspector', public: true },
  { method: 'GET', path: `${HUB_API_PATH}/{proxy+}`, function: 'inspector' },
];

/**
 * The functions serving the routes and the memory each is deployed with (MB), declared with the routes:
 * infra/functions.ts adds the hub's other functions to these.
 */
export const HTTP_FUNCTION_MEMORY_MB = {
  'agent-card': 256,
  jsonrpc: 512,
  rest: 512,
  jwks: 256,
  synapse: 256,
  registry: 512,
  inspector: 256,
} as const satisfies Readonly<Record<string, number>>;
