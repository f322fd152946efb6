/**
 * Ports: the small interfaces the use cases are written against. Adapters
 * (DynamoDB, SQS, EventBridge) implement them; unit tests may fake them.
 */
import type { SynapseState } from '../domain/states.ts';
import type { Message, TaskEvent, TaskHead, TaskSummary, TaskView } from '../domain/task.ts';

export interface TaskRef {
  tenant: string;
  taskId: string;
}

/**
 * One of a task's recent events as the store keeps it with the task. A `detached` event's
 * message or artifact is stored apart (it is large): read it through `TaskStore.events` or `view`
 * (a record the store just wrote still carries it).
 */
export type RecentEvent = TaskEvent & { detached?: DetachedPayload };

export interface DetachedPayload {
  kind: 'message' | 'artifact';
  /** The store's own reference to where the payload is. */
  ref: string;
}

/**
 * A task as read from (or written to) the store: its head and its most recent events, oldest
 * first and ending at `head.version`. Older events live in the store's history; a record is
 * handed back to `commit` so a transition needs no second read.
 */
export interface TaskRecord {
  head: TaskHead;
  recent: RecentEvent[];
  /** Notes the store made about its own layout when it produced the record; hand them back unchanged. */
  storage?: Readonly<Record<string, string>>;
}

export interface CreateOutcome {
  record: TaskRecord;
  /** False when a task with this id existed already: `record` is that task, unchanged. */
  created: boolean;
}

export interface ListTasksQuery {
  tenant: string;
  owner: string;
  contextId?: string;
  states?: readonly SynapseState[];
  /** Inclusive lower bound on statusAt (ISO 8601). */
  statusAfter?: string;
  pageSize: number;
  pageToken?: string;
  /**
   * Each listed task's version too (generations, docs/generations.md): a listing from an index that does not
   * project it reads the page's task items (one BatchGetItem) and shows them as they are.
   */
  withVersions?: boolean;
}

export interface ListTasksPage {
  tasks: TaskSummary[];
  nextPageToken: string;
  totalSize: number;
}

export interface ReadOptions {
  /** undefined: all messages; 0: none; N: the N most recent. */
  historyLength?: number;
  includeArtifacts?: boolean;
}

/**
 * A new message the agent answered with a message (no task). It is kept under the key the message's task
 * would have had, so a retry of the message finds it, and a message makes a task or a reply, never both.
 */
export interface StoredReply {
  tenant: string;
  /** The id the message's task would have had (derived from the message). */
  key: string;
  /** The agent's answer (role agent, with the context id). */
  message: Message;
  createdAt: string;
}

/** What the key of a replied message holds: the reply (this one or one stored before), or a task. */
export type ReplyOutcome = { reply: StoredReply; created: boolean } | { task: TaskRecord };

export interface TaskStore {
  /**
   * Writes a new task (head and first events) with one conditional write. The task id is the
   * idempotency key: when it exists already, nothing is written and the existing task comes back.
   */
  create(head: TaskHead, events: TaskEvent[]): Promise<CreateOutcome>;
  /**
   * Appends `events` and sets `next` as the head, with one conditional write on the version (and
   * allowed states) of `seen`; throws StaleTaskError with the task as it is when another writer won.
   */
  commit(
    seen: TaskRecord,
    next: TaskHead,
    events: TaskEvent[],
    allowedFrom: readonly SynapseState[],
  ): Promise<TaskRecord>;
  get(ref: TaskRef): Promise<TaskRecord | undefined>;
  /**
   * Keeps a reply under its message's key with one conditional write: when the key holds a reply already
   * (a retry), that one comes back; when it holds a task (the message made one before), the task does.
   */
  putReply(reply: StoredReply): Promise<ReplyOutcome>;
  /** History and artifacts of a task as recorded; reads only what the record does not hold. */
  view(record: TaskRecord, options: ReadOptions): Promise<TaskView>;
  /** Events with version > afterVersion, oldest first, with their content. */
  events(record: TaskRecord, afterVersion: number, limit?: number): Promise<TaskEvent[]>;
  list(query: ListTasksQuery): Promise<ListTasksPage>;
  /** Live tasks whose deadline is at or before `now` (ISO 8601), across all deadline shards. */
  dueDeadlines(now: string, limitPerShard: number): Promise<TaskRef[]>;
}

/** Raised by `create` when the task's key holds a reply: the message was answered with a message before. */
export class MessageAnsweredError extends Error {
  constructor(readonly reply: StoredReply) {
    super('this message was answered with a message, not a task');
  }
}

/** Raised by a store when the conditional write lost: `current` is the task as it is now (if it exists). */
export class StaleTaskError extends Error {
  constructor(readonly current: TaskRecord | undefined) {
    super('task changed since it was read');
  }
}
