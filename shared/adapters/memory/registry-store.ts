/**
 * RegistryStore in memory: the twin of DynamoRegistryStore (shared/adapters/dynamodb/registry-store.ts;
 * contract: test/contract/registry-store.ts). A write is checked whole before any of it applies; the
 * change feed is the list of catalog entries in the order they were written, its cursor a position.
 */
import type { CatalogEntry, HealthStatus } from '../../domain/registry/record.ts';
import {
  type CatalogChanges,
  RecordConflictError,
  type RecordPage,
  type RecordWrite,
  type RegistryStore,
  type StoredRecord,
  type StoredVersion,
} from '../../ports/registry-store.ts';
import { stored } from './json.ts';

const keyOf = (tenant: string, id: string): string => JSON.stringify([tenant, id]);

export class InMemoryRegistryStore implements RegistryStore {
  readonly #records = new Map<string, StoredRecord>();
  readonly #versions = new Map<string, StoredVersion>();
  readonly #identifiers = new Map<string, { tenant: string; id: string }>();
  readonly #entries = new Map<string, CatalogEntry>();
  readonly #health = new Map<string, unknown>();
  /** Every catalog entry written, in order: the change feed. */
  readonly #feed: CatalogEntry[] = [];

  async write({ record, expectedRevision, version, entry }: RecordWrite): Promise<void> {
    const key = keyOf(record.tenant, record.id);
    const current = this.#records.get(key);
    if (expectedRevision === undefined) {
      if (current) throw new RecordConflictError('exists', `Record ${record.id} exists`);
      const holder = this.#identifiers.get(record.identifier);
      if (holder) throw new RecordConflictError('identifier-taken', `${record.identifier} is taken`);
    } else if (!current || current.revision !== expectedRevision)
      throw new RecordConflictError('stale', `Record ${record.id} changed since it was read`);
    const versionKey = version && JSON.stringify([record.tenant, record.id, version.version]);
    if (versionKey && this.#versions.has(versionKey))
      throw new RecordConflictError('stale', `Version ${version?.version} of ${record.id} exists`);
    this.#records.set(key, stored(record));
    if (expectedRevision === undefined)
      this.#identifiers.set(record.identifier, { tenant: record.tenant, id: record.id });
    if (version && versionKey) this.#versions.set(versionKey, stored(version));
    if (entry) this.#putEntry(entry);
  }

  #putEntry(entry: CatalogEntry): void {
    this.#entries.set(keyOf(entry.tenant, entry.id), stored(entry));
    this.#feed.push(stored(entry));
  }

  async getRecord(tenant: string, id: string): Promise<StoredRecord | undefined> {
    const record = this.#records.get(keyOf(tenant, id));
    return record && stored(record);
  }

  async getVersion(tenant: string, id: string, version: number): Promise<StoredVersion | undefined> {
    const found = this.#versions.get(JSON.stringify([tenant, id, version]));
    return found && stored(found);
  }

  async listRecords(
    tenant: string,
    { limit, cursor }: { limit: number; cursor?: string },
  ): Promise<RecordPage> {
    const all = [...this.#records.values()]
      .filter((r) => r.tenant === tenant)
      .sort((a, b) =>
        a.updatedAt === b.updatedAt ? b.id.localeCompare(a.id) : b.updatedAt.localeCompare(a.updatedAt),
      );
    const start = cursor === undefined ? 0 : Number(cursor);
    const records = all.slice(start, start + limit).map(stored);
    return start + limit < all.length ? { records, cursor: String(start + limit) } : { records };
  }

  async findByIdentifier(identifier: string): Promise<{ tenant: string; id: string } | undefined> {
    const found = this.#identifiers.get(identifier);
    return found && { ...found };
  }

  async catalogChanges(cursor?: string): Promise<CatalogChanges> {
    const start = cursor === undefined ? 0 : Number(cursor);
    return { entries: this.#feed.slice(start).map(stored), cursor: String(this.#feed.length) };
  }

  async putHealth(
    tenant: string,
    id: string,
    health: HealthStatus,
    report: unknown,
    at: string,
    previous?: HealthStatus,
  ): Promise<void> {
    const key = keyOf(tenant, id);
    this.#health.set(key, stored(report));
    if (previous === health) return;
    const record = this.#records.get(key);
    const entry = this.#entries.get(key);
    if (record && record.health !== health) this.#records.set(key, { ...record, health });
    if (entry && entry.health !== health) this.#putEntry({ ...entry, health, updatedAt: at });
  }

  async getHealthReport(tenant: string, id: string): Promise<unknown | undefined> {
    const report = this.#health.get(keyOf(tenant, id));
    return report === undefined ? undefined : stored(report);
  }
}
