/**
 * Where the agent registry keeps its records (docs/registry.md): a record, its immutable versions, and
 * its catalog entry — the live version as search reads it — with a change feed of those entries that
 * keeps each container's in-memory catalog current. Adapters: shared/adapters/dynamodb/registry-store.ts,
 * shared/adapters/memory/registry-store.ts (contract: test/contract/registry-store.ts).
 */
import type {
  CardVerification,
  CatalogEntry,
  HealthStatus,
  RecordState,
  RegistryCard,
  Visibility,
} from '../domain/registry/record.ts';

/** One published card, as published: never changed once written. */
export interface StoredVersion {
  tenant: string;
  recordId: string;
  version: number;
  card: RegistryCard;
  /** The document as published when it differs from `card` (a v0.3 card, extra fields). */
  original?: unknown;
  shape: '1.0' | '0.3';
  /** SHA-256 (base64url) of the card's canonical JSON: probes compare the card an agent serves with it. */
  digest: string;
  /** `url`: fetched by the registry from `url` (its ETag kept); `inline`: sent in the request. */
  source: { kind: 'url'; url: string; etag?: string } | { kind: 'inline' };
  verification: CardVerification;
  publishedAt: string;
  /** The principal's owner id. */
  publishedBy: string;
}

export interface Review {
  version: number;
  decision: 'approved' | 'rejected' | 'deprecated';
  by: string;
  at: string;
  note?: string;
}

export interface StoredRecord {
  tenant: string;
  id: string;
  /** `urn:air:…`, unique in the registry. */
  identifier: string;
  owner: string;
  name: string;
  visibility: Visibility;
  /** The review state of the latest version (DEPRECATED: of the record, for good). */
  state: RecordState;
  latestVersion: number;
  /** The approved version search serves, while a later one is reviewed. */
  liveVersion?: number;
  /** Set when the record was published by URL: probes fetch the card there. */
  cardUrl?: string;
  health: HealthStatus;
  reviews: Review[];
  createdAt: string;
  updatedAt: string;
  /** Incremented by every write: the condition of the next one. */
  revision: number;
}

/** A record's change, written at once or not at all. */
export interface RecordWrite {
  record: StoredRecord;
  /** The revision the record must still be at (absent: it must not exist yet). */
  expectedRevision?: number;
  /** A version to add with it (it must not exist yet). */
  version?: StoredVersion;
  /** The record's catalog entry after the write, when it changes: put (APPROVED) or retired (DEPRECATED). */
  entry?: CatalogEntry;
}

/** What a refused write collided with. */
export class RecordConflictError extends Error {
  constructor(
    readonly reason: 'exists' | 'stale' | 'identifier-taken',
    message: string,
  ) {
    super(message);
    this.name = 'RecordConflictError';
  }
}

export interface RecordPage {
  records: StoredRecord[];
  /** Opaque; absent on the last page. */
  cursor?: string;
}

/** A committed change of a registry item, as the table's stream shows it (the relay's events follow it). */
export type RegistryChange =
  | { kind: 'record'; before?: StoredRecord; after: StoredRecord }
  | { kind: 'entry'; before?: CatalogEntry; after: CatalogEntry };

export interface CatalogChanges {
  /** Entries changed since the cursor given (possibly some seen before: apply them in order, last wins). */
  entries: CatalogEntry[];
  /** Where the next read starts. */
  cursor: string;
}

export interface RegistryStore {
  /** Applies a write; throws RecordConflictError when the record moved on (or exists, or its identifier is taken). */
  write(change: RecordWrite): Promise<void>;
  getRecord(tenant: string, id: string): Promise<StoredRecord | undefined>;
  getVersion(tenant: string, id: string, version: number): Promise<StoredVersion | undefined>;
  /** A tenant's records, most recently changed first. */
  listRecords(tenant: string, options: { limit: number; cursor?: string }): Promise<RecordPage>;
  /** The record holding an identifier, in any tenant. */
  findByIdentifier(identifier: string): Promise<{ tenant: string; id: string } | undefined>;
  /**
   * Every catalog entry changed after `cursor` (from the start without one), the retired included,
   * so a reader applying them in order holds the catalog.
   */
  catalogChanges(cursor?: string): Promise<CatalogChanges>;
  /**
   * Sets a live entry's health (and the record's), with the probe's report kept beside it. `previous`: the
   * health the caller read; when it is `health`, only the report is written.
   */
  putHealth(
    tenant: string,
    id: string,
    health: HealthStatus,
    report: unknown,
    at: string,
    previous?: HealthStatus,
  ): Promise<void>;
  getHealthReport(tenant: string, id: string): Promise<unknown | undefined>;
}
