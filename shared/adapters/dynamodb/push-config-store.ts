/**
 * PushConfigStore on the task table: each config is an item in its task's partition
 * (`pk = T#<tenant>#<taskId>`, keys.ts), `sk = P#<configId>`, so a task's configs are one Query away and
 * a config of another tenant's task is never read: the query addresses the caller's tenant's partition
 * (and the tenant is checked again on every item read). The relay's stream filter passes task
 * items only: config writes cost no relay invocation.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PushConfigStore, StoredPushConfig } from '../../ports/push-config-store.ts';
import { taskPk } from './keys.ts';

export const PUSH_CONFIG_PREFIX = 'P#';
export const pushConfigSk = (id: string): string => `${PUSH_CONFIG_PREFIX}${id}`;

export class DynamoPushConfigStore implements PushConfigStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async put(
    config: StoredPushConfig,
    keepUntil: string,
    options: { ifAbsent?: boolean } = {},
  ): Promise<boolean> {
    try {
      await this.put1(config, keepUntil, options.ifAbsent ?? false);
      return true;
    } catch (e) {
      if (options.ifAbsent && e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  private async put1(config: StoredPushConfig, keepUntil: string, ifAbsent: boolean): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: taskPk(config.tenant, config.taskId),
          sk: pushConfigSk(config.id),
          tn: config.tenant,
          // the config as JSON text: its fields are read back whole, never queried
          cf: JSON.stringify(config),
          ttl: Math.ceil(Date.parse(keepUntil) / 1000),
        },
        // a failed condition writes nothing (no stream record, the item's time and TTL kept)
        ...(ifAbsent ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
        // what a task costs is measured (test/bench): writes report their units too
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
  }

  async get(tenant: string, taskId: string, ids: readonly string[]): Promise<StoredPushConfig[]> {
    if (ids.length === 0) return [];
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': taskPk(tenant, taskId), ':p': PUSH_CONFIG_PREFIX },
        ConsistentRead: true,
        // what a delivery costs is measured (test/bench/deliveries.ts)
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const byId = new Map<string, StoredPushConfig>();
    for (const item of out.Items ?? []) {
      if (item.tn !== tenant || typeof item.cf !== 'string') continue;
      const config = JSON.parse(item.cf) as StoredPushConfig;
      byId.set(config.id, config);
    }
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /**
   * Overwrites the config with a tombstone that holds no URL or secret (a put: the store writes with
   * PutItem and BatchWriteItem only, infra/permissions.ts); TTL removes the tombstone in a day.
   */
  async remove(tenant: string, taskId: string, id: string): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          pk: taskPk(tenant, taskId),
          sk: pushConfigSk(id),
          tn: tenant,
          ttl: Math.ceil(Date.now() / 1000) + 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR tn = :tn',
        ExpressionAttributeValues: { ':tn': tenant },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
  }
}
