/**
 * SeenSignatures on the task table (replay protection for signed Synapse requests,
 * docs/synapse-protocol.md#signatures): each signed request verified is an item of its own,
 * `pk = SEEN#<peer>#<signature>` (the HMAC in hex), `sk = <signedAt>` (epoch seconds, decimal),
 * `ttl = until`, written by one PutItem on `attribute_not_exists(pk)`: the put that loses is the replay.
 * A retry of a message signed anew in another second (or with another key, or other bytes) has another
 * signature, so it is not refused: the endpoint answers it as a duplicate. The same bytes signed in the same
 * second are the same signature (the hub's own retries are at least 1 s apart, synapse-callback.ts). The partition prefix cannot be a
 * task's (`T#`), the item has no index key, and its sort key is never `T`: it is in no index and the
 * relay's stream filter does not pass it. TTL deletes it some time after `until`; until then a second
 * put of the same request is refused, and after `until` the verifier refuses its timestamp anyway.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SeenSignatures } from '../../ports/seen-signatures.ts';
import { foundOwnWrite, withWriteMark } from './settled-write.ts';
import { TASK_TABLE } from './table.ts';

export const SEEN_PREFIX = 'SEEN#';

/**
 * A key part URI-encoded (as the index key parts of keys.ts), so a `#` in a peer id cannot forge
 * another peer's key; a lone surrogate is written as `%u<hex>` rather than throwing.
 */
const part = (s: string): string => {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c >= 0xd800 && c <= 0xdfff ? `%u${c.toString(16)}` : encodeURIComponent(ch);
  }
  return out;
};

export const seenPk = (peer: string, signature: string): string =>
  `${SEEN_PREFIX}${part(peer)}#${part(signature)}`;
export const seenSk = (signedAt: number): string => String(signedAt);

/** The times are whole epoch seconds: anything else is a caller's bug, refused before any write. */
const checkTimes = (signedAt: number, until: number): void => {
  if (!Number.isSafeInteger(signedAt) || !Number.isSafeInteger(until)) {
    throw new RangeError('signedAt and until must be whole epoch seconds');
  }
};

export class DynamoSeenSignatures implements SeenSignatures {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async remember(peer: string, signature: string, signedAt: number, until: number): Promise<boolean> {
    checkTimes(signedAt, until);
    // its own mark: a replay's write carries another, the SDK's second attempt of this one the same
    const item = withWriteMark({
      [TASK_TABLE.partitionKey]: seenPk(peer, signature),
      [TASK_TABLE.sortKey]: seenSk(signedAt),
      [TASK_TABLE.ttlAttribute]: until,
    });
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      return true;
    } catch (e) {
      if (foundOwnWrite(e, item)) return true;
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }
}
