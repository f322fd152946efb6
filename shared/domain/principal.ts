/**
 * Who is calling, and what they may do: the principal an authenticated request carries (from a bearer
 * JWT, an API key, a Synapse peer's signature, or the local dev mode), and the one check every
 * operation makes before it reads anything: the tenant the request names must be the principal's, and
 * the principal must hold the operation's right. The caller it yields scopes every key the stores use.
 */

import { clip } from '../validation/text.ts';
import type { Caller } from './caller.ts';
import { AuthError } from './errors.ts';

/**
 * `read`: get, list, subscribe, read push configs, the extended card, search the registry; `write`: send,
 * cancel, change push configs, publish to the registry; `approve`: review the tenant's registry records
 * (docs/registry.md), a right of its own that credentials hold only when granted it.
 */
export type Right = 'read' | 'write' | 'approve';
export const RIGHTS: readonly Right[] = ['read', 'write', 'approve'];
/** What credentials hold when nothing names their rights. */
export const DEFAULT_RIGHTS: readonly Right[] = ['read', 'write'];

export type AuthScheme = 'bearer' | 'api-key' | 'synapse-peer' | 'dev';

export interface Principal extends Caller {
  rights: readonly Right[];
  scheme: AuthScheme;
  /** When the credential stops being valid (epoch seconds): a cached verdict is not trusted past it. */
  expiresAt?: number;
}

/**
 * The caller of an operation needing `right`, for a request naming `tenant` (v1.0 `tenant`, the REST
 * `/{tenant}` prefix; absent or empty means the principal's own). Another tenant is refused outright:
 * a principal never addresses keys outside its tenant, whatever ids it guesses.
 */
export const authorize = (principal: Principal, right: Right, tenant?: string): Caller => {
  checkTenant(principal, tenant);
  if (!principal.rights.includes(right))
    throw new AuthError(
      'permission_denied',
      `These credentials do not grant ${right} access (they grant: ${principal.rights.join(', ') || 'nothing'})`,
      'insufficient_scope',
    );
  return { tenant: principal.tenant, owner: principal.owner };
};

/** A request naming another tenant than the principal's is refused (absent or empty names its own). */
export const checkTenant = (principal: Principal, tenant: string | undefined): void => {
  if (tenant !== undefined && tenant !== '' && tenant !== principal.tenant)
    throw new AuthError(
      'permission_denied',
      `These credentials are not valid for tenant "${clip(tenant, 64)}"`,
    );
};

/** Rights from a space- or comma-separated list; unknown names are ignored. */
export const rightsOf = (list: string | readonly string[] | undefined): Right[] => {
  const names = typeof list === 'string' ? list.split(/[\s,]+/) : (list ?? []);
  return RIGHTS.filter((r) => names.includes(r));
};
