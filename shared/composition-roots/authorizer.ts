/**
 * Composition root of the Lambda authorizer (functions/authorizer.ts): the key store and tenant
 * registry on the task table, and the JWT verifier of the configured OIDC issuer, once per container.
 *
 *   AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE, AUTH_JWT_JWKS_URL   the issuer; all three, or none (API keys only)
 *   AUTH_JWT_TENANT_CLAIM (tenant), AUTH_JWT_DEFAULT_TENANT the tenant of a token
 *   AUTH_JWT_ALGORITHMS (RS256,ES256,PS256,EdDSA)           the algorithms accepted
 *   AUTH_JWT_DEFAULT_RIGHTS (read,write)                    the rights of a token naming no tasks:* scope
 *   AUTH_JWT_MAX_TOKEN_AGE_SECONDS (86400)                  the oldest token accepted by its iat; 0: no bound
 *   AUTH_JWT_CLOCK_TOLERANCE_SECONDS (5)                    clock skew allowed for exp, nbf and iat (0-300)
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { JwtVerifier, type JwtVerifierConfig } from '../adapters/auth/jwt-verifier.ts';
import { DynamoAuthStore } from '../adapters/dynamodb/auth-store.ts';
import { Authenticator } from '../app/auth/authenticator.ts';
import { rightsOf } from '../domain/principal.ts';

/** The JWT verifier's configuration from the environment; undefined when no issuer is configured. */
export const jwtConfigFrom = (env: NodeJS.ProcessEnv): JwtVerifierConfig | undefined => {
  const issuer = env.AUTH_JWT_ISSUER;
  const audience = env.AUTH_JWT_AUDIENCE;
  const jwksUrl = env.AUTH_JWT_JWKS_URL;
  if (!issuer && !audience && !jwksUrl) return undefined;
  if (!issuer || !audience || !jwksUrl)
    throw new Error(
      'AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE and AUTH_JWT_JWKS_URL go together: set all three or none',
    );
  const algorithms = env.AUTH_JWT_ALGORITHMS?.split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (algorithms?.some((a) => a.toLowerCase() === 'none'))
    throw new Error('AUTH_JWT_ALGORITHMS may not list "none"');
  const maxTokenAgeSeconds = secondsOf(env, 'AUTH_JWT_MAX_TOKEN_AGE_SECONDS', 0, 365 * 86_400);
  const clockToleranceSeconds = secondsOf(env, 'AUTH_JWT_CLOCK_TOLERANCE_SECONDS', 0, 300);
  return {
    issuer,
    audience,
    jwksUrl,
    ...(algorithms?.length ? { algorithms } : {}),
    ...(env.AUTH_JWT_TENANT_CLAIM ? { tenantClaim: env.AUTH_JWT_TENANT_CLAIM } : {}),
    ...(env.AUTH_JWT_DEFAULT_TENANT ? { defaultTenant: env.AUTH_JWT_DEFAULT_TENANT } : {}),
    ...(env.AUTH_JWT_DEFAULT_RIGHTS !== undefined
      ? { defaultRights: rightsOf(env.AUTH_JWT_DEFAULT_RIGHTS) }
      : {}),
    ...(maxTokenAgeSeconds !== undefined ? { maxTokenAgeSeconds } : {}),
    ...(clockToleranceSeconds !== undefined ? { clockToleranceSeconds } : {}),
  };
};

/** A whole number of seconds in [min, max] from the environment, or undefined when unset; else a start error. */
const secondsOf = (env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new Error(`${name} must be a whole number of seconds from ${min} to ${max}, got "${raw}"`);
  return n;
};

let dynamo: DynamoDBClient | undefined;
/** The authorizer's DynamoDB client (the benchmark counts what a verdict reads through it). */
export const authDynamoClient = (): DynamoDBClient => {
  dynamo ??= new DynamoDBClient({});
  return dynamo;
};

let instance: Authenticator | undefined;
export const authenticator = (): Authenticator => {
  if (!instance) {
    const table = process.env.TABLE_NAME;
    if (!table) throw new Error('Environment variable TABLE_NAME is not set');
    const store = new DynamoAuthStore(authDynamoClient(), table);
    const jwt = jwtConfigFrom(process.env);
    instance = new Authenticator({
      apiKeys: store,
      tenants: store,
      ...(jwt ? { jwt: new JwtVerifier(jwt) } : {}),
    });
  }
  return instance;
};
