/**
 * The ApiKeyStore and TenantRegistry ports' contract (shared/ports/api-key-store.ts, tenant-registry.ts):
 * run against the in-memory twin in the unit suite and against DynamoAuthStore on DynamoDB Local in the
 * integration suite (which keeps what only the table has: its partition, pages of 1 MB, the stream). A key
 * is put once (its id is never overwritten) and read by id, revoked once (the first time kept), listed
 * whole or by tenant; a tenant is put whole, read and listed. verifyApiKey (shared/app/auth/api-keys.ts)
 * works on either. The suite expects a store with no tenants; keys of other tests may be there.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { newApiKey, verifyApiKey } from '../../shared/app/auth/api-keys.ts';
import { AuthError } from '../../shared/domain/errors.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../shared/ports/api-key-store.ts';
import type { TenantRegistry } from '../../shared/ports/tenant-registry.ts';

export interface AuthStoreHarness {
  make(): (ApiKeyStore & TenantRegistry) | Promise<ApiKeyStore & TenantRegistry>;
}

const isUnauthenticated = (e: unknown) => e instanceof AuthError && e.code === 'unauthenticated';

export const authStoreContract = (name: string, harness: AuthStoreHarness): void => {
  describe(`ApiKeyStore and TenantRegistry contract: ${name}`, () => {
    let store: ApiKeyStore & TenantRegistry;
    before(async () => {
      store = await harness.make();
    });

    it('put and get a key; unknown ids are undefined', async () => {
      const { record } = newApiKey(
        { tenant: 'acme', principal: 'ci', rights: ['read', 'write'], description: 'pipeline' },
        new Date('2025-01-01T00:00:00.000Z'),
      );
      await store.putKey(record);
      assert.deepEqual(await store.getKey(record.keyId), record);
      assert.equal(await store.getKey('abcdefghijklmnop'), undefined);
      const { record: bare } = newApiKey({ tenant: 'acme', principal: 'bot', rights: ['read'] });
      await store.putKey(bare);
      const got = await store.getKey(bare.keyId);
      assert.deepEqual(got, bare);
      assert.ok(got && !('description' in got) && !('revokedAt' in got));
    });

    it('revokeKey: true for a key (idempotent, the first time kept), false for no such key', async () => {
      const { key, record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
      await store.putKey(record);
      assert.deepEqual((await verifyApiKey(store, key)).owner, 'ci');
      assert.equal(await store.revokeKey(record.keyId, '2025-02-01T00:00:00.000Z'), true);
      assert.equal(await store.revokeKey(record.keyId, '2025-03-01T00:00:00.000Z'), true);
      assert.equal((await store.getKey(record.keyId))?.revokedAt, '2025-02-01T00:00:00.000Z');
      await assert.rejects(verifyApiKey(store, key), isUnauthenticated);
      assert.equal(await store.revokeKey('abcdefghijklmnop', '2025-02-01T00:00:00.000Z'), false);
      assert.equal(await store.getKey('abcdefghijklmnop'), undefined, 'revoking creates nothing');
    });

    it('verifyApiKey on the store: the principal of a valid key, refusals for a wrong secret', async () => {
      const { key, record } = newApiKey({ tenant: 'acme', principal: 'alice', rights: ['write'] });
      await store.putKey(record);
      assert.deepEqual(await verifyApiKey(store, key), {
        tenant: 'acme',
        owner: 'alice',
        rights: ['write'],
        scheme: 'api-key',
      });
      await assert.rejects(verifyApiKey(store, `syn_${record.keyId}_${'x'.repeat(43)}`), isUnauthenticated);
    });

    it('put, get and list tenants (names needing escapes included)', async () => {
      await store.putTenant({ tenant: 'acme', usageKey: 'usage-acme', createdAt: '2025-01-01T00:00:00Z' });
      await store.putTenant({
        tenant: 'odd#name/1',
        usageKey: 'usage-odd',
        createdAt: '2025-01-02T00:00:00Z',
        disabledAt: '2025-01-03T00:00:00Z',
      });
      assert.deepEqual(await store.getTenant('acme'), {
        tenant: 'acme',
        usageKey: 'usage-acme',
        createdAt: '2025-01-01T00:00:00Z',
      });
      assert.equal((await store.getTenant('odd#name/1'))?.disabledAt, '2025-01-03T00:00:00Z');
      assert.equal(await store.getTenant('nobody'), undefined);
      const tenants = await store.listTenants();
      assert.deepEqual(tenants.map((t) => t.tenant).sort(), ['acme', 'odd#name/1']);
      // tenants are not keys and keys are not tenants
      for (const k of await store.listKeys())
        assert.ok(k.keyId !== 'undefined' && k.secretHash !== 'undefined');
    });

    it('putKey refuses a key id that is taken, and leaves the first record as it was', async () => {
      const { record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
      await store.putKey(record);
      const usurper: ApiKeyRecord = {
        ...record,
        tenant: 'globex',
        principal: 'mallory',
        rights: ['read', 'write'],
      };
      await assert.rejects(store.putKey(usurper));
      assert.deepEqual(await store.getKey(record.keyId), record);
    });

    it('listKeys: every key, or those of one tenant', async () => {
      const made = Array.from(
        { length: 5 },
        (_, i) =>
          newApiKey({ tenant: i % 2 ? 'list-b' : 'list-a', principal: `p${i}`, rights: ['read'] }).record,
      );
      for (const r of made) await store.putKey(r);
      const all = (await store.listKeys()).map((k) => k.keyId);
      for (const r of made) assert.ok(all.includes(r.keyId));
      assert.deepEqual(
        (await store.listKeys('list-a')).map((k) => k.keyId).sort(),
        made
          .filter((r) => r.tenant === 'list-a')
          .map((r) => r.keyId)
          .sort(),
      );
      assert.deepEqual(await store.listKeys('nobody'), []);
    });

    it('a record read is the caller’s: changing it changes nothing kept', async () => {
      const { record } = newApiKey({ tenant: 'acme', principal: 'copy', rights: ['read'] });
      await store.putKey(record);
      const read = await store.getKey(record.keyId);
      (read!.rights as string[]).push('write');
      read!.principal = 'mallory';
      assert.deepEqual(await store.getKey(record.keyId), record);
    });
  });
};
