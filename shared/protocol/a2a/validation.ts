/**
 * Validation building blocks shared by the codecs: zod fragments for wire
 * scalars (timestamps, base64, int32, metadata), a wire-object helper that
 * applies ProtoJSON leniency (null = absent, snake_case aliases, unknown
 * fields ignored), and the translation of zod issues into -32602 errors with
 * field violations.
 */
import { byteLength, MAX_ID_LENGTH, MAX_METADATA_BYTES } from '../../domain/task.ts';
import * as z from '../../validation/zod.ts';
import { findBoundsViolation, formatPath, MAX_LIST_ITEMS, MAX_VIOLATIONS, showValue } from './bounds.ts';
import { A2AProtocolError, type FieldViolation } from './errors.ts';

/** `historyLength` and friends are int32 on the wire. */
export const MAX_INT32 = 2_147_483_647;

/** Returns advice about a field this version does not know, e.g. "`kind` is a v0.3 field". */
export type UnknownFieldHint = (key: string) => string | undefined;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Own data property even for keys like "__proto__" (plain assignment would replace the prototype). */
const define = (o: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
};

export interface WireObjectOptions {
  /**
   * A oneof group (ProtoJSON: exactly one member set), checked on the object as sent, after null
   * dropping and aliases. When none is given, the hint is asked about the fields that were dropped
   * (a v0.3 part sent as v1.0 has only unknown fields, say) so the error can say what to send.
   */
  oneOf?: { members: readonly string[]; what: string; hint?: UnknownFieldHint };
}

/**
 * A wire object: fields of `shape` are validated, unknown fields are dropped (the spec says
 * implementations SHOULD ignore them; nothing downstream ever sees them). Free-form maps such
 * as `metadata` are declared with `metadataSchema` and kept as given. Before validation, keys
 * whose value is null are dropped (ProtoJSON: null means "not set"), and each `aliases` entry
 * (`snake_case → camelCase`) is renamed; giving both spellings is an error.
 */
export function wireObject<S extends z.core.$ZodLooseShape>(
  shape: S,
  aliases: Readonly<Record<string, keyof S & string>> = {},
  options: WireObjectOptions = {},
) {
  const normalize = z.transform((input: unknown, ctx) => {
    if (!isPlainObject(input)) return input;
    const out: Record<string, unknown> = {};
    const dropped: string[] = [];
    for (const [key, value] of Object.entries(input)) {
      if (value === null) continue;
      const target = Object.hasOwn(aliases, key) ? aliases[key] : undefined;
      if (target !== undefined) {
        if (Object.hasOwn(input, target) && input[target] !== null) {
          ctx.issues.push({
            code: 'custom',
            message: `given both as "${target}" and as its alias "${key}"; send only one`,
            input: value,
            path: [key],
          });
          continue;
        }
        define(out, target, value);
      } else if (Object.hasOwn(shape, key)) define(out, key, value);
      else dropped.push(key);
    }
    const { oneOf } = options;
    if (oneOf) {
      const present = oneOf.members.filter((m) => out[m] !== undefined);
      if (present.length !== 1) {
        const advice = present.length === 0 ? dropped.map((k) => oneOf.hint?.(k)).filter(Boolean) : [];
        ctx.issues.push({
          code: 'custom',
          message:
            `${oneOf.what} must have exactly one of ${oneOf.members.join(', ')} ` +
            (present.length === 0 ? '(none given)' : `(got ${present.join(' and ')})`) +
            (advice.length ? `; ${[...new Set(advice)].join('; ')}` : ''),
          input,
        });
      }
    }
    return out;
  });
  return z.pipe(normalize, z.object(shape));
}

/**
 * A free-form JSON object (`metadata`, a v0.3 data part): kept exactly as given, the very object
 * (no key dropped, renamed or re-created: `__proto__` keys stay own data keys). The domain checks
 * it is plain JSON; the request pre-pass (boundedParams) has bounded its size and depth.
 */
export const metadataSchema = z.pipe(
  z.unknown(),
  z.transform((v: unknown, ctx): Record<string, unknown> => {
    if (isPlainObject(v)) return v;
    ctx.issues.push({ code: 'custom', message: `must be an object, got ${describeInput(v)}`, input: v });
    return z.NEVER;
  }),
);

/**
 * Metadata a request stores (a message's, a part's) or carries (a request's): at most MAX_METADATA_BYTES
 * of JSON, refused here, before anything is read or written (docs/security.md#limits).
 */
export const boundedMetadataSchema = metadataSchema.check(
  z.superRefine((v: Record<string, unknown>, ctx) => {
    const size = byteLength(v);
    if (size > MAX_METADATA_BYTES)
      ctx.issues.push({
        code: 'custom',
        message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON, got ${size}`,
        input: v,
      });
  }),
);

/**
 * A task (or context) id: 1 to MAX_ID_LENGTH characters. No task has a longer one, so a longer one is
 * invalid params rather than "not found" (and its error never repeats it).
 */
export const taskIdSchema = z
  .string()
  .check(z.minLength(1), z.maxLength(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`));

/** An optional id filter (ListTasks `contextId`): empty means none, longer than MAX_ID_LENGTH is refused. */
export const idFilterSchema = z
  .string()
  .check(z.maxLength(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`));

const integerFromString = (v: unknown): unknown =>
  typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;

/**
 * An int32 within [min, max] (`rangeError` replaces the default bound messages). With
 * `acceptStrings`, integers given as strings ("10") are accepted too, as ProtoJSON allows.
 */
export function int32(
  acceptStrings: boolean,
  bounds: { min?: number; max?: number; rangeError?: string } = {},
) {
  const { min = -MAX_INT32 - 1, max = MAX_INT32, rangeError } = bounds;
  const base = z
    .int({ error: (iss) => (iss.input === undefined ? undefined : 'must be an integer') })
    .check(
      z.gte(min, rangeError ? { error: rangeError } : undefined),
      z.lte(max, rangeError ? { error: rangeError } : undefined),
    );
  return acceptStrings ? z.pipe(z.transform(integerFromString), base) : base;
}

/**
 * A task generation (proto int64): ProtoJSON writes an int64 as a decimal string and reads a string or a
 * number. A generation is never negative and this hub's never outgrow a double's exact integers.
 */
export const generationSchema = z.pipe(
  z.transform(integerFromString),
  z
    .int({ error: (iss) => (iss.input === undefined ? undefined : 'must be an integer (int64)') })
    .check(
      z.gte(0, { error: `must be from 0 to ${Number.MAX_SAFE_INTEGER}` }),
      z.lte(Number.MAX_SAFE_INTEGER, { error: `must be from 0 to ${Number.MAX_SAFE_INTEGER}` }),
    ),
);

/** historyLength: an int32 >= 0 (0 means "no history"). */
export const historyLengthSchema = (acceptStrings: boolean) =>
  int32(acceptStrings, { min: 0, rangeError: 'must be >= 0 (0 means no history, omit it for all)' });

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Normalize an RFC 3339 UTC timestamp to `YYYY-MM-DDTHH:mm:ss.sssZ`, or return an error
 * description. Offsets must denote UTC (`Z` or ±00:00). Sub-millisecond digits round up,
 * so an inclusive "≥ value" comparison against millisecond timestamps stays exact.
 */
export function normalizeTimestamp(
  value: string,
): { ok: true; value: string } | { ok: false; error: string } {
  const m = TIMESTAMP.exec(value);
  if (!m) return { ok: false, error: 'must be an RFC 3339 timestamp such as 2025-01-31T10:30:00.000Z' };
  const [, ys, mos, ds, hs, mis, ss, frac = '', offset = 'Z'] = m;
  if (offset.toUpperCase() !== 'Z' && offset.slice(1) !== '00:00') {
    return { ok: false, error: `must be in UTC (end with "Z"), got offset ${offset}` };
  }
  const [y, mo, d, h, mi, s] = [ys, mos, ds, hs, mis, ss].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeap(y) ? 1 : 0);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59) {
    return { ok: false, error: 'is not a valid date and time' };
  }
  const nanos = Number(frac.padEnd(9, '0'));
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, Math.ceil(nanos / 1e6));
  return { ok: true, value: date.toISOString() };
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

export const timestampSchema = z.pipe(
  z.string(),
  z.transform((s: string, ctx) => {
    const r = normalizeTimestamp(s);
    if (r.ok) return r.value;
    ctx.issues.push({ code: 'custom', message: r.error, input: s });
    return z.NEVER;
  }),
);

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Base64 bytes: standard or URL-safe alphabet, padded or not; normalized to standard padded form. */
export const base64Schema = z.pipe(
  z.string(),
  z.transform((s: string, ctx) => {
    const body = s.replace(/=+$/, '');
    if (!BASE64.test(s) || body.length % 4 === 1) {
      ctx.issues.push({ code: 'custom', message: 'must be base64-encoded bytes', input: s.slice(0, 32) });
      return z.NEVER;
    }
    return Buffer.from(body, 'base64').toString('base64');
  }),
);

// ---- zod issues → field violations ---------------------------------------------------------------

/** `message.parts[0].text`, relative to the request params; the params object itself is "params". */
export const fieldPath = formatPath;

/** What was given instead, in a few words (never the value itself: errors stay small). */
function describeInput(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  return `${typeof v} ${showValue(v)}`;
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  int: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
};

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `is required (${expected})`;
      const custom = issue.message.startsWith('Invalid input') ? '' : issue.message;
      return `${custom || `must be ${expected}`}, got ${describeInput(issue.input)}`;
    }
    case 'too_small': {
      if (issue.origin === 'array') return `must contain at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? 'must not be empty'
          : `must be at least ${issue.minimum} characters`;
      }
      return issue.message.startsWith('Too small') ? `must be >= ${issue.minimum}` : issue.message;
    }
    case 'too_big': {
      if (issue.origin === 'array') return `must contain at most ${issue.maximum} item(s)`;
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      return issue.message.startsWith('Too big') ? `must be <= ${issue.maximum}` : issue.message;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

/** Field violations of zod issues: the first `max` of them (the caller knows the full count). */
export function violationsOf(
  issues: readonly z.core.$ZodIssue[],
  max = Number.POSITIVE_INFINITY,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const issue of issues) {
    if (out.length >= max) break;
    if (issue.code === 'unrecognized_keys') {
      // only a strict schema reports these (the domain's, as a safety net): name each key
      for (const key of issue.keys.slice(0, max - out.length)) {
        out.push({ field: fieldPath([...issue.path, key]), description: 'unknown field' });
      }
    } else out.push({ field: fieldPath(issue.path), description: describeIssue(issue) });
  }
  return out;
}

/** -32602 for zod issues: the first MAX_VIOLATIONS violations, and how many there were in all. */
export function invalidParamsOf(issues: readonly z.core.$ZodIssue[]): A2AProtocolError {
  return A2AProtocolError.invalidParams(violationsOf(issues, MAX_VIOLATIONS), undefined, issues.length);
}

/**
 * Validate `input` against a wire schema, or throw -32602 naming the violations. The bounds
 * pre-pass runs first (see bounds.ts): no schema ever sees hostile nesting, sizes or numbers.
 */
export function parseWire<T extends z.ZodMiniType>(schema: T, input: unknown): z.output<T> {
  const out = findBoundsViolation(input);
  if (out)
    throw A2AProtocolError.invalidParams([{ field: fieldPath(out.path), description: out.description }]);
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) return result.data;
  throw invalidParamsOf(result.error.issues);
}

/**
 * An array of at most `max` items, checked before any item is validated (a long list of bad
 * items would otherwise cost one validation and one issue per item).
 */
export function boundedArray<T extends z.ZodMiniType>(item: T, max: number = MAX_LIST_ITEMS) {
  const bound = z.transform((v: unknown, ctx) => {
    if (Array.isArray(v) && v.length > max) {
      ctx.issues.push({
        code: 'custom',
        message: `must contain at most ${max} items (got ${v.length})`,
        input: v,
      });
      return z.NEVER;
    }
    return v;
  });
  return z.pipe(bound, z.array(item));
}

export { nonEmpty } from './projection.ts';
