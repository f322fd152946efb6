/**
 * The catalog a container holds (docs/registry.md#discovery): the live entries, kept current from the
 * store's feed — one query of what changed since its cursor, at most every `refreshMs`. What holds them
 * is the reader's: the full-text index for discovery (./catalog-index.ts), the entries by skill for the
 * remote-skill resolver (../synapse/registry-skills.ts), the entries alone for the prober.
 */
import type { CatalogEntry } from '../../domain/registry/record.ts';
import type { Clock } from '../../ports/clock.ts';
import type { RegistryStore } from '../../ports/registry-store.ts';

/** How stale a container's catalog may be before a request reads the feed again. */
export const DEFAULT_CATALOG_REFRESH_MS = 1_000;

/** What keeps the catalog's entries: an upsert replaces an entry; a DEPRECATED one leaves. */
export interface CatalogHolder {
  upsert(entry: CatalogEntry): void;
}

/** The live entries by id, nothing more (what the prober reads). */
export class CatalogEntries implements CatalogHolder {
  readonly #entries = new Map<string, CatalogEntry>();

  upsert(entry: CatalogEntry): void {
    if (entry.state === 'DEPRECATED') this.#entries.delete(entry.id);
    else this.#entries.set(entry.id, entry);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Every entry held (the live agents), in no order. */
  entries(): IterableIterator<CatalogEntry> {
    return this.#entries.values();
  }
}

/** The catalog: `holder` kept current from the store's feed. */
export class Catalog<H extends CatalogHolder> {
  /** The last change applied per entry (the retired included): an older copy never wins, the same one is not re-indexed. */
  readonly #seen = new Map<string, { updatedAt: string; key: string }>();
  #cursor: string | undefined;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(
    readonly holder: H,
    private readonly store: RegistryStore,
    private readonly clock: Clock,
    private readonly refreshMs = DEFAULT_CATALOG_REFRESH_MS,
  ) {}

  /**
   * Applies an entry (from the feed, or one this container just wrote) unless it or a later one is held:
   * every change stamps a new time, and the feed hands an entry again within its margin.
   */
  apply(entry: CatalogEntry): void {
    const seen = this.#seen.get(entry.id);
    const key = `${entry.state}:${entry.version}:${entry.health}`;
    if (
      seen !== undefined &&
      (seen.updatedAt > entry.updatedAt || (seen.updatedAt === entry.updatedAt && seen.key === key))
    )
      return;
    this.#seen.set(entry.id, { updatedAt: entry.updatedAt, key });
    this.holder.upsert(entry);
  }

  /** The holder, after reading the feed when the last read is older than `refreshMs`. */
  async current(): Promise<H> {
    if (this.clock.now().getTime() - this.#readAt >= this.refreshMs) {
      this.#reading ??= this.read().finally(() => {
        this.#reading = undefined;
      });
      await this.#reading;
    }
    return this.holder;
  }

  private async read(): Promise<void> {
    const startedAt = this.clock.now().getTime();
    const changes = await this.store.catalogChanges(this.#cursor);
    for (const entry of changes.entries) this.apply(entry);
    this.#cursor = changes.cursor;
    this.#readAt = startedAt;
  }
}
