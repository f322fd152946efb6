/**
 * The scalar and helper schemas of the Synapse wire (ids, codes, texts, timestamps, endpoints, free
 * objects, optional-or-null): apart from the payload schemas, so what only reads the peers' configuration
 * (the delivery worker) builds none of the payloads.
 */
import { SYNAPSE_STATES } from '../../domain/states.ts';
import * as z from '../../validation/zod.ts';
import {
  MAX_CODE_LENGTH,
  MAX_ID_LENGTH,
  MAX_LIST_ITEMS,
  MAX_MESSAGE_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TEXT_LENGTH,
  MAX_TIMESTAMP_LENGTH,
  MAX_URL_LENGTH,
  MESSAGE_ID_PATTERN,
} from './bounds.ts';

/** No C0 control character and no DEL: ids and codes are printed in logs and used in keys. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

export const string = (min: number, max: number, pattern?: RegExp) =>
  pattern
    ? z.string().check(z.minLength(min), z.maxLength(max), z.regex(pattern))
    : z.string().check(z.minLength(min), z.maxLength(max));

export const messageIdSchema = string(1, MAX_MESSAGE_ID_LENGTH, MESSAGE_ID_PATTERN);
/** A required id (task, agent, decision, user). */
export const idSchema = string(1, MAX_ID_LENGTH, NO_CONTROL);
/** An optional id: may be empty (Go writes "" for an unset string). */
export const optionalIdSchema = string(0, MAX_ID_LENGTH, NO_CONTROL);
/** Codes and types: error and reason codes, task types, output types, priorities, roles. */
export const codeSchema = string(1, MAX_CODE_LENGTH, NO_CONTROL);
export const nameSchema = string(1, MAX_NAME_LENGTH, NO_CONTROL);
export const optionalNameSchema = string(0, MAX_NAME_LENGTH, NO_CONTROL);
export const textSchema = string(0, MAX_TEXT_LENGTH);
/** RFC 3339 with `Z` or an offset, as Go's time.Time writes it. */
export const timestampSchema = z.iso
  .datetime({ offset: true })
  .check(z.maxLength(MAX_TIMESTAMP_LENGTH), z.meta({ description: 'RFC 3339 date-time' }));
/** An absolute http(s) URL. */
export const endpointSchema = z
  .url({ protocol: /^https?$/ })
  .check(
    z.maxLength(MAX_URL_LENGTH),
    z.regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//),
    z.meta({ format: 'uri', description: 'absolute http(s) URL' }),
  );
/** 0–100. */
export const percentSchema = z.number().check(z.gte(0), z.lte(100));
/** Whole seconds, up to a year. */
export const secondsSchema = z.int().check(z.gte(0), z.lte(31_536_000));
export const stateSchema = z.enum(SYNAPSE_STATES);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A free-form JSON object (`task.payload`, `metadata`, `approved_fields`, …), kept exactly as sent
 * (the very object: no key is dropped or copied, `__proto__` keys stay own data keys).
 */
export const freeObject = z
  .unknown()
  .check(
    z.refine(isPlainObject, { message: 'must be an object', abort: true }),
    z.meta({ type: 'object', description: 'free-form JSON object' }),
  ) as unknown as z.ZodMiniType<Record<string, unknown>, Record<string, unknown>>;

/** Any JSON value, kept exactly as sent (null included). */
export const freeValue = () => z.optional(z.unknown());

/** Optional: absent or null (null reads as absent). */
export const opt = <T extends z.ZodMiniType>(t: T) =>
  z.optional(
    z.pipe(
      z.nullable(t),
      z.transform((v: z.output<T> | null) => v ?? undefined),
    ),
  );

/**
 * A wire object: `z.object` (unknown keys dropped), and the keys that read as absent (null) left
 * out of the result rather than kept as undefined. The result is zod's own new object.
 */
export const object = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.pipe(
    z.object(shape),
    z.transform((o) => {
      const out = o as Record<string, unknown>;
      for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
      return o;
    }),
  );

/** A list of at most `max` items. */
export const list = <T extends z.ZodMiniType>(item: T, { min = 0, max = MAX_LIST_ITEMS } = {}) =>
  z.array(item).check(z.minLength(min), z.maxLength(max));

/** `{code, message, details}`: the protocol's `reason` of a rejection (also a cancel's, a need_human's). */
export const reasonSchema = object({
  code: codeSchema,
  message: textSchema,
  details: freeValue(),
});
