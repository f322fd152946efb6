/**
 * An ambiguous write (docs/reliability.md#ambiguous-writes): DynamoDB applied a conditional put but its
 * answer was lost, so the SDK sent it again and the second attempt failed its own condition against the
 * first one's item. Asking for the item back (ReturnValuesOnConditionCheckFailure ALL_OLD) tells the two
 * apart: the item this writer meant to write, to the last attribute, is its own write, applied once. Two
 * writers can mean the very same item (the same progress from the same version in the same millisecond),
 * so an item whose content is not unique to its writer carries a write mark of its own (`wm`).
 */

import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** Whether `error` is a failed condition whose item in the table is `written` (as the document client stores it). */
export const foundOwnWrite = (error: unknown, written: Record<string, unknown>): boolean => {
  if (!(error instanceof ConditionalCheckFailedException) || !error.Item) return false;
  // as the document client marshals it: undefined attributes removed
  return isDeepStrictEqual(unmarshall(error.Item), JSON.parse(JSON.stringify(written)));
};

/** The attribute that holds a write's own mark (72 random bits). */
export const WRITE_MARK = 'wm';

/** `item` with a mark no other write has. */
export const withWriteMark = <I extends Record<string, unknown>>(item: I): I & { [WRITE_MARK]: string } => ({
  ...item,
  [WRITE_MARK]: randomBytes(9).toString('base64url'),
});
