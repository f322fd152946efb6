/**
 * An ambiguous write (docs/reliability.md#ambiguous-writes): DynamoDB applied a conditional put but its
 * answer was lost, so the SDK sent it again and the second attempt failed its own condition against the
 * first one's item. Asking for the item back (ReturnValuesOnConditionCheckFailure ALL_OLD) tells the two
 * apart: the item this writer meant to write, to the last attribute, is its own write, applied once.
 */

import { isDeepStrictEqual } from 'node:util';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** Whether `error` is a failed condition whose item in the table is `written` (as the document client stores it). */
export const foundOwnWrite = (error: unknown, written: Record<string, unknown>): boolean => {
  if (!(error instanceof ConditionalCheckFailedException) || !error.Item) return false;
  // as the document client marshals it: undefined attributes removed
  return isDeepStrictEqual(unmarshall(error.Item), JSON.parse(JSON.stringify(written)));
};
