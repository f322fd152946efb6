/**
 * API keys and registered tenants on the task table, in one directory partition `pk = AUTH#`:
 * `sk = KEY#<key id>` (the key's tenant, principal, rights and the SHA-256 of its secret, never the
 * key) and `sk = TENANT#<tenant>` (its usage key). The authorizer reads one item per verdict, strongly
 * consistent, so a revocation holds from the next uncached request; listing is one query of the
 * partition (admin only). No item here has the task sort key `T`: the stream relay passes none of them,
 * and none is in an index. The authorizer's IAM grant is bounded to this partition (dynamodb:LeadingKeys).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { rightsOf } from '../../domain/principal.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../ports/api-key-store.ts';
import type { TenantRecord, TenantRegistry } from '../../ports/tenant-registry.ts';
import { TASK_TABLE } from './table.ts';

export const AUTH_PARTITION = 'AUTH#';
const KEY_PREFIX = 'KEY#';
const TENANT_PREFIX = 'TENANT#';
const pk = TASK_TABLE.partitionKey;
const sk = TASK_TABLE.sortKey;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const keyOf = (item: Record<string, unknown>): ApiKeyRecord => ({
  keyId: String(item.keyId),
  secretHash: String(item.secretHash),
  tenant: String(item.tenant),
  principal: String(item.principal),
  rights: rightsOf(str(item.rights)),
  createdAt: String(item.createdAt),
  ...(str(item.revokedAt) ? { revokedAt: str(item.revokedAt)! } : {}),
  ...(str(item.description) ? { description: str(item.description)! } : {}),
});

const tenantOf = (item: Record<string, unknown>): TenantRecord => ({
  tenant: String(item.tenant),
  usageKey: String(item.usageKey),
  createdAt: String(item.createdAt),
  ...(str(item.disabledAt) ? { disabledAt: str(item.disabledAt)! } : {}),
});

export class DynamoAuthStore implements ApiKeyStore, TenantRegistry {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  private async get(sortKey: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [pk]: AUTH_PARTITION, [sk]: sortKey },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return out.Item;
  }

  private async list(prefix: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :p)',
          ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
          ExpressionAttributeValues: { ':pk': AUTH_PARTITION, ':p': prefix },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.get(`${KEY_PREFIX}${keyId}`);
    return item ? keyOf(item) : undefined;
  }

  async putKey(record: ApiKeyRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          [pk]: AUTH_PARTITION,
          [sk]: `${KEY_PREFIX}${record.keyId}`,
          ...record,
          rights: record.rights.join(' '),
        },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': pk },
      }),
    );
  }

  async revokeKey(keyId: string, at: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [pk]: AUTH_PARTITION, [sk]: `${KEY_PREFIX}${keyId}` },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#pk': pk },
          ExpressionAttributeValues: { ':at': at },
        }),
      );
      return true;
    } catch (e) {
      if ((e as Error).name === 'ConditionalCheckFailedException') return false;
      throw e;
    }
  }

  async listKeys(tenant?: string): Promise<ApiKeyRecord[]> {
    const keys = (await this.list(KEY_PREFIX)).map(keyOf);
    return tenant === undefined ? keys : keys.filter((k) => k.tenant === tenant);
  }

  async getTenant(tenant: string): Promise<TenantRecord | undefined> {
    const item = await this.get(`${TENANT_PREFIX}${encodeURIComponent(tenant)}`);
    return item ? tenantOf(item) : undefined;
  }

  async putTenant(record: TenantRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          [pk]: AUTH_PARTITION,
          [sk]: `${TENANT_PREFIX}${encodeURIComponent(record.tenant)}`,
          ...record,
        },
      }),
    );
  }

  async listTenants(): Promise<TenantRecord[]> {
    return (await this.list(TENANT_PREFIX)).map(tenantOf);
  }
}
