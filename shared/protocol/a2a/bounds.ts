/**
 * Bounds on what one request may make us do, and on what an error may say.
 *
 * Request params pass a cheap iterative pre-pass (checkParamsBounds) before any
 * schema sees them. It refuses, with -32602 naming the place:
 * - values nested more than MAX_PARAMS_DEPTH (64) levels below `params`
 *   (the schemas, the domain and JSON.stringify recurse; hostile nesting must
 *   never reach them);
 * - arrays of more than MAX_ARRAY_ITEMS (10,000) items, free-form data included;
 * - numbers that are not finite (JSON.parse reads `1e400` as Infinity, which
 *   JSON cannot carry back).
 * The schemas then bound their own lists: `message.parts` to MAX_PARTS (1,000)
 * and `extensions`, `referenceTaskIds`, `acceptedOutputModes` to MAX_LIST_ITEMS
 * (100), checked before any item is validated. With the 1 MiB body limit this
 * keeps the work per request linear and small. No real client comes near these.
 *
 * Errors stay small whatever the input (a Lambda response carries at most 6 MB):
 * at most MAX_VIOLATIONS (10) field violations are reported (the message and
 * ErrorInfo metadata `totalViolations` give the full count), and every string an
 * error carries is clipped (MAX_ERROR_MESSAGE_LENGTH, MAX_FIELD_PATH_LENGTH,
 * MAX_DESCRIPTION_LENGTH, MAX_METADATA_VALUE_LENGTH). Input values are never
 * echoed whole (see `showValue`).
 */
import {
  type BoundsViolation,
  findBoundsViolation as findViolation,
  formatPath as sharedFormatPath,
} from '../../validation/bounds.ts';
import { clip } from '../../validation/text.ts';

export const MAX_PARAMS_DEPTH = 64;
export const MAX_ARRAY_ITEMS = 10_000;
export const MAX_PARTS = 1_000;
export const MAX_LIST_ITEMS = 100;

export const MAX_VIOLATIONS = 10;
export const MAX_ERROR_MESSAGE_LENGTH = 1_024;
export const MAX_FIELD_PATH_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 512;
export const MAX_METADATA_VALUE_LENGTH = 256;
/** A key in a field path is clipped to this many characters. */
const MAX_KEY_LENGTH = 64;

/** A short, bounded rendering of an input value for an error message (never the value itself). */
export function showValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(clip(v, 40));
    case 'number':
      return Number.isFinite(v) ? String(v) : 'a number out of range';
    case 'boolean':
      return String(v);
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

/** `message.parts[0].text` from path segments, each key clipped, the whole clipped too. */
export const formatPath = (path: readonly PropertyKey[]): string =>
  sharedFormatPath(path, 'params', MAX_KEY_LENGTH, MAX_FIELD_PATH_LENGTH);

/** The first place where `params` exceeds the bounds above, or undefined (iterative, whatever the nesting). */
export const findBoundsViolation = (params: unknown): BoundsViolation | undefined =>
  findViolation(params, {
    maxDepth: MAX_PARAMS_DEPTH,
    maxArrayItems: MAX_ARRAY_ITEMS,
    nonFinite: 'must be a finite number (JSON numbers beyond ±1.8e308 cannot be represented)',
  });
