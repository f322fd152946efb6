/**
 * Who a request is (docs/security.md), as the functions serving requests see it: dev mode and its
 * tenant, and the OIDC issuer the card declares. The authorizer's own settings: ./authorizer.ts.
 */
import { type Setting, text, url } from './settings.ts';

/** The variable's name alone (shared/adapters/lambda/auth-context.ts exports it). */
export const AUTH_MODE_ENV = 'AUTH_MODE';

export const AUTH_MODE = {
  name: AUTH_MODE_ENV,
  doc: '`none` is dev mode: a request without authorizer context is the anonymous owner of DEFAULT_TENANT (set by `npm start` only).',
  // fails closed: only `none` turns authentication off
  format: () => ({
    text: '`none`; anything else requires authentication',
    parse: (t): 'none' | 'required' => (t === 'none' ? 'none' : 'required'),
  }),
  default: 'required',
  readBy: ['agent-card', 'inspector', 'jsonrpc', 'registry', 'rest', 'synapse', 'npm start'],
} satisfies Setting<'none' | 'required'>;

export const DEFAULT_TENANT = {
  name: 'DEFAULT_TENANT',
  doc: "Dev mode's tenant.",
  format: () => text('a tenant id'),
  default: 'default',
  readBy: ['inspector', 'jsonrpc', 'registry', 'registry-probe', 'rest', 'synapse'],
} satisfies Setting<string>;

export const AUTH_JWT_ISSUER = {
  name: 'AUTH_JWT_ISSUER',
  doc: "The OIDC issuer whose JWTs are accepted (the tokens' `iss`); with AUTH_JWT_AUDIENCE and AUTH_JWT_JWKS_URL.",
  format: () => text('an issuer identifier'),
  defaultText: 'unset: API keys only',
  readBy: ['agent-card', 'authorizer', 'jsonrpc', 'rest', 'npm start'],
} satisfies Setting<string>;

export const AUTH_JWT_DISCOVERY_URL = {
  name: 'AUTH_JWT_DISCOVERY_URL',
  doc: "The issuer's discovery document, as the card's `oidc` scheme names it.",
  format: () => url(),
  defaultText: '`<AUTH_JWT_ISSUER>/.well-known/openid-configuration`',
  readBy: ['agent-card', 'jsonrpc', 'rest'],
} satisfies Setting<string>;
