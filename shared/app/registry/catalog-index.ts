/**
 * The registry's catalog in memory (docs/registry.md#search): every live entry, a full-text index over
 * its card (MiniSearch, BM25+), and the four reads ARD gives a registry — ranked search (§5.3.2),
 * facets (explore, §5.3.3), deterministic browse (list, §5.3.5) and the catalog entry JSON itself.
 * The registry's function keeps one warm per container, fed upserts and removals from the change feed;
 * nothing here does I/O.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import { ValidationError } from '../../domain/errors.ts';
import {
  A2A_CARD_MEDIA_TYPE,
  type CatalogFilter,
  DEFAULT_ORDER_BY,
  FILTER_KEYS,
  type FilterKey,
  filterKeyOf,
  matchesFilter,
  type OrderBy,
  publisherOf,
  valuesOf,
} from '../../domain/registry/filter.ts';
import type { CatalogEntry, RegistryCard } from '../../domain/registry/record.ts';
import type { VisibleTo } from '../../domain/registry/visibility.ts';
import type { CatalogHolder } from './catalog.ts';

export interface SearchRequest {
  text: string;
  filter?: CatalogFilter;
  /** Entries whose health is `unreachable` are left out unless this is set. */
  includeUnhealthy?: boolean;
  visibleTo: VisibleTo;
  /** As {@link BrowseRequest.visibilityKey}: the ranking is then kept for the next page and the next caller alike. */
  visibilityKey?: string;
  pageSize?: number;
  pageToken?: string;
}
export interface SearchHit {
  entry: CatalogEntry;
  /** Relevance 0–100 (ARD §5.3.2): see {@link RELEVANCE}. Not a trust judgment. */
  score: number;
}
export interface SearchPage {
  results: SearchHit[];
  pageToken?: string;
}

export interface FacetRequest {
  /** A filter key (same paths as `query.filter`). */
  field: string;
  /** Buckets returned at most; 20 when absent (ARD §5.3.3). */
  limit?: number;
  /** Buckets with fewer entries are left out; 1 when absent. */
  minCount?: number;
}
export interface ExploreRequest {
  text?: string;
  filter?: CatalogFilter;
  facets: readonly FacetRequest[];
  includeUnhealthy?: boolean;
  visibleTo: VisibleTo;
  /** As {@link BrowseRequest.visibilityKey}. */
  visibilityKey?: string;
}
export interface FacetResult {
  buckets: { value: string; count: number }[];
  /** Matching entries that hold a value only in the buckets cut off by `limit`; absent when none were cut. */
  otherCount?: number;
}
export interface ExploreResponse {
  resultType: 'facets';
  facets: Record<string, FacetResult>;
}

export interface BrowseRequest {
  filter?: CatalogFilter;
  orderBy?: OrderBy;
  includeUnhealthy?: boolean;
  visibleTo: VisibleTo;
  /**
   * Names what `visibleTo` lets through (callers it admits alike share a key): the entries a browse matches
   * are then kept until the catalog changes, and the next page or the next caller alike slices them.
   */
  visibilityKey?: string;
  pageSize?: number;
  pageToken?: string;
}
export interface BrowsePage {
  items: CatalogEntry[];
  /** Entries matching in all, over every page. */
  total: number;
  pageToken?: string;
}

export const PAGE_SIZE = { search: 10, browse: 20, max: 100 } as const;
/**
 * Browses and searches whose matches are kept at once (distinct queries, filters and callers' visibility);
 * more: start again. Ranking is the one read whose cost grows with the catalog (BM25 scores every entry
 * that matches a term), so a query asked again, or its next page, is sliced from the ranking kept.
 */
const MATCHED_CACHE_SIZE = 256;
export const FACET_LIMITS = { maxFacets: 20, defaultLimit: 20, maxLimit: 1000 } as const;
export const MAX_QUERY_TEXT_CHARS = 1000;

/**
 * How `score` is made from MiniSearch's BM25+ score: `100 × (raw ÷ best raw) × coverage`, rounded, where
 * the best is the top raw score among the entries the caller may see for this query and coverage is the
 * share of the query's distinct terms the entry matched (prefix and fuzzy matches count). The top entry
 * gets 100 only when it matched every term. Entries below `cutoff` are out of the matched set for search
 * and explore alike (ARD §5.3.3: one cutoff governs both).
 */
export const RELEVANCE = { cutoff: 10 } as const;

/**
 * Field weights: a name or a skill's name or tag says what the agent is for; descriptions and examples
 * say more, in more words; the provider's name helps "Acme's …" queries a little.
 */
const FIELD_BOOST = {
  name: 3,
  skillNames: 2.5,
  skillTags: 2.5,
  description: 1.5,
  skillDescriptions: 1,
  skillExamples: 1,
  organization: 1,
} as const;
type SearchField = keyof typeof FIELD_BOOST;
const FIELDS = Object.keys(FIELD_BOOST) as SearchField[];

/** The text of an entry the full-text index reads, one string per field. */
type IndexedDocument = { id: string } & Record<SearchField, string>;

const documentOf = (entry: CatalogEntry): IndexedDocument => {
  const { card } = entry;
  return {
    id: entry.id,
    name: card.name,
    description: card.description,
    skillNames: card.skills.map((s) => s.name).join('\n'),
    skillTags: card.skills.flatMap((s) => s.tags).join('\n'),
    skillDescriptions: card.skills.map((s) => s.description).join('\n'),
    skillExamples: card.skills.flatMap((s) => s.examples ?? []).join('\n'),
    organization: card.provider?.organization ?? '',
  };
};

/**
 * Words that say nothing about which agent is meant: English function words, and the words every
 * query to an agent registry carries ("agent", "help me", "I need").
 */
const STOP_WORDS = new Set(
  (
    'a about above after again all also am an and any are as at be been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers him ' +
    'his how i if in into is it its itself just me more most my myself no nor not of off on once only or other ' +
    'our ours out over own same she should so some such than that the their theirs them then there these they ' +
    'this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself ' +
    'agent agents assistant bot help helps helping need needs want wants please something someone anything ' +
    'thing things tool way get using use lets let like looking find able'
  ).split(' '),
);

/**
 * One word as the index keeps it: lower case, a stop word dropped, and the plural ending taken off
 * (Harman's S-stemmer, 1991: `-ies`→`-y`, `-es`→`-e`, `-s` dropped, except after `u`/`s` and the like),
 * so "flights" finds "flight" and "invoices" finds "invoice". Applied to documents and queries alike.
 */
export function normalizeTerm(term: string): string | null {
  const word = term.toLowerCase();
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  if (word.length > 4 && word.endsWith('ies') && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('es') && !/[aeo]es$/.test(word)) return word.slice(0, -1);
  if (word.length > 3 && word.endsWith('s') && !/[us]s$/.test(word)) return word.slice(0, -1);
  return word;
}

const searchOptions = {
  boost: FIELD_BOOST,
  combineWith: 'OR' as const,
  // Short words are left exact: "ai" or "hr" as a prefix would match half the catalog.
  prefix: (term: string) => term.length >= 4,
  fuzzy: (term: string) => (term.length >= 5 ? 1 : false),
  weights: { prefix: 0.5, fuzzy: 0.35 },
};

/** Thrown for a page token that is not one this index handed out for the same query (HTTP 400). */
export class InvalidPageTokenError extends ValidationError {
  constructor(reason: string) {
    super(`pageToken: ${reason}`, 'pageToken');
  }
}

export class CatalogIndex implements CatalogHolder {
  readonly #entries = new Map<string, CatalogEntry>();
  /** Every entry in a browse order, by order: kept until the next change (a browse then slices, not sorts). */
  readonly #sorted = new Map<string, CatalogEntry[]>();
  /** The entries a browse matched, by order, filter and visibility: kept until the next change (bounded). */
  readonly #matched = new Map<string, CatalogEntry[]>();
  /** The entries a search ranked, by text, filter and visibility: kept until the next change (bounded). */
  readonly #ranked = new Map<string, RankedHit[]>();
  readonly #text = new MiniSearch<IndexedDocument>({
    fields: FIELDS,
    storeFields: [],
    processTerm: normalizeTerm,
    searchOptions,
  });

  get size(): number {
    return this.#entries.size;
  }

  get(id: string): CatalogEntry | undefined {
    return this.#entries.get(id);
  }

  /** Every entry held (the live agents), in no order. */
  entries(): IterableIterator<CatalogEntry> {
    return this.#entries.values();
  }

  /** Adds or replaces the entry; a DEPRECATED one leaves the index (it is never returned). */
  upsert(entry: CatalogEntry): void {
    this.remove(entry.id);
    if (entry.state === 'DEPRECATED') return;
    this.#entries.set(entry.id, entry);
    this.#forget();
    this.#text.add(documentOf(entry));
  }

  remove(id: string): void {
    const old = this.#entries.get(id);
    if (old === undefined) return;
    // `remove` with the document as indexed takes its terms out at once (no vacuum to wait for).
    this.#text.remove(documentOf(old));
    this.#entries.delete(id);
    this.#forget();
  }

  /** Drops what was kept from the reads: the catalog changed. */
  #forget(): void {
    this.#sorted.clear();
    this.#matched.clear();
    this.#ranked.clear();
  }

  /** Ranked full-text search (ARD §5.3.2), filters exact, paged by score then name then id. */
  search(request: SearchRequest): SearchPage {
    const pageSize = checkPageSize(request.pageSize, PAGE_SIZE.search);
    const text = checkText(request.text, true);
    const filter = request.filter ?? {};
    const fingerprint = fingerprintOf(['search', text, filter, request.includeUnhealthy === true]);
    const ranked = this.#rankedFor(text, filter, request);
    let start = 0;
    if (request.pageToken !== undefined) {
      const after = readToken(request.pageToken, fingerprint, isSearchKey);
      start = ranked.findIndex((hit) => compareHits(hit, after) > 0);
      if (start === -1) start = ranked.length;
    }
    const page = ranked.slice(start, start + pageSize);
    const last = page.at(-1);
    return {
      results: page.map(({ entry, score }) => ({ entry, score })),
      ...(last && start + pageSize < ranked.length
        ? { pageToken: writeToken(fingerprint, [last.score, last.raw, last.entry.card.name, last.entry.id]) }
        : {}),
    };
  }

  /** Facet counts over the matched set (ARD §5.3.3): each entry counted once per value it holds. */
  explore(request: ExploreRequest): ExploreResponse {
    const facets = checkFacets(request.facets);
    const filter = request.filter ?? {};
    const admits = (entry: CatalogEntry) => this.#admits(entry, filter, request);
    const text = checkText(request.text ?? '', false);
    const matched =
      text === ''
        ? [...this.#entries.values()].filter(admits)
        : this.#rankedFor(text, filter, request).map((hit) => hit.entry);
    const result: Record<string, FacetResult> = {};
    for (const facet of facets) result[facet.name] = countFacet(matched, facet);
    return { resultType: 'facets', facets: result };
  }

  /** Deterministic listing (ARD §5.3.5): filters exact, ordered by `orderBy` then id, keyset-paged. */
  browse(request: BrowseRequest): BrowsePage {
    const pageSize = checkPageSize(request.pageSize, PAGE_SIZE.browse);
    const filter = request.filter ?? {};
    const orderBy = request.orderBy ?? DEFAULT_ORDER_BY;
    const fingerprint = fingerprintOf(['browse', filter, orderBy, request.includeUnhealthy === true]);
    const compare = browseOrder(orderBy);
    const order = JSON.stringify(orderBy);
    let all = this.#sorted.get(order);
    if (!all) {
      all = [...this.#entries.values()].sort(compare);
      this.#sorted.set(order, all);
    }
    const cacheKey =
      request.visibilityKey === undefined
        ? undefined
        : `${canonicalOf([filter, orderBy, request.includeUnhealthy === true])}\n${request.visibilityKey}`;
    const matched = kept(this.#matched, cacheKey, () => all.filter((e) => this.#admits(e, filter, request)));
    let start = 0;
    if (request.pageToken !== undefined) {
      const key = readToken(request.pageToken, fingerprint, isBrowseKey);
      const probe = { card: { name: key[0] }, updatedAt: key[1], id: key[2] } as CatalogEntry;
      start = matched.findIndex((entry) => compare(entry, probe) > 0);
      if (start === -1) start = matched.length;
    }
    const items = matched.slice(start, start + pageSize);
    const last = items.at(-1);
    return {
      items,
      total: matched.length,
      ...(last && start + pageSize < matched.length
        ? { pageToken: writeToken(fingerprint, [last.card.name, last.updatedAt, last.id]) }
        : {}),
    };
  }

  #admits(
    entry: CatalogEntry,
    filter: CatalogFilter,
    request: { includeUnhealthy?: boolean; visibleTo: VisibleTo },
  ): boolean {
    if (entry.health === 'unreachable' && request.includeUnhealthy !== true) return false;
    return matchesFilter(entry, filter) && request.visibleTo(entry);
  }

  /** {@link #rank} for this query and caller, kept for the caller's visibility key when there is one. */
  #rankedFor(
    text: string,
    filter: CatalogFilter,
    request: { includeUnhealthy?: boolean; visibleTo: VisibleTo; visibilityKey?: string },
  ): RankedHit[] {
    const cacheKey =
      request.visibilityKey === undefined
        ? undefined
        : `${canonicalOf([text, filter, request.includeUnhealthy === true])}\n${request.visibilityKey}`;
    return kept(this.#ranked, cacheKey, () =>
      this.#rank(text, (entry) => this.#admits(entry, filter, request)),
    );
  }

  /** Every admitted entry at or above the relevance cutoff, best first, scored as {@link RELEVANCE} says. */
  #rank(text: string, admits: (entry: CatalogEntry) => boolean): RankedHit[] {
    const queryTerms = terms(text);
    if (queryTerms.length === 0) return [];
    const raw = this.#text.search(text, {
      filter: (result: SearchResult) => {
        const entry = this.#entries.get(result.id as string);
        return entry !== undefined && admits(entry);
      },
    });
    const best = raw[0]?.score ?? 0;
    const hits: RankedHit[] = [];
    for (const result of raw) {
      const entry = this.#entries.get(result.id as string)!;
      const coverage = new Set(result.queryTerms).size / queryTerms.length;
      const score = Math.min(100, Math.round((100 * result.score * coverage) / best));
      if (score >= RELEVANCE.cutoff) hits.push({ entry, score, raw: result.score });
    }
    return hits.sort(compareHits);
  }
}

interface RankedHit extends SearchHit {
  raw: number;
}

/** The value kept under `key` in `cache`, made and kept when absent; made afresh when there is no key. */
function kept<T>(cache: Map<string, T>, key: string | undefined, make: () => T): T {
  if (key === undefined) return make();
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= MATCHED_CACHE_SIZE) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

const tokenize: (text: string) => string[] = MiniSearch.getDefault('tokenize');

/** The query's distinct terms as the index sees them. */
function terms(text: string): string[] {
  return [
    ...new Set(
      tokenize(text)
        .map(normalizeTerm)
        .filter((t): t is string => !!t),
    ),
  ];
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Names in a person's order (case and accents aside), then by code unit so equal-looking names still order. */
const compareNames = (a: string, b: string): number => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

type SearchKey = [score: number, raw: number, name: string, id: string];

/**
 * Score high to low, then the raw BM25+ score (entries the rounding made equal), then name, then id: a
 * total order, so pages neither repeat nor skip.
 */
function compareHits(a: RankedHit, b: RankedHit | SearchKey): number {
  const [score, raw, name, id] = Array.isArray(b) ? b : [b.score, b.raw, b.entry.card.name, b.entry.id];
  return (
    score - a.score || raw - a.raw || compareNames(a.entry.card.name, name) || compareIds(a.entry.id, id)
  );
}

type BrowseKey = [name: string, updatedAt: string, id: string];

function browseOrder(orderBy: OrderBy): (a: CatalogEntry, b: CatalogEntry) => number {
  return (a, b) => {
    for (const { field, direction } of orderBy) {
      const order =
        field === 'displayName'
          ? compareNames(a.card.name, b.card.name)
          : Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || compareIds(a.updatedAt, b.updatedAt);
      if (order !== 0) return direction === 'ASC' ? order : -order;
    }
    return compareIds(a.id, b.id);
  };
}

function countFacet(entries: readonly CatalogEntry[], facet: CheckedFacet): FacetResult {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    for (const value of new Set(valuesOf(entry, facet.key))) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  const buckets = [...counts]
    .filter(([, count]) => count >= facet.minCount)
    .sort(([va, ca], [vb, cb]) => cb - ca || compareIds(va, vb))
    .map(([value, count]) => ({ value, count }));
  if (buckets.length <= facet.limit) return { buckets };
  const shown = new Set(buckets.slice(0, facet.limit).map((b) => b.value));
  const cut = new Set(buckets.slice(facet.limit).map((b) => b.value));
  const otherCount = entries.filter((entry) => {
    const values = valuesOf(entry, facet.key);
    return values.some((v) => cut.has(v)) && !values.some((v) => shown.has(v));
  }).length;
  return { buckets: buckets.slice(0, facet.limit), otherCount };
}

// ─── Checks on the request ──────────────────────────────────────────────────────────────────────────

function checkPageSize(pageSize: number | undefined, fallback: number): number {
  if (pageSize === undefined) return fallback;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > PAGE_SIZE.max) {
    throw new ValidationError(`pageSize: must be a whole number from 1 to ${PAGE_SIZE.max}`, 'pageSize');
  }
  return pageSize;
}

function checkText(text: string, required: boolean): string {
  const trimmed = text.trim();
  if (required && trimmed === '')
    throw new ValidationError('query.text: is required for search', 'query.text');
  if (trimmed.length > MAX_QUERY_TEXT_CHARS) {
    throw new ValidationError(
      `query.text: at most ${MAX_QUERY_TEXT_CHARS} characters are allowed`,
      'query.text',
    );
  }
  return trimmed;
}

interface CheckedFacet {
  name: string;
  key: FilterKey;
  limit: number;
  minCount: number;
}

function checkFacets(facets: readonly FacetRequest[]): CheckedFacet[] {
  if (facets.length === 0 || facets.length > FACET_LIMITS.maxFacets) {
    throw new ValidationError(
      `resultType.facets: must list from 1 to ${FACET_LIMITS.maxFacets} facets`,
      'resultType.facets',
    );
  }
  return facets.map((facet, i) => {
    const at = `resultType.facets[${i}]`;
    const key = filterKeyOf(facet.field);
    if (key === undefined) {
      throw new ValidationError(
        `${at}.field: ${JSON.stringify(facet.field)} is not a field to aggregate (supported: ${FILTER_KEYS.join(', ')})`,
        `${at}.field`,
      );
    }
    const limit = facet.limit ?? FACET_LIMITS.defaultLimit;
    if (!Number.isInteger(limit) || limit < 1 || limit > FACET_LIMITS.maxLimit) {
      throw new ValidationError(
        `${at}.limit: must be a whole number from 1 to ${FACET_LIMITS.maxLimit}`,
        `${at}.limit`,
      );
    }
    const minCount = facet.minCount ?? 1;
    if (!Number.isInteger(minCount) || minCount < 1) {
      throw new ValidationError(`${at}.minCount: must be a whole number of at least 1`, `${at}.minCount`);
    }
    return { name: facet.field, key, limit, minCount };
  });
}

// ─── Page tokens ────────────────────────────────────────────────────────────────────────────────────

/**
 * A page token is base64url of `{"v":1,"q":<fingerprint>,"k":<key>}`: the sort key of the last entry
 * handed out (keyset paging, so an entry added or removed between pages shifts nothing) and a hash of the
 * query it belongs to, so a token is refused with another query rather than silently misapplied.
 */
const TOKEN_VERSION = 1;
const MAX_TOKEN_CHARS = 2048;

function writeToken(fingerprint: string, key: SearchKey | BrowseKey): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, q: fingerprint, k: key })).toString('base64url');
}

function readToken<K>(token: string, fingerprint: string, isKey: (key: unknown) => key is K): K {
  if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new InvalidPageTokenError('is not a page token this registry issued');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidPageTokenError('is not a page token this registry issued');
  }
  const body = parsed as { v?: unknown; q?: unknown; k?: unknown } | null;
  if (typeof body !== 'object' || body === null || body.v !== TOKEN_VERSION || !isKey(body.k)) {
    throw new InvalidPageTokenError('is not a page token this registry issued');
  }
  if (body.q !== fingerprint) {
    throw new InvalidPageTokenError(
      'belongs to another query; send the same query, filter and order with it',
    );
  }
  return body.k;
}

const isSearchKey = (key: unknown): key is SearchKey =>
  Array.isArray(key) &&
  key.length === 4 &&
  Number.isInteger(key[0]) &&
  Number.isFinite(key[1]) &&
  typeof key[2] === 'string' &&
  typeof key[3] === 'string';

const isBrowseKey = (key: unknown): key is BrowseKey =>
  Array.isArray(key) && key.length === 3 && key.every((part) => typeof part === 'string');

/** The query as JSON with its objects' keys sorted: one text for one query (a cache key). */
function canonicalOf(parts: unknown[]): string {
  return JSON.stringify(parts, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareIds(a, b)))
      : value,
  );
}

/** FNV-1a (32-bit) of the query's canonical JSON: enough to tell one query's token from another's. */
function fingerprintOf(parts: unknown[]): string {
  const canonical = canonicalOf(parts);
  let hash = 0x811c9dc5;
  for (let i = 0; i < canonical.length; i++) {
    hash ^= canonical.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

// ─── The catalog entry JSON ─────────────────────────────────────────────────────────────────────────

/** ARD / AI-Catalog `catalogEntry` (spec/schemas/ai-catalog.schema.json), the card inline as `data`. */
export interface CatalogEntryJson {
  identifier: string;
  displayName: string;
  type: typeof A2A_CARD_MEDIA_TYPE;
  data: RegistryCard;
  description: string;
  tags: string[];
  capabilities: string[];
  version: string;
  updatedAt: string;
  metadata: Record<string, string | number | boolean | null>;
}

/** An ARD search result (§5.3.2): the catalog entry with its relevance and the registry that holds it. */
export interface SearchResultJson extends CatalogEntryJson {
  score: number;
  source: string;
}

/**
 * The entry as ARD and the ai-catalog show it. `source` is this registry's base URL (ARD's `source`
 * of a search result), also kept in `metadata.source` so a catalog entry read alone says where it is from.
 * `metadata` holds flat scalars only, as the schema requires.
 */
export function toCatalogEntryJson(entry: CatalogEntry, source: string): CatalogEntryJson {
  const { card } = entry;
  const metadata: CatalogEntryJson['metadata'] = {
    verified: entry.verification.status === 'verified',
    signature: entry.verification.status,
    health: entry.health,
    visibility: entry.visibility,
    publisher: publisherOf(entry.identifier),
    recordId: entry.id,
    recordVersion: entry.version,
    source,
  };
  if (card.provider) metadata.provider = card.provider.organization;
  if (entry.cardUrl) metadata.cardUrl = entry.cardUrl;
  if (entry.verification.status === 'verified') metadata.signingKeyId = entry.verification.kid;
  return {
    identifier: entry.identifier,
    displayName: card.name,
    type: A2A_CARD_MEDIA_TYPE,
    data: card,
    description: card.description,
    tags: [...new Set(card.skills.flatMap((s) => s.tags))],
    capabilities: card.skills.map((s) => s.id),
    version: card.version,
    updatedAt: entry.updatedAt,
    metadata,
  };
}

export function toSearchResultJson(hit: SearchHit, source: string): SearchResultJson {
  return { ...toCatalogEntryJson(hit.entry, source), score: hit.score, source };
}
