/**
 * DeliveryLog on the task table: each delivery attempt an item in its task's partition
 * (`pk = T#<tenant>#<taskId>`, keys.ts), `sk = L#<version>#<configId>#<redrive>#<attempt>` (version
 * 10 digits, round and attempt 3, zero-padded), so a task's log is one Query in delivery order and an
 * attempt's key is its identity. Written with PutItem only: the claim on `attribute_not_exists(pk)` (or
 * a released claim), the outcome on the claim's status and token. The relay's stream filter passes task
 * items only: log writes cost no relay invocation. Expires (TTL) with its task.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ClaimResult, DeliveryAttempt, DeliveryLog } from '../../ports/delivery-log.ts';
import { pad, taskPk } from './keys.ts';
import { foundOwnWrite } from './settled-write.ts';

export const DELIVERY_LOG_PREFIX = 'L#';

const pad3 = (n: number): string => String(n).padStart(3, '0');

export const deliveryLogSk = (
  a: Pick<DeliveryAttempt, 'version' | 'configId' | 'redrive' | 'attempt'>,
): string => `${DELIVERY_LOG_PREFIX}${pad(a.version)}#${a.configId}#${pad3(a.redrive)}#${pad3(a.attempt)}`;

type Item = Record<string, unknown>;

const itemOf = (a: DeliveryAttempt): Item => ({
  pk: taskPk(a.tenant, a.taskId),
  sk: deliveryLogSk(a),
  tn: a.tenant,
  // the conditions read these two; the rest is read back whole, never queried
  st: a.status,
  ck: a.claim,
  at: JSON.stringify(a),
  ttl: Math.ceil(Date.parse(a.keepUntil) / 1000),
});

const attemptOf = (item: Item): DeliveryAttempt => JSON.parse(String(item.at)) as DeliveryAttempt;

export class DynamoDeliveryLog implements DeliveryLog {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async claim(attempt: DeliveryAttempt): Promise<ClaimResult> {
    const item = itemOf(attempt);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(pk) OR st = :released',
          ExpressionAttributeValues: { ':released': 'released' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      return { claimed: true };
    } catch (e) {
      if (foundOwnWrite(e, item)) return { claimed: true };
      if (!(e instanceof ConditionalCheckFailedException) || !e.Item) throw e;
      const existing = unmarshall(e.Item);
      // the key is this tenant's partition: another tenant's item here would be a bug, never this attempt
      if (existing.tn !== attempt.tenant)
        throw new Error(`delivery log: task ${attempt.taskId} is not this tenant's`);
      return { claimed: false, existing: attemptOf(existing) };
    }
  }

  finish(attempt: DeliveryAttempt): Promise<boolean> {
    return this.record(attempt, 'st = :sending AND ck = :claim', { ':sending': 'sending' });
  }

  interrupt(attempt: DeliveryAttempt): Promise<boolean> {
    return this.record(attempt, '(st = :sending OR st = :released) AND ck = :claim', {
      ':sending': 'sending',
      ':released': 'released',
    });
  }

  /** Puts the attempt's record on `condition` (over its claim): false when the condition fails. */
  private async record(
    attempt: DeliveryAttempt,
    condition: string,
    values: Record<string, string>,
  ): Promise<boolean> {
    const item = itemOf(attempt);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: condition,
          ExpressionAttributeValues: { ...values, ':claim': attempt.claim },
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

  async list(tenant: string, taskId: string): Promise<DeliveryAttempt[]> {
    const out: DeliveryAttempt[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': taskPk(tenant, taskId), ':p': DELIVERY_LOG_PREFIX },
          ConsistentRead: true,
          ReturnConsumedCapacity: 'TOTAL',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) if (item.tn === tenant) out.push(attemptOf(item));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
