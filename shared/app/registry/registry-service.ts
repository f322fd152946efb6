/**
 * The agent registry's management side (docs/registry.md#publishing-and-review): publish a card by URL or
 * inline, add versions, submit, approve or reject, deprecate, read a tenant's records. Every write is one
 * conditional write of the record (with its new version, or its catalog entry) at the revision it read;
 * a lost race is read again and retried, a refused card writes nothing.
 */
import { authorize, type Principal } from '../../domain/principal.ts';
import { cardDigest } from '../../domain/registry/health.ts';
import { nextState, type RecordAction } from '../../domain/registry/lifecycle.ts';
import {
  type CardVerification,
  type CatalogEntry,
  liveEntryOf,
  type RegistryCard,
  VISIBILITIES,
  type Visibility,
} from '../../domain/registry/record.ts';
import type { Clock } from '../../ports/clock.ts';
import {
  RecordConflictError,
  type RegistryStore,
  type StoredRecord,
  type StoredVersion,
} from '../../ports/registry-store.ts';
import { RegistryError } from './errors.ts';

/** A card as published, normalised to v1.0, or every problem found in it. */
export type NormalisedCard =
  | { ok: true; card: RegistryCard; shape: '1.0' | '0.3' }
  | { ok: false; errors: string[] };

/** What the service needs besides the store: the card's reading, fetching and checking. */
export interface CardHandling {
  normalise(raw: unknown): NormalisedCard;
  /** GETs a card URL (through the SSRF guard): its JSON text and ETag, or why it could not. */
  fetch(url: string): Promise<{ ok: true; body: string; etag?: string } | { ok: false; error: string }>;
  /** The card's signature verdict against the registry's trusted keys. */
  verify(card: RegistryCard, publisherUrl: string): Promise<CardVerification>;
}

export interface PublishRequest {
  /** The card's URL, which the registry fetches; or */
  cardUrl?: string;
  /** the card itself. */
  card?: unknown;
  visibility?: Visibility;
  /** Keep the version a draft instead of submitting it for approval. */
  draft?: boolean;
}

export interface ReviewRequest {
  /** The version the reviewer read: refused when another is under review. */
  version?: number;
  note?: string;
}

/** Applies an entry the service wrote to the catalog this container holds (read-your-writes). */
export type EntrySink = (entry: CatalogEntry) => void;

const MAX_NOTE = 1024;
const RETRIES = 3;

/** The record's URN (ARD catalog entry identifier: `urn:air:<publisher>:<namespace>:<name>`). */
export const identifierOf = (publisherUrl: string, tenant: string, name: string): string => {
  const slug = (s: string) =>
    s
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64)
      .toLowerCase() || 'agent';
  const host = new URL(publisherUrl).hostname.replace(/[^A-Za-z0-9.-]/g, '-') || 'local';
  return `urn:air:${host}:${slug(tenant)}:${slug(name)}`;
};

export class RegistryService {
  constructor(
    private readonly store: RegistryStore,
    private readonly cards: CardHandling,
    private readonly clock: Clock,
    private readonly newId: () => string = () => crypto.randomUUID(),
    private readonly onEntry: EntrySink = () => {},
  ) {}

  /** A new record with its first version. */
  async publish(principal: Principal, request: PublishRequest, inlineFrom?: string): Promise<StoredRecord> {
    const caller = authorize(principal, 'write');
    const visibility = this.visibilityOf(request.visibility ?? 'tenant');
    const card = await this.readCard(request, inlineFrom);
    const at = this.clock.now().toISOString();
    const id = this.newId();
    const record: StoredRecord = {
      tenant: caller.tenant,
      id,
      identifier: identifierOf(card.publisherUrl, caller.tenant, card.card.name),
      owner: caller.owner,
      name: card.card.name,
      visibility,
      state: request.draft ? 'DRAFT' : 'PENDING_APPROVAL',
      latestVersion: 1,
      // an inline card published from a URL (the hub's own) is probed there, as one fetched by URL
      ...(request.cardUrl || inlineFrom ? { cardUrl: card.publisherUrl } : {}),
      health: 'unknown',
      reviews: [],
      createdAt: at,
      updatedAt: at,
      revision: 1,
    };
    try {
      await this.store.write({ record, version: this.versionOf(record, 1, card, at) });
    } catch (e) {
      if (e instanceof RecordConflictError && e.reason === 'identifier-taken') {
        const holder = await this.store.findByIdentifier(record.identifier);
        const same =
          holder?.tenant === caller.tenant ? ` (record ${holder.id}: publish a new version to it)` : '';
        throw new RegistryError('ALREADY_EXISTS', `An agent named ${record.identifier} is registered${same}`);
      }
      throw e;
    }
    return record;
  }

  /** A new version of a record: a new review starts; the approved version stays live meanwhile. */
  async publishVersion(
    principal: Principal,
    id: string,
    request: PublishRequest,
    inlineFrom?: string,
  ): Promise<StoredRecord> {
    const caller = authorize(principal, 'write');
    if (request.visibility !== undefined)
      throw new RegistryError(
        'INVALID_ARGUMENT',
        'visibility: set when the record is published, not per version',
      );
    const card = await this.readCard(request, inlineFrom);
    return this.change(principal, caller.tenant, id, 'publish', async (record, at) => {
      if (card.card.name !== record.name)
        throw new RegistryError(
          'INVALID_ARGUMENT',
          `card.name: "${card.card.name.slice(0, 64)}" is not the record's name "${record.name}" (publish a new record)`,
        );
      const latestVersion = record.latestVersion + 1;
      const next: StoredRecord = {
        ...record,
        latestVersion,
        state: request.draft ? 'DRAFT' : 'PENDING_APPROVAL',
        ...(request.cardUrl || inlineFrom ? { cardUrl: card.publisherUrl } : {}),
      };
      return { record: next, version: this.versionOf(next, latestVersion, card, at) };
    });
  }

  async submit(principal: Principal, id: string): Promise<StoredRecord> {
    const caller = authorize(principal, 'write');
    return this.change(principal, caller.tenant, id, 'submit', async (record) => ({ record }));
  }

  async review(
    principal: Principal,
    id: string,
    decision: 'approve' | 'reject',
    request: ReviewRequest = {},
  ): Promise<StoredRecord> {
    const caller = authorize(principal, 'approve');
    const note = this.noteOf(request.note);
    return this.change(principal, caller.tenant, id, decision, async (record, at) => {
      if (request.version !== undefined && request.version !== record.latestVersion)
        throw new RegistryError(
          'FAILED_PRECONDITION',
          `version: ${request.version} is not the version under review (${record.latestVersion})`,
        );
      const reviews = [
        ...record.reviews,
        {
          version: record.latestVersion,
          decision: decision === 'approve' ? ('approved' as const) : ('rejected' as const),
          by: caller.owner,
          at,
          ...(note ? { note } : {}),
        },
      ].slice(-20);
      if (decision === 'reject') return { record: { ...record, reviews } };
      const version = await this.store.getVersion(record.tenant, record.id, record.latestVersion);
      if (!version) throw new Error(`Version ${record.latestVersion} of record ${record.id} is missing`);
      const next = { ...record, reviews, liveVersion: record.latestVersion };
      return { record: next, entry: liveEntryOf(next, version, at) };
    });
  }

  async deprecate(principal: Principal, id: string, request: { note?: string } = {}): Promise<StoredRecord> {
    const caller = authorize(principal, 'write');
    const note = this.noteOf(request.note);
    return this.change(principal, caller.tenant, id, 'deprecate', async (record, at) => {
      const reviews = [
        ...record.reviews,
        {
          version: record.latestVersion,
          decision: 'deprecated' as const,
          by: caller.owner,
          at,
          ...(note ? { note } : {}),
        },
      ].slice(-20);
      const next = { ...record, reviews };
      if (record.liveVersion === undefined) return { record: next };
      const version = await this.store.getVersion(record.tenant, record.id, record.liveVersion);
      return version
        ? { record: next, entry: { ...liveEntryOf(next, version, at), state: 'DEPRECATED' } }
        : { record: next };
    });
  }

  /** A record its caller may manage: its publisher's, or any of the tenant's for a reviewer. */
  async get(principal: Principal, id: string): Promise<StoredRecord> {
    const caller = authorize(principal, 'read');
    const record = await this.store.getRecord(caller.tenant, id);
    if (!record || !this.mayManage(principal, record))
      throw new RegistryError('NOT_FOUND', `No record ${id.slice(0, 64)}`);
    return record;
  }

  async getVersion(principal: Principal, id: string, version: number): Promise<StoredVersion> {
    const record = await this.get(principal, id);
    const found = await this.store.getVersion(record.tenant, id, version);
    if (!found) throw new RegistryError('NOT_FOUND', `Record ${id.slice(0, 64)} has no version ${version}`);
    return found;
  }

  async healthReport(principal: Principal, id: string): Promise<unknown | undefined> {
    const record = await this.get(principal, id);
    return this.store.getHealthReport(record.tenant, record.id);
  }

  /** The caller's records (a reviewer: the tenant's), most recently changed first. */
  async list(
    principal: Principal,
    { pageSize, pageToken }: { pageSize: number; pageToken?: string },
  ): Promise<{ records: StoredRecord[]; pageToken?: string }> {
    const caller = authorize(principal, 'read');
    const page = await this.store.listRecords(caller.tenant, {
      limit: pageSize,
      ...(pageToken ? { cursor: pageToken } : {}),
    });
    return {
      records: page.records.filter((r) => this.mayManage(principal, r)),
      ...(page.cursor ? { pageToken: page.cursor } : {}),
    };
  }

  /**
   * Publishes this hub's own card (at start and at deploy: docs/registry.md#the-hubs-own-card), approved at
   * once: the operator vouches for it. A card unchanged since the live version writes nothing.
   */
  async publishOwn(tenant: string, cardUrl: string, raw: unknown): Promise<StoredRecord> {
    const system: Principal = {
      tenant,
      owner: 'synapse-hub',
      rights: ['read', 'write', 'approve'],
      scheme: 'dev',
    };
    const read = this.cards.normalise(raw);
    if (!read.ok) throw new RegistryError('INVALID_ARGUMENT', "The hub's own card is not valid", read.errors);
    const identifier = identifierOf(cardUrl, tenant, read.card.name);
    const holder = await this.store.findByIdentifier(identifier);
    const existing = holder && (await this.store.getRecord(holder.tenant, holder.id));
    if (existing?.liveVersion !== undefined) {
      const live = await this.store.getVersion(existing.tenant, existing.id, existing.liveVersion);
      if (live?.digest === cardDigest(raw) && existing.state === 'APPROVED') return existing;
    }
    // published inline (the hub may not reach its own public URL), its identifier naming the card URL's host
    const record = existing
      ? await this.publishVersion(system, existing.id, { card: raw }, cardUrl)
      : await this.publish(system, { card: raw, visibility: 'public' }, cardUrl);
    return this.review(system, record.id, 'approve', {
      version: record.latestVersion,
      note: 'the hub publishes its own card',
    });
  }

  private mayManage(principal: Principal, record: StoredRecord): boolean {
    return record.owner === principal.owner || principal.rights.includes('approve');
  }

  private visibilityOf(value: unknown): Visibility {
    if (!VISIBILITIES.includes(value as Visibility))
      throw new RegistryError('INVALID_ARGUMENT', `visibility: must be one of ${VISIBILITIES.join(', ')}`);
    return value as Visibility;
  }

  private noteOf(note: unknown): string | undefined {
    if (note === undefined) return undefined;
    if (typeof note !== 'string' || note.length > MAX_NOTE)
      throw new RegistryError('INVALID_ARGUMENT', `note: a text of at most ${MAX_NOTE} characters`);
    return note;
  }

  /** The card a request publishes, normalised and checked, with where it came from. */
  private async readCard(
    request: PublishRequest,
    /** Whose URL an inline card counts as published from (else its first interface's). */
    inlineFrom?: string,
  ): Promise<{
    card: RegistryCard;
    shape: '1.0' | '0.3';
    original: unknown;
    publisherUrl: string;
    source: StoredVersion['source'];
    verification: CardVerification;
  }> {
    if ((request.cardUrl === undefined) === (request.card === undefined))
      throw new RegistryError(
        'INVALID_ARGUMENT',
        'Send either cardUrl (the registry fetches it) or card (inline)',
      );
    let raw: unknown = request.card;
    let source: StoredVersion['source'] = { kind: 'inline' };
    if (request.cardUrl !== undefined) {
      if (typeof request.cardUrl !== 'string') throw new RegistryError('INVALID_ARGUMENT', 'cardUrl: a URL');
      const fetched = await this.cards.fetch(request.cardUrl);
      if (!fetched.ok)
        throw new RegistryError(
          'INVALID_ARGUMENT',
          `cardUrl: the card could not be fetched (${fetched.error})`,
        );
      try {
        raw = JSON.parse(fetched.body);
      } catch {
        throw new RegistryError('INVALID_ARGUMENT', 'cardUrl: the document there is not JSON');
      }
      source = { kind: 'url', url: request.cardUrl, ...(fetched.etag ? { etag: fetched.etag } : {}) };
    }
    const read = this.cards.normalise(raw);
    if (!read.ok)
      throw new RegistryError('INVALID_ARGUMENT', 'The card is not a valid A2A agent card', read.errors);
    const publisherUrl = request.cardUrl ?? inlineFrom ?? read.card.supportedInterfaces[0]!.url;
    // the signature covers the document as published (A2A §8.4.1), members normalisation drops included
    const verification = await this.cards.verify(raw as RegistryCard, publisherUrl);
    return { card: read.card, shape: read.shape, original: raw, publisherUrl, source, verification };
  }

  private versionOf(
    record: StoredRecord,
    version: number,
    card: Awaited<ReturnType<RegistryService['readCard']>>,
    at: string,
  ): StoredVersion {
    const same = JSON.stringify(card.original) === JSON.stringify(card.card);
    return {
      tenant: record.tenant,
      recordId: record.id,
      version,
      card: card.card,
      ...(same ? {} : { original: card.original }),
      shape: card.shape,
      digest: cardDigest(card.original),
      source: card.source,
      verification: card.verification,
      publishedAt: at,
      publishedBy: record.owner,
    };
  }

  /**
   * Reads the record, checks the action is allowed from its state and by this caller, and writes what
   * `apply` makes of it at the revision read; a lost race reads again.
   */
  private async change(
    principal: Principal,
    tenant: string,
    id: string,
    action: RecordAction,
    apply: (
      record: StoredRecord,
      at: string,
    ) => Promise<{ record: StoredRecord; version?: StoredVersion; entry?: CatalogEntry }>,
  ): Promise<StoredRecord> {
    for (let attempt = 1; ; attempt++) {
      const record = await this.store.getRecord(tenant, id);
      if (!record || !this.mayManage(principal, record))
        throw new RegistryError('NOT_FOUND', `No record ${id.slice(0, 64)}`);
      const to = nextState(record.state, action);
      if (to === undefined)
        throw new RegistryError(
          'FAILED_PRECONDITION',
          `A record in state ${record.state} cannot be ${pastOf[action]}`,
        );
      const at = this.clock.now().toISOString();
      const made = await apply(record, at);
      const next: StoredRecord = {
        ...made.record,
        state: action === 'publish' ? made.record.state : to,
        updatedAt: at,
        revision: record.revision + 1,
      };
      try {
        await this.store.write({
          record: next,
          expectedRevision: record.revision,
          ...(made.version ? { version: made.version } : {}),
          ...(made.entry ? { entry: made.entry } : {}),
        });
      } catch (e) {
        if (e instanceof RecordConflictError && e.reason === 'stale' && attempt < RETRIES) continue;
        if (e instanceof RecordConflictError)
          throw new RegistryError(
            'ABORTED',
            `Record ${id.slice(0, 64)} changed meanwhile; read it and try again`,
          );
        throw e;
      }
      if (made.entry) this.onEntry(made.entry);
      return next;
    }
  }
}

const pastOf: Record<RecordAction, string> = {
  publish: 'given a new version',
  submit: 'submitted',
  approve: 'approved',
  reject: 'rejected',
  deprecate: 'deprecated',
};
