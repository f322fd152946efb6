/**
 * Authentication and per-tenant throttling at the API Gateway edge (docs/security.md, docs/deploy.md):
 *
 * - the authorizer function (functions/authorizer.ts): verifies the bearer JWT of the configured OIDC
 *   issuer or the API key, and answers with the principal and the tenant's usage key. Its role may
 *   GetItem on the table's auth directory (`pk = AUTH#`) and nothing else; its environment holds the
 *   issuer, the audience and the JWKS URL (no secret: API keys are hashed in the table);
 * - a REQUEST authorizer on the `Authorization` header, its verdicts cached by API Gateway
 *   (`cacheTtlSeconds`, default DEFAULT_AUTH_CACHE_TTL_SECONDS) for the whole stage;
 * - the tenants' usage plan on the prod stage (throttle TENANT_THROTTLE by default, an optional quota):
 *   the API's key source is the authorizer, which names the tenant's usage key; the keys themselves are
 *   created by the admin CLI (`npm run auth -- tenants add …`), not here;
 * - the gateway responses (shared/contracts/gateway-responses.ts): 401 with the hub's WWW-Authenticate challenge,
 *   403, 429 with Retry-After, 500 of a failing authorizer, in the JSON-RPC / google.rpc.Status shape.
 *
 * Which methods the authorizer guards is the API's business (constructs/api.ts: every route not marked
 * `public` in ROUTES).
 */
import { Duration, Token } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { jwtConfigFrom } from '../../shared/composition-roots/authorizer.ts';
import {
  DEFAULT_AUTH_CACHE_TTL_SECONDS,
  GATEWAY_RESPONSES,
  TENANT_THROTTLE,
} from '../../shared/contracts/gateway-responses.ts';
import { RIGHTS } from '../../shared/domain/principal.ts';
import { grantAuthDirectoryRead } from '../permissions.ts';
import { HubFunction } from './function.ts';

/** The OIDC issuer whose bearer JWTs the authorizer accepts (besides API keys). */
export interface AuthJwtOptions {
  /** AUTH_JWT_ISSUER: the tokens' `iss`. */
  issuer: string;
  /** AUTH_JWT_AUDIENCE: the tokens' `aud`. */
  audience: string;
  /** AUTH_JWT_JWKS_URL: the issuer's public keys (https). */
  jwksUrl: string;
  /** AUTH_JWT_TENANT_CLAIM: the claim naming the tenant (the authorizer's default: `tenant`). */
  tenantClaim?: string;
  /** AUTH_JWT_DEFAULT_TENANT: the tenant of a token without that claim. */
  defaultTenant?: string;
  /** AUTH_JWT_ALGORITHMS (the authorizer's default: RS256, ES256, PS256, EdDSA); never `none`. */
  algorithms?: readonly string[];
  /** AUTH_JWT_DEFAULT_RIGHTS: the rights of a token naming no `tasks:*` scope (default read, write). */
  defaultRights?: readonly string[];
  /** AUTH_JWT_MAX_TOKEN_AGE_SECONDS: the oldest token accepted by its `iat` (default 86,400; 0: no bound). */
  maxTokenAgeSeconds?: number;
  /** AUTH_JWT_CLOCK_TOLERANCE_SECONDS: the clock skew allowed for `exp`, `nbf`, `iat` (default 5, at most 300). */
  clockToleranceSeconds?: number;
  /**
   * AUTH_JWT_DISCOVERY_URL of the functions serving the card (https): the OIDC discovery document its
   * `oidc` scheme points to (the card's default: `<issuer>/.well-known/openid-configuration`).
   */
  discoveryUrl?: string;
}

export type QuotaPeriod = 'DAY' | 'WEEK' | 'MONTH';

export interface AuthQuotaOptions {
  /** Requests per tenant per period. */
  limit: number;
  period: QuotaPeriod;
  /** Requests subtracted from the first period's limit (API Gateway's `offset`). */
  offset?: number;
}

export interface AuthOptions {
  /** Accept bearer JWTs of this issuer; without it, API keys only. */
  jwt?: AuthJwtOptions;
  /** How long API Gateway caches a verdict, 0–3600 s (default DEFAULT_AUTH_CACHE_TTL_SECONDS, 300). */
  cacheTtlSeconds?: number;
  /** Steady-state requests per second of each tenant (default TENANT_THROTTLE.rateLimit, 50). */
  tenantRateLimit?: number;
  /** Burst of each tenant (default TENANT_THROTTLE.burstLimit, 100). */
  tenantBurstLimit?: number;
  /** Requests per tenant per day, week or month (default none). */
  quota?: AuthQuotaOptions;
}

/** The authorizer's variables taken from the functions' shared environment (nothing it does not read). */
export const AUTHORIZER_SHARED_ENV = [
  'TABLE_NAME',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'LOG_LEVEL',
  'NODE_OPTIONS',
] as const;

/** Every variable of the authorizer's JWT configuration (shared/composition-roots/authorizer.ts). */
export const AUTH_JWT_ENV = {
  issuer: 'AUTH_JWT_ISSUER',
  audience: 'AUTH_JWT_AUDIENCE',
  jwksUrl: 'AUTH_JWT_JWKS_URL',
  tenantClaim: 'AUTH_JWT_TENANT_CLAIM',
  defaultTenant: 'AUTH_JWT_DEFAULT_TENANT',
  algorithms: 'AUTH_JWT_ALGORITHMS',
  defaultRights: 'AUTH_JWT_DEFAULT_RIGHTS',
  maxTokenAgeSeconds: 'AUTH_JWT_MAX_TOKEN_AGE_SECONDS',
  clockToleranceSeconds: 'AUTH_JWT_CLOCK_TOLERANCE_SECONDS',
} as const;

/** The card's view of the issuer (shared/app/a2a/card.ts `hubSecurity`): the variables of the card functions. */
export const CARD_AUTH_ENV = {
  issuer: AUTH_JWT_ENV.issuer,
  discoveryUrl: 'AUTH_JWT_DISCOVERY_URL',
} as const;

const QUOTA_PERIODS: Readonly<Record<QuotaPeriod, apigateway.Period>> = {
  DAY: apigateway.Period.DAY,
  WEEK: apigateway.Period.WEEK,
  MONTH: apigateway.Period.MONTH,
};

const resolved = (v: unknown): boolean => !Token.isUnresolved(v);

/**
 * The AUTH_JWT_* variables of `jwt`, checked as the authorizer will read them (a bad combination, an
 * algorithm `none`, a right we do not know or a JWKS URL that is not https throws at synth).
 */
export const authJwtEnvironment = (jwt: AuthJwtOptions | undefined): Record<string, string> => {
  if (!jwt) return {};
  const env: Record<string, string> = {
    [AUTH_JWT_ENV.issuer]: jwt.issuer,
    [AUTH_JWT_ENV.audience]: jwt.audience,
    [AUTH_JWT_ENV.jwksUrl]: jwt.jwksUrl,
    ...(jwt.tenantClaim ? { [AUTH_JWT_ENV.tenantClaim]: jwt.tenantClaim } : {}),
    ...(jwt.defaultTenant ? { [AUTH_JWT_ENV.defaultTenant]: jwt.defaultTenant } : {}),
    ...(jwt.algorithms?.length ? { [AUTH_JWT_ENV.algorithms]: jwt.algorithms.join(',') } : {}),
    ...(jwt.defaultRights ? { [AUTH_JWT_ENV.defaultRights]: jwt.defaultRights.join(',') } : {}),
    ...(jwt.maxTokenAgeSeconds !== undefined
      ? { [AUTH_JWT_ENV.maxTokenAgeSeconds]: String(jwt.maxTokenAgeSeconds) }
      : {}),
    ...(jwt.clockToleranceSeconds !== undefined
      ? { [AUTH_JWT_ENV.clockToleranceSeconds]: String(jwt.clockToleranceSeconds) }
      : {}),
  };
  if (Object.values(env).every(resolved)) {
    for (const key of [AUTH_JWT_ENV.issuer, AUTH_JWT_ENV.audience, AUTH_JWT_ENV.jwksUrl])
      if (!env[key]?.trim()) throw new Error(`auth.jwt: ${key} is empty`);
    for (const [name, url] of [
      ['jwksUrl', jwt.jwksUrl],
      ['discoveryUrl', jwt.discoveryUrl],
    ] as const)
      if (url !== undefined && !/^https:\/\/[^/]/i.test(url))
        throw new Error(`auth.jwt.${name} must be an https URL, got ${url}`);
    const unknown = (jwt.defaultRights ?? []).filter((r) => !(RIGHTS as readonly string[]).includes(r));
    if (unknown.length)
      throw new Error(`auth.jwt.defaultRights: unknown ${unknown.join(', ')} (rights: ${RIGHTS.join(', ')})`);
    jwtConfigFrom(env); // throws as the authorizer would
  }
  return env;
};

/**
 * What the functions serving the card (agent-card; jsonrpc and rest, the extended card) need to declare
 * the issuer's `oidc` scheme besides the API keys': the issuer, and its discovery document if given.
 */
export const cardAuthEnvironment = (jwt: AuthJwtOptions | undefined): Record<string, string> =>
  jwt
    ? {
        [CARD_AUTH_ENV.issuer]: jwt.issuer,
        ...(jwt.discoveryUrl ? { [CARD_AUTH_ENV.discoveryUrl]: jwt.discoveryUrl } : {}),
      }
    : {};

const check = (ok: boolean, message: string): void => {
  if (!ok) throw new Error(message);
};

/** The options with their defaults, checked (API Gateway's limits). */
export const authSettingsOf = (options: AuthOptions = {}) => {
  const cacheTtlSeconds = options.cacheTtlSeconds ?? DEFAULT_AUTH_CACHE_TTL_SECONDS;
  const rateLimit = options.tenantRateLimit ?? TENANT_THROTTLE.rateLimit;
  const burstLimit = options.tenantBurstLimit ?? TENANT_THROTTLE.burstLimit;
  check(
    Number.isInteger(cacheTtlSeconds) && cacheTtlSeconds >= 0 && cacheTtlSeconds <= 3600,
    `auth.cacheTtlSeconds must be a whole number of seconds in 0..3600, got ${cacheTtlSeconds}`,
  );
  check(Number.isFinite(rateLimit) && rateLimit > 0, `auth.tenantRateLimit must be > 0, got ${rateLimit}`);
  check(
    Number.isInteger(burstLimit) && burstLimit >= 0,
    `auth.tenantBurstLimit must be a whole number >= 0, got ${burstLimit}`,
  );
  const quota = options.quota;
  if (quota) {
    check(
      Number.isInteger(quota.limit) && quota.limit > 0,
      `auth.quota.limit must be a whole number > 0, got ${quota.limit}`,
    );
    check(quota.period in QUOTA_PERIODS, `auth.quota.period must be DAY, WEEK or MONTH, got ${quota.period}`);
    check(
      quota.offset === undefined || (Number.isInteger(quota.offset) && quota.offset >= 0),
      `auth.quota.offset must be a whole number >= 0, got ${quota.offset}`,
    );
  }
  return { cacheTtlSeconds, rateLimit, burstLimit, quota };
};

/** `'value'`: a static header value as API Gateway's response parameters take it. */
export const staticHeaderValue = (value: string): string => {
  if (value.includes("'")) throw new Error(`a gateway response header value cannot hold a quote: ${value}`);
  return `'${value}'`;
};

/**
 * A gateway response body as its template: the JSON itself. The template is a mapping template, so a
 * `$` or a VTL directive or comment (`#set`, `##`, `#*`) in a message would be evaluated: refused.
 */
export const gatewayResponseTemplate = (body: unknown): string => {
  const json = JSON.stringify(body);
  if (/\$|#[A-Za-z{#*]/.test(json))
    throw new Error(`a gateway response body would be read as VTL ($ or #directive): ${json}`);
  return json;
};

export interface EdgeAuthProps {
  restApi: apigateway.RestApi;
  table: ITableV2;
  agentModule: string;
  /** The functions' shared environment: the authorizer takes AUTHORIZER_SHARED_ENV of it. */
  environment: Record<string, string>;
  options?: AuthOptions;
  logRetention?: logs.RetentionDays;
}

export class EdgeAuth extends Construct {
  readonly function: HubFunction;
  readonly authorizer: apigateway.RequestAuthorizer;
  readonly usagePlan: apigateway.UsagePlan;
  readonly cacheTtlSeconds: number;

  constructor(scope: Construct, id: string, props: EdgeAuthProps) {
    super(scope, id);
    const settings = authSettingsOf(props.options);
    this.cacheTtlSeconds = settings.cacheTtlSeconds;
    const environment: Record<string, string> = {};
    for (const key of AUTHORIZER_SHARED_ENV) {
      const value = props.environment[key];
      if (value !== undefined) environment[key] = value;
    }
    if (!environment.TABLE_NAME) throw new Error('the authorizer needs TABLE_NAME in the environment');
    Object.assign(environment, authJwtEnvironment(props.options?.jwt));

    this.function = new HubFunction(this, 'Authorizer', {
      fn: 'authorizer',
      agentModule: props.agentModule,
      environment,
      timeout: Duration.seconds(10),
      description: 'Synapse: API Gateway authorizer (bearer JWT or API key → tenant, principal, rights)',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    grantAuthDirectoryRead(props.table, this.function.function);

    this.authorizer = new apigateway.RequestAuthorizer(this, 'RequestAuthorizer', {
      handler: this.function.function,
      identitySources: [apigateway.IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(settings.cacheTtlSeconds),
    });

    this.usagePlan = props.restApi.addUsagePlan('TenantUsagePlan', {
      description:
        "Synapse tenants: each tenant's API key (created by `npm run auth -- tenants add`) is throttled here",
      throttle: { rateLimit: settings.rateLimit, burstLimit: settings.burstLimit },
      ...(settings.quota
        ? {
            quota: {
              limit: settings.quota.limit,
              period: QUOTA_PERIODS[settings.quota.period],
              ...(settings.quota.offset !== undefined ? { offset: settings.quota.offset } : {}),
            },
          }
        : {}),
      apiStages: [{ api: props.restApi, stage: props.restApi.deploymentStage }],
    });

    for (const response of Object.values(GATEWAY_RESPONSES)) {
      props.restApi.addGatewayResponse(`Response${response.type}`, {
        type: apigateway.ResponseType.of(response.type),
        statusCode: String(response.statusCode),
        responseHeaders: Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [name, staticHeaderValue(value)]),
        ),
        templates: { 'application/json': gatewayResponseTemplate(response.body) },
      });
    }
  }
}
