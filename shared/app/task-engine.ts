/**
 * The task engine: read the head, let the domain decide, write conditionally;
 * when another writer won, re-decide on the head that won (never overwrite).
 */

import { createHash } from 'node:crypto';
import {
  ConflictError,
  DuplicateMessageError,
  TaskNotFoundError,
  ValidationError,
} from '../domain/errors.ts';
import {
  assertWithin,
  type EventDraft,
  MAX_EVENT_BYTES,
  MAX_METADATA_BYTES,
  MAX_STATUS_MESSAGE_BYTES,
  type Message,
  messageSchema,
  parseEventDraft,
  type TaskEvent,
  type TaskHead,
  type TaskProtocol,
  type TaskRole,
} from '../domain/task.ts';
import { allowedSources, decide } from '../domain/transitions.ts';
import {
  type Clock,
  type DedupKey,
  type DedupRecord,
  type IdGenerator,
  type OutboxItem,
  StaleHeadError,
  systemClock,
  type TaskRef,
  type TaskStore,
} from './ports.ts';

export interface CreateTaskInput {
  tenant: string;
  owner: string;
  contextId?: string;
  role?: TaskRole;
  protocol?: TaskProtocol;
  /** Inbound tasks start pending (awaiting the executor's validation); outbound ones idle. */
  initialState?: 'pending' | 'idle';
  /** The requester's first message, recorded as event 1. */
  message?: Message;
  deadlineAt?: string;
  metadata?: Record<string, unknown>;
  /** De-duplicate on this sender's message id. */
  dedupScope?: string;
}

export interface ApplyOptions {
  /** De-duplicate on this sender's message id (taken from draft.message). */
  dedupScope?: string;
  outbox?: OutboxItem[];
  maxAttempts?: number;
  /** A head the caller has just read: saves the first read (a lost race re-reads as usual). */
  seen?: TaskHead;
}

export interface ApplyResult {
  head: TaskHead;
  /** Undefined when the draft was a duplicate that had already been applied. */
  event?: TaskEvent;
  duplicate: boolean;
}

export const randomIds: IdGenerator = {
  taskId: () => crypto.randomUUID(),
  contextId: () => crypto.randomUUID(),
  messageId: () => crypto.randomUUID(),
};

const INITIAL_STATES: readonly string[] = ['pending', 'idle'];
const TENANT_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Told what the engine did, for metrics; the engine itself knows nothing of CloudWatch. */
export interface EngineObserver {
  created(head: TaskHead): void;
  transitioned(event: TaskEvent): void;
  conflictLost(ref: TaskRef): void;
}

export interface TaskEngineOptions {
  clock?: Clock;
  ids?: IdGenerator;
  /** Conditional-write attempts before a ConflictError (default 25). */
  maxAttempts?: number;
  observer?: EngineObserver;
  /** How long an executor's claim (start / resume) holds before the sweeper may declare the run lost. */
  leaseSeconds?: number;
}

/** Lambda's 15-minute maximum plus a margin. */
export const DEFAULT_LEASE_SECONDS = 960;

export class TaskEngine {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly defaultMaxAttempts: number;
  private readonly observer: EngineObserver | undefined;
  private readonly leaseMs: number;

  constructor(
    readonly store: TaskStore,
    options: TaskEngineOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.defaultMaxAttempts = options.maxAttempts ?? 25;
    this.observer = options.observer;
    this.leaseMs = (options.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  }

  async create(input: CreateTaskInput): Promise<{ head: TaskHead; duplicate: boolean }> {
    if (!TENANT_PATTERN.test(input.tenant))
      throw new ValidationError('tenant must match [A-Za-z0-9._:-]{1,128}', 'tenant');
    if (input.message) {
      const parsed = messageSchema.safeParse(input.message);
      if (!parsed.success)
        throw new ValidationError(`Invalid message: ${parsed.error.issues[0]?.message}`, 'message');
      assertWithin('message', input.message, MAX_EVENT_BYTES);
    }
    if (input.metadata) assertWithin('metadata', input.metadata, MAX_METADATA_BYTES);
    if (input.initialState !== undefined && !INITIAL_STATES.includes(input.initialState)) {
      throw new ValidationError(
        `A task starts as ${INITIAL_STATES.join(' or ')}, not "${input.initialState}"`,
        'state',
      );
    }
    const now = this.clock.now().toISOString();
    const taskId = this.ids.taskId();
    const state = input.initialState ?? 'pending';
    const head: TaskHead = {
      taskId,
      tenant: input.tenant,
      owner: input.owner,
      contextId: input.contextId ?? this.ids.contextId(),
      state,
      version: 1,
      role: input.role ?? 'executor',
      protocol: input.protocol ?? 'a2a',
      createdAt: now,
      statusAt: now,
      ...(input.deadlineAt ? { deadlineAt: input.deadlineAt } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    };
    const created: TaskEvent = {
      taskId,
      tenant: head.tenant,
      version: 1,
      type: 'created',
      from: null,
      to: state,
      at: now,
      ...(input.message ? { message: { ...input.message, taskId, contextId: head.contextId } } : {}),
    };
    const dedup =
      input.dedupScope && input.message ? dedupKey(input.tenant, input.dedupScope, input.message) : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.store.create(head, [created], dedup);
        this.observer?.created(head);
        return { head, duplicate: false };
      } catch (e) {
        if (!dedup) throw e;
        // a duplicate, or a concurrent writer of the same message id (TransactionConflict): look it up
        const seen =
          e instanceof DuplicateMessageError
            ? { taskId: e.taskId, fingerprint: e.fingerprint }
            : e instanceof StaleHeadError
              ? await this.store.findDedup(dedup)
              : undefined;
        if (!seen) {
          // the concurrent writer may not have committed yet, or both lost: try again
          if (e instanceof StaleHeadError && attempt < 3) {
            await sleep(10 * attempt * Math.random());
            continue;
          }
          throw e instanceof StaleHeadError ? new ConflictError(taskId, attempt) : e;
        }
        assertSameMessage(dedup, seen);
        const existing = await this.store.getHead({ tenant: input.tenant, taskId: seen.taskId });
        if (!existing) throw new TaskNotFoundError(seen.taskId);
        return { head: existing, duplicate: true };
      }
    }
  }

  /** Apply one event to a task, re-deciding on conflict until it lands, is refused, or attempts run out. */
  async apply(ref: TaskRef, input: EventDraft | unknown, options: ApplyOptions = {}): Promise<ApplyResult> {
    const draft = parseEventDraft(input);
    if (draft.message?.role === 'agent')
      assertWithin('status message', draft.message, MAX_STATUS_MESSAGE_BYTES);
    const maxAttempts = options.maxAttempts ?? this.defaultMaxAttempts;
    const dedup =
      options.dedupScope && draft.message
        ? dedupKey(ref.tenant, options.dedupScope, draft.message)
        : undefined;

    let head = options.seen ?? (await this.store.getHead(ref));
    for (let attempt = 1; ; attempt++) {
      if (!head) throw new TaskNotFoundError(ref.taskId);
      let to: ReturnType<typeof decide>;
      try {
        to = decide(ref.taskId, head.state, draft.type);
      } catch (refused) {
        // a retried message finds the task already moved on by its first delivery: that is a duplicate
        const seen = dedup ? await this.store.findDedup(dedup) : undefined;
        if (!seen) throw refused;
        return this.duplicateOf(ref, dedup!, seen);
      }
      const at = this.timestampAfter(head.statusAt);
      const event: TaskEvent = {
        taskId: head.taskId,
        tenant: head.tenant,
        version: head.version + 1,
        type: draft.type,
        from: head.state,
        to,
        at,
        ...(draft.message
          ? { message: { ...draft.message, taskId: head.taskId, contextId: head.contextId } }
          : {}),
        ...(draft.artifact ? { artifact: draft.artifact } : {}),
        ...(draft.progress !== undefined ? { progress: draft.progress } : {}),
        ...(draft.reason ? { reason: draft.reason } : {}),
        ...(draft.data ? { data: draft.data } : {}),
      };
      const next = this.nextHead(head, event);
      try {
        await this.store.append({
          seen: head,
          next,
          event,
          allowedFrom: allowedSources(draft.type),
          ...(dedup ? { dedup } : {}),
          ...(options.outbox ? { outbox: options.outbox } : {}),
        });
        this.observer?.transitioned(event);
        return { head: next, event, duplicate: false };
      } catch (e) {
        if (e instanceof DuplicateMessageError && dedup) {
          return this.duplicateOf(ref, dedup, { taskId: e.taskId, fingerprint: e.fingerprint });
        }
        if (!(e instanceof StaleHeadError)) throw e;
        this.observer?.conflictLost(ref);
        if (attempt >= maxAttempts) throw new ConflictError(ref.taskId, attempt);
        // back off a little once contention is obvious, so writers stop colliding in lockstep
        if (attempt > 2) await sleep(Math.random() * Math.min(50, 2 * attempt));
        head = e.current && e.current.tenant === ref.tenant ? e.current : await this.store.getHead(ref);
      }
    }
  }

  private async duplicateOf(ref: TaskRef, dedup: DedupKey, seen: DedupRecord): Promise<ApplyResult> {
    assertSameMessage(dedup, seen);
    if (seen.taskId !== ref.taskId) {
      throw new ValidationError(
        `messageId ${dedup.messageId} was already used for another task; send each message with a new id`,
        'message.messageId',
      );
    }
    const current = await this.store.getHead(ref);
    if (!current) throw new TaskNotFoundError(ref.taskId);
    return { head: current, duplicate: true };
  }

  private nextHead(head: TaskHead, event: TaskEvent): TaskHead {
    const stateChanged = event.to !== head.state;
    const agentMessage = event.message?.role === 'agent' ? event.message : undefined;
    const statusChanged = stateChanged || agentMessage !== undefined || event.progress !== undefined;
    const next: TaskHead = { ...head, state: event.to, version: event.version };
    if (statusChanged) next.statusAt = event.at;
    if (agentMessage) next.statusMessage = agentMessage;
    else if (stateChanged) delete next.statusMessage;
    if (event.progress !== undefined) next.progress = event.progress;
    // a claim starts the executor's lease; leaving `executing` ends it
    if (event.type === 'start' || event.type === 'resume') {
      next.leaseUntil = new Date(Date.parse(event.at) + this.leaseMs).toISOString();
    } else if (event.to !== 'executing') delete next.leaseUntil;
    return next;
  }

  /** Event times never go backwards within a task, even if Lambdas' clocks disagree slightly. */
  private timestampAfter(previous: string): string {
    const now = this.clock.now().getTime();
    return new Date(Math.max(now, Date.parse(previous))).toISOString();
  }
}

/** Canonical JSON (sorted keys), so a re-sent message hashes the same whatever its key order. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : value && typeof value === 'object'
      ? `{${Object.keys(value)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : (JSON.stringify(value) ?? 'null');

/** The de-duplication key of a sender's message: its id, and a hash of what it says and where it goes. */
export const dedupKey = (tenant: string, scope: string, message: Message): DedupKey => ({
  tenant,
  scope,
  messageId: message.messageId,
  fingerprint: createHash('sha256')
    .update(canonical([message.role, message.parts, message.contextId ?? null, message.taskId ?? null]))
    .digest('base64url'),
});

export const assertSameMessage = (key: DedupKey, seen: DedupRecord): void => {
  if (seen.fingerprint && key.fingerprint && seen.fingerprint !== key.fingerprint) {
    throw new ValidationError(
      `messageId ${key.messageId} was already used for a different message; send each message with a new id`,
      'message.messageId',
    );
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
