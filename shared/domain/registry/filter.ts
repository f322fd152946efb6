/**
 * The registry's structured filters (docs/registry.md#search): ARD's `query.filter` object, the browse
 * filter expression of `GET /registry/agents?filter=` that parses to the same object, and the browse
 * `orderBy`. Keys are dot paths into the A2A card (a2a.proto `AgentCard`) or catalog-level terms; values
 * are OR'd within a key and AND'd across keys, and a key whose path reaches an array matches when any
 * element does (ARD §5.3.1). Matching is exact and case-sensitive, except the boolean keys, which take
 * `true`/`false` in any case. Pure: the catalog index (shared/app/registry/catalog-index.ts) runs it.
 */
import { clip } from '../../validation/text.ts';
import { type CatalogEntry, type HealthStatus, VISIBILITIES } from './record.ts';

/** Every health status, checked complete by the compiler (record.ts declares the type alone). */
const HEALTH: Record<HealthStatus, true> = {
  unknown: true,
  healthy: true,
  degraded: true,
  unreachable: true,
};
const HEALTH_STATUSES = Object.keys(HEALTH) as HealthStatus[];

/** The only artifact type this registry lists (ARD §3.3). */
export const A2A_CARD_MEDIA_TYPE = 'application/a2a-agent-card+json';

type Extract = (entry: CatalogEntry) => readonly string[];

const flag = (value: boolean | undefined): string[] => [value === true ? 'true' : 'false'];
const skills = (entry: CatalogEntry) => entry.card.skills;
const distinct = (values: Iterable<string>): string[] => [...new Set(values)];

/** ARD identifiers are `urn:air:<publisher>:<namespace>:<agent-name>`; `publisher` is its domain (§5.3.1). */
export const publisherOf = (identifier: string): string => identifier.split(':')[2] ?? '';

/**
 * Each supported key and the values an entry holds under it. A skill without its own modes has the
 * card's defaults (A2A §4.4.5: a skill's modes override the card's), so `skills.inputModes` sees them.
 */
const EXTRACTORS = {
  type: () => [A2A_CARD_MEDIA_TYPE],
  publisher: (e) => [publisherOf(e.identifier)],
  verified: (e) => flag(e.verification.status === 'verified'),
  health: (e) => [e.health],
  visibility: (e) => [e.visibility],
  /** The catalog entry's own `tags` and `capabilities` (toCatalogEntryJson): skills' tags and ids. */
  tags: (e) => distinct(skills(e).flatMap((s) => s.tags)),
  capabilities: (e) => skills(e).map((s) => s.id),
  'skills.tags': (e) => distinct(skills(e).flatMap((s) => s.tags)),
  'skills.id': (e) => skills(e).map((s) => s.id),
  'skills.name': (e) => skills(e).map((s) => s.name),
  'skills.inputModes': (e) => distinct(skills(e).flatMap((s) => s.inputModes ?? e.card.defaultInputModes)),
  'skills.outputModes': (e) => distinct(skills(e).flatMap((s) => s.outputModes ?? e.card.defaultOutputModes)),
  'provider.organization': (e) => (e.card.provider ? [e.card.provider.organization] : []),
  'capabilities.streaming': (e) => flag(e.card.capabilities.streaming),
  'capabilities.pushNotifications': (e) => flag(e.card.capabilities.pushNotifications),
  'capabilities.extensions.uri': (e) => (e.card.capabilities.extensions ?? []).map((x) => x.uri),
  'supportedInterfaces.protocolBinding': (e) =>
    distinct(e.card.supportedInterfaces.map((i) => i.protocolBinding)),
  'supportedInterfaces.protocolVersion': (e) =>
    distinct(e.card.supportedInterfaces.map((i) => i.protocolVersion)),
  defaultInputModes: (e) => e.card.defaultInputModes,
  defaultOutputModes: (e) => e.card.defaultOutputModes,
} satisfies Record<string, Extract>;

export type FilterKey = keyof typeof EXTRACTORS;
export const FILTER_KEYS = Object.keys(EXTRACTORS) as FilterKey[];

/** Keys whose values are `true`/`false`; what is asked is lower-cased before it is matched. */
const BOOLEAN_KEYS: ReadonlySet<FilterKey> = new Set([
  'verified',
  'capabilities.streaming',
  'capabilities.pushNotifications',
]);

/** Keys with a closed set of values: another value is an error rather than a filter that matches nothing. */
const ENUMERATED: Partial<Record<FilterKey, readonly string[]>> = {
  health: HEALTH_STATUSES,
  visibility: VISIBILITIES,
};

/** The keys of the card, which ARD also lets a client reach through the entry's inline `data` (§5.3.1). */
const CARD_PREFIX = 'data.';
const CATALOG_KEYS: ReadonlySet<FilterKey> = new Set([
  'type',
  'publisher',
  'verified',
  'health',
  'visibility',
  'tags',
  'capabilities',
]);

export const FILTER_LIMITS = { maxKeys: 20, maxValuesPerKey: 50, maxValueChars: 256 } as const;

/** A parsed filter: each key's accepted values, booleans lower-cased. An empty filter matches every entry. */
export type CatalogFilter = Partial<Record<FilterKey, readonly string[]>>;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };
export type FilterParseResult = { ok: true; filter: CatalogFilter } | { ok: false; errors: string[] };

const isFilterKey = (key: string): key is FilterKey => Object.hasOwn(EXTRACTORS, key);

/** `skills.tags`, or `data.skills.tags` (a card path through the entry's inline card), to the key. */
export function filterKeyOf(raw: string): FilterKey | undefined {
  if (isFilterKey(raw)) return raw;
  if (raw.startsWith(CARD_PREFIX)) {
    const inner = raw.slice(CARD_PREFIX.length);
    if (isFilterKey(inner) && !CATALOG_KEYS.has(inner)) return inner;
  }
  return undefined;
}

/** What a key's values are on an entry (the facets of explore count these). */
export const valuesOf = (entry: CatalogEntry, key: FilterKey): readonly string[] => EXTRACTORS[key](entry);

const shown = (s: string): string => JSON.stringify(clip(s, 60));

/**
 * ARD's `query.filter` (§5.3.1): an object whose keys are supported paths and whose values are a string
 * or an array of strings. Absent (`undefined`/`null`) is the empty filter. Every unknown key and every
 * bad value is named in the errors, not just the first.
 */
export function parseFilter(raw: unknown): FilterParseResult {
  if (raw === undefined || raw === null) return { ok: true, filter: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, errors: ['filter: must be an object whose keys are field paths'] };
  }
  const errors: string[] = [];
  const filter: Record<string, readonly string[]> = {};
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > FILTER_LIMITS.maxKeys) {
    errors.push(`filter: has ${entries.length} keys; at most ${FILTER_LIMITS.maxKeys} are allowed`);
  }
  for (const [rawKey, rawValue] of entries) {
    const key = filterKeyOf(rawKey);
    const at = `filter[${shown(rawKey)}]`;
    if (key === undefined) {
      errors.push(`${at}: unknown filter key (supported: ${FILTER_KEYS.join(', ')})`);
      continue;
    }
    if (filter[key] !== undefined) {
      errors.push(`${at}: the key ${key} is given twice`);
      continue;
    }
    const values = checkValues(key, rawValue, at, errors);
    if (values !== undefined) filter[key] = values;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, filter: filter as CatalogFilter };
}

function checkValues(key: FilterKey, raw: unknown, at: string, errors: string[]): string[] | undefined {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list)) {
    errors.push(`${at}: must be a string or an array of strings`);
    return undefined;
  }
  if (list.length === 0) {
    errors.push(`${at}: must name at least one value`);
    return undefined;
  }
  if (list.length > FILTER_LIMITS.maxValuesPerKey) {
    errors.push(`${at}: has ${list.length} values; at most ${FILTER_LIMITS.maxValuesPerKey} are allowed`);
    return undefined;
  }
  const before = errors.length;
  const values: string[] = [];
  list.forEach((value: unknown, i) => {
    const where = typeof raw === 'string' ? at : `${at}[${i}]`;
    if (typeof value !== 'string') {
      errors.push(`${where}: must be a string, not ${value === null ? 'null' : typeof value}`);
    } else if (value.length > FILTER_LIMITS.maxValueChars) {
      errors.push(
        `${where}: is ${value.length} characters; at most ${FILTER_LIMITS.maxValueChars} are allowed`,
      );
    } else if (BOOLEAN_KEYS.has(key)) {
      const lower = value.toLowerCase();
      if (lower === 'true' || lower === 'false') values.push(lower);
      else errors.push(`${where}: must be "true" or "false", not ${shown(value)}`);
    } else if (ENUMERATED[key] && !ENUMERATED[key].includes(value)) {
      errors.push(`${where}: must be one of ${ENUMERATED[key].join(', ')}, not ${shown(value)}`);
    } else {
      values.push(value);
    }
  });
  return errors.length > before ? undefined : distinct(values);
}

/** Whether the entry satisfies every key of the filter (values OR'd within a key, keys AND'd). */
export function matchesFilter(entry: CatalogEntry, filter: CatalogFilter): boolean {
  for (const key of Object.keys(filter) as FilterKey[]) {
    const wanted = filter[key];
    if (wanted === undefined) continue;
    const held = EXTRACTORS[key](entry);
    if (!wanted.some((value) => held.includes(value))) return false;
  }
  return true;
}

// ─── The browse filter expression ───────────────────────────────────────────────────────────────────

/**
 * ARD's List filter (§5.3.5, "EBNF-like", Appendix A), the subset this registry takes:
 *
 *   expression = clause { "AND" clause } ;
 *   clause     = key ( "=" value | "IN" "(" value { "," value } ")" ) ;
 *   key        = name { "." name } ;            (a supported filter key, as in `query.filter`)
 *   value      = "'" { character | "''" } "'" ; (a doubled quote is a quote)
 *
 * `AND` and `IN` in any case. A key may appear once (OR its values with `IN`). An empty expression is
 * the empty filter. Errors give the 1-based character position and the token found there.
 */
export function parseFilterExpression(text: string): FilterParseResult {
  const tokens = tokenize(text);
  if (!tokens.ok) return { ok: false, errors: tokens.errors };
  const list = tokens.value;
  if (list.length === 0) return { ok: true, filter: {} };
  const raw: Record<string, string | string[]> = {};
  const keyAt: Record<string, number> = {};
  let i = 0;
  const fail = (expected: string) => {
    const token = list[i];
    const found = token ? `${shown(token.text)}` : 'the end of the expression';
    const position = token ? token.position : text.length + 1;
    return {
      ok: false as const,
      errors: [`filter: at position ${position}: expected ${expected}, found ${found}`],
    };
  };
  const valueAt = (): string | undefined => {
    const token = list[i];
    if (token?.kind !== 'string') return undefined;
    i++;
    return token.value;
  };
  for (;;) {
    const keyToken = list[i];
    if (keyToken?.kind !== 'name') return fail('a field name');
    i++;
    const key = keyToken.text;
    if (Object.hasOwn(raw, key)) {
      return {
        ok: false,
        errors: [
          `filter: at position ${keyToken.position}: ${shown(key)} is already constrained at position ${keyAt[key]}; give its values once with IN (…)`,
        ],
      };
    }
    const operator = list[i];
    const values: string[] = [];
    if (operator?.kind === 'symbol' && operator.text === '=') {
      i++;
      const value = valueAt();
      if (value === undefined) return fail("a quoted value ('…')");
      values.push(value);
    } else if (operator?.kind === 'name' && operator.text.toUpperCase() === 'IN') {
      i++;
      if (!isSymbol(list[i], '(')) return fail("'(' after IN");
      i++;
      for (;;) {
        const value = valueAt();
        if (value === undefined) return fail("a quoted value ('…')");
        values.push(value);
        if (isSymbol(list[i], ',')) {
          i++;
          continue;
        }
        if (isSymbol(list[i], ')')) {
          i++;
          break;
        }
        return fail("',' or ')'");
      }
    } else {
      return fail("'=' or IN");
    }
    // `=` gives a bare value, so an error names it as `filter["key"]` rather than `filter["key"][0]`.
    raw[key] = isSymbol(operator, '=') ? values[0]! : values;
    keyAt[key] = keyToken.position;
    if (i === list.length) break;
    const joiner = list[i];
    if (joiner?.kind !== 'name' || joiner.text.toUpperCase() !== 'AND')
      return fail('AND or the end of the expression');
    i++;
  }
  const parsed = parseFilter(raw);
  if (parsed.ok) return parsed;
  // Name each bad key by where it stands in the expression, not only by the object path.
  return {
    ok: false,
    errors: parsed.errors.map((error) => {
      const key = Object.keys(keyAt).find((k) => error.startsWith(`filter[${shown(k)}]`));
      return key === undefined ? error : `${error} (at position ${keyAt[key]})`;
    }),
  };
}

interface Token {
  kind: 'name' | 'string' | 'symbol';
  /** As written (a string's with its quotes). */
  text: string;
  /** A string's value, quotes removed and doubled quotes undone. */
  value: string;
  /** 1-based character position. */
  position: number;
}

const isSymbol = (token: Token | undefined, symbol: string): boolean =>
  token?.kind === 'symbol' && token.text === symbol;

const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const MAX_EXPRESSION_CHARS = 8192;

function tokenize(text: string): ParseResult<Token[]> {
  if (text.length > MAX_EXPRESSION_CHARS) {
    return {
      ok: false,
      errors: [`filter: is ${text.length} characters; at most ${MAX_EXPRESSION_CHARS} are allowed`],
    };
  }
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const c = text[at]!;
    if (/\s/.test(c)) {
      at++;
      continue;
    }
    const position = at + 1;
    if (c === '=' || c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: 'symbol', text: c, value: c, position });
      at++;
      continue;
    }
    if (c === "'") {
      let value = '';
      let end = at + 1;
      for (;;) {
        const next = text.indexOf("'", end);
        if (next === -1) {
          return { ok: false, errors: [`filter: at position ${position}: the quoted value is not closed`] };
        }
        value += text.slice(end, next);
        if (text[next + 1] === "'") {
          value += "'";
          end = next + 2;
          continue;
        }
        end = next + 1;
        break;
      }
      tokens.push({ kind: 'string', text: text.slice(at, end), value, position });
      at = end;
      continue;
    }
    NAME.lastIndex = at;
    const name = NAME.exec(text);
    if (name) {
      tokens.push({ kind: 'name', text: name[0], value: name[0], position });
      at += name[0].length;
      continue;
    }
    return {
      ok: false,
      errors: [
        `filter: at position ${position}: unexpected character ${shown(c)} (values are quoted with ')`,
      ],
    };
  }
  return { ok: true, value: tokens };
}

// ─── Browse ordering ────────────────────────────────────────────────────────────────────────────────

export type OrderField = 'displayName' | 'updatedAt';
export type OrderBy = readonly { field: OrderField; direction: 'ASC' | 'DESC' }[];
export const ORDER_FIELDS: readonly OrderField[] = ['displayName', 'updatedAt'];
/** Browse's order when none is asked: by name, A to Z. */
export const DEFAULT_ORDER_BY: OrderBy = [{ field: 'displayName', direction: 'ASC' }];

/**
 * ARD's List `orderBy` (§5.3.5): a comma-separated list of `displayName` or `updatedAt`, each with an
 * optional `ASC` (the default) or `DESC` in any case. Absent or blank is {@link DEFAULT_ORDER_BY}. Ties
 * always end on the record id, so the order is total.
 */
export function parseOrderBy(text: string | undefined): ParseResult<OrderBy> {
  if (text === undefined || text.trim() === '') return { ok: true, value: DEFAULT_ORDER_BY };
  const order: { field: OrderField; direction: 'ASC' | 'DESC' }[] = [];
  const errors: string[] = [];
  for (const part of text.split(',')) {
    const words = part.trim().split(/\s+/);
    const [field, direction = 'ASC', ...rest] = words;
    if (!field || !(ORDER_FIELDS as readonly string[]).includes(field)) {
      errors.push(
        `orderBy: ${shown(field ?? '')} is not a field to order by (one of ${ORDER_FIELDS.join(', ')})`,
      );
      continue;
    }
    const upper = direction.toUpperCase();
    if ((upper !== 'ASC' && upper !== 'DESC') || rest.length > 0) {
      errors.push(`orderBy: after ${field} expected ASC or DESC, found ${shown(words.slice(1).join(' '))}`);
      continue;
    }
    if (order.some((o) => o.field === field)) {
      errors.push(`orderBy: ${field} is given twice`);
      continue;
    }
    order.push({ field: field as OrderField, direction: upper });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: order };
}
