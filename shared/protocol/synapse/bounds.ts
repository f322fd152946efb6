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
import {
  type BoundsViolation,
  findBoundsViolation as findViolation,
  formatPath as sharedFormatPath,
} from '../../validation/bounds.ts';

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

export type { BoundsViolation } from '../../validation/bounds.ts';

/** `payload.missing_fields[0].field` from path segments, each key clipped, the whole clipped too. */
export const formatPath = (path: readonly PropertyKey[]): string =>
  sharedFormatPath(path, '(message)', MAX_KEY_LENGTH, MAX_FIELD_PATH_LENGTH);

/** The first place where `value` exceeds the bounds above, or undefined (iterative, whatever the nesting). */
export const findBoundsViolation = (value: unknown): BoundsViolation | undefined =>
  findViolation(value, {
    maxDepth: MAX_DEPTH,
    maxArrayItems: MAX_ARRAY_ITEMS,
    maxObjectKeys: MAX_OBJECT_KEYS,
    nonFinite: 'must be a finite number',
  });

/**
 * Message ids: letters, digits, `_`, `-`, `:`. No `.` (the separator of the signing string) and no
 * whitespace, so `timestamp.message_id.body` splits one way only. UUIDs, ULIDs and `msg-xxx` fit.
 */
export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9_:-]+$/;
