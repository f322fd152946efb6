/**
 * The administration of tenants and API keys (docs/security.md#api-keys), used by `npm run auth`
 * (scripts/auth.ts) and `synapse admin` (cli/commands/admin.ts): a tenant registered once with its
 * usage key (on AWS also in the usage plan), keys made only for registered tenants and known rights —
 * the key returned once, only its hash kept — and revoked from the next request on.
 */
import { randomBytes } from 'node:crypto';
import { RIGHTS, type Right, rightsOf } from '../../domain/principal.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../ports/api-key-store.ts';
import type { TenantRecord, TenantRegistry } from '../../ports/tenant-registry.ts';
import type { UsageGateway } from '../../ports/usage-gateway.ts';
import { newApiKey } from './api-keys.ts';

export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Input the administration refuses: which input, and what to give instead. */
export class AdminInputError extends Error {
  constructor(
    readonly input: 'tenant' | 'principal' | 'rights' | 'keyId',
    message: string,
  ) {
    super(message);
  }
}

export interface AuthAdminDeps {
  keys: ApiKeyStore;
  tenants: TenantRegistry;
  gateway?: UsageGateway;
  now?: () => Date;
}

/** A key record as it may be shown: never its hash. */
export type ShownKey = Omit<ApiKeyRecord, 'secretHash'>;
/** A tenant as it may be shown: not its usage key (API Gateway's, not the tenant's to hold). */
export type ShownTenant = Omit<TenantRecord, 'usageKey'>;

export const shownKey = ({ secretHash: _, ...shown }: ApiKeyRecord): ShownKey => shown;
export const shownTenant = ({ usageKey: _, ...shown }: TenantRecord): ShownTenant => shown;

export interface NewKeyInput {
  tenant: string;
  principal: string;
  /** Rights named in a list (`read,write`); the default rights when absent. */
  rights: string | readonly string[];
  description?: string;
}

export class AuthAdmin {
  constructor(private readonly deps: AuthAdminDeps) {}

  get usesGateway(): boolean {
    return this.deps.gateway !== undefined;
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Registers a tenant; `created: false` (and the record kept) when it already is. */
  async addTenant(tenant: string): Promise<{ tenant: ShownTenant; created: boolean }> {
    if (!TENANT_PATTERN.test(tenant)) throw new AdminInputError('tenant', 'letters, digits, . _ -, up to 64');
    const existing = await this.deps.tenants.getTenant(tenant);
    if (existing) return { tenant: shownTenant(existing), created: false };
    const usageKey = randomBytes(24).toString('base64url');
    await this.deps.gateway?.createTenantKey(tenant, usageKey);
    const record = { tenant, usageKey, createdAt: this.now().toISOString() };
    await this.deps.tenants.putTenant(record);
    return { tenant: shownTenant(record), created: true };
  }

  async listTenants(): Promise<ShownTenant[]> {
    return (await this.deps.tenants.listTenants()).map(shownTenant);
  }

  /** A new key of a registered tenant: the key itself (given out once) and its record. */
  async createKey(input: NewKeyInput): Promise<{ key: string; record: ShownKey }> {
    if (!input.tenant) throw new AdminInputError('tenant', 'a key needs a tenant');
    if (!input.principal) throw new AdminInputError('principal', 'a key needs a principal');
    if (!(await this.deps.tenants.getTenant(input.tenant)))
      throw new AdminInputError('tenant', `tenant ${input.tenant} is not registered`);
    const named = (
      typeof input.rights === 'string' ? input.rights.split(/[\s,]+/) : [...input.rights]
    ).filter(Boolean);
    const unknown = named.filter((r) => !(RIGHTS as readonly string[]).includes(r));
    if (unknown.length > 0)
      throw new AdminInputError('rights', `unknown ${unknown.join(', ')} (rights: ${RIGHTS.join(', ')})`);
    const rights: Right[] = rightsOf(named);
    if (rights.length === 0) throw new AdminInputError('rights', `names none of ${RIGHTS.join(', ')}`);
    const { key, record } = newApiKey(
      {
        tenant: input.tenant,
        principal: input.principal,
        rights,
        ...(input.description ? { description: input.description } : {}),
      },
      this.now(),
    );
    await this.deps.keys.putKey(record);
    return { key, record: shownKey(record) };
  }

  async listKeys(tenant?: string): Promise<ShownKey[]> {
    return (await this.deps.keys.listKeys(tenant)).map(shownKey);
  }

  /** Revokes a key (and flushes the authorizer cache); false when there is no such key. */
  async revokeKey(keyId: string): Promise<boolean> {
    if (!keyId) throw new AdminInputError('keyId', 'name the key id');
    if (!(await this.deps.keys.revokeKey(keyId, this.now().toISOString()))) return false;
    await this.deps.gateway?.flushAuthorizerCache();
    return true;
  }
}
