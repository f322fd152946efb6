/**
 * TaskStore (and LivenessWriter) in memory: the twin of DynamoTaskStore (shared/adapters/dynamodb/task-store.ts)
 * for unit tests and a single process. The same contract (test/contract/task-store.ts): a create is
 * idempotent by the task id (a reply under that key refuses it: MessageAnsweredError); a commit is
 * conditional on the version and the allowed states of the task it was decided on, and a lost one throws
 * StaleTaskError with the task as it is; every read is scoped to the caller's tenant; listings page with
 * tokens bound to their query, newest status first (by owner) or newest creation first (in a context).
 *
 * What DynamoDB adds is not modelled: item sizes and what a write costs, detached payloads and history
 * chunks, index shards, eventual consistency. A record carries its task's `recentEvents` latest events (as
 * the task item does); older ones are read through `view` and `events`, so code that reads them is
 * exercised here too. Everything is kept as JSON (json.ts), a copy in and a copy out.
 *
 * Its change feed (`takeChanges`) is the twin of the table's stream as the relay reads it
 * (shared/adapters/dynamodb/stream.ts): one TaskChange per create and commit, in commit order, each taken
 * once; a liveness write, which moves no version, and a reply, which is no task, make none.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../../domain/errors.ts';
import { isTerminal, type SynapseState, toA2AState } from '../../domain/states.ts';
import {
  type ArtifactChunk,
  type Message,
  reduceArtifacts,
  type TaskEvent,
  type TaskHead,
  type TaskSummary,
  type TaskView,
} from '../../domain/task.ts';
import type { BeatResult, LivenessWriter } from '../../ports/liveness-writer.ts';
import type { TaskChange } from '../../ports/task-changes.ts';
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
import { stored } from './json.ts';

export interface InMemoryTaskStoreOptions {
  /** How many of its latest events a record carries (the task item's log); default 8, at least 1. */
  recentEvents?: number;
}

interface StoredTask {
  kind: 'task';
  head: TaskHead;
  /** Every event, oldest first: version i + 1 at index i. */
  events: TaskEvent[];
}

interface StoredReplyEntry {
  kind: 'reply';
  reply: StoredReply;
}

const keyOf = (tenant: string, taskId: string): string => JSON.stringify([tenant, taskId]);

export class InMemoryTaskStore implements TaskStore, LivenessWriter {
  readonly #entries = new Map<string, StoredTask | StoredReplyEntry>();
  readonly #recentEvents: number;
  readonly #changes: TaskChange[] = [];
  #sequence = 0;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#recentEvents = Math.max(1, options.recentEvents ?? 8);
  }

  /** Tasks held (replies not counted). */
  get size(): number {
    let n = 0;
    for (const entry of this.#entries.values()) if (entry.kind === 'task') n++;
    return n;
  }

  async create(head: TaskHead, events: TaskEvent[]): Promise<CreateOutcome> {
    const key = keyOf(head.tenant, head.taskId);
    const existing = this.#entries.get(key);
    if (existing?.kind === 'reply') throw new MessageAnsweredError(stored(existing.reply));
    if (existing) return { record: this.#recordOf(existing), created: false };
    const task: StoredTask = { kind: 'task', head: stored(head), events: stored(events) };
    this.#entries.set(key, task);
    this.#changed(undefined, task, task.events);
    return { record: this.#recordOf(task), created: true };
  }

  async commit(
    seen: TaskRecord,
    next: TaskHead,
    events: TaskEvent[],
    allowedFrom: readonly SynapseState[],
  ): Promise<TaskRecord> {
    const key = keyOf(seen.head.tenant, seen.head.taskId);
    const current = this.#entries.get(key);
    if (current?.kind !== 'task') throw new StaleTaskError(undefined);
    if (current.head.version !== seen.head.version || !allowedFrom.includes(current.head.state))
      throw new StaleTaskError(this.#recordOf(current));
    const appended = stored(events);
    const task: StoredTask = { kind: 'task', head: stored(next), events: [...current.events, ...appended] };
    this.#entries.set(key, task);
    this.#changed(current.head, task, appended);
    return this.#recordOf(task);
  }

  /** The liveness write: `heartbeatAt` moves on while the task is at `seen`'s version and state. */
  async beat(seen: TaskRecord, at: string): Promise<BeatResult> {
    const current = this.#entries.get(keyOf(seen.head.tenant, seen.head.taskId));
    if (current?.kind !== 'task') return { written: false };
    if (current.head.version !== seen.head.version || current.head.state !== seen.head.state)
      return { written: false, current: this.#recordOf(current) };
    current.head = stored({ ...seen.head, heartbeatAt: at });
    return { written: true };
  }

  async get(ref: TaskRef): Promise<TaskRecord | undefined> {
    const entry = this.#entries.get(keyOf(ref.tenant, ref.taskId));
    return entry?.kind === 'task' ? this.#recordOf(entry) : undefined;
  }

  async putReply(reply: StoredReply): Promise<ReplyOutcome> {
    const key = keyOf(reply.tenant, reply.key);
    const existing = this.#entries.get(key);
    if (existing?.kind === 'reply') return { reply: stored(existing.reply), created: false };
    if (existing) return { task: this.#recordOf(existing) };
    this.#entries.set(key, { kind: 'reply', reply: stored(reply) });
    return { reply, created: true };
  }

  async view(record: TaskRecord, options: ReadOptions): Promise<TaskView> {
    const events = this.#eventsOf(record);
    const messages = events.flatMap((e) => (e.message ? [e.message] : []));
    const wanted = options.historyLength;
    const history = wanted === undefined ? messages : wanted === 0 ? [] : messages.slice(-wanted);
    const artifacts: ArtifactChunk[] = options.includeArtifacts
      ? events.flatMap((e) => (e.artifact ? [e.artifact] : []))
      : [];
    return stored({
      head: record.head,
      history: history as Message[],
      artifacts: reduceArtifacts(artifacts),
    });
  }

  async events(record: TaskRecord, afterVersion: number, limit?: number): Promise<TaskEvent[]> {
    const after = this.#eventsOf(record).filter((e) => e.version > afterVersion);
    return stored(limit === undefined ? after : after.slice(0, limit));
  }

  async list(query: ListTasksQuery): Promise<ListTasksPage> {
    return query.contextId !== undefined ? this.#listContext(query) : this.#listOwner(query);
  }

  async dueDeadlines(now: string, limitPerShard: number): Promise<TaskRef[]> {
    // one shard: `limitPerShard` bounds the whole answer
    return this.#tasks()
      .filter((t) => !isTerminal(t.head.state) && t.head.deadlineAt <= now)
      .sort((a, b) =>
        a.head.deadlineAt < b.head.deadlineAt ? -1 : a.head.deadlineAt > b.head.deadlineAt ? 1 : 0,
      )
      .slice(0, Math.max(0, limitPerShard))
      .map((t) => ({ tenant: t.head.tenant, taskId: t.head.taskId }));
  }

  /** The changes committed since the last take, oldest first (the stream the relay reads). */
  takeChanges(): TaskChange[] {
    return this.#changes.splice(0, this.#changes.length);
  }

  #changed(before: TaskHead | undefined, after: StoredTask, events: TaskEvent[]): void {
    this.#changes.push(
      stored({
        sequence: String(++this.#sequence),
        ...(before ? { before } : {}),
        after: this.#recordOf(after),
        events,
      }),
    );
  }

  // ---- records and events ----

  #recordOf(task: StoredTask): TaskRecord {
    return stored({ head: task.head, recent: task.events.slice(-this.#recentEvents) });
  }

  /**
   * The events up to the record's version: the record's own recent ones, and before them the stored ones
   * (an event, once committed, never changes). Without `detached` notes: this store keeps every payload.
   */
  #eventsOf(record: TaskRecord): TaskEvent[] {
    const { head } = record;
    const recent = record.recent.map(strip);
    const firstRecent = recent[0]?.version ?? head.version + 1;
    const entry = this.#entries.get(keyOf(head.tenant, head.taskId));
    const older =
      entry?.kind === 'task'
        ? entry.events.filter((e) => e.version < firstRecent && e.version <= head.version)
        : [];
    return [...older, ...recent];
  }

  #tasks(): StoredTask[] {
    return [...this.#entries.values()].filter((e): e is StoredTask => e.kind === 'task');
  }

  // ---- listing (as DynamoTaskStore lists: see its comments) ----

  /** By owner, newest status first; a status filter matches the A2A states of the states asked for. */
  #listOwner(query: ListTasksQuery): ListTasksPage {
    const cursor = query.pageToken ? decodeCursor(query.pageToken, query) : undefined;
    const before = cursor?.count ?? 0;
    if (cursor && query.statusAfter && cursor.at < query.statusAfter)
      return { tasks: [], nextPageToken: '', totalSize: before };
    const a2a = query.states?.length ? new Set(query.states.map(toA2AState)) : undefined;
    const matches = this.#tasks()
      .filter(
        (t) =>
          t.head.tenant === query.tenant &&
          t.head.owner === query.owner &&
          (!a2a || a2a.has(toA2AState(t.head.state))),
      )
      .map((t) => ({ head: t.head, sort: sortKey(t.head.statusAt, t.head.taskId) }))
      .filter((t) => (!query.statusAfter || t.sort >= query.statusAfter) && (!cursor || t.sort < cursor.at))
      .sort(newestFirst);
    const page = matches.slice(0, query.pageSize);
    const last = page.at(-1);
    const more = matches.length > query.pageSize && last !== undefined;
    // with versions, the states asked for exactly (a listing of task items does that)
    const tasks = query.withVersions
      ? page
          .filter((t) => !query.states?.length || query.states.includes(t.head.state))
          .map((t) => summaryOf(t.head, true))
      : page.map((t) => summaryOf(t.head, false));
    return {
      tasks,
      nextPageToken: more ? encodeCursor(query, last.sort, before + tasks.length) : '',
      totalSize: before + tasks.length + (more ? 1 : 0),
    };
  }

  /** In one context, newest creation first; filters apply to each page (which may then hold fewer). */
  #listContext(query: ListTasksQuery): ListTasksPage {
    const cursor = query.pageToken ? decodeCursor(query.pageToken, query) : undefined;
    const before = cursor?.count ?? 0;
    const inContext = this.#tasks()
      .filter(
        (t) =>
          t.head.tenant === query.tenant &&
          t.head.owner === query.owner &&
          t.head.contextId === query.contextId,
      )
      .map((t) => ({ head: t.head, sort: sortKey(t.head.createdAt, t.head.taskId) }))
      .filter((t) => !cursor || t.sort < cursor.at)
      .sort(newestFirst);
    const page = inContext.slice(0, query.pageSize);
    const last = page.at(-1);
    const more = inContext.length > query.pageSize && last !== undefined;
    const filtered = Boolean(query.states?.length || query.statusAfter);
    const tasks = page
      .filter(
        (t) =>
          (!query.states?.length || query.states.includes(t.head.state)) &&
          (!query.statusAfter || t.head.statusAt >= query.statusAfter),
      )
      .map((t) => summaryOf(t.head, true));
    return {
      tasks,
      nextPageToken: more ? encodeCursor(query, last.sort, before + tasks.length) : '',
      totalSize: before + tasks.length + (more && !filtered ? 1 : 0),
    };
  }
}

const strip = (e: RecentEvent): TaskEvent => {
  const { detached: _d, ...rest } = e;
  return rest;
};

const sortKey = (at: string, taskId: string): string => `${at}#${taskId}`;

const newestFirst = (a: { sort: string }, b: { sort: string }): number =>
  a.sort < b.sort ? 1 : a.sort > b.sort ? -1 : 0;

/** What a list shows of a task; its version when a task item is read (not from the owner index). */
const summaryOf = (head: TaskHead, withVersion: boolean): TaskSummary =>
  stored({
    taskId: head.taskId,
    tenant: head.tenant,
    owner: head.owner,
    contextId: head.contextId,
    state: head.state,
    createdAt: head.createdAt,
    statusAt: head.statusAt,
    ...(withVersion ? { version: head.version } : {}),
    ...(head.statusVersion !== undefined ? { statusVersion: head.statusVersion } : {}),
    ...(head.statusMessage ? { statusMessage: head.statusMessage } : {}),
    ...(head.progress !== undefined ? { progress: head.progress } : {}),
    ...(head.metadata ? { metadata: head.metadata } : {}),
  });

// ---- page tokens: a position (sort key), the count before it, and the query it is bound to ----

const SORT_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#.{1,256}$/;

const binding = (query: ListTasksQuery): string =>
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
  Buffer.from(JSON.stringify({ at, n: count, q: binding(query) }), 'utf8').toString('base64url');

const decodeCursor = (token: string, query: ListTasksQuery): { at: string; count: number } => {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (
      parsed &&
      typeof parsed.at === 'string' &&
      SORT_KEY.test(parsed.at) &&
      Number.isSafeInteger(parsed.n) &&
      (parsed.n as number) >= 0 &&
      parsed.q === binding(query) &&
      Object.keys(parsed).length === 3
    )
      return { at: parsed.at, count: parsed.n as number };
  } catch {
    // fall through
  }
  throw new ValidationError('pageToken is not a token this server issued for this query', 'pageToken');
};
