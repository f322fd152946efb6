/**
 * RegistryStore on the task table (table.ts: the registry's items, the byRegistry index; docs/registry.md).
 * A record's write is one request: a conditional put of the record item, or a transaction when a version,
 * a catalog entry or a new identifier goes with it. Records and versions are kept as JSON text (read back
 * whole, never queried); what the indexes sort by is in key attributes. Health is an attribute of its own
 * on the record and the catalog entry, so a probe's verdict does not rewrite the record's revision.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CatalogEntry, HealthStatus } from '../../domain/registry/record.ts';
import {
  type CatalogChanges,
  RecordConflictError,
  type RecordPage,
  type RecordWrite,
  type RegistryChange,
  type RegistryStore,
  type StoredRecord,
  type StoredVersion,
} from '../../ports/registry-store.ts';
import { registryIdentifierPk, registryPk, registryTenantGp } from './keys.ts';

const RECORD_SK = 'R';
const ENTRY_SK = 'C';
const HEALTH_SK = 'H';
const IDENTIFIER_SK = 'I';
const CATALOG_GP = 'C';
const INDEX = 'byRegistry';
const versionSk = (version: number): string => `V#${String(version).padStart(6, '0')}`;

/**
 * How far back a feed read looks before its cursor: entries are stamped with their writer's clock, and a
 * write stamped just before another container's read may land just after it. Entries seen again are
 * applied again (last wins), so the margin costs a few re-reads, never a lost change.
 */
export const FEED_MARGIN_MS = 5_000;

type Item = Record<string, unknown>;

/**
 * Cards are JSON with much repetition (keys, URLs, modes): versions and catalog entries are kept gzipped,
 * which cuts the units of every write and of the feed's reads by about three (docs/registry.md#storage).
 */
const packed = (value: unknown): Uint8Array => gzipSync(JSON.stringify(value));
const unpacked = <T>(value: unknown): T =>
  // a Lambda stream event carries binary attributes base64-encoded; the SDK hands them over as bytes
  JSON.parse(
    gunzipSync(typeof value === 'string' ? Buffer.from(value, 'base64') : (value as Uint8Array)).toString(
      'utf8',
    ),
  ) as T;

const recordItem = ({ health, ...record }: StoredRecord): Item => ({
  pk: registryPk(record.tenant, record.id),
  sk: RECORD_SK,
  tn: record.tenant,
  rv: record.revision,
  rec: JSON.stringify(record),
  hl: health,
  gp: registryTenantGp(record.tenant),
  gs: `${record.updatedAt}#${record.id}`,
});

const recordOf = (item: Item): StoredRecord => ({
  ...(JSON.parse(String(item.rec)) as Omit<StoredRecord, 'health'>),
  health: item.hl as HealthStatus,
});

const entryItem = ({ health, ...entry }: CatalogEntry): Item => ({
  pk: registryPk(entry.tenant, entry.id),
  sk: ENTRY_SK,
  tn: entry.tenant,
  ez: packed(entry),
  hl: health,
  ua: entry.updatedAt,
  gp: CATALOG_GP,
  gs: `${entry.updatedAt}#${entry.tenant}#${entry.id}`,
});

const entryOf = (item: Item): CatalogEntry => ({
  ...unpacked<Omit<CatalogEntry, 'health'>>(item.ez),
  health: item.hl as HealthStatus,
  updatedAt: String(item.ua),
});

/** A registry item's change in the table's stream (its new and old images), or undefined for any other item. */
export const registryChangeOf = (
  newItem: Item | undefined,
  oldItem: Item | undefined,
): RegistryChange | undefined => {
  if (!newItem || typeof newItem.pk !== 'string' || !newItem.pk.startsWith('R#')) return undefined;
  if (newItem.sk === RECORD_SK)
    return { kind: 'record', after: recordOf(newItem), ...(oldItem ? { before: recordOf(oldItem) } : {}) };
  if (newItem.sk === ENTRY_SK)
    return { kind: 'entry', after: entryOf(newItem), ...(oldItem ? { before: entryOf(oldItem) } : {}) };
  return undefined;
};

/** The sort keys of the registry items whose changes the relay turns into events. */
export const REGISTRY_EVENT_SKS = [RECORD_SK, ENTRY_SK] as const;

export class DynamoRegistryStore implements RegistryStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async write({ record, expectedRevision, version, entry }: RecordWrite): Promise<void> {
    const isNew = expectedRevision === undefined;
    const recordPut = {
      TableName: this.tableName,
      Item: recordItem(record),
      ...(isNew
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'rv = :rv', ExpressionAttributeValues: { ':rv': expectedRevision } }),
    };
    const puts: { kind: 'record' | 'identifier' | 'version' | 'entry'; put: object }[] = [
      { kind: 'record', put: recordPut },
    ];
    if (isNew)
      puts.push({
        kind: 'identifier',
        put: {
          TableName: this.tableName,
          Item: {
            pk: registryIdentifierPk(record.identifier),
            sk: IDENTIFIER_SK,
            tn: record.tenant,
            rid: record.id,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    if (version)
      puts.push({
        kind: 'version',
        put: {
          TableName: this.tableName,
          Item: {
            pk: registryPk(version.tenant, version.recordId),
            sk: versionSk(version.version),
            tn: version.tenant,
            vz: packed(version),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    if (entry) puts.push({ kind: 'entry', put: { TableName: this.tableName, Item: entryItem(entry) } });

    if (puts.length === 1) {
      try {
        await this.doc.send(new PutCommand({ ...recordPut, ReturnConsumedCapacity: 'TOTAL' }));
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) throw this.conflict('record', record, isNew);
        throw e;
      }
      return;
    }
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: puts.map(({ put }) => ({ Put: put as never })),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
    } catch (e) {
      if (!(e instanceof TransactionCanceledException)) throw e;
      const failed = (e.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (failed < 0) throw e;
      throw this.conflict(puts[failed]!.kind, record, isNew);
    }
  }

  private conflict(kind: string, record: StoredRecord, isNew: boolean): RecordConflictError {
    if (kind === 'identifier')
      return new RecordConflictError('identifier-taken', `${record.identifier} is taken`);
    if (kind === 'record' && isNew) return new RecordConflictError('exists', `Record ${record.id} exists`);
    return new RecordConflictError('stale', `Record ${record.id} changed since it was read`);
  }

  async getRecord(tenant: string, id: string): Promise<StoredRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: registryPk(tenant, id), sk: RECORD_SK },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return out.Item && out.Item.tn === tenant ? recordOf(out.Item) : undefined;
  }

  async getVersion(tenant: string, id: string, version: number): Promise<StoredVersion | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: registryPk(tenant, id), sk: versionSk(version) },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return out.Item && out.Item.tn === tenant ? unpacked<StoredVersion>(out.Item.vz) : undefined;
  }

  async listRecords(
    tenant: string,
    { limit, cursor }: { limit: number; cursor?: string },
  ): Promise<RecordPage> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: INDEX,
        KeyConditionExpression: 'gp = :gp',
        ExpressionAttributeValues: { ':gp': registryTenantGp(tenant) },
        ScanIndexForward: false,
        Limit: limit,
        ...(cursor ? { ExclusiveStartKey: JSON.parse(Buffer.from(cursor, 'base64url').toString()) } : {}),
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const records = (out.Items ?? []).filter((i) => i.tn === tenant).map(recordOf);
    return out.LastEvaluatedKey
      ? { records, cursor: Buffer.from(JSON.stringify(out.LastEvaluatedKey)).toString('base64url') }
      : { records };
  }

  async findByIdentifier(identifier: string): Promise<{ tenant: string; id: string } | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: registryIdentifierPk(identifier), sk: IDENTIFIER_SK },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return out.Item ? { tenant: String(out.Item.tn), id: String(out.Item.rid) } : undefined;
  }

  async catalogChanges(cursor?: string): Promise<CatalogChanges> {
    const since = cursor && new Date(Date.parse(cursor) - FEED_MARGIN_MS).toISOString();
    const entries: CatalogEntry[] = [];
    let next = cursor ?? '';
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: INDEX,
          KeyConditionExpression: since ? 'gp = :gp AND gs > :since' : 'gp = :gp',
          ExpressionAttributeValues: { ':gp': CATALOG_GP, ...(since ? { ':since': since } : {}) },
          ...(start ? { ExclusiveStartKey: start } : {}),
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      for (const item of out.Items ?? []) {
        const entry = entryOf(item);
        entries.push(entry);
        if (entry.updatedAt > next) next = entry.updatedAt;
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return { entries, cursor: next };
  }

  async putHealth(
    tenant: string,
    id: string,
    health: HealthStatus,
    report: unknown,
    at: string,
    previous?: HealthStatus,
  ): Promise<void> {
    const pk = registryPk(tenant, id);
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk, sk: HEALTH_SK, tn: tenant, rp: JSON.stringify(report), at },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    // a verdict that did not change writes nothing more (the feed moves only on a change): known unchanged,
    // no request at all; else conditional updates, a refused one billed but writing nothing
    if (previous === health) return;
    const changed = (sk: string, extra: string, values: Record<string, unknown>) =>
      this.doc
        .send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { pk, sk },
            UpdateExpression: `SET hl = :h${extra}`,
            ConditionExpression: 'attribute_exists(pk) AND hl <> :h',
            ExpressionAttributeValues: { ':h': health, ...values },
            ReturnConsumedCapacity: 'TOTAL',
          }),
        )
        .catch((e: unknown) => {
          if (!(e instanceof ConditionalCheckFailedException)) throw e;
        });
    await Promise.all([
      changed(RECORD_SK, '', {}),
      changed(ENTRY_SK, ', ua = :at, gs = :gs', { ':at': at, ':gs': `${at}#${tenant}#${id}` }),
    ]);
  }

  async getHealthReport(tenant: string, id: string): Promise<unknown | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { pk: registryPk(tenant, id), sk: HEALTH_SK },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    return out.Item && out.Item.tn === tenant ? JSON.parse(String(out.Item.rp)) : undefined;
  }
}
