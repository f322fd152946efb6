/**
 * The principal of an API request, as the authorizer (functions/authorizer.ts) left it in the event's
 * `requestContext.authorizer`: API Gateway sets that object from the authorizer's answer and a client
 * cannot, so the functions verify nothing again, except the credential's expiry (a cached verdict may
 * outlive its token). Light on purpose: the A2A functions import no JWT or key code.
 *
 * Dev mode (AUTH_MODE=none, set by `npm start` only when no authentication is configured, never by the
 * CDK stack): a request without authorizer context is the anonymous owner of DEFAULT_TENANT.
 */

import { AUTH_MODE, DEFAULT_TENANT } from '../../config/auth.ts';
import { type Env, readSetting } from '../../config/settings.ts';
import { AuthError } from '../../domain/errors.ts';
import { type AuthScheme, type Principal, RIGHTS, rightsOf } from '../../domain/principal.ts';

/** The string map an authorizer answers with (API Gateway passes only strings, numbers and booleans). */
export interface AuthorizerContext {
  tenant: string;
  owner: string;
  /** Space-separated rights. */
  rights: string;
  scheme: AuthScheme;
  /** Epoch seconds; absent for credentials that do not expire (API keys). */
  expiresAt?: number;
}

export const contextOfPrincipal = (p: Principal): AuthorizerContext => ({
  tenant: p.tenant,
  owner: p.owner,
  rights: p.rights.join(' '),
  scheme: p.scheme,
  ...(p.expiresAt !== undefined ? { expiresAt: p.expiresAt } : {}),
});

export const devMode = (env?: Env): boolean => readSetting(AUTH_MODE, env) === 'none';

/** The dev-mode principal: every right in DEFAULT_TENANT (`default`). */
export const devPrincipal = (env?: Env): Principal => ({
  tenant: readSetting(DEFAULT_TENANT, env),
  owner: 'anonymous',
  rights: RIGHTS,
  scheme: 'dev',
});

const SCHEMES: readonly AuthScheme[] = ['bearer', 'api-key', 'synapse-peer', 'dev'];

type EventWithAuthorizer = { requestContext?: { authorizer?: Record<string, unknown> | null } | null };

/** The request's principal, or the AuthError to answer with (401: none, or its credential expired). */
export const principalOf = (event: EventWithAuthorizer, nowMs = Date.now()): Principal | AuthError => {
  const context = event.requestContext?.authorizer;
  const tenant = context?.tenant;
  const owner = context?.owner;
  if (typeof tenant !== 'string' || typeof owner !== 'string' || tenant === '' || owner === '') {
    if (devMode()) return devPrincipal();
    return new AuthError('unauthenticated', 'Send credentials as "Authorization: Bearer <token or API key>"');
  }
  const expiresAt = Number(context?.expiresAt);
  if (Number.isFinite(expiresAt) && expiresAt > 0 && expiresAt * 1000 <= nowMs)
    return new AuthError('unauthenticated', 'The token has expired', 'invalid_token');
  const scheme = SCHEMES.find((s) => s === context?.scheme) ?? 'bearer';
  return {
    tenant,
    owner,
    rights: rightsOf(typeof context?.rights === 'string' ? context.rights : ''),
    scheme,
    ...(Number.isFinite(expiresAt) && expiresAt > 0 ? { expiresAt } : {}),
  };
};
