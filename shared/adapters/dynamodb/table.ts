/**
 * The single-table definition, in one place: the local runtime and the tests
 * create the table from `createTableInput`, the CDK stack builds its TableV2
 * from `TASK_TABLE`.
 *
 * Items (pk / sk):
 *   TASK#<taskId> / HEAD               task head (state, version, keys of the GSIs below)
 *   TASK#<taskId> / EVT#<version:10>   one item per event; messages and artifacts also carry `kindSk`
 *   DEDUP#<tenant>#<sha256(sender, messageId)> / DEDUP   an applied inbound message id (+ content hash)
 *   OUTBOX#<shard> / <at>#<id>         a delivery to make, written in the transition's transaction
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'ALL' | 'KEYS_ONLY' | { include: string[] };
}

export const TASK_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'expiresAt',
  /** Same partition as the task: last N messages, all artifact chunks, strongly consistent. */
  localIndexes: [
    { name: 'byKind', partitionKey: 'pk', sortKey: 'kindSk', projection: 'ALL' },
  ] as IndexDefinition[],
  globalIndexes: [
    // ListTasks(contextId): tasks of one conversation, newest status first
    { name: 'byContext', partitionKey: 'ctxPk', sortKey: 'statusSk', projection: 'ALL' },
    // ListTasks(): the caller's tasks, newest status first, statusTimestampAfter as a key condition
    { name: 'byOwner', partitionKey: 'ownerPk', sortKey: 'statusSk', projection: 'ALL' },
    // expiry sweep: live tasks by next deadline or executor lease; sparse and sharded so it never gets hot
    {
      name: 'byDeadline',
      partitionKey: 'dlPk',
      sortKey: 'dlSk',
      projection: { include: ['taskId', 'tenant', 'state', 'version'] },
    },
  ] as IndexDefinition[],
} as const;

export const DEADLINE_SHARDS = 8;

const projectionOf = (p: IndexDefinition['projection']) =>
  p === 'ALL' || p === 'KEYS_ONLY'
    ? { ProjectionType: p }
    : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: p.include };

const indexInput = (i: IndexDefinition) => ({
  IndexName: i.name,
  KeySchema: [
    { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: projectionOf(i.projection),
});

export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const keyNames = new Set<string>([TASK_TABLE.partitionKey, TASK_TABLE.sortKey]);
  for (const i of [...TASK_TABLE.localIndexes, ...TASK_TABLE.globalIndexes]) {
    keyNames.add(i.partitionKey);
    keyNames.add(i.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...keyNames].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TASK_TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TASK_TABLE.sortKey, KeyType: 'RANGE' },
    ],
    LocalSecondaryIndexes: TASK_TABLE.localIndexes.map(indexInput),
    GlobalSecondaryIndexes: TASK_TABLE.globalIndexes.map(indexInput),
  };
};
