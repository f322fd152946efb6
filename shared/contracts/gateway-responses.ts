/**
 * The answers API Gateway itself gives before any function runs: no credentials or credentials that do
 * not verify (401, with the hub's challenge), an authorizer's Deny (403), a client over its throttle
 * (429). One definition for the CDK API (infra/constructs/api.ts) and the local gateway
 * (local/http-gateway.ts). A gateway response's template is plain substitution (no VTL), so one body
 * serves both bindings: a JSON-RPC error response (`jsonrpc`, `id`, `error.code`/`message`) whose
 * `error` is also the HTTP+JSON google.rpc.Status shape (`code` the HTTP status, `status`); the
 * functions' own 401/403/429 use the same codes (shared/protocol/a2a/errors.ts).
 */
import { AUTH_REALM } from '../protocol/a2a/errors.ts';

export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'ACCESS_DENIED'
  | 'INVALID_API_KEY'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR';

export interface GatewayResponseDefinition {
  type: GatewayResponseType;
  statusCode: number;
  headers: Record<string, string>;
  body: { jsonrpc: '2.0'; id: null; error: { code: number; status: string; message: string } };
}

const body = (code: number, status: string, message: string): GatewayResponseDefinition['body'] => ({
  jsonrpc: '2.0',
  id: null,
  error: { code, status, message },
});

export const CHALLENGE = `Bearer realm="${AUTH_REALM}"`;

export const GATEWAY_RESPONSES: Readonly<Record<GatewayResponseType, GatewayResponseDefinition>> = {
  UNAUTHORIZED: {
    type: 'UNAUTHORIZED',
    statusCode: 401,
    headers: { 'WWW-Authenticate': CHALLENGE },
    body: body(
      401,
      'UNAUTHENTICATED',
      'Authentication required: send "Authorization: Bearer <token or API key>" (a token or key this hub accepts)',
    ),
  },
  MISSING_AUTHENTICATION_TOKEN: {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: 404,
    headers: {},
    body: body(404, 'NOT_FOUND', 'No such route'),
  },
  ACCESS_DENIED: {
    type: 'ACCESS_DENIED',
    statusCode: 403,
    headers: {},
    body: body(
      403,
      'PERMISSION_DENIED',
      'These credentials are valid but not allowed here (is their tenant registered?)',
    ),
  },
  INVALID_API_KEY: {
    type: 'INVALID_API_KEY',
    statusCode: 403,
    headers: {},
    body: body(403, 'PERMISSION_DENIED', "The credentials' tenant has no usage plan key on this hub"),
  },
  THROTTLED: {
    type: 'THROTTLED',
    statusCode: 429,
    headers: { 'Retry-After': '1' },
    body: body(429, 'RESOURCE_EXHAUSTED', 'Too many requests for this tenant: slow down and retry'),
  },
  QUOTA_EXCEEDED: {
    type: 'QUOTA_EXCEEDED',
    statusCode: 429,
    headers: {},
    body: body(429, 'RESOURCE_EXHAUSTED', "This tenant's request quota is used up for the period"),
  },
  AUTHORIZER_FAILURE: {
    type: 'AUTHORIZER_FAILURE',
    statusCode: 500,
    headers: {},
    body: body(500, 'INTERNAL', 'The credentials could not be checked; retry later'),
  },
  AUTHORIZER_CONFIGURATION_ERROR: {
    type: 'AUTHORIZER_CONFIGURATION_ERROR',
    statusCode: 500,
    headers: {},
    body: body(500, 'INTERNAL', 'The credentials could not be checked; retry later'),
  },
};

/** Per-tenant throttling of the usage plan (CDK) and of the local gateway: requests per second, burst. */
export const TENANT_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

/** How long API Gateway caches an authorizer verdict (keyed by the Authorization header). */
export const DEFAULT_AUTH_CACHE_TTL_SECONDS = 300;
