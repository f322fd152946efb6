/**
 * The in-memory ApiKeyStore and TenantRegistry (shared/adapters/memory/auth-store.ts): the ports' contract
 * (test/contract/auth-store.ts, which DynamoAuthStore runs on DynamoDB Local too), and the refusal of a
 * taken key id it throws.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryAuthStore, KeyExistsError } from '../../../../shared/adapters/memory/auth-store.ts';
import { newApiKey } from '../../../../shared/app/auth/api-keys.ts';
import { authStoreContract } from '../../../contract/auth-store.ts';

authStoreContract('in memory', { make: () => new InMemoryAuthStore() });

describe('InMemoryAuthStore', () => {
  it('refuses a taken key id with KeyExistsError, naming it', async () => {
    const store = new InMemoryAuthStore();
    const { record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    await assert.rejects(
      store.putKey(record),
      (e: unknown) => e instanceof KeyExistsError && e.keyId === record.keyId,
    );
  });
});
