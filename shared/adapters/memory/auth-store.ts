/**
 * ApiKeyStore and TenantRegistry in memory: the twin of DynamoAuthStore (shared/adapters/dynamodb/auth-store.ts;
 * contract: test/contract/auth-store.ts). A key id is never overwritten (putKey refuses one that exists,
 * KeyExistsError), a revocation keeps the first time it was revoked, a tenant is put whole.
 */
import type { ApiKeyRecord, ApiKeyStore } from '../../ports/api-key-store.ts';
import type { TenantRecord, TenantRegistry } from '../../ports/tenant-registry.ts';
import { stored } from './json.ts';

/** putKey's refusal of a key id that is taken. */
export class KeyExistsError extends Error {
  constructor(readonly keyId: string) {
    super(`key ${keyId} exists`);
  }
}

export class InMemoryAuthStore implements ApiKeyStore, TenantRegistry {
  readonly #keys = new Map<string, ApiKeyRecord>();
  readonly #tenants = new Map<string, TenantRecord>();

  async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const record = this.#keys.get(keyId);
    return record ? stored(record) : undefined;
  }

  async putKey(record: ApiKeyRecord): Promise<void> {
    if (this.#keys.has(record.keyId)) throw new KeyExistsError(record.keyId);
    this.#keys.set(record.keyId, stored(record));
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    const record = this.#keys.get(keyId);
    if (!record) return false;
    this.#keys.set(keyId, { ...record, revokedAt: record.revokedAt ?? at });
    return true;
  }

  async listKeys(tenant?: string): Promise<ApiKeyRecord[]> {
    return stored([...this.#keys.values()].filter((k) => tenant === undefined || k.tenant === tenant));
  }

  async getTenant(tenant: string): Promise<TenantRecord | undefined> {
    const record = this.#tenants.get(tenant);
    return record ? stored(record) : undefined;
  }

  async putTenant(record: TenantRecord): Promise<void> {
    this.#tenants.set(record.tenant, stored(record));
  }

  async listTenants(): Promise<TenantRecord[]> {
    return stored([...this.#tenants.values()]);
  }
}
