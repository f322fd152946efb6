/**
 * TaskStore on one DynamoDB table (layout: table.ts, task-codec.ts,
 * docs/storage.md). Every transition is one conditional PutItem of the task's
 * item, on the version and the allowed states it was decided on; large
 * payloads and spilled history are put just before it (their content is
 * fixed, so a retried or lost write leaves at worst an unreferenced item that
 * TTL removes). A lost race returns the winner's item, so the engine re-decides
 * without another read.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ValidationError } from '../../domain/errors.ts';
import { A2A_STATES, SYNAPSE_STATES, type SynapseState, toA2AState } from '../../domain/states.ts';
import {
  type ArtifactChunk,
  type Message,
  reduceArtifacts,
  type TaskEvent,
  type TaskHead,
  type TaskSummary,
  type TaskView,
} from '../../domain/task.ts';
import type { BeatResult } from '../../ports/liveness-writer.ts';
import {
  type CreateOutcome,
  type ListTasksPage,
  type ListTasksQuery,
  MessageAnsweredError,
  type ReadOptions,
  type RecentEvent,
  type ReplyOutcome,
  StaleTaskError,
  type StoredReply,
  type TaskRecord,
  type TaskRef,
  type TaskStore,
} from '../../ports/task-store.ts';
import {
  type ChunkKind,
  chunkSk,
  contextPartition,
  deadlinePartition,
  ownerPartition,
  TASK_SK,
  taskPk,
  taskRefOfPk,
} from './keys.ts';
import { foundOwnWrite, withWriteMark } from './settled-write.ts';
import { CONTEXT_SHARDS, DEADLINE_SHARDS, OWNER_SHARDS } from './table.ts';
import {
  attachBody,
  bodyKey,
  bodyMessage,
  CODES,
  type CodecOptions,
  decodeChunk,
  decodeReply,
  decodeSummary,
  decodeTask,
  encodeReply,
  type Item,
  isReplyItem,
  kindOf,
  planBeat,
  planWrite,
  statusBodyOf,
} from './task-codec.ts';

export interface DynamoTaskStoreOptions {
  tableName: string;
  /** How long a finished task is kept before DynamoDB TTL may delete it. */
  retentionDays?: number;
}

/** One partition of the byOwner index per A2A state the engine produces. */
const LISTED_STATES = A2A_STATES.filter((a) => SYNAPSE_STATES.some((s) => toA2AState(s) === a));
const representative = (a2a: string): SynapseState => SYNAPSE_STATES.find((s) => toA2AState(s) === a2a)!;

const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

export class DynamoTaskStore implements TaskStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly codec: CodecOptions;

  constructor(client: DynamoDBClient, options: DynamoTaskStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.table = options.tableName;
    this.codec = { retentionSeconds: (options.retentionDays ?? 30) * 86_400 };
  }

  async create(head: TaskHead, events: TaskEvent[]): Promise<CreateOutcome> {
    const plan = planWrite(undefined, head, events, this.codec);
    const item = withWriteMark(plan.item);
    await this.putAll(plan.before);
    try {
      await this.put(item, 'attribute_not_exists(pk)');
      return { record: plan.record, created: true };
    } catch (e) {
      if (foundOwnWrite(e, item)) return { record: plan.record, created: true };
      if (!(e instanceof ConditionalCheckFailedException) || !e.Item) throw e;
      const found = unmarshall(e.Item);
      // the key is the tenant's partition, so another tenant's item here would be a bug, never a duplicate
      if (found.tn !== head.tenant) throw new Error(`task id ${head.taskId} is taken`);
      if (isReplyItem(found)) throw new MessageAnsweredError(decodeReply(found));
      return { record: decodeTask(found), created: false };
    }
  }

  async commit(
    seen: TaskRecord,
    next: TaskHead,
    events: TaskEvent[],
    allowedFrom: readonly SynapseState[],
  ): Promise<TaskRecord> {
    const plan = planWrite(seen, next, events, this.codec);
    const item = withWriteMark(plan.item);
    await this.putAll(plan.before);
    const states = Object.fromEntries(allowedFrom.map((s, i) => [`:s${i}`, encodeState(s)]));
    try {
      await this.put(item, `#v = :seen AND #st IN (${Object.keys(states).join(', ')})`, {
        names: { '#v': 'v', '#st': 'st' },
        values: { ':seen': seen.head.version, ...states },
      });
      return plan.record;
    } catch (e) {
      if (foundOwnWrite(e, item)) return plan.record;
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      const current = e.Item ? decodeTask(unmarshall(e.Item)) : undefined;
      throw new StaleTaskError(current && current.head.tenant === seen.head.tenant ? current : undefined);
    }
  }

  /**
   * A liveness write (heartbeat): the item as `seen` holds it with `hb` moved on, on the condition that its
   * version and state are still `seen`'s. It records no event and keeps the version, so no other writer
   * loses a race to it and the stream relay finds no change in it. Refused: the task as it is now.
   */
  async beat(seen: TaskRecord, at: string): Promise<BeatResult> {
    const item = withWriteMark(planBeat(seen, at, this.codec));
    try {
      await this.put(item, '#v = :seen AND #st = :st', {
        names: { '#v': 'v', '#st': 'st' },
        values: { ':seen': seen.head.version, ':st': encodeState(seen.head.state) },
      });
      return { written: true };
    } catch (e) {
      if (foundOwnWrite(e, item)) return { written: true };
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      const current = e.Item ? decodeTask(unmarshall(e.Item)) : undefined;
      return {
        written: false,
        ...(current && current.head.tenant === seen.head.tenant ? { current } : {}),
      };
    }
  }

  async get(ref: TaskRef): Promise<TaskRecord | undefined> {
    // the key is the caller's tenant's partition: another tenant's task under this id is another item,
    // never read, so it answers exactly as a missing one does
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: taskPk(ref.tenant, ref.taskId), sk: TASK_SK },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
    // the tenant attribute is checked too (defence in depth); a reply is no task
    if (!out.Item || out.Item.tn !== ref.tenant || isReplyItem(out.Item)) return undefined;
    return decodeTask(out.Item);
  }

  async putReply(reply: StoredReply): Promise<ReplyOutcome> {
    const item = encodeReply(reply);
    try {
      await this.put(item, 'attribute_not_exists(pk)');
      return { reply, created: true };
    } catch (e) {
      if (foundOwnWrite(e, item)) return { reply, created: true };
      if (!(e instanceof ConditionalCheckFailedException) || !e.Item) throw e;
      const found = unmarshall(e.Item);
      if (found.tn !== reply.tenant) throw new Error(`task id ${reply.key} is taken`);
      return isReplyItem(found) ? { reply: decodeReply(found), created: false } : { task: decodeTask(found) };
    }
  }

  async view(record: TaskRecord, options: ReadOptions): Promise<TaskView> {
    const { head, recent } = record;
    const wanted = options.historyLength;
    const recentMessages = recent.filter((e) => kindOf(e) === 'M');
    const chunks = this.chunkKinds(record);
    const needOlderMessages =
      wanted !== 0 && (wanted === undefined || recentMessages.length < wanted) && chunks.has('M');
    const [olderMessages, olderArtifacts] = await Promise.all([
      needOlderMessages
        ? this.chunkEvents(record, 'M', {
            newestFirst: true,
            ...(wanted !== undefined ? { want: wanted - recentMessages.length } : {}),
          })
        : Promise.resolve([]),
      options.includeArtifacts && chunks.has('A')
        ? this.chunkEvents(record, 'A', { newestFirst: false })
        : Promise.resolve([]),
    ]);
    const firstRecent = recent[0]?.version ?? head.version + 1;
    const messageEvents = [
      ...olderMessages.filter((e) => e.version < firstRecent).reverse(),
      ...recentMessages,
    ];
    const history = wanted === undefined ? messageEvents : wanted === 0 ? [] : messageEvents.slice(-wanted);
    const artifactEvents = options.includeArtifacts
      ? [...olderArtifacts.filter((e) => e.version < firstRecent), ...recent.filter((e) => kindOf(e) === 'A')]
      : [];
    const statusBody =
      !head.statusMessage && head.statusVersion !== undefined ? record.storage?.statusBody : undefined;
    const [resolved, statusMessage] = await this.withBodies(
      record,
      [...history, ...artifactEvents],
      statusBody,
    );
    const byVersion = new Map(resolved.map((e) => [e.version, e]));
    const summaryHead = statusMessage ? { ...head, statusMessage } : head;
    return {
      head: summaryHead,
      history: history.map((e) => byVersion.get(e.version)!.message as Message),
      artifacts: reduceArtifacts(
        artifactEvents.map((e) => byVersion.get(e.version)!.artifact as ArtifactChunk),
      ),
    };
  }

  async events(record: TaskRecord, afterVersion: number, limit?: number): Promise<TaskEvent[]> {
    const { recent } = record;
    const firstRecent = recent[0]?.version ?? record.head.version + 1;
    let events: RecentEvent[] = recent.filter((e) => e.version > afterVersion);
    if (afterVersion + 1 < firstRecent) {
      const kinds = [...this.chunkKinds(record)];
      const older = (
        await Promise.all(
          kinds.map((kind) => this.chunkEvents(record, kind, { newestFirst: false, after: afterVersion })),
        )
      )
        .flat()
        .filter((e) => e.version > afterVersion && e.version < firstRecent);
      const unique = new Map(older.map((e) => [e.version, e]));
      events = [...[...unique.values()].sort((a, b) => a.version - b.version), ...events];
    }
    if (limit !== undefined) events = events.slice(0, limit);
    const [resolved] = await this.withBodies(record, events);
    return resolved;
  }

  async list(query: ListTasksQuery): Promise<ListTasksPage> {
    return query.contextId !== undefined ? this.listContext(query) : this.listOwner(query);
  }

  async dueDeadlines(now: string, limitPerShard: number): Promise<TaskRef[]> {
    const shards = await Promise.all(
      Array.from({ length: DEADLINE_SHARDS }, (_, shard) =>
        this.queryItems(
          {
            TableName: this.table,
            IndexName: 'byDeadline',
            KeyConditionExpression: 'dp = :p AND dl <= :now',
            ExpressionAttributeValues: { ':p': deadlinePartition(shard), ':now': now },
          },
          limitPerShard,
        ),
      ),
    );
    return shards.flat().map((i) => taskRefOfPk(String(i.pk)));
  }

  // ---- listing ----
  // `totalSize` costs nothing: it counts the matches of the pages returned so far (the page token carries
  // the count), plus one when another page follows. It is exact on the last page and a lower bound before
  // it; a COUNT over the caller's partitions would cost read units in proportion to every task they keep
  // (docs/storage.md, "Listing").

  /**
   * The caller's tasks, newest status first. Each A2A state has its own OWNER_SHARDS partitions of byOwner:
   * a status filter reads that state's shards; without one, all of them; in parallel, merged by the sort key.
   * The sort key (status time, task id) is unique, so the page token is one position valid in every partition.
   */
  private async listOwner(query: ListTasksQuery): Promise<ListTasksPage> {
    const a2aStates = query.states?.length
      ? [...new Set(query.states.map(toA2AState))]
      : (LISTED_STATES as readonly string[]);
    const cursor = query.pageToken ? decodeCursor(query.pageToken, query) : undefined;
    const before = cursor?.count ?? 0;
    // a position before the lower bound: nothing lies between (and DynamoDB refuses such a BETWEEN)
    if (cursor && query.statusAfter && cursor.at < query.statusAfter) {
      return { tasks: [], nextPageToken: '', totalSize: before };
    }
    const partitions = a2aStates.flatMap((a) =>
      Array.from({ length: OWNER_SHARDS }, (_, shard) =>
        ownerPartition(query.tenant, query.owner, representative(a), shard),
      ),
    );
    const condition = (values: Record<string, unknown>): string => {
      if (cursor && query.statusAfter) {
        values[':after'] = query.statusAfter;
        values[':c'] = cursor.at;
        return 'op = :p AND os BETWEEN :after AND :c';
      }
      if (cursor) {
        values[':c'] = cursor.at;
        return 'op = :p AND os < :c';
      }
      if (query.statusAfter) {
        values[':after'] = query.statusAfter;
        return 'op = :p AND os >= :after';
      }
      return 'op = :p';
    };
    const merged = await this.mergedPages(
      partitions,
      (p) => {
        const values: Record<string, unknown> = { ':p': p };
        return {
          IndexName: 'byOwner',
          KeyConditionExpression: condition(values),
          ExpressionAttributeValues: values,
          // one more than a page tells whether another page exists (two with an inclusive bound)
          Limit: query.pageSize + (cursor && query.statusAfter ? 2 : 1),
        };
      },
      'os',
      cursor?.at,
    );
    const items = merged.slice(0, query.pageSize);
    const last = items[items.length - 1];
    const more = merged.length > query.pageSize && last !== undefined;
    const tasks = query.withVersions ? await this.withVersions(items, query) : await this.summaries(items);
    return {
      tasks,
      nextPageToken: more ? encodeCursor(query, String(last.os), before + tasks.length) : '',
      totalSize: before + tasks.length + (more ? 1 : 0),
    };
  }

  /**
   * The listed tasks as their items hold them, versions included (byOwner projects no `v`: projecting it
   * would move the index entry on every write, artifacts included). One eventually consistent BatchGetItem
   * per page. Status and version come from one item, so a generation never claims a change the status
   * shown lacks; a task that left the filtered states since the index entry was written is left out (as a
   * context listing does).
   */
  private async withVersions(entries: Item[], query: ListTasksQuery): Promise<TaskSummary[]> {
    const keys = entries.map((i) => ({ pk: i.pk, sk: i.sk }));
    const byPk = new Map((await this.batchGet(keys)).map((i) => [String(i.pk), i]));
    const items = entries.map((e) => byPk.get(String(e.pk)) ?? e);
    const matches = (s: TaskSummary) => !query.states?.length || query.states.includes(s.state);
    return (await this.summaries(items)).filter(matches);
  }

  /**
   * The caller's tasks in one context, newest first by creation, from the context's CONTEXT_SHARDS
   * partitions (keys only) and then the tasks themselves; status filters apply to each page, which may
   * then hold fewer tasks than pageSize.
   */
  private async listContext(query: ListTasksQuery): Promise<ListTasksPage> {
    const contextId = query.contextId as string;
    const cursor = query.pageToken ? decodeCursor(query.pageToken, query) : undefined;
    const before = cursor?.count ?? 0;
    const partitions = Array.from({ length: CONTEXT_SHARDS }, (_, shard) =>
      contextPartition(query.tenant, query.owner, contextId, shard),
    );
    const merged = await this.mergedPages(
      partitions,
      (p) => ({
        IndexName: 'byContext',
        KeyConditionExpression: cursor ? 'cp = :p AND cs < :c' : 'cp = :p',
        ExpressionAttributeValues: { ':p': p, ...(cursor ? { ':c': cursor.at } : {}) },
        Limit: query.pageSize + 1,
      }),
      'cs',
      cursor?.at,
    );
    const page = merged.slice(0, query.pageSize);
    const last = page[page.length - 1];
    const more = merged.length > query.pageSize && last !== undefined;
    const keys = page.map((i) => ({ pk: i.pk, sk: i.sk }));
    const items = await this.batchGet(keys);
    const order = new Map(keys.map((k, i) => [String(k.pk), i]));
    const filtered = Boolean(query.states?.length || query.statusAfter);
    const matches = (s: TaskSummary) =>
      (!query.states?.length || query.states.includes(s.state)) &&
      (!query.statusAfter || s.statusAt >= query.statusAfter);
    const ordered = items
      .filter((i) => partitions.includes(String(i.cp)))
      .sort((a, b) => order.get(String(a.pk))! - order.get(String(b.pk))!);
    const tasks = (await this.summaries(ordered)).filter(matches);
    return {
      tasks,
      nextPageToken: more ? encodeCursor(query, String(last.cs), before + tasks.length) : '',
      // a filtered page says nothing of the next one's matches
      totalSize: before + tasks.length + (more && !filtered ? 1 : 0),
    };
  }

  /**
   * Reads the partitions in parallel (one round trip), each newest first up to its Limit, and merges them
   * by the unique sort key `sortKey`, newest first, dropping the cursor's own item.
   */
  private async mergedPages(
    partitions: readonly string[],
    queryOf: (partition: string) => Omit<QueryCommandInput, 'TableName'>,
    sortKey: 'os' | 'cs',
    cursorAt: string | undefined,
  ): Promise<Item[]> {
    const pages = await Promise.all(
      partitions.map(async (p) => {
        const out = await this.doc.send(
          new QueryCommand({
            TableName: this.table,
            ...queryOf(p),
            ScanIndexForward: false,
            ReturnConsumedCapacity: 'INDEXES',
          }),
        );
        return ((out.Items ?? []) as Item[]).filter((i) => i[sortKey] !== cursorAt);
      }),
    );
    return pages.flat().sort((a, b) => (String(a[sortKey]) < String(b[sortKey]) ? 1 : -1));
  }

  /** Summaries of listed items, with large status messages fetched from their bodies. */
  private async summaries(items: Item[]): Promise<TaskSummary[]> {
    const summaries = items.map(decodeSummary);
    const missing = items.flatMap((item, i) => {
      const ref = statusBodyOf(item);
      const s = summaries[i]!;
      return !s.statusMessage && ref && s.statusVersion !== undefined
        ? [{ index: i, key: bodyKey(s, s.statusVersion, ref) }]
        : [];
    });
    if (missing.length) {
      const bodies = await this.batchGet(missing.map((m) => m.key));
      const bySk = new Map(bodies.map((b) => [`${b.pk}|${b.sk}`, b]));
      for (const m of missing) {
        const body = bySk.get(`${m.key.pk}|${m.key.sk}`);
        const s = summaries[m.index]!;
        if (body) s.statusMessage = bodyMessage(body, s);
      }
    }
    return summaries;
  }

  // ---- history ----

  private chunkKinds(record: TaskRecord): Set<ChunkKind> {
    const notes = record.storage?.chunks;
    if (typeof notes === 'string') return new Set(notes.split('') as ChunkKind[]);
    // a record this store did not note: older events may be in any kind of chunk
    return (record.recent[0]?.version ?? 1) > 1 ? new Set(['M', 'A', 'S']) : new Set();
  }

  /**
   * Events of one kind from the history chunks: all of them oldest first, or (newestFirst) enough
   * chunks, newest first, to hold `want` events. Chunks may overlap after a lost write; de-duplicated.
   */
  private async chunkEvents(
    record: TaskRecord,
    kind: ChunkKind,
    options: { newestFirst: boolean; want?: number; after?: number },
  ): Promise<RecentEvent[]> {
    const { head } = record;
    const events = new Map<number, RecentEvent>();
    let start: Item | undefined;
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': taskPk(head.tenant, head.taskId),
            ':from': chunkSk(kind, (options.after ?? 0) + 1),
            ':to': chunkSk(kind, head.version),
          },
          ScanIndexForward: !options.newestFirst,
          ConsistentRead: true,
          // newest first stops after a few chunks; the whole history (artifacts) reads pages of 1 MB
          ...(options.want !== undefined ? { Limit: Math.max(1, Math.ceil(options.want / 4)) } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
          ReturnConsumedCapacity: 'INDEXES',
        }),
      );
      for (const item of (out.Items ?? []) as Item[]) {
        for (const e of decodeChunk(item, head)) if (!events.has(e.version)) events.set(e.version, e);
      }
      start = out.LastEvaluatedKey as Item | undefined;
    } while (start && (options.want === undefined || events.size < options.want));
    const sorted = [...events.values()].sort((a, b) => a.version - b.version);
    return options.newestFirst ? sorted.reverse() : sorted;
  }

  /** Fetches the bodies of detached events (and a large status message) in one batch. */
  private async withBodies(
    record: TaskRecord,
    events: readonly RecentEvent[],
    statusBody?: string,
  ): Promise<[TaskEvent[], Message | undefined]> {
    const { head } = record;
    const keys = events.flatMap((e) =>
      e.detached && !(e.message || e.artifact) ? [bodyKey(head, e.version, e.detached.ref)] : [],
    );
    const statusKey =
      statusBody && head.statusVersion !== undefined
        ? bodyKey(head, head.statusVersion, statusBody)
        : undefined;
    if (statusKey) keys.push(statusKey);
    if (keys.length === 0) return [events.map(strip), undefined];
    // the status message's body may also be a history event's: ask for each key once
    const unique = [...new Map(keys.map((k) => [k.sk, k])).values()];
    const bodies = new Map((await this.batchGet(unique, true)).map((b) => [String(b.sk), b]));
    const resolved = events.map((e) =>
      e.detached && !(e.message || e.artifact)
        ? attachBody(e, bodies.get(bodyKey(head, e.version, e.detached.ref).sk), head)
        : strip(e),
    );
    const statusItem = statusKey ? bodies.get(statusKey.sk) : undefined;
    return [resolved, statusItem ? bodyMessage(statusItem, head) : undefined];
  }

  // ---- requests ----

  private async put(
    item: Item,
    condition: string,
    expression: { names?: Record<string, string>; values?: Record<string, unknown> } = {},
  ): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: item,
        ConditionExpression: condition,
        ...(expression.names ? { ExpressionAttributeNames: expression.names } : {}),
        ...(expression.values ? { ExpressionAttributeValues: expression.values } : {}),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        ReturnConsumedCapacity: 'INDEXES',
      }),
    );
  }

  /** Unconditional puts of items whose content is fixed (bodies, history chunks). */
  private async putAll(items: Item[]): Promise<void> {
    if (items.length === 0) return;
    if (items.length === 1) {
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: items[0], ReturnConsumedCapacity: 'INDEXES' }),
      );
      return;
    }
    await Promise.all(
      chunksOf(items, BATCH_WRITE_LIMIT).map(async (batch) => {
        let requests = batch.map((Item) => ({ PutRequest: { Item } }));
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
          const out = await this.doc.send(
            new BatchWriteCommand({
              RequestItems: { [this.table]: requests },
              ReturnConsumedCapacity: 'INDEXES',
            }),
          );
          requests = (out.UnprocessedItems?.[this.table] ?? []) as typeof requests;
          if (attempt >= 8 && requests.length) throw new Error('DynamoDB left items unprocessed');
        }
      }),
    );
  }

  private async batchGet(keys: Array<{ pk: unknown; sk: unknown }>, consistent = false): Promise<Item[]> {
    if (keys.length === 0) return [];
    const results = await Promise.all(
      chunksOf(keys, BATCH_GET_LIMIT).map(async (batch) => {
        const items: Item[] = [];
        let pending: Array<Record<string, unknown>> = batch;
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
          const out = await this.doc.send(
            new BatchGetCommand({
              RequestItems: { [this.table]: { Keys: pending, ConsistentRead: consistent } },
              ReturnConsumedCapacity: 'INDEXES',
            }),
          );
          items.push(...((out.Responses?.[this.table] ?? []) as Item[]));
          pending = (out.UnprocessedKeys?.[this.table]?.Keys ?? []) as typeof pending;
          if (attempt >= 8 && pending.length) throw new Error('DynamoDB left keys unprocessed');
        }
        return items;
      }),
    );
    return results.flat();
  }

  private async queryItems(input: QueryCommandInput, limit?: number): Promise<Item[]> {
    const items: Item[] = [];
    let start: Item | undefined;
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
      start = out.LastEvaluatedKey as Item | undefined;
    } while (start && (limit === undefined || items.length < limit));
    return items;
  }
}

/** The stored state is a short code: write conditions compare codes. */
const encodeState = (s: SynapseState): string => CODES.states[s];

const strip = (e: RecentEvent): TaskEvent => {
  const { detached: _d, ...rest } = e;
  return rest;
};

const chunksOf = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- page tokens ----
// A token only positions the caller inside its own partitions (the query's partitions come from the
// caller, never from the token), so a forged token cannot reach another tenant's tasks; the count it
// carries only feeds the caller's own totalSize. It is also bound to the query it was issued for: `q`, a
// hash of the tenant, the owner and the filters, must match the query it is presented with, so a token
// handed to another caller (another tenant, or another owner of the same tenant) or reused with other
// filters is refused instead of positioning that query.

const SORT_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#.{1,256}$/;

interface Cursor {
  /** The sort key (status or creation time, then task id) of the last task returned. */
  at: string;
  /** How many tasks the pages before held. */
  count: number;
}

/**
 * What a token is bound to: the first 12 hex digits of a SHA-256 of the caller (tenant, owner) and the
 * query's filters (context, states, status time bound), in a fixed form (states sorted, absent filters
 * null). Not a secret: it tells queries apart, it does not authenticate (a token never widens what its
 * query reads). The page size is not bound: a caller may change it between pages.
 */
export const pageTokenBinding = (
  query: Pick<ListTasksQuery, 'tenant' | 'owner' | 'contextId' | 'states' | 'statusAfter'>,
): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        query.tenant,
        query.owner,
        query.contextId ?? null,
        query.states?.length ? [...new Set(query.states)].sort() : null,
        query.statusAfter ?? null,
      ]),
    )
    .digest('hex')
    .slice(0, 12);

const encodeCursor = (query: ListTasksQuery, at: string, count: number): string =>
  Buffer.from(JSON.stringify({ at, n: count, q: pageTokenBinding(query) }), 'utf8').toString('base64url');

const decodeCursor = (token: string, query: ListTasksQuery): Cursor => {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      at?: unknown;
      n?: unknown;
      q?: unknown;
    };
    if (
      parsed &&
      typeof parsed.at === 'string' &&
      SORT_KEY.test(parsed.at) &&
      Number.isSafeInteger(parsed.n) &&
      (parsed.n as number) >= 0 &&
      typeof parsed.q === 'string' &&
      parsed.q === pageTokenBinding(query) &&
      Object.keys(parsed).length === 3
    )
      return { at: parsed.at, count: parsed.n as number };
  } catch {
    // fall through
  }
  throw new ValidationError('pageToken is not a token this server issued for this query', 'pageToken');
};
