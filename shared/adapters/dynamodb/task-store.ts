/**
 * TaskStore on one DynamoDB table. Every transition is one TransactWriteItems:
 * the head put is conditioned on the version (and state) that was read, the
 * event put on the item not existing, plus dedup and outbox items.
 */
import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type AppendRequest,
  type DedupKey,
  type DedupRecord,
  type ListTasksPage,
  type ListTasksQuery,
  type ReadOptions,
  StaleHeadError,
  type TaskRef,
  type TaskStore,
} from '../../app/ports.ts';
import { DuplicateMessageError, ValidationError } from '../../domain/errors.ts';
import { isTerminal } from '../../domain/states.ts';
import {
  type ArtifactChunk,
  type Message,
  nextDeadlineOf,
  reduceArtifacts,
  type TaskEvent,
  type TaskHead,
  type TaskView,
} from '../../domain/task.ts';
import {
  artifactKindSk,
  contextPk,
  DEDUP_SK,
  deadlinePk,
  deadlineShard,
  deadlineSk,
  dedupPk,
  EVENT_SK_MAX,
  eventSk,
  HEAD_SK,
  messageKindSk,
  outboxPk,
  ownerPk,
  statusSk,
  taskPk,
} from './keys.ts';
import { DEADLINE_SHARDS } from './table.ts';

export interface DynamoTaskStoreOptions {
  tableName: string;
  /** How long a finished task is kept before DynamoDB TTL may delete its head. */
  retentionDays?: number;
}

type Item = Record<string, unknown>;

const HEAD_FIELDS = [
  'taskId',
  'tenant',
  'owner',
  'contextId',
  'state',
  'version',
  'role',
  'protocol',
  'createdAt',
  'statusAt',
  'statusMessage',
  'progress',
  'deadlineAt',
  'leaseUntil',
  'metadata',
] as const;

const EVENT_FIELDS = [
  'taskId',
  'tenant',
  'version',
  'type',
  'from',
  'to',
  'at',
  'message',
  'artifact',
  'progress',
  'reason',
  'data',
] as const;

const pick = <T>(item: Item, fields: readonly string[]): T => {
  const out: Item = {};
  for (const f of fields) if (item[f] !== undefined && item[f] !== null) out[f] = item[f];
  if (fields === EVENT_FIELDS) out.from = item.from ?? null;
  return out as T;
};

export class DynamoTaskStore implements TaskStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly retentionSeconds: number;

  constructor(client: DynamoDBClient, options: DynamoTaskStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.table = options.tableName;
    this.retentionSeconds = (options.retentionDays ?? 30) * 86_400;
  }

  async create(head: TaskHead, events: TaskEvent[], dedup?: DedupKey): Promise<void> {
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Put: {
          TableName: this.table,
          Item: this.headItem(head),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...events.map((e) => ({
        Put: {
          TableName: this.table,
          Item: this.eventItem(e, head),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })),
    ];
    if (dedup) items.push(this.dedupPut(dedup, head, head.createdAt));
    await this.transact(items, dedup, items.length - 1);
  }

  async append(request: AppendRequest): Promise<void> {
    const { seen, next, event, allowedFrom, dedup, outbox } = request;
    const states = Object.fromEntries(allowedFrom.map((s, i) => [`:s${i}`, s]));
    const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [
      {
        Put: {
          TableName: this.table,
          Item: this.headItem(next),
          ConditionExpression: `#version = :seen AND #state IN (${Object.keys(states).join(', ')})`,
          ExpressionAttributeNames: { '#version': 'version', '#state': 'state' },
          ExpressionAttributeValues: { ':seen': seen.version, ...states },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      {
        Put: {
          TableName: this.table,
          Item: this.eventItem(event, next),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    for (const o of outbox ?? []) {
      items.push({
        Put: {
          TableName: this.table,
          Item: {
            pk: outboxPk(deadlineShard(o.id)),
            sk: `${event.at}#${o.id}`,
            id: o.id,
            kind: o.kind,
            payload: o.payload,
            taskId: event.taskId,
            tenant: event.tenant,
            version: event.version,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    const dedupIndex = dedup ? items.push(this.dedupPut(dedup, next, event.at)) - 1 : -1;
    await this.transact(items, dedup, dedupIndex);
  }

  async getHead(ref: TaskRef): Promise<TaskHead | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: taskPk(ref.taskId), sk: HEAD_SK },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    return this.ownedHead(out.Item, ref);
  }

  async read(ref: TaskRef, options: ReadOptions): Promise<TaskView | undefined> {
    const { historyLength, includeArtifacts } = options;
    const [head, messageItems, artifactItems] = await Promise.all([
      this.getHead(ref),
      historyLength === 0 ? Promise.resolve([]) : this.queryKind(ref.taskId, 'MSG#', false, historyLength),
      includeArtifacts ? this.queryKind(ref.taskId, 'ART#', true) : Promise.resolve([]),
    ]);
    if (!head) return undefined;
    // The three reads run in parallel: drop anything newer than the head we got, so the view is one version.
    const upTo = (i: Item) => (i.version as number) <= head.version;
    return {
      head,
      history: messageItems
        .filter(upTo)
        .reverse()
        .map((i) => i.message as Message),
      artifacts: reduceArtifacts(artifactItems.filter(upTo).map((i) => i.artifact as ArtifactChunk)),
    };
  }

  async events(ref: TaskRef, afterVersion: number, limit?: number): Promise<TaskEvent[]> {
    const items = await this.queryAll(
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': taskPk(ref.taskId),
          ':from': eventSk(afterVersion + 1),
          ':to': EVENT_SK_MAX,
        },
        ConsistentRead: true,
      },
      limit,
    );
    return items.filter((i) => i.tenant === ref.tenant).map((i) => pick<TaskEvent>(i, EVENT_FIELDS));
  }

  async list(query: ListTasksQuery): Promise<ListTasksPage> {
    const byContext = query.contextId !== undefined;
    const index = byContext ? 'byContext' : 'byOwner';
    const partitionName = byContext ? 'ctxPk' : 'ownerPk';
    const partition = byContext
      ? contextPk(query.tenant, query.contextId as string)
      : ownerPk(query.tenant, query.owner);

    const names: Record<string, string> = { '#p': partitionName };
    const values: Record<string, unknown> = { ':p': partition };
    let keyCondition = '#p = :p';
    if (query.statusAfter) {
      keyCondition += ' AND statusSk >= :after';
      values[':after'] = query.statusAfter;
    }
    const filters: string[] = [];
    if (byContext) {
      // a context is shared within a tenant; each caller still sees only its own tasks
      names['#owner'] = 'owner';
      values[':owner'] = query.owner;
      filters.push('#owner = :owner');
    }
    if (query.states?.length) {
      names['#state'] = 'state';
      const keys = query.states.map((s, i) => {
        values[`:st${i}`] = s;
        return `:st${i}`;
      });
      filters.push(`#state IN (${keys.join(', ')})`);
    }
    const base: QueryCommandInput = {
      TableName: this.table,
      IndexName: index,
      KeyConditionExpression: keyCondition,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
      ScanIndexForward: false,
    };
    const start = query.pageToken ? decodePageToken(query.pageToken, partitionName, partition) : undefined;

    const [page, totalSize] = await Promise.all([
      this.collectPage(base, query.pageSize, start),
      this.count(base),
    ]);
    const heads = page.slice(0, query.pageSize);
    const last = heads[heads.length - 1];
    const nextPageToken =
      page.length > query.pageSize && last
        ? encodePageToken({ pk: last.pk, sk: last.sk, [partitionName]: partition, statusSk: last.statusSk })
        : '';
    return { heads: heads.map((i) => pick<TaskHead>(i, HEAD_FIELDS)), nextPageToken, totalSize };
  }

  async dueDeadlines(now: string, limitPerShard: number): Promise<TaskRef[]> {
    const shards = await Promise.all(
      Array.from({ length: DEADLINE_SHARDS }, (_, shard) =>
        this.queryAll(
          {
            TableName: this.table,
            IndexName: 'byDeadline',
            KeyConditionExpression: 'dlPk = :pk AND dlSk <= :now',
            // '#' sorts before any id character, so `<now>#~` includes every task due at `now`
            ExpressionAttributeValues: { ':pk': deadlinePk(shard), ':now': `${now}#~` },
          },
          limitPerShard,
        ),
      ),
    );
    return shards.flat().map((i) => ({ tenant: i.tenant as string, taskId: i.taskId as string }));
  }

  async findDedup(key: DedupKey): Promise<DedupRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: dedupPk(key.tenant, key.scope, key.messageId), sk: DEDUP_SK },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    if (!out.Item) return undefined;
    return {
      taskId: out.Item.taskId as string,
      ...(typeof out.Item.fingerprint === 'string' ? { fingerprint: out.Item.fingerprint } : {}),
    };
  }

  // ---- item mapping ----

  private headItem(head: TaskHead): Item {
    const live = !isTerminal(head.state);
    const shard = deadlineShard(head.taskId);
    const nextDeadline = nextDeadlineOf(head);
    return {
      pk: taskPk(head.taskId),
      sk: HEAD_SK,
      ...head,
      ctxPk: contextPk(head.tenant, head.contextId),
      ownerPk: ownerPk(head.tenant, head.owner),
      statusSk: statusSk(head.statusAt, head.taskId),
      // sparse: only live tasks with a deadline are in the sweep index
      ...(live && nextDeadline
        ? { dlPk: deadlinePk(shard), dlSk: deadlineSk(nextDeadline, head.taskId) }
        : {}),
      // TTL only garbage-collects finished tasks; it never enforces a deadline
      ...(live ? {} : { expiresAt: this.expiryOf(head, head.statusAt) }),
    };
  }

  /**
   * When DynamoDB TTL may delete an item: retention after the task's deadline (which bounds its life),
   * so events, dedup records and the head of a finished task go together.
   */
  private expiryOf(head: TaskHead, at: string): number {
    const end = Math.max(Date.parse(at), head.deadlineAt ? Date.parse(head.deadlineAt) : 0);
    return Math.floor(end / 1000) + this.retentionSeconds;
  }

  private eventItem(event: TaskEvent, head: TaskHead): Item {
    const kindSk = event.artifact
      ? artifactKindSk(event.version)
      : event.message
        ? messageKindSk(event.version)
        : undefined;
    return {
      pk: taskPk(event.taskId),
      sk: eventSk(event.version),
      ...event,
      ...(kindSk ? { kindSk } : {}),
      expiresAt: this.expiryOf(head, event.at),
    };
  }

  private dedupPut(key: DedupKey, head: TaskHead, at: string) {
    return {
      Put: {
        TableName: this.table,
        Item: {
          pk: dedupPk(key.tenant, key.scope, key.messageId),
          sk: DEDUP_SK,
          taskId: head.taskId,
          tenant: key.tenant,
          ...(key.fingerprint ? { fingerprint: key.fingerprint } : {}),
          expiresAt: this.expiryOf(head, at),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    };
  }

  private ownedHead(item: Item | undefined, ref: TaskRef): TaskHead | undefined {
    // a task of another tenant is indistinguishable from a missing one
    if (!item || item.tenant !== ref.tenant) return undefined;
    return pick<TaskHead>(item, HEAD_FIELDS);
  }

  // ---- requests ----

  private async transact(
    items: NonNullable<TransactWriteCommandInput['TransactItems']>,
    dedup: DedupKey | undefined,
    dedupIndex: number,
  ): Promise<void> {
    try {
      await this.doc.send(
        new TransactWriteCommand({ TransactItems: items, ReturnConsumedCapacity: 'INDEXES' }),
      );
    } catch (e) {
      if (!(e instanceof TransactionCanceledException)) throw e;
      const reasons = e.CancellationReasons ?? [];
      const dedupReason = dedupIndex >= 0 ? reasons[dedupIndex] : undefined;
      if (dedup && dedupReason?.Code === 'ConditionalCheckFailed') {
        const old = dedupReason.Item ? unmarshall(dedupReason.Item) : undefined;
        throw new DuplicateMessageError(
          dedup.messageId,
          String(old?.taskId ?? ''),
          typeof old?.fingerprint === 'string' ? old.fingerprint : undefined,
        );
      }
      const headReason = reasons[0];
      const current =
        headReason?.Code === 'ConditionalCheckFailed' && headReason.Item
          ? pick<TaskHead>(unmarshall(headReason.Item), HEAD_FIELDS)
          : undefined;
      // ConditionalCheckFailed (someone else moved the head) or TransactionConflict (someone is moving it now)
      throw new StaleHeadError(current);
    }
  }

  private queryKind(taskId: string, prefix: string, ascending: boolean, limit?: number): Promise<Item[]> {
    return this.queryAll(
      {
        TableName: this.table,
        IndexName: 'byKind',
        KeyConditionExpression: 'pk = :pk AND begins_with(kindSk, :prefix)',
        ExpressionAttributeValues: { ':pk': taskPk(taskId), ':prefix': prefix },
        ScanIndexForward: ascending,
        ConsistentRead: true,
      },
      limit,
    );
  }

  /** Query until `limit` items (or all of them) were read. */
  private async queryAll(input: QueryCommandInput, limit?: number): Promise<Item[]> {
    const items: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          ...input,
          ...(limit !== undefined ? { Limit: limit - items.length } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
          ReturnConsumedCapacity: 'INDEXES',
        }),
      );
      items.push(...((out.Items ?? []) as Item[]));
      start = out.LastEvaluatedKey;
    } while (start && (limit === undefined || items.length < limit));
    return items;
  }

  /** Reads one item more than the page so we know whether a next page exists. */
  private async collectPage(base: QueryCommandInput, pageSize: number, start?: Item): Promise<Item[]> {
    const items: Item[] = [];
    let cursor = start;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          ...base,
          Limit: pageSize + 1 - items.length,
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
          ReturnConsumedCapacity: 'INDEXES',
        }),
      );
      items.push(...((out.Items ?? []) as Item[]));
      cursor = out.LastEvaluatedKey;
    } while (cursor && items.length <= pageSize);
    return items;
  }

  private async count(base: QueryCommandInput): Promise<number> {
    let total = 0;
    let cursor: Item | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          ...base,
          Select: 'COUNT',
          ...(cursor ? { ExclusiveStartKey: cursor } : {}),
          ReturnConsumedCapacity: 'INDEXES',
        }),
      );
      total += out.Count ?? 0;
      cursor = out.LastEvaluatedKey;
    } while (cursor);
    return total;
  }
}

const encodePageToken = (key: Item): string => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/** A page token is only valid for the partition it was issued for (no hopping tenants through a forged key). */
const decodePageToken = (token: string, partitionName: string, partition: string): Item => {
  try {
    const key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Item;
    const bounded = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 1024;
    const valid =
      key &&
      typeof key === 'object' &&
      key[partitionName] === partition &&
      bounded(key.pk) &&
      String(key.pk).startsWith('TASK#') &&
      key.sk === HEAD_SK &&
      bounded(key.statusSk) &&
      Object.keys(key).length === 4;
    if (valid) return key;
  } catch {
    // fall through
  }
  throw new ValidationError('pageToken is not a token this server issued for this query', 'pageToken');
};
