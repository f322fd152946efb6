/** Where API keys are kept, by key id, as their hash (shared/adapters/dynamodb/auth-store.ts, docs/security.md). */
import type { Right } from '../domain/principal.ts';

export interface ApiKeyRecord {
  keyId: string;
  /** SHA-256 of the secret, hex. */
  secretHash: string;
  tenant: string;
  /** The principal the key speaks for: the owner of the tasks it makes. */
  principal: string;
  rights: readonly Right[];
  createdAt: string;
  revokedAt?: string;
  /** Free text for whoever manages the keys ("ci pipeline"). Never the key. */
  description?: string;
}

/** Where key records are kept (the task table: shared/adapters/dynamodb/auth-store.ts). */
export interface ApiKeyStore {
  getKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  putKey(record: ApiKeyRecord): Promise<void>;
  /** Marks the key revoked; false when there is no such key. */
  revokeKey(keyId: string, at: string): Promise<boolean>;
  listKeys(tenant?: string): Promise<ApiKeyRecord[]>;
}
