/**
 * The emulation of API Gateway's REQUEST authorizer: the identity source (the Authorization header)
 * checked first, the verdict cached by that header, the usage key's throttle.
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { GatewayResponseType } from '../../shared/contracts/gateway-responses.ts';
import { createLambdaContext, LOCAL_ACCOUNT, type LocalLog } from '../lambda-context.ts';

export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayAuthorizer {
  handler: AuthorizerHandler;
  /** How long a verdict is reused for the same Authorization header (default 0: not cached). */
  cacheTtlMs?: number;
  /** Requests per second and burst per usage key (API Gateway's usage plan throttle). */
  throttle?: { rateLimit: number; burstLimit: number };
}

/** A token bucket per usage key, as API Gateway's usage plan throttles each key. */
const tokenBuckets = (limits: { rateLimit: number; burstLimit: number }) => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string, now = Date.now()): boolean => {
    const bucket = buckets.get(key) ?? { tokens: limits.burstLimit, at: now };
    bucket.tokens = Math.min(
      limits.burstLimit,
      bucket.tokens + ((now - bucket.at) / 1000) * limits.rateLimit,
    );
    bucket.at = now;
    buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };
};

type Verdict = { ok: true; context: Record<string, unknown> } | { ok: false; type: GatewayResponseType };

type AuthorizerRequest = Omit<APIGatewayRequestAuthorizerEvent, 'type' | 'methodArn'>;

/** The request as the REQUEST authorizer gets it: the proxy event's, no body, no authorizer context. */
const authorizerRequestOf = (event: APIGatewayProxyEvent): AuthorizerRequest => ({
  resource: event.resource,
  path: event.path,
  httpMethod: event.httpMethod,
  headers: event.headers,
  multiValueHeaders: event.multiValueHeaders,
  pathParameters: event.pathParameters,
  queryStringParameters: event.queryStringParameters,
  multiValueQueryStringParameters: event.multiValueQueryStringParameters,
  stageVariables: null,
  requestContext: { ...event.requestContext, authorizer: undefined },
});

/** What API Gateway does with a REQUEST authorizer before it invokes the route's function. */
export const authorizerGate = (authorizer: GatewayAuthorizer, stage: string, log: LocalLog) => {
  const cache = new Map<string, { until: number; result: APIGatewayAuthorizerResult | 'unauthorized' }>();
  const ttl = authorizer.cacheTtlMs ?? 0;
  const admit = authorizer.throttle ? tokenBuckets(authorizer.throttle) : () => true;
  const verdictOf = async (
    event: AuthorizerRequest,
    authorization: string,
    method: string,
    path: string,
  ): Promise<APIGatewayAuthorizerResult | 'unauthorized' | 'failed'> => {
    const cached = cache.get(authorization);
    if (cached && cached.until > Date.now()) return cached.result;
    const methodArn = `arn:aws:execute-api:local:${LOCAL_ACCOUNT}:local/${stage}/${method}${path}`;
    try {
      const result = await authorizer.handler(
        { ...event, type: 'REQUEST', methodArn } as APIGatewayRequestAuthorizerEvent,
        createLambdaContext({ functionName: 'authorizer', timeoutMs: 10_000 }),
      );
      if (ttl > 0) cache.set(authorization, { until: Date.now() + ttl, result });
      return result;
    } catch (e) {
      if (e instanceof Error && e.message === 'Unauthorized') {
        if (ttl > 0) cache.set(authorization, { until: Date.now() + ttl, result: 'unauthorized' });
        return 'unauthorized';
      }
      log('authorizer threw', e);
      return 'failed';
    }
  };
  return async (proxyEvent: APIGatewayProxyEvent): Promise<Verdict> => {
    const event = authorizerRequestOf(proxyEvent);
    const authorization = Object.entries(event.headers ?? {}).find(
      ([k]) => k.toLowerCase() === 'authorization',
    )?.[1];
    // an identity source missing from the request: API Gateway answers 401 without calling the authorizer
    if (!authorization?.trim()) return { ok: false, type: 'UNAUTHORIZED' };
    const result = await verdictOf(event, authorization, proxyEvent.httpMethod, proxyEvent.path);
    if (result === 'unauthorized') return { ok: false, type: 'UNAUTHORIZED' };
    if (result === 'failed') return { ok: false, type: 'AUTHORIZER_FAILURE' };
    const allowed =
      result.policyDocument.Statement.some((st) => 'Effect' in st && st.Effect === 'Allow') &&
      !result.policyDocument.Statement.some((st) => 'Effect' in st && st.Effect === 'Deny');
    if (!allowed) return { ok: false, type: 'ACCESS_DENIED' };
    if (!result.usageIdentifierKey) return { ok: false, type: 'INVALID_API_KEY' };
    if (!admit(result.usageIdentifierKey)) return { ok: false, type: 'THROTTLED' };
    return { ok: true, context: { ...result.context, principalId: result.principalId } };
  };
};
