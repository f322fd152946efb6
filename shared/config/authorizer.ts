/**
 * The authorizer's OIDC issuer (functions/authorizer.ts, docs/security.md): the JWTs it accepts, and
 * how it reads them. The issuer itself is in ./auth.ts (the card declares it too).
 */
import {
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  DEFAULT_MAX_TOKEN_AGE_SECONDS,
} from '../adapters/auth/jwt-verifier.ts';
import { DEFAULT_RIGHTS, RIGHTS, type Right } from '../domain/principal.ts';
import { AUTH_JWT_ISSUER } from './auth.ts';
import { type Format, type Setting, section, text, url, wholeNumber } from './settings.ts';

/** The JWS algorithms, comma-separated; `none` is never one. */
const algorithms: Format<string[]> = {
  text: 'a comma-separated list of JWS algorithms',
  parse: (t, name) => {
    const list = t
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    if (list.some((a) => a.toLowerCase() === 'none')) throw new Error(`${name} may not list "none"`);
    return list;
  },
};

/** Rights, separated by commas or spaces; none at all is a value (tokens without a scope get none). */
const rights: Format<Right[]> = {
  text: `rights from ${RIGHTS.join(', ')}, separated by commas or spaces`,
  parse: (t) => {
    const names = t.split(/[\s,]+/).filter(Boolean);
    return names.every((n) => (RIGHTS as readonly string[]).includes(n))
      ? RIGHTS.filter((r) => names.includes(r))
      : undefined;
  },
};

const AUTHORIZER = ['authorizer'] as const;

export const AUTH_JWT_AUDIENCE = {
  name: 'AUTH_JWT_AUDIENCE',
  doc: "The tokens' `aud`.",
  format: () => text('an audience'),
  defaultText: 'none: required with AUTH_JWT_ISSUER',
  readBy: AUTHORIZER,
} satisfies Setting<string>;

export const AUTH_JWT_JWKS_URL = {
  name: 'AUTH_JWT_JWKS_URL',
  doc: "The issuer's public keys.",
  format: () => url(),
  defaultText: 'none: required with AUTH_JWT_ISSUER',
  readBy: AUTHORIZER,
} satisfies Setting<string>;

export const AUTH_JWT_TENANT_CLAIM = {
  name: 'AUTH_JWT_TENANT_CLAIM',
  doc: 'The claim naming the tenant.',
  format: () => text('a claim name'),
  defaultText: '`tenant`',
  readBy: AUTHORIZER,
} satisfies Setting<string>;

export const AUTH_JWT_DEFAULT_TENANT = {
  name: 'AUTH_JWT_DEFAULT_TENANT',
  doc: 'The tenant of a token without that claim.',
  format: () => text('a tenant id'),
  defaultText: 'none: such a token is refused',
  readBy: AUTHORIZER,
} satisfies Setting<string>;

export const AUTH_JWT_ALGORITHMS = {
  name: 'AUTH_JWT_ALGORITHMS',
  doc: 'The signature algorithms accepted.',
  format: () => algorithms,
  defaultText: 'RS256, ES256, PS256, EdDSA',
  readBy: AUTHORIZER,
} satisfies Setting<string[]>;

export const AUTH_JWT_DEFAULT_RIGHTS = {
  name: 'AUTH_JWT_DEFAULT_RIGHTS',
  doc: 'The rights of a token naming no `tasks:*` scope (empty: none).',
  format: () => rights,
  keepBlank: true,
  get defaultText() {
    return DEFAULT_RIGHTS.join(', ');
  },
  readBy: AUTHORIZER,
} satisfies Setting<Right[]>;

export const AUTH_JWT_MAX_TOKEN_AGE_SECONDS = {
  name: 'AUTH_JWT_MAX_TOKEN_AGE_SECONDS',
  doc: 'The oldest token accepted, by its `iat` (0: no bound).',
  format: () => wholeNumber(0, 365 * 86_400, 'seconds'),
  defaultText: `${DEFAULT_MAX_TOKEN_AGE_SECONDS}`,
  readBy: AUTHORIZER,
} satisfies Setting<number>;

export const AUTH_JWT_CLOCK_TOLERANCE_SECONDS = {
  name: 'AUTH_JWT_CLOCK_TOLERANCE_SECONDS',
  doc: 'The clock skew allowed for `exp`, `nbf` and `iat`.',
  format: () => wholeNumber(0, 300, 'seconds'),
  defaultText: `${DEFAULT_CLOCK_TOLERANCE_SECONDS}`,
  readBy: AUTHORIZER,
} satisfies Setting<number>;

/**
 * The issuer's settings, undefined when none is configured (API keys only); the verifier's own defaults
 * apply to what is unset.
 */
export const jwtSettingsFrom = /* @__PURE__ */ section(
  {
    issuer: AUTH_JWT_ISSUER,
    audience: AUTH_JWT_AUDIENCE,
    jwksUrl: AUTH_JWT_JWKS_URL,
    tenantClaim: AUTH_JWT_TENANT_CLAIM,
    defaultTenant: AUTH_JWT_DEFAULT_TENANT,
    algorithms: AUTH_JWT_ALGORITHMS,
    defaultRights: AUTH_JWT_DEFAULT_RIGHTS,
    maxTokenAgeSeconds: AUTH_JWT_MAX_TOKEN_AGE_SECONDS,
    clockToleranceSeconds: AUTH_JWT_CLOCK_TOLERANCE_SECONDS,
  },
  ({ issuer, audience, jwksUrl, ...rest }) => {
    if (!issuer && !audience && !jwksUrl) return undefined;
    if (!issuer || !audience || !jwksUrl)
      throw new Error(
        'AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE and AUTH_JWT_JWKS_URL go together: set all three or none',
      );
    return { issuer, audience, jwksUrl, ...rest };
  },
);
