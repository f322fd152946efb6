/**
 * How a task is laid out in the table (docs/storage.md): the mapping between
 * the domain's TaskRecord and the items, and the plan of one write (which
 * payloads are kept apart, which committed events spill into history
 * chunks). Pure: no I/O, so the store, the stream relay and the tests share it.
 *
 * Attribute names are short on purpose: a write costs one unit per KB of the
 * item, and a small task's item stays inside one KB.
 *
 * What a task carries (its event log, messages, artifacts, metadata) is stored
 * as JSON text, not as DynamoDB maps: any JSON value comes back exactly as it
 * was given (numbers beyond DynamoDB's range or 38 digits, empty keys, nesting
 * deeper than DynamoDB's 32 levels), and no attribute name costs a byte per
 * item. Items written as maps by an earlier version are still read.
 */
import { createHash } from 'node:crypto';
import { PayloadTooLargeError } from '../../domain/errors.ts';
import { isTerminal, type SynapseState } from '../../domain/states.ts';
import type {
  ArtifactChunk,
  EventType,
  Message,
  TaskEvent,
  TaskHead,
  TaskSummary,
} from '../../domain/task.ts';
import type { RecentEvent, StoredReply, TaskRecord } from '../../ports/task-store.ts';
import { itemSize, READ_UNIT_BYTES, WRITE_UNIT_BYTES, writeUnits } from './item-size.ts';
import {
  bodySk,
  type ChunkKind,
  chunkSk,
  contextPartition,
  contextShard,
  contextSort,
  deadlinePartition,
  deadlineShard,
  ownerPartition,
  ownerShard,
  ownerSort,
  statusAtOfOwnerSort,
  TASK_SK,
  type TaskKeyRef,
  taskPk,
  taskRefOfPk,
} from './keys.ts';

export type Item = Record<string, unknown>;

/** Payloads (a message or an artifact chunk) larger than this, as JSON, are kept in a body item. */
export const INLINE_PAYLOAD_BYTES = 300;
/** Inline payload bytes one write may add to the log; its other payloads go to body items. */
export const WRITE_INLINE_BYTES = 600;
/** Once the task's item would pass this size, its committed events spill into history chunks. */
export const ITEM_TARGET_BYTES = WRITE_UNIT_BYTES;
/**
 * The most one write may leave in the task's item, well under DynamoDB's 400 KB: payloads are kept apart
 * and history spills, so only a write of many events that each carry the most data and reason could
 * pass it; such a write is refused whole (a typed error, nothing written) instead of failing in DynamoDB.
 */
export const MAX_ITEM_BYTES = 300 * 1024;

// Stable short codes for event types and states (stored data: add codes, never change one).
const EVENT_CODES: Readonly<Record<EventType, string>> = {
  created: 'cr',
  submit: 'sb',
  confirm: 'co',
  reject: 'rj',
  start: 'st',
  resume: 'rs',
  need_info: 'ni',
  info_provided: 'ip',
  need_human: 'nh',
  human_deciding: 'hd',
  human_approve: 'ha',
  human_reject: 'hr',
  status_update: 'su',
  artifact: 'ar',
  complete: 'cp',
  fail: 'fa',
  cancel: 'ca',
  timeout: 'to',
  heartbeat_lost: 'hl',
  release: 're',
  push_config: 'pn',
};
const STATE_CODES: Readonly<Record<SynapseState, string>> = {
  idle: 'id',
  pending: 'pe',
  confirmed: 'cf',
  executing: 'ex',
  info_needed: 'in',
  info_provided: 'ip',
  need_human: 'nh',
  human_deciding: 'hd',
  human_approved: 'ha',
  human_rejected: 'hr',
  completed: 'co',
  failed: 'fa',
  cancelled: 'ca',
  rejected: 'rj',
};
export const CODES = { events: EVENT_CODES, states: STATE_CODES };

const invert = <K extends string>(codes: Readonly<Record<K, string>>): ReadonlyMap<string, K> =>
  new Map(Object.entries(codes).map(([k, c]) => [c as string, k as K]));
const EVENT_OF = invert(EVENT_CODES);
const STATE_OF = invert(STATE_CODES);

const eventType = (code: unknown): EventType => {
  const t = EVENT_OF.get(String(code));
  if (!t) throw new Error(`stored event has an unknown type code ${String(code)}`);
  return t;
};
const stateOf = (code: unknown): SynapseState => {
  const s = STATE_OF.get(String(code));
  if (!s) throw new Error(`stored task has an unknown state code ${String(code)}`);
  return s;
};

/** Where a spilled event goes: messages make the history, artifacts the outputs, the rest the status trail. */
export const kindOf = (e: RecentEvent): ChunkKind =>
  e.message || e.detached?.kind === 'message'
    ? 'M'
    : e.artifact || e.detached?.kind === 'artifact'
      ? 'A'
      : 'S';

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** A stored value as JSON text (see the file comment). */
const toText = (value: unknown): string => JSON.stringify(value);
/** A stored value back: JSON text, or a map an earlier version wrote. */
const fromText = (stored: unknown): unknown => (typeof stored === 'string' ? JSON.parse(stored) : stored);

/** A message as stored: the task and context ids are the task's own, so they are left out. */
const storedMessage = (m: Message): Message => {
  const { taskId: _t, contextId: _c, ...rest } = m;
  return rest as Message;
};
const messageOf = (stored: unknown, head: Pick<TaskHead, 'taskId' | 'contextId'>): Message => ({
  ...(stored as Message),
  taskId: head.taskId,
  contextId: head.contextId,
});

// ---- events ----

/** An event as stored in the log or a chunk. */
interface StoredEvent {
  v: number;
  t: string;
  /** Source state; in the log only where it is not the previous event's target. */
  f?: string | null;
  s: string;
  /** Epoch milliseconds. */
  a: number;
  m?: Message;
  r?: ArtifactChunk;
  p?: number;
  e?: TaskEvent['reason'];
  d?: Record<string, unknown>;
  /** Task metadata the event merged. */
  tm?: Record<string, unknown>;
  /** Detached payload: `M` or `A`, and the suffix of its body item's key. */
  x?: 'M' | 'A';
  b?: string;
}

const encodeEvent = (e: RecentEvent, previousTo: SynapseState | null | undefined): StoredEvent => {
  const stored: StoredEvent = {
    v: e.version,
    t: EVENT_CODES[e.type],
    s: STATE_CODES[e.to],
    a: Date.parse(e.at),
  };
  if (previousTo === undefined || previousTo !== e.from)
    stored.f = e.from === null ? null : STATE_CODES[e.from];
  if (e.detached) {
    stored.x = e.detached.kind === 'artifact' ? 'A' : 'M';
    stored.b = e.detached.ref;
  } else if (e.message) stored.m = storedMessage(e.message);
  else if (e.artifact) stored.r = e.artifact;
  if (e.progress !== undefined) stored.p = e.progress;
  if (e.reason) stored.e = e.reason;
  if (e.data) stored.d = e.data;
  if (e.taskMetadata) stored.tm = e.taskMetadata;
  return stored;
};

const decodeEvent = (
  raw: StoredEvent,
  head: Pick<TaskHead, 'taskId' | 'tenant' | 'contextId'>,
  previousTo: SynapseState | null | undefined,
): RecentEvent => {
  const from = raw.f !== undefined ? (raw.f === null ? null : stateOf(raw.f)) : previousTo;
  if (from === undefined) throw new Error(`stored event ${raw.v} of ${head.taskId} lacks its source state`);
  const event: RecentEvent = {
    taskId: head.taskId,
    tenant: head.tenant,
    version: Number(raw.v),
    type: eventType(raw.t),
    from,
    to: stateOf(raw.s),
    at: new Date(Number(raw.a)).toISOString(),
  };
  if (raw.m) event.message = messageOf(raw.m, head);
  if (raw.r) event.artifact = raw.r;
  if (raw.p !== undefined) event.progress = Number(raw.p);
  if (raw.e) event.reason = raw.e;
  if (raw.d) event.data = raw.d;
  if (raw.tm) event.taskMetadata = raw.tm;
  if (raw.x) event.detached = { kind: raw.x === 'A' ? 'artifact' : 'message', ref: String(raw.b) };
  return event;
};

const encodeLog = (events: readonly RecentEvent[]): StoredEvent[] => {
  let previous: SynapseState | null | undefined;
  return events.map((e) => {
    const stored = encodeEvent(e, previous);
    previous = e.to;
    return stored;
  });
};

const decodeLog = (raw: unknown, head: TaskHead): RecentEvent[] => {
  let previous: SynapseState | null | undefined;
  return ((raw ?? []) as StoredEvent[]).map((r) => {
    const event = decodeEvent(r, head, previous);
    previous = event.to;
    return event;
  });
};

// ---- the task item ----

export interface CodecOptions {
  /** Seconds a finished task (and everything of it) is kept before DynamoDB TTL may delete it. */
  retentionSeconds: number;
}

/** What the store notes on a record about its own layout (`TaskRecord.storage`). */
export interface StorageNotes {
  /** Kinds of history chunks written so far (`AMS` letters). */
  chunks: string;
  /** Body reference of a large status message. */
  statusBody?: string;
}

const epochSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

/** TTL of everything a task writes: its retention after the later of its deadline and its last status. */
/** Chunks and bodies expire this long after the task item would at the time they were written. */
export const PARTS_OUTLIVE_TASK_SECONDS = 7 * 86_400;

export const expiryOf = (head: Pick<TaskHead, 'deadlineAt' | 'statusAt'>, options: CodecOptions): number =>
  Math.max(epochSeconds(head.deadlineAt), epochSeconds(head.statusAt)) + options.retentionSeconds;

const encodeTask = (
  head: TaskHead,
  log: readonly RecentEvent[],
  notes: StorageNotes,
  options: CodecOptions,
): Item => {
  const item: Item = {
    pk: taskPk(head.tenant, head.taskId),
    sk: TASK_SK,
    tn: head.tenant,
    ow: head.owner,
    cx: head.contextId,
    st: STATE_CODES[head.state],
    v: head.version,
    ca: head.createdAt,
    os: ownerSort(head.statusAt, head.taskId),
    dl: head.deadlineAt,
    op: ownerPartition(head.tenant, head.owner, head.state, ownerShard(head.taskId)),
    cp: contextPartition(head.tenant, head.owner, head.contextId, contextShard(head.taskId)),
    cs: contextSort(head.createdAt, head.taskId),
    lg: toText(encodeLog(log)),
  };
  if (head.role !== 'executor') item.ro = head.role;
  if (head.protocol !== 'a2a') item.pt = head.protocol;
  if (head.statusVersion !== undefined) {
    item.sv = head.statusVersion;
    // a small status message is copied so a task list can show it; a large one stays in its body item
    if (head.statusMessage && jsonBytes(storedMessage(head.statusMessage)) <= INLINE_PAYLOAD_BYTES)
      item.sm = toText(storedMessage(head.statusMessage));
    else if (notes.statusBody) item.sb = notes.statusBody;
  }
  if (head.progress !== undefined) item.pg = head.progress;
  if (head.leaseUntil) item.lu = head.leaseUntil;
  if (head.heartbeatAt) item.hb = head.heartbeatAt;
  if (head.reruns) item.rr = head.reruns;
  if (head.metadata) item.md = toText(head.metadata);
  if (head.recentMessageKeys?.length) item.rk = head.recentMessageKeys;
  if (head.pushConfigIds?.length) item.pn = head.pushConfigIds;
  if (notes.chunks) item.ck = notes.chunks;
  // sparse: only live tasks are in the sweep index; TTL only collects finished ones, never enforces a deadline
  if (!isTerminal(head.state)) item.dp = deadlinePartition(deadlineShard(head.taskId));
  else item.ttl = expiryOf(head, options);
  return item;
};

/** The summary of a task item, from the item or from what the byOwner index projects. */
export const decodeSummary = (item: Item): TaskSummary => {
  const ref = refOf(item);
  const summary: TaskSummary = {
    taskId: ref.taskId,
    tenant: ref.tenant,
    owner: String(item.ow),
    contextId: String(item.cx),
    state: stateOf(item.st),
    createdAt: String(item.ca),
    statusAt: statusAtOfOwnerSort(String(item.os)),
  };
  // a task item holds it; the byOwner index does not project it (docs/generations.md#listtasks)
  if (item.v !== undefined) summary.version = Number(item.v);
  if (item.sv !== undefined) summary.statusVersion = Number(item.sv);
  if (item.sm) summary.statusMessage = messageOf(fromText(item.sm), summary);
  if (item.pg !== undefined) summary.progress = Number(item.pg);
  if (item.md) summary.metadata = fromText(item.md) as Record<string, unknown>;
  return summary;
};

/**
 * The tenant and task id of a task's item, from its key. The item's `tn` says the same (it is written from
 * the same head); an item where they differ is corrupt, never another tenant's task to show.
 */
const refOf = (item: Item): TaskKeyRef => {
  const ref = taskRefOfPk(String(item.pk));
  if (item.tn !== undefined && String(item.tn) !== ref.tenant)
    throw new Error(`stored item of task ${ref.taskId}: its key and its tenant attribute disagree`);
  return ref;
};

/** Body reference of a summary's status message when it is kept apart (the item's `sb`). */
export const statusBodyOf = (item: Item): string | undefined => (item.sb ? String(item.sb) : undefined);

export const isTaskItem = (item: Item): boolean => item.sk === TASK_SK && !isReplyItem(item);

// ---- replies (a message answered with a message, under the key its task would have had) ----

/** A reply is kept this long: a retried message within it gets the same answer. */
export const REPLY_RETENTION_SECONDS = 86_400;

export const isReplyItem = (item: Item): boolean => item.ty === 'R';

export const encodeReply = (reply: StoredReply): Item => ({
  pk: taskPk(reply.tenant, reply.key),
  sk: TASK_SK,
  ty: 'R',
  tn: reply.tenant,
  ca: reply.createdAt,
  rp: toText(reply.message),
  ttl: epochSeconds(reply.createdAt) + REPLY_RETENTION_SECONDS,
});

export const decodeReply = (item: Item): StoredReply => {
  const ref = refOf(item);
  return {
    tenant: ref.tenant,
    key: ref.taskId,
    message: fromText(item.rp) as Message,
    createdAt: String(item.ca),
  };
};

export const notesOf = (item: Item): StorageNotes => ({
  chunks: String(item.ck ?? ''),
  ...(item.sb ? { statusBody: String(item.sb) } : {}),
});

export const decodeTask = (item: Item): TaskRecord => {
  const summary = decodeSummary(item);
  const head: TaskHead = {
    ...summary,
    version: Number(item.v),
    role: (item.ro as TaskHead['role']) ?? 'executor',
    protocol: (item.pt as TaskHead['protocol']) ?? 'a2a',
    deadlineAt: String(item.dl),
  };
  if (item.lu) head.leaseUntil = String(item.lu);
  if (item.hb) head.heartbeatAt = String(item.hb);
  if (item.rr) head.reruns = Number(item.rr);
  if (item.rk) head.recentMessageKeys = [...(item.rk as string[])];
  if (item.pn) head.pushConfigIds = [...(item.pn as string[])];
  const recent = decodeLog(fromText(item.lg), head);
  if (!head.statusMessage && head.statusVersion !== undefined) {
    const source = recent.find((e) => e.version === head.statusVersion);
    if (source?.message) head.statusMessage = source.message;
  }
  return { head, recent, storage: { ...notesOf(item) } };
};

// ---- chunks and bodies ----

export const encodeChunk = (
  task: TaskKeyRef,
  kind: ChunkKind,
  events: readonly RecentEvent[],
  ttl: number,
): Item => ({
  pk: taskPk(task.tenant, task.taskId),
  sk: chunkSk(kind, events[events.length - 1]!.version),
  // every event carries its own `from`: a chunk holds one kind, so its versions have gaps
  ev: toText(events.map((e) => encodeEvent(e, undefined))),
  ttl,
});

export const decodeChunk = (
  item: Item,
  head: Pick<TaskHead, 'taskId' | 'tenant' | 'contextId'>,
): RecentEvent[] => ((fromText(item.ev) ?? []) as StoredEvent[]).map((r) => decodeEvent(r, head, undefined));

/**
 * A body's key suffix is a hash of its version and content: two writers racing for the same
 * version never overwrite each other's body, and a retried write puts the same item again.
 */
const bodyRef = (event: TaskEvent, payload: unknown): string =>
  createHash('sha256')
    .update(String(event.version))
    .update(JSON.stringify(payload))
    .digest('base64url')
    .slice(0, 8);

export const bodyKey = (task: TaskKeyRef, version: number, ref: string) => ({
  pk: taskPk(task.tenant, task.taskId),
  sk: bodySk(version, ref),
});

/** Puts the payload of a body item back into its (detached) event. */
export const attachBody = (
  event: RecentEvent,
  body: Item | undefined,
  head: Pick<TaskHead, 'taskId' | 'contextId'>,
): TaskEvent => {
  const { detached, ...rest } = event;
  if (!detached) return event;
  if (!body) throw new Error(`the payload of event ${event.version} of task ${event.taskId} is missing`);
  return detached.kind === 'artifact'
    ? { ...rest, artifact: fromText(body.b) as ArtifactChunk }
    : { ...rest, message: messageOf(fromText(body.b), head) };
};

export const bodyMessage = (body: Item, head: Pick<TaskHead, 'taskId' | 'contextId'>): Message =>
  messageOf(fromText(body.b), head);

// ---- planning a write ----

export interface WritePlan {
  /** The task item to put (conditionally). */
  item: Item;
  /** Bodies and history chunks to put first (unconditionally: their content is fixed). */
  before: Item[];
  /** The task as it will be once the write succeeds. */
  record: TaskRecord;
}

/** Notes of a record produced elsewhere than this codec: assume the worst (all chunk kinds may exist). */
const notesFor = (record: TaskRecord | undefined): StorageNotes => {
  if (!record) return { chunks: '' };
  const notes = record.storage as Partial<StorageNotes> | undefined;
  if (notes && typeof notes.chunks === 'string') return notes as StorageNotes;
  return { chunks: (record.recent[0]?.version ?? 1) > 1 ? 'AMS' : '' };
};

/**
 * One write: keep the new events' large payloads apart (body items), append the events to the log,
 * and when the item would outgrow ITEM_TARGET_BYTES, copy the already-committed events of the log
 * into history chunks (written first; the conditional put of the item then drops them from the log).
 */
export const planWrite = (
  seen: TaskRecord | undefined,
  next: TaskHead,
  events: readonly TaskEvent[],
  options: CodecOptions,
): WritePlan => {
  const seenNotes = notesFor(seen);
  // a task's parts outlive its item: the item's expiry moves on with each write, theirs is set once
  const ttl = expiryOf(next, options) + PARTS_OUTLIVE_TASK_SECONDS;
  const before: Item[] = [];
  let inlineBudget = WRITE_INLINE_BYTES;
  const added: RecentEvent[] = events.map((e) => {
    const payload = e.message ? storedMessage(e.message) : e.artifact;
    if (!payload) return e;
    const size = jsonBytes(payload);
    if (size <= INLINE_PAYLOAD_BYTES && size <= inlineBudget) {
      inlineBudget -= size;
      return e;
    }
    const ref = bodyRef(e, payload);
    before.push({ ...bodyKey(next, e.version, ref), b: toText(payload), ttl });
    // the record keeps the payload (the writer has it); the item only says where it went
    return { ...e, detached: { kind: e.message ? 'message' : 'artifact', ref } };
  });

  const committed = seen?.recent ?? [];
  let log: RecentEvent[] = [...committed, ...added];
  const statusEvent =
    next.statusVersion === undefined ? undefined : log.find((e) => e.version === next.statusVersion);
  const notes: StorageNotes = {
    chunks: seenNotes.chunks,
    ...(statusEvent?.detached
      ? { statusBody: statusEvent.detached.ref }
      : next.statusVersion !== undefined &&
          next.statusVersion === seen?.head.statusVersion &&
          seenNotes.statusBody
        ? { statusBody: seenNotes.statusBody }
        : {}),
  };
  let item = encodeTask(next, log, notes, options);
  if (committed.length > 0 && itemSize(item) > ITEM_TARGET_BYTES) {
    const byKind = new Map<ChunkKind, RecentEvent[]>();
    for (const e of committed) byKind.set(kindOf(e), [...(byKind.get(kindOf(e)) ?? []), e]);
    const chunks = [...byKind].map(([kind, kindEvents]) => encodeChunk(next, kind, kindEvents, ttl));
    const spilledNotes = {
      ...notes,
      chunks: [...new Set([...notes.chunks, ...byKind.keys()])].sort().join(''),
    };
    const spilled = encodeTask(next, added, spilledNotes, options);
    // a live task spills as soon as its item passes one write unit (every later write would pay for the
    // extra unit); a task's last write (terminal: nothing follows) spills only if that is cheaper now
    // or its item would pass one read unit
    const last = isTerminal(next.state);
    const spillCost = writeUnits(itemSize(spilled)) + chunks.reduce((n, c) => n + writeUnits(itemSize(c)), 0);
    if (!last || spillCost < writeUnits(itemSize(item)) || itemSize(item) > READ_UNIT_BYTES) {
      before.push(...chunks);
      notes.chunks = spilledNotes.chunks;
      log = added;
      item = spilled;
    }
  }
  const size = itemSize(item);
  if (size > MAX_ITEM_BYTES) throw new PayloadTooLargeError('the events of one write', size, MAX_ITEM_BYTES);
  return { item, before, record: { head: next, recent: log, storage: { ...notes } } };
};

/**
 * A liveness write: the task item exactly as `seen` holds it (same version, log and index keys), with
 * `hb` moved to `at`. Put on the condition that the version is still `seen`'s, it changes no index key
 * or projected attribute, so it costs the item's size (1 WRU for a small task) and nothing on the indexes.
 */
export const planBeat = (seen: TaskRecord, at: string, options: CodecOptions): Item =>
  encodeTask({ ...seen.head, heartbeatAt: at }, seen.recent, notesFor(seen), options);
