/**
 * From an `Authorization` header to a principal: `Bearer <API key>` (shaped `syn_…`) is looked up in the
 * key store, any other bearer token is verified as a JWT of the configured OIDC issuer. The principal's
 * tenant must be registered: its record carries the usage key API Gateway throttles the tenant by
 * (docs/security.md#throttling). Used by the Lambda authorizer (functions/authorizer.ts), which API
 * Gateway and the local gateway both call before any authenticated route.
 */

import { AuthError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ApiKeyStore } from '../../ports/api-key-store.ts';
import type { TenantRegistry } from '../../ports/tenant-registry.ts';
import type { TokenVerifier } from '../../ports/token-verifier.ts';
import { looksLikeApiKey, verifyApiKey } from './api-keys.ts';

export interface Verdict {
  principal: Principal;
  usageKey: string;
}

export interface AuthenticatorDeps {
  apiKeys: ApiKeyStore;
  tenants: TenantRegistry;
  /** Absent when no OIDC issuer is configured: every JWT is refused. */
  jwt?: TokenVerifier;
}

/** The bearer credential of an `Authorization` header, or undefined. */
export const bearerOf = (authorization: string | undefined): string | undefined => {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
};

export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  /** The principal and its tenant's usage key; AuthError when the request may not go on. */
  async authenticate(authorization: string | undefined): Promise<Verdict> {
    const credential = bearerOf(authorization);
    if (!credential)
      throw new AuthError(
        'unauthenticated',
        'Send credentials as "Authorization: Bearer <token or API key>"',
      );
    const principal = looksLikeApiKey(credential)
      ? await verifyApiKey(this.deps.apiKeys, credential)
      : await this.verifyJwt(credential);
    const tenant = await this.deps.tenants.getTenant(principal.tenant);
    if (!tenant || tenant.disabledAt)
      throw new AuthError('permission_denied', `Tenant "${principal.tenant}" is not registered on this hub`);
    return { principal, usageKey: tenant.usageKey };
  }

  private verifyJwt(token: string): Promise<Principal> {
    if (!this.deps.jwt)
      throw new AuthError(
        'unauthenticated',
        'This hub accepts API keys only (no OIDC issuer is configured)',
        'invalid_token',
      );
    return this.deps.jwt.verify(token);
  }
}
