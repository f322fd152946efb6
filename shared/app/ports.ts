/**
 * Ports: the small interfaces the use cases are written against. Adapters
 * (DynamoDB, SQS, HTTP) implement them; unit tests may fake them.
 */
import type { SynapseState } from '../domain/states.ts';
import type { Message, TaskEvent, TaskHead, TaskView } from '../domain/task.ts';

export interface TaskRef {
  tenant: string;
  taskId: string;
}

/** Scope of message-id de-duplication: one sender's message ids within a tenant. */
export interface DedupKey {
  tenant: string;
  scope: string;
  messageId: string;
  /** Hash of the message content: the same id with other content is a client error, not a duplicate. */
  fingerprint?: string;
}

export interface DedupRecord {
  taskId: string;
  fingerprint?: string;
}

/** A delivery to make after the transition commits (callback, push, executor run). */
export interface OutboxItem {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
}

export interface AppendRequest {
  /** The head as read; the write is conditioned on its version. */
  seen: TaskHead;
  next: TaskHead;
  event: TaskEvent;
  /** States the event may be applied in: part of the write condition. */
  allowedFrom: readonly SynapseState[];
  dedup?: DedupKey;
  outbox?: OutboxItem[];
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
}

export interface ListTasksPage {
  heads: TaskHead[];
  nextPageToken: string;
  totalSize: number;
}

export interface ReadOptions {
  /** undefined: all messages; 0: none; N: the N most recent. */
  historyLength?: number;
  includeArtifacts?: boolean;
}

export interface TaskStore {
  /** Writes the head and its first events atomically; fails if the id exists or `dedup` was seen. */
  create(head: TaskHead, events: TaskEvent[], dedup?: DedupKey): Promise<void>;
  /** One conditional transaction; throws StaleHeadError when the head moved, DuplicateMessageError on a seen dedup key. */
  append(request: AppendRequest): Promise<void>;
  getHead(ref: TaskRef): Promise<TaskHead | undefined>;
  read(ref: TaskRef, options: ReadOptions): Promise<TaskView | undefined>;
  /** Events with version > afterVersion, oldest first. */
  events(ref: TaskRef, afterVersion: number, limit?: number): Promise<TaskEvent[]>;
  list(query: ListTasksQuery): Promise<ListTasksPage>;
  /** Live tasks whose deadline is at or before `now`, across all deadline shards. */
  dueDeadlines(now: string, limitPerShard: number): Promise<TaskRef[]>;
  /** Where a message id was applied, if it was. */
  findDedup(key: DedupKey): Promise<DedupRecord | undefined>;
}

/** Raised by a store when the conditional write lost: `current` is the head that won (if it still exists). */
export class StaleHeadError extends Error {
  constructor(readonly current: TaskHead | undefined) {
    super('task head changed since it was read');
  }
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface IdGenerator {
  taskId(): string;
  contextId(): string;
  messageId(): string;
}

/** Hands a task to the executor (an SQS queue in production and locally). */
export interface ExecutorQueue {
  enqueue(run: ExecutorRun): Promise<void>;
}

export interface ExecutorRun {
  tenant: string;
  taskId: string;
  /** The head version that asked for the run; a stale run is dropped by the claim. */
  version: number;
}

export type { Message };
