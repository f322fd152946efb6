/**
 * Catalog and registry references wherever `--agent-card` takes one (a2a-cli SPEC §8.1, Tier 3): resolved to
 * the agent's card before anything else is done with it.
 *
 * - `catalog:<catalog>#<entry>`: an AI Catalog (`{specVersion, entries}`, Agent-Card/ai-catalog). `<catalog>`
 *   is a catalog URL or file, or a host or origin, whose `/.well-known/ai-catalog.json` is read (the hub's
 *   public catalog, docs/registry.md). `<entry>` names the entry by its `identifier`, the registry's record
 *   id (`metadata.recordId`), or its name (the entry's `displayName`, or its card's `name`).
 * - a URL or file whose document is a catalog entry (the registry's `GET /registry/agents/{recordId}`, an
 *   ARD / AI Catalog `catalogEntry`), or a catalog with `#<entry>` or a single A2A agent.
 *
 * An entry carries its card inline (`data`) or where to fetch it (`url`); its `type` must be an A2A card.
 */
import { existsSync } from 'node:fs';
import { fetchDocument } from './agent.ts';
import { CliError } from './errors.ts';

export const CATALOG_PREFIX = 'catalog:';
export const WELL_KNOWN_CATALOG_PATH = '/.well-known/ai-catalog.json';
/** The AI Catalog's type of an A2A agent card. */
export const A2A_CARD_TYPE = 'application/a2a-agent-card+json';

export interface ResolvedCard {
  /** The card's JSON, as read. */
  card: unknown;
  /** The URL the card was read from: its own, or the catalog's that holds it inline; none for a file. */
  url?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCatalog = (v: unknown): v is Json & { entries: unknown[] } =>
  isObject(v) && typeof v.specVersion === 'string' && Array.isArray(v.entries);
const isEntry = (v: unknown): v is Json =>
  isObject(v) &&
  typeof v.identifier === 'string' &&
  typeof v.type === 'string' &&
  ('data' in v || 'url' in v);

/** The catalog URL of a `catalog:` reference: a bare host or origin gets the well-known path. */
function catalogRefOf(ref: string): string {
  if (/^https?:\/\//i.test(ref)) {
    const url = new URL(ref);
    if (url.pathname === '/' || url.pathname === '') url.pathname = WELL_KNOWN_CATALOG_PATH;
    return url.toString();
  }
  if (!existsSync(ref) && /^[a-z0-9.-]+(:\d+)?$/i.test(ref))
    return `https://${ref}${WELL_KNOWN_CATALOG_PATH}`;
  return ref;
}

/** The card `ref` names: a card, or a catalog or registry entry followed to its card. */
export async function resolveCard(ref: string, fetchImpl: typeof fetch): Promise<ResolvedCard> {
  if (ref.startsWith(CATALOG_PREFIX)) {
    const rest = ref.slice(CATALOG_PREFIX.length);
    const hash = rest.indexOf('#');
    if (hash <= 0 || hash === rest.length - 1)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `--agent-card ${JSON.stringify(ref)} names no catalog or no entry`,
        'catalog:<catalog URL, host or file>#<entry identifier, record id or name>',
      );
    const doc = await fetchDocument(catalogRefOf(rest.slice(0, hash)), fetchImpl);
    if (!isCatalog(doc.json))
      throw new CliError('A2ACLI_ERR_CARD_INVALID', `${rest.slice(0, hash)} is not an AI Catalog`);
    return cardOfEntry(entryOf(doc.json, decodeURIComponent(rest.slice(hash + 1))), doc.url, fetchImpl);
  }
  const doc = await fetchDocument(ref, fetchImpl);
  if (isEntry(doc.json)) return cardOfEntry(doc.json, doc.url, fetchImpl);
  if (isCatalog(doc.json)) {
    const fragment = /^https?:\/\//i.test(ref) ? new URL(ref).hash.slice(1) : '';
    if (fragment) return cardOfEntry(entryOf(doc.json, decodeURIComponent(fragment)), doc.url, fetchImpl);
    const agents = doc.json.entries.filter((e) => isObject(e) && e.type === A2A_CARD_TYPE);
    if (agents.length === 1) return cardOfEntry(agents[0] as Json, doc.url, fetchImpl);
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `${ref} is a catalog of ${agents.length} agents: name one`,
      `catalog:${ref}#<entry>, one of: ${namesOf(agents)}`,
    );
  }
  return { card: doc.json, ...(doc.url ? { url: doc.url } : {}) };
}

const nameOf = (entry: Json): string | undefined =>
  typeof entry.displayName === 'string'
    ? entry.displayName
    : isObject(entry.data) && typeof entry.data.name === 'string'
      ? entry.data.name
      : undefined;

const namesOf = (entries: unknown[]): string =>
  entries
    .filter(isObject)
    .slice(0, 10)
    .map((e) => String(e.identifier))
    .join(', ') || '(none)';

/** The entry `name` names: by identifier, else record id, else name (case-insensitive); one only. */
function entryOf(catalog: { entries: unknown[] }, name: string): Json {
  const entries = catalog.entries.filter(isObject);
  const wanted = name.toLowerCase();
  const matchers: ((e: Json) => boolean)[] = [
    (e) => e.identifier === name,
    (e) => isObject(e.metadata) && e.metadata.recordId === name,
    (e) => nameOf(e)?.toLowerCase() === wanted,
  ];
  for (const matches of matchers) {
    const found = entries.filter(matches);
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `${found.length} catalog entries are named ${JSON.stringify(name)}`,
        `name one by its identifier: ${namesOf(found)}`,
      );
  }
  throw new CliError(
    'A2ACLI_ERR_CARD_NOT_FOUND',
    `the catalog has no entry ${JSON.stringify(name)}`,
    `its entries: ${namesOf(entries)}`,
  );
}

/** An entry's card: inline (read where the entry was), or fetched from its `url`. */
async function cardOfEntry(
  entry: Json,
  entryUrl: string | undefined,
  fetchImpl: typeof fetch,
): Promise<ResolvedCard> {
  if (entry.type !== A2A_CARD_TYPE)
    throw new CliError(
      'A2ACLI_ERR_CARD_INVALID',
      `catalog entry ${String(entry.identifier)} is a ${JSON.stringify(entry.type)}, not an A2A agent card (${A2A_CARD_TYPE})`,
    );
  if (entry.data !== undefined) return { card: entry.data, ...(entryUrl ? { url: entryUrl } : {}) };
  if (typeof entry.url !== 'string')
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `catalog entry ${String(entry.identifier)} has no card`);
  // a relative url is the catalog's; an entry read from a file may only name an absolute one
  const url = entryUrl ? new URL(entry.url, entryUrl).toString() : entry.url;
  const doc = await fetchDocument(url, fetchImpl);
  return { card: doc.json, ...(doc.url ? { url: doc.url } : {}) };
}
