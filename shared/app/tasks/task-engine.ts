/**
 * The task engine: read the task, let the domain decide, write conditionally;
 * when another writer won, re-decide on the task that won (never overwrite).
 * Several events may go in one write (a claim is confirm + start, an outcome
 * is its artifacts + complete): the write is conditioned on the state and
 * version the first was decided on, so the sequence applies whole or not at all.
 */

import { createHash } from 'node:crypto';
import {
  ConflictError,
  GenerationMismatchError,
  InvalidTransitionError,
  TaskNotFoundError,
  ValidationError,
} from '../../domain/errors.ts';
import { isRerunRelease } from '../../domain/heartbeat.ts';
import { canonicalJson } from '../../domain/json.ts';
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
} from '../../domain/task.ts';
import { allowedSources, decide } from '../../domain/transitions.ts';
import { type Clock, type IdGenerator, systemClock } from '../../ports/clock.ts';
import {
  type ReplyOutcome,
  StaleTaskError,
  type TaskRecord,
  type TaskRef,
  type TaskStore,
} from '../../ports/task-store.ts';
import { DEFAULT_MAX_REQUEST_DEADLINE_SECONDS, type DeadlineRules, deadlineSecondsFor } from './deadlines.ts';

/** A task still live after this long is failed by the expiry sweep (Synapse TaskTimeout; generous for A2A). */
export const DEFAULT_TASK_TIMEOUT_SECONDS = 3600;
/** Lambda's 15-minute maximum plus a margin: how long an executor's claim holds by default. */
export const DEFAULT_LEASE_SECONDS = 960;
/** A task recognises a retried requester message among its latest this many. */
export const RECENT_MESSAGE_KEYS = 8;
/** Events one write may carry (an outcome with many artifacts is written in several). */
export const MAX_EVENTS_PER_WRITE = 25;

export interface CreateTaskInput {
  tenant: string;
  owner: string;
  contextId?: string;
  role?: TaskRole;
  protocol?: TaskProtocol;
  /** Inbound tasks start pending (awaiting the executor's validation); outbound ones idle. */
  initialState?: 'pending' | 'idle';
  /** The requester's first message, recorded with the `created` event. */
  message?: Message;
  /**
   * Default: DEFAULT_TASK_TIMEOUT_SECONDS from now. The engine's deadline rules win when they say
   * something (the message's `synapse.deadlineSeconds`, its skill's or the agent's deadline).
   */
  deadlineAt?: string;
  metadata?: Record<string, unknown>;
  /**
   * The sender, to make the create idempotent: the task id is derived from the tenant, the sender and
   * the message (id and content), so a retried message finds the task it created.
   */
  dedupScope?: string;
  /** Events applied right after `created` in the same write (e.g. the validation answer and the claim). */
  then?: EventDraft[];
  /** Lease of a claim among `then` (default the engine's). */
  leaseSeconds?: number;
}

export interface ApplyOptions {
  /** The requester's message among the drafts is de-duplicated for this sender. */
  dedupScope?: string;
  /**
   * De-duplicates the drafts under this key instead (kept like a requester message's): a Synapse
   * peer's report, recognised by its message id (shared/app/synapse/requester.ts).
   */
  dedupKey?: string;
  maxAttempts?: number;
  /** The task as just read or written: saves a read (a lost race re-reads as usual). */
  seen?: TaskRecord;
  /** Lease of a claim (start / resume) among the drafts (default the engine's). */
  leaseSeconds?: number;
  /**
   * Checked on the task each attempt decides on (the one given or read, and the winner of each lost
   * race): when it fails, nothing is written and the apply is refused with InvalidTransitionError.
   * A run fences its writes with it (only while its own claim holds), and a heartbeat watch its verdict.
   */
  guard?: (record: TaskRecord) => boolean;
  /**
   * The version the requester wrote against (A2A `ifGenerationMatch`, docs/generations.md): checked on the
   * task each attempt decides on, after the retried-message check; another version refuses the apply with
   * GenerationMismatchError and nothing written. The commit's own condition (`v = seen`) then makes the
   * check and the write one: a writer that won meanwhile makes the next attempt see its version.
   */
  expectVersion?: number;
}

export interface ApplyResult {
  record: TaskRecord;
  head: TaskHead;
  /** The events written; empty when the drafts were a retried message that had already been applied. */
  events: TaskEvent[];
  duplicate: boolean;
}

export interface CreateResult {
  record: TaskRecord;
  head: TaskHead;
  /** True when the task existed already (the create was a retry): `record` is the task as it is. */
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
  /** How long an executor's claim (start / resume) holds before its run counts as lost. */
  leaseSeconds?: number;
  taskTimeoutSeconds?: number;
  /** Deadlines of new tasks (deadlines.ts); without it, only a requester's `synapse.deadlineSeconds`. */
  deadlines?: DeadlineRules;
}

export class TaskEngine {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly defaultMaxAttempts: number;
  private readonly observer: EngineObserver | undefined;
  private readonly leaseSeconds: number;
  private readonly taskTimeoutMs: number;
  private readonly deadlines: DeadlineRules;

  constructor(
    readonly store: TaskStore,
    private readonly options: TaskEngineOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.defaultMaxAttempts = options.maxAttempts ?? 25;
    this.observer = options.observer;
    this.leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    this.taskTimeoutMs = (options.taskTimeoutSeconds ?? DEFAULT_TASK_TIMEOUT_SECONDS) * 1000;
    this.deadlines = options.deadlines ?? { maxRequestSeconds: DEFAULT_MAX_REQUEST_DEADLINE_SECONDS };
  }

  /** The same engine (same store) with some options changed. */
  with(options: TaskEngineOptions): TaskEngine {
    return new TaskEngine(this.store, { ...this.options, ...options });
  }

  /** The id a create will use: derived from the message when it is de-duplicated, random otherwise. */
  taskIdFor(input: Pick<CreateTaskInput, 'tenant' | 'dedupScope' | 'message'>): string {
    return input.dedupScope && input.message
      ? derivedTaskId(input.tenant, input.dedupScope, input.message)
      : this.ids.taskId();
  }

  async create(input: CreateTaskInput, taskId = this.taskIdFor(input)): Promise<CreateResult> {
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
    const then = this.parseDrafts(input.then ?? []);
    const deadlineSeconds = deadlineSecondsFor(this.deadlines, input.message);
    const now = this.clock.now();
    const at = now.toISOString();
    const state = input.initialState ?? 'pending';
    const contextId = input.contextId ?? this.ids.contextId();
    const initial: TaskHead = {
      taskId,
      tenant: input.tenant,
      owner: input.owner,
      contextId,
      state,
      version: 1,
      role: input.role ?? 'executor',
      protocol: input.protocol ?? 'a2a',
      createdAt: at,
      statusAt: at,
      deadlineAt:
        deadlineSeconds !== undefined
          ? new Date(now.getTime() + deadlineSeconds * 1000).toISOString()
          : (input.deadlineAt ?? new Date(now.getTime() + this.taskTimeoutMs).toISOString()),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    };
    const created: TaskEvent = {
      taskId,
      tenant: initial.tenant,
      version: 1,
      type: 'created',
      from: null,
      to: state,
      at,
      ...(input.message ? { message: { ...input.message, taskId, contextId } } : {}),
    };
    const { head, events } = this.decideAll(initial, then, at, input.leaseSeconds);
    const outcome = await this.store.create(head, [created, ...events]);
    if (!outcome.created) return { record: outcome.record, head: outcome.record.head, duplicate: true };
    this.observer?.created(head);
    for (const e of events) this.observer?.transitioned(e);
    return { record: outcome.record, head, duplicate: false };
  }

  /**
   * Keeps the agent's message answering a new message, under the key the message's task would have had:
   * a retry gets the reply stored first; if the message made a task before, that task comes back.
   */
  async keepReply(input: {
    tenant: string;
    dedupScope: string;
    request: Message;
    reply: Message;
  }): Promise<ReplyOutcome> {
    const parsed = messageSchema.safeParse(input.reply);
    if (!parsed.success || input.reply.role !== 'agent')
      throw new ValidationError(
        `Invalid reply: ${parsed.error?.issues[0]?.message ?? 'role must be agent'}`,
        'reply',
      );
    assertWithin('reply', input.reply, MAX_EVENT_BYTES);
    return this.store.putReply({
      tenant: input.tenant,
      key: derivedTaskId(input.tenant, input.dedupScope, input.request),
      message: input.reply,
      createdAt: this.clock.now().toISOString(),
    });
  }

  /** Applies one event, or several in one write, re-deciding on conflict until they land, are refused, or attempts run out. */
  async apply(
    ref: TaskRef,
    input: EventDraft | unknown | readonly (EventDraft | unknown)[],
    options: ApplyOptions = {},
  ): Promise<ApplyResult> {
    const drafts = this.parseDrafts(Array.isArray(input) ? input : [input]);
    if (drafts.length === 0) throw new ValidationError('No event to apply', 'events');
    const maxAttempts = options.maxAttempts ?? this.defaultMaxAttempts;
    const requesterMessage = drafts.find((d) => d.message?.role === 'user')?.message;
    const key =
      options.dedupKey ??
      (options.dedupScope && requesterMessage ? messageKey(options.dedupScope, requesterMessage) : undefined);

    let record = options.seen ?? (await this.store.get(ref));
    for (let attempt = 1; ; attempt++) {
      if (!record || record.head.tenant !== ref.tenant) throw new TaskNotFoundError(ref.taskId);
      // a retried message: the task already has it, whatever state it has moved on to
      if (key && record.head.recentMessageKeys?.includes(key))
        return { record, head: record.head, events: [], duplicate: true };
      if (options.expectVersion !== undefined && record.head.version !== options.expectVersion)
        throw new GenerationMismatchError(ref.taskId, options.expectVersion, record.head.version);
      if (options.guard && !options.guard(record))
        throw new InvalidTransitionError(
          ref.taskId,
          record.head.state,
          drafts[0]!.type,
          `Task ${ref.taskId} moved on (${record.head.state}, version ${record.head.version}): "${drafts[0]!.type}" no longer applies`,
        );
      const at = this.timestampAfter(record.head.statusAt);
      const decided = this.decideAll(record.head, drafts, at, options.leaseSeconds);
      const next = key ? withMessageKey(decided.head, key) : decided.head;
      try {
        const written = await this.store.commit(
          record,
          next,
          decided.events,
          allowedSources(drafts[0]!.type),
        );
        for (const e of decided.events) this.observer?.transitioned(e);
        return { record: written, head: next, events: decided.events, duplicate: false };
      } catch (e) {
        if (!(e instanceof StaleTaskError)) throw e;
        this.observer?.conflictLost(ref);
        if (attempt >= maxAttempts) throw new ConflictError(ref.taskId, attempt);
        // back off a little once contention is obvious, so writers stop colliding in lockstep
        if (attempt > 2) await sleep(Math.random() * Math.min(50, 2 * attempt));
        record = e.current ?? (await this.store.get(ref));
      }
    }
  }

  private parseDrafts(inputs: readonly unknown[]): EventDraft[] {
    if (inputs.length > MAX_EVENTS_PER_WRITE)
      throw new ValidationError(`At most ${MAX_EVENTS_PER_WRITE} events go in one write`, 'events');
    return inputs.map((input) => {
      const draft = parseEventDraft(input);
      if (draft.message?.role === 'agent')
        assertWithin('status message', draft.message, MAX_STATUS_MESSAGE_BYTES);
      return draft;
    });
  }

  /** The events the drafts make from `head`, in order, and the head they lead to (throws when refused). */
  private decideAll(
    start: TaskHead,
    drafts: readonly EventDraft[],
    at: string,
    leaseSeconds = this.leaseSeconds,
  ): { head: TaskHead; events: TaskEvent[] } {
    let head = start;
    const events: TaskEvent[] = [];
    for (const draft of drafts) {
      const to = decide(head.taskId, head.state, draft.type);
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
        ...(draft.taskMetadata ? { taskMetadata: draft.taskMetadata } : {}),
      };
      head = nextHead(head, event, leaseSeconds);
      if (event.taskMetadata) assertWithin('task metadata', head.metadata, MAX_METADATA_BYTES);
      events.push(event);
    }
    return { head, events };
  }

  /** Event times never go backwards within a task, even if Lambdas' clocks disagree slightly. */
  private timestampAfter(previous: string): string {
    const now = this.clock.now().getTime();
    return new Date(Math.max(now, Date.parse(previous))).toISOString();
  }
}

/**
 * The head after `event`: state and version, status time and message, progress, metadata, the executor's
 * lease. A status update is a new status: it moves the status time, and its message (or none) replaces
 * the status message.
 */
const nextHead = (head: TaskHead, event: TaskEvent, leaseSeconds: number): TaskHead => {
  const stateChanged = event.to !== head.state;
  const agentMessage = event.message?.role === 'agent' ? event.message : undefined;
  const statusUpdate = event.type === 'status_update';
  const statusChanged =
    stateChanged || agentMessage !== undefined || event.progress !== undefined || statusUpdate;
  const next: TaskHead = { ...head, state: event.to, version: event.version };
  if (statusChanged) next.statusAt = event.at;
  if (agentMessage) {
    next.statusMessage = agentMessage;
    next.statusVersion = event.version;
  } else if (stateChanged || (statusUpdate && event.progress === undefined)) {
    delete next.statusMessage;
    delete next.statusVersion;
  }
  if (event.taskMetadata) next.metadata = { ...head.metadata, ...event.taskMetadata };
  if (event.progress !== undefined) next.progress = event.progress;
  // a claim starts the executor's lease (and a new run's heartbeat); leaving `executing` ends both
  if (event.type === 'start' || event.type === 'resume') {
    next.leaseUntil = new Date(Date.parse(event.at) + leaseSeconds * 1000).toISOString();
    delete next.heartbeatAt;
  } else if (event.to !== 'executing') {
    delete next.leaseUntil;
    delete next.heartbeatAt;
  }
  if (isRerunRelease(event)) next.reruns = (head.reruns ?? 0) + 1;
  if (event.type === 'push_config') next.pushConfigIds = pushConfigIdsAfter(head.pushConfigIds, event.data);
  return next;
};

/** A push_config event's data: `{set: id}` registers (or replaces) a config, `{deleted: id}` removes one. */
export const pushConfigIdsAfter = (ids: readonly string[] = [], data: TaskEvent['data']): string[] => {
  const set = typeof data?.set === 'string' ? data.set : undefined;
  const deleted = typeof data?.deleted === 'string' ? data.deleted : undefined;
  const kept = ids.filter((id) => id !== set && id !== deleted);
  return set ? [...kept, set] : kept;
};

const withMessageKey = (head: TaskHead, key: string): TaskHead => ({
  ...head,
  recentMessageKeys: [...(head.recentMessageKeys ?? []), key].slice(-RECENT_MESSAGE_KEYS),
});

/** What makes two messages the same message: the sender, the id, and what it says and where it goes. */
const messageHash = (scope: string, message: Message) =>
  createHash('sha256')
    .update(scope)
    .update('\0')
    .update(message.messageId)
    .update('\0')
    .update(canonicalJson([message.role, message.parts, message.contextId ?? null, message.taskId ?? null]));

/** The key by which a task recognises a retried requester message. */
export const messageKey = (scope: string, message: Message): string =>
  messageHash(scope, message).digest('base64url').slice(0, 16);

/**
 * A task created from a sender's message gets an id derived from the tenant, the sender and the
 * message (id and content): the conditional create is then itself the duplicate check. Formatted
 * as a UUID (version 8, "custom").
 */
export const derivedTaskId = (tenant: string, scope: string, message: Message): string => {
  const h = messageHash(scope, message).update('\0').update(tenant).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
