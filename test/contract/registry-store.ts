/**
 * The RegistryStore port's contract (shared/ports/registry-store.ts): run against the in-memory twin in the
 * unit suite and against DynamoRegistryStore on DynamoDB Local in the integration suite. A write applies
 * whole or not at all: a new record claims its identifier, a change is conditional on the revision read,
 * a version is written once; the catalog feed hands every entry written since a cursor (last wins); health
 * moves the feed only when it changes. Each test works in a tenant of its own, so the suite may share one
 * store.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { CatalogEntry, RegistryCard } from '../../shared/domain/registry/record.ts';
import {
  RecordConflictError,
  type RegistryStore,
  type StoredRecord,
  type StoredVersion,
} from '../../shared/ports/registry-store.ts';

export interface RegistryStoreHarness {
  make(): RegistryStore | Promise<RegistryStore>;
}

const card = (name: string): RegistryCard => ({
  name,
  description: `${name}, an agent`,
  supportedInterfaces: [
    { url: 'https://agents.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'forecast', name: 'Forecast', description: 'Weather forecasts', tags: ['weather'] }],
});

/** Times that move forward across the suite (the feed's order). */
let clock = Date.parse('2026-06-01T00:00:00.000Z');
const tick = (): string => {
  clock += 1000;
  return new Date(clock).toISOString();
};

const recordOf = (tenant: string, over: Partial<StoredRecord> = {}): StoredRecord => {
  const id = crypto.randomUUID();
  const at = tick();
  return {
    tenant,
    id,
    identifier: `urn:air:example.com:${tenant}:${id}`,
    owner: 'alice',
    name: 'Weather',
    visibility: 'public',
    state: 'PENDING_APPROVAL',
    latestVersion: 1,
    health: 'unknown',
    reviews: [],
    createdAt: at,
    updatedAt: at,
    revision: 1,
    ...over,
  };
};

const versionOf = (record: StoredRecord, version = record.latestVersion): StoredVersion => ({
  tenant: record.tenant,
  recordId: record.id,
  version,
  card: card(record.name),
  shape: '1.0',
  digest: `digest-${version}`,
  source: { kind: 'inline' },
  verification: { status: 'unsigned' },
  publishedAt: record.updatedAt,
  publishedBy: record.owner,
});

const entryOf = (record: StoredRecord, over: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: record.id,
  identifier: record.identifier,
  tenant: record.tenant,
  owner: record.owner,
  visibility: record.visibility,
  state: 'APPROVED',
  version: record.liveVersion ?? 1,
  card: card(record.name),
  verification: { status: 'unsigned' },
  health: record.health,
  updatedAt: record.updatedAt,
  ...over,
});

const rejects = async (p: Promise<unknown>, reason: RecordConflictError['reason']) =>
  assert.rejects(p, (e: unknown) => e instanceof RecordConflictError && e.reason === reason);

/** The entries of `tenant` the feed hands out, as the catalog holds them once applied in order. */
const catalogOf = async (store: RegistryStore, tenant: string, cursor?: string) => {
  const { entries, cursor: next } = await store.catalogChanges(cursor);
  const held = new Map<string, CatalogEntry>();
  for (const e of entries) if (e.tenant === tenant) held.set(e.id, e);
  return { held, cursor: next, entries: entries.filter((e) => e.tenant === tenant) };
};

export const registryStoreContract = (name: string, harness: RegistryStoreHarness): void => {
  describe(`RegistryStore contract: ${name}`, () => {
    let store: RegistryStore;
    let tenant: string;
    before(async () => {
      store = await harness.make();
    });
    const freshTenant = () => {
      tenant = `t-${crypto.randomUUID()}`;
      return tenant;
    };

    it('creates a record with its first version, and answers both; another tenant reads neither', async () => {
      const record = recordOf(freshTenant());
      const version = versionOf(record);
      await store.write({ record, version });
      assert.deepEqual(await store.getRecord(tenant, record.id), record);
      assert.deepEqual(await store.getVersion(tenant, record.id, 1), version);
      assert.equal(await store.getVersion(tenant, record.id, 2), undefined);
      assert.equal(await store.getRecord('someone-else', record.id), undefined);
      assert.equal(await store.getVersion('someone-else', record.id, 1), undefined);
      assert.deepEqual(await store.findByIdentifier(record.identifier), { tenant, id: record.id });
      assert.equal(await store.findByIdentifier('urn:air:example.com:none:none'), undefined);
    });

    it('refuses a second record of the same id, or of a taken identifier, writing nothing', async () => {
      const record = recordOf(freshTenant());
      await store.write({ record, version: versionOf(record) });
      await rejects(store.write({ record: { ...record, name: 'Other' } }), 'exists');
      const twin = recordOf(tenant, { identifier: record.identifier });
      await rejects(store.write({ record: twin, version: versionOf(twin) }), 'identifier-taken');
      assert.equal(await store.getRecord(tenant, twin.id), undefined);
      assert.equal(await store.getVersion(tenant, twin.id, 1), undefined);
      assert.equal((await store.getRecord(tenant, record.id))?.name, 'Weather');
    });

    it('a change applies only at the revision it read, its new version with it or not at all', async () => {
      const record = recordOf(freshTenant());
      await store.write({ record, version: versionOf(record) });
      const next = { ...record, latestVersion: 2, revision: 2, updatedAt: tick() };
      await store.write({ record: next, expectedRevision: 1, version: versionOf(next) });
      assert.equal((await store.getRecord(tenant, record.id))?.latestVersion, 2);
      assert.equal((await store.getVersion(tenant, record.id, 2))?.version, 2);
      // a writer still at revision 1 loses, and its version 3 is not written
      const stale = { ...record, latestVersion: 3, revision: 2, updatedAt: tick() };
      await rejects(store.write({ record: stale, expectedRevision: 1, version: versionOf(stale) }), 'stale');
      assert.equal(await store.getVersion(tenant, record.id, 3), undefined);
      // a version is written once: the same number again is refused with the record unchanged
      const again = { ...next, revision: 3, updatedAt: tick() };
      await rejects(store.write({ record: again, expectedRevision: 2, version: versionOf(again) }), 'stale');
      assert.equal((await store.getRecord(tenant, record.id))?.revision, 2);
      // and a change of a record that does not exist is stale too
      const ghost = recordOf(tenant);
      await rejects(store.write({ record: ghost, expectedRevision: 1 }), 'stale');
    });

    it("lists a tenant's records, most recently changed first, in pages", async () => {
      freshTenant();
      const written: StoredRecord[] = [];
      for (let i = 0; i < 5; i++) {
        const record = recordOf(tenant, { name: `Agent ${i}` });
        await store.write({ record, version: versionOf(record) });
        written.push(record);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listRecords(tenant, { limit: 2, ...(cursor ? { cursor } : {}) });
        assert.ok(page.records.length <= 2);
        seen.push(...page.records.map((r) => r.id));
        cursor = page.cursor;
      } while (cursor);
      assert.deepEqual(seen, written.map((r) => r.id).reverse());
      assert.deepEqual((await store.listRecords(`t-${crypto.randomUUID()}`, { limit: 10 })).records, []);
    });

    it('the feed hands every catalog entry written after a cursor; applied in order, last wins', async () => {
      freshTenant();
      const a = recordOf(tenant, { state: 'APPROVED', liveVersion: 1 });
      const b = recordOf(tenant, { state: 'APPROVED', liveVersion: 1 });
      const { cursor: start } = await store.catalogChanges();
      await store.write({ record: a, version: versionOf(a), entry: entryOf(a) });
      await store.write({ record: b, version: versionOf(b), entry: entryOf(b) });
      const first = await catalogOf(store, tenant, start);
      assert.deepEqual([...first.held.keys()].sort(), [a.id, b.id].sort());
      assert.deepEqual(first.held.get(a.id), entryOf(a));
      // a retired entry comes through the feed too (readers drop it)
      const retired = { ...a, state: 'DEPRECATED' as const, revision: 2, updatedAt: tick() };
      await store.write({
        record: retired,
        expectedRevision: 1,
        entry: entryOf(retired, { state: 'DEPRECATED' }),
      });
      const second = await catalogOf(store, tenant, first.cursor);
      assert.equal(second.held.get(a.id)?.state, 'DEPRECATED');
      // from the start, the catalog holds the last of each
      const all = await catalogOf(store, tenant);
      assert.equal(all.held.get(a.id)?.state, 'DEPRECATED');
      assert.equal(all.held.get(b.id)?.state, 'APPROVED');
    });

    it('health moves the entry through the feed only when it changes, and keeps the report', async () => {
      freshTenant();
      const record = recordOf(tenant, { state: 'APPROVED', liveVersion: 1 });
      await store.write({ record, version: versionOf(record), entry: entryOf(record) });
      const { cursor } = await catalogOf(store, tenant);
      const at = tick();
      await store.putHealth(tenant, record.id, 'unreachable', { checks: 1 }, at);
      const moved = await catalogOf(store, tenant, cursor);
      assert.equal(moved.held.get(record.id)?.health, 'unreachable');
      assert.equal(moved.held.get(record.id)?.updatedAt, at);
      assert.equal((await store.getRecord(tenant, record.id))?.health, 'unreachable');
      assert.equal((await store.getRecord(tenant, record.id))?.revision, 1, 'health is not a revision');
      assert.deepEqual(await store.getHealthReport(tenant, record.id), { checks: 1 });
      // the same verdict again: a new report, the entry not moved
      await store.putHealth(tenant, record.id, 'unreachable', { checks: 2 }, tick());
      assert.deepEqual(await store.getHealthReport(tenant, record.id), { checks: 2 });
      const after = await catalogOf(store, tenant, moved.cursor);
      assert.ok(
        after.entries.every((e) => e.updatedAt === at),
        'only entries seen before (within the feed margin) come again',
      );
      assert.equal(await store.getHealthReport('someone-else', record.id), undefined);
      // told the verdict is the one it read, the store writes the report alone (nothing else is looked at)
      await store.putHealth(tenant, record.id, 'healthy', { checks: 3 }, tick(), 'healthy');
      assert.deepEqual(await store.getHealthReport(tenant, record.id), { checks: 3 });
      assert.equal((await store.getRecord(tenant, record.id))?.health, 'unreachable', 'the record untouched');
    });
  });
};
