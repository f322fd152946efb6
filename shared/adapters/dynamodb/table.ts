/**
 * The single-table definition, in one place: the local runtime and the tests
 * create the table from `createTableInput`, the CDK stack builds its TableV2
 * from `TASK_TABLE`. The layout and what each operation costs are documented
 * in docs/storage.md.
 *
 * Items of one task share its partition, `pk = T#<tenant>#<taskId>` (tenant URI-encoded, keys.ts `taskPk`):
 * scoping is part of the key, so a read addresses the caller's tenant's partition and never reads
 * another tenant's item under the same task id.
 *   sk `T`                 the task: head, index keys and a bounded log of its recent events
 *   sk `M#<to>` `A#<to>` `S#<to>`   older events spilled out of the log, by kind (messages, artifacts,
 *                          the rest), each item holding the events of its kind up to version <to>
 *   sk `B#<version>#<ref>` a payload too large to keep in the log (written before the event that refers to it)
 *   sk `P#<configId>`      a push-notification config; sk `L#…` a push delivery attempt
 * A reply (a message answered without a task) is a `T` item under the key its task would have had.
 *
 * Indexes (global, keys that move as little as possible, small projections, partitions sharded so no
 * caller, context or time window concentrates writes on one; docs/scaling.md):
 *   byOwner     `op` = tenant#owner#A2A-state#shard, `os` = statusAt#taskId: ListTasks, newest status
 *               first; a status filter reads that state's shards
 *   byContext   `cp` = tenant#owner#contextId#shard, `cs` = createdAt#taskId: ListTasks(contextId); keys only
 *   byDeadline  `dp` = D#<shard> on live tasks only, `dl` = deadline: the expiry sweep (sparse, sharded)
 *   byRegistry  the agent registry's two listings (docs/registry.md): `gp` = `C`, `gs` = updatedAt#…: the
 *               catalog entries in the order they changed (the feed each container's catalog follows);
 *               `gp` = `R#<tenant>`, `gs` = updatedAt#id: a tenant's records, newest change first
 *
 * The agent registry's items (docs/registry.md) have partitions of their own, `pk = R#<tenant>#<recordId>`:
 *   sk `R` the record, `V#<version>` each published version, `C` its catalog entry while it has a live
 *   version, `H` the last probe's report; `pk = RI#<identifier>`, sk `I`: the identifier's holder.
 *
 * The table's stream (new and old images) is the outbox: the relay turns committed changes into
 * executor runs and lifecycle events.
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
  ttlAttribute: 'ttl',
  stream: 'NEW_AND_OLD_IMAGES',
  localIndexes: [] as IndexDefinition[],
  globalIndexes: [
    {
      name: 'byOwner',
      partitionKey: 'op',
      sortKey: 'os',
      // what a listed task renders; these attributes change only when the keys move anyway
      projection: { include: ['tn', 'ow', 'cx', 'ca', 'st', 'sm', 'sv', 'sb', 'pg', 'md'] },
    },
    { name: 'byContext', partitionKey: 'cp', sortKey: 'cs', projection: 'KEYS_ONLY' },
    { name: 'byDeadline', partitionKey: 'dp', sortKey: 'dl', projection: { include: ['tn'] } },
    { name: 'byRegistry', partitionKey: 'gp', sortKey: 'gs', projection: 'ALL' },
  ] as IndexDefinition[],
} as const;

export const DEADLINE_SHARDS = 8;
/** Partitions of one caller's tasks per A2A state in byOwner (each takes ~500 task changes a second). */
export const OWNER_SHARDS = 4;
/** Partitions of one context's tasks in byContext. */
export const CONTEXT_SHARDS = 4;

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
    ...(TASK_TABLE.localIndexes.length
      ? { LocalSecondaryIndexes: TASK_TABLE.localIndexes.map(indexInput) }
      : {}),
    GlobalSecondaryIndexes: TASK_TABLE.globalIndexes.map(indexInput),
    StreamSpecification: { StreamEnabled: true, StreamViewType: TASK_TABLE.stream },
  };
};
