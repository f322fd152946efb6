/**
 * Bounds on one Synapse message (docs/synapse-protocol.md#bounds).
 *
 * A message passes a cheap iterative pre-pass (findBoundsViolation) before any schema sees it:
 * - at most MAX_MESSAGE_BYTES (1 MiB) of UTF-8 when it arrives as text;
 * - values nested at most MAX_DEPTH (32) levels below the envelope (the schemas, the domain and
 *   JSON.stringify recurse; hostile nesting must never reach them);
 * - arrays of at most MAX_ARRAY_ITEMS (1,000) items and objects of at most MAX_OBJECT_KEYS (1,000)
 *   keys, free-form values included;
 * - finite numbers only (JSON.parse reads `1e400` as Infinity, which JSON cannot carry back).
 * The schemas then bound every string and every list they declare (the MAX_*_LENGTH and
 * MAX_LIST_ITEMS below). Errors stay small whatever the input: at most MAX_VIOLATIONS field
 * violations are reported, and a field path or description is clipped.
 */

export const MAX_MESSAGE_BYTES = 1_048_576;
export const MAX_DEPTH = 32;
export const MAX_ARRAY_ITEMS = 1_000;
export const MAX_OBJECT_KEYS = 1_000;

/** Message ids (they are part of the signing string: a restricted alphabet, see MESSAGE_ID_PATTERN). */
export const MAX_MESSAGE_ID_LENGTH = 128;
/** Task, agent, session, decision, user ids. */
export const MAX_ID_LENGTH = 256;
/** Error and reason codes, task types, output types, priorities, roles. */
export const MAX_CODE_LENGTH = 128;
/** Short human-readable strings: names, field names. */
export const MAX_NAME_LENGTH = 256;
/** Messages, questions, summaries, notes. */
export const MAX_TEXT_LENGTH = 8_192;
export const MAX_URL_LENGTH = 2_048;
/** Timestamps are RFC 3339; this is far more than any of them needs. */
export const MAX_TIMESTAMP_LENGTH = 64;
/** Declared lists (missing_fields, options, capabilities_used, task types, …). */
export const MAX_LIST_ITEMS = 100;

export const MAX_VIOLATIONS = 10;
export const MAX_FIELD_PATH_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 512;
const MAX_KEY_LENGTH = 64;

/** `s`, or its first `max - 1` characters and an ellipsis. */
export const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** `payload.missing_fields[0].field` from path segments, each key clipped, the whole clipped too. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = clip(String(seg), MAX_KEY_LENGTH);
      out += out === '' ? key : `.${key}`;
    }
    if (out.length > MAX_FIELD_PATH_LENGTH) break;
  }
  return out === '' ? '(message)' : clip(out, MAX_FIELD_PATH_LENGTH);
}

export interface BoundsViolation {
  path: PropertyKey[];
  description: string;
}

interface Node {
  value: unknown;
  key: PropertyKey | undefined;
  parent: Node | undefined;
  depth: number;
}

const pathOf = (node: Node): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
};

/**
 * The first place where `value` exceeds the bounds above, or undefined. Iterative (no recursion,
 * whatever the nesting), one look at each value, stops at the first violation.
 */
export function findBoundsViolation(value: unknown): BoundsViolation | undefined {
  const stack: Node[] = [{ value, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value: v, depth } = node;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        return { path: pathOf(node), description: 'must be a finite number' };
      }
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const isArray = Array.isArray(v);
    const keys = isArray ? undefined : Object.keys(v);
    const size = isArray ? v.length : (keys as string[]).length;
    if (size === 0) continue;
    if (isArray && size > MAX_ARRAY_ITEMS) {
      return {
        path: pathOf(node),
        description: `has ${size} items; at most ${MAX_ARRAY_ITEMS} are accepted`,
      };
    }
    if (!isArray && size > MAX_OBJECT_KEYS) {
      return { path: pathOf(node), description: `has ${size} keys; at most ${MAX_OBJECT_KEYS} are accepted` };
    }
    if (depth >= MAX_DEPTH) {
      return { path: pathOf(node), description: `nests values deeper than ${MAX_DEPTH} levels` };
    }
    if (isArray) {
      for (let i = size - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node, depth: depth + 1 });
    } else {
      const record = v as Record<string, unknown>;
      for (let i = size - 1; i >= 0; i--) {
        const key = (keys as string[])[i] as string;
        stack.push({ value: record[key], key, parent: node, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
