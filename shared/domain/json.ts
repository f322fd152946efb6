/**
 * Free-form JSON a task carries (data parts, metadata, event data): checked
 * once, then kept exactly as given. The store writes it as JSON text, so any
 * JSON value survives (numbers beyond DynamoDB's range or precision, empty
 * keys, `__proto__` keys, nesting deeper than DynamoDB's 32 levels); what JSON
 * cannot carry is refused here, naming the place.
 */
import { clip } from '../validation/text.ts';

/** Deeper than any real payload; bounds the work and the stack of whoever walks a value later. */
export const MAX_JSON_DEPTH = 64;

/** Where `value` is not plain JSON (a path like `a.b[2]`), with why; undefined when it is. */
export const jsonViolation = (value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined => {
  // iterative: a hostile value must not be able to overflow the stack
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    const at = !path ? 'the value' : clip(path, 120);
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${at}: a number must be finite`;
      continue;
    }
    if (typeof v !== 'object') return `${at}: ${typeof v} is not JSON`;
    if (depth >= maxDepth) return `${at}: nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return `${at}: not a plain JSON object`;
    for (const key of Object.keys(v).reverse()) {
      stack.push({
        v: (v as Record<string, unknown>)[key],
        path: path ? `${path}.${key}` : key,
        depth: depth + 1,
      });
    }
  }
  return undefined;
};

/** True for a plain JSON object (not an array, not null). */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(value));

/**
 * The JSON text of a value with every object's keys sorted by UTF-16 code units and undefined members left
 * out, as JSON.stringify leaves them: equal values give equal text whatever their key order. For a value
 * JSON.parse returned (I-JSON) this is the JSON Canonicalization Scheme's output (RFC 8785 §3.2). Used to
 * hash (ETags, message identity, card digests); it never throws on a lone surrogate, unlike a JCS library.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};
