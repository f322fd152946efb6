/**
 * The protocol-neutral task model: head (small, bounded), events (one per
 * transition, append-only) and the content they carry. Content types follow
 * the A2A v1.0 data model, which both protocol codecs translate to and from.
 */
import * as z from '../validation/zod.ts';
import { PayloadTooLargeError, ValidationError } from './errors.ts';
import { isJsonObject, jsonViolation } from './json.ts';
import type { SynapseState } from './states.ts';
import { TRANSITION_EVENTS, type TransitionEvent } from './transitions.ts';

/** DynamoDB items may reach 400 KB; we stay far below so attributes and keys always fit. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** The head copies the latest status message for cheap reads; it must stay small. */
export const MAX_STATUS_MESSAGE_BYTES = 8 * 1024;
export const MAX_METADATA_BYTES = 4 * 1024;
/** An event's own data (missing fields, decision options, notes) stays in the task's item: bounded. */
export const MAX_EVENT_DATA_BYTES = 8 * 1024;
/** Ids are opaque strings; bounded so keys stay far below DynamoDB's key size limits. */
export const MAX_ID_LENGTH = 256;

/** No lone surrogate: such a string has no UTF-8 form, so it can be no key or attribute in DynamoDB. */
export const isWellFormed = (s: string): boolean =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const id = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(MAX_ID_LENGTH),
    z.refine(isWellFormed, 'must be well-formed Unicode (no lone surrogate)'),
  );

/** Adds an issue naming where a value is not plain JSON (kept as given otherwise). */
const plainJson = z.superRefine((value: unknown, ctx) => {
  const why = jsonViolation(value);
  if (why) ctx.issues.push({ code: 'custom', message: why, input: value });
});

/** A JSON object, passed through as given (no key dropped or renamed), checked to be plain JSON. */
const metadata = z.custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object').check(plainJson);

export const partSchema = z
  .strictObject({
    text: z.optional(z.string()),
    raw: z.optional(z.string()),
    url: z.optional(z.string()),
    data: z.optional(z.unknown().check(plainJson)),
    mediaType: z.optional(z.string()),
    filename: z.optional(z.string()),
    metadata: z.optional(metadata),
  })
  .check(
    z.refine(
      (p) => [p.text, p.raw, p.url, p.data].filter((v) => v !== undefined).length === 1,
      'a part must have exactly one of text, raw, url, data',
    ),
  );
export type Part = z.infer<typeof partSchema>;

export const messageSchema = z.strictObject({
  messageId: id,
  role: z.enum(['user', 'agent']),
  parts: z.array(partSchema).check(z.minLength(1)),
  contextId: z.optional(id),
  taskId: z.optional(id),
  metadata: z.optional(metadata),
  extensions: z.optional(z.array(z.string())),
  referenceTaskIds: z.optional(z.array(z.string())),
});
export type Message = z.infer<typeof messageSchema>;

export const artifactSchema = z.strictObject({
  artifactId: id,
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  parts: z.array(partSchema).check(z.minLength(1)),
  metadata: z.optional(metadata),
  extensions: z.optional(z.array(z.string())),
});
export type Artifact = z.infer<typeof artifactSchema>;

export const artifactChunkSchema = z.strictObject({
  artifact: artifactSchema,
  append: z.optional(z.boolean()),
  lastChunk: z.optional(z.boolean()),
});
export type ArtifactChunk = z.infer<typeof artifactChunkSchema>;

export const reasonSchema = z.strictObject({
  code: z.string().check(z.minLength(1), z.maxLength(128)),
  message: z.string().check(z.maxLength(4096)),
  details: z.optional(metadata),
});
export type Reason = z.infer<typeof reasonSchema>;

/** What a caller asks to record with a transition. At most one of message / artifact (see store key design). */
export const eventDraftSchema = z
  .strictObject({
    type: z.enum(TRANSITION_EVENTS),
    message: z.optional(messageSchema),
    artifact: z.optional(artifactChunkSchema),
    progress: z.optional(z.number().check(z.gte(0), z.lte(100))),
    reason: z.optional(reasonSchema),
    data: z.optional(metadata),
    /** Merged into the task's metadata (A2A Task.metadata). */
    taskMetadata: z.optional(metadata),
  })
  .check(
    z.refine((e) => !(e.message && e.artifact), 'an event carries a message or an artifact, not both'),
    z.refine((e) => e.type !== 'artifact' || e.artifact !== undefined, 'an artifact event needs an artifact'),
  );
export type EventDraft = z.infer<typeof eventDraftSchema>;

export type EventType = TransitionEvent | 'created';

/** One stored event: the log entry a transition appends. */
export interface TaskEvent {
  taskId: string;
  tenant: string;
  version: number;
  type: EventType;
  from: SynapseState | null;
  to: SynapseState;
  at: string;
  message?: Message;
  artifact?: ArtifactChunk;
  progress?: number;
  reason?: Reason;
  data?: Record<string, unknown>;
  /** What this event merged into the task's metadata. */
  taskMetadata?: Record<string, unknown>;
}

export type TaskRole = 'executor' | 'requester';
export type TaskProtocol = 'a2a' | 'synapse';

/** The head: everything needed to decide a transition and render a task's status. Bounded. */
export interface TaskHead {
  taskId: string;
  tenant: string;
  owner: string;
  contextId: string;
  state: SynapseState;
  version: number;
  role: TaskRole;
  protocol: TaskProtocol;
  createdAt: string;
  /** Timestamp of the last status change (state, status message or progress). */
  statusAt: string;
  /**
   * The agent's latest status message. A store may keep a large one apart: then only
   * `statusVersion` is set on a head it returns, and reading the task's view resolves it.
   */
  statusMessage?: Message;
  /** Version of the event whose message is the status message. */
  statusVersion?: number;
  progress?: number;
  /** When the sweeper fails the task if it is still live. Every task has one. */
  deadlineAt: string;
  /** While executing: when the claiming run must have finished (a run that outlives it was lost). */
  leaseUntil?: string;
  /**
   * While executing: the run's last liveness write, made when the agent has been silent for a heartbeat
   * interval (its events are signs of life too: see domain/heartbeat.ts). Not a version: it records no event.
   */
  heartbeatAt?: string;
  /** How many times the task was run again after a run was lost (idempotent agents only; capped). */
  reruns?: number;
  metadata?: Record<string, unknown>;
  /** Keys of the latest messages the requester applied to this task: a retried one is recognised. */
  recentMessageKeys?: string[];
  /** Ids of the task's push-notification configs (the configs themselves are stored apart), oldest first. */
  pushConfigIds?: string[];
}

/**
 * What a task list shows of each task; `version` when what it was read from holds it (a task item does, the
 * byOwner index does not project it).
 */
export type TaskSummary = { version?: number } & Pick<
  TaskHead,
  | 'taskId'
  | 'tenant'
  | 'owner'
  | 'contextId'
  | 'state'
  | 'createdAt'
  | 'statusAt'
  | 'statusMessage'
  | 'statusVersion'
  | 'progress'
  | 'metadata'
>;

export interface TaskView {
  head: TaskSummary;
  /** Oldest first; at most historyLength entries when one was asked for. */
  history: Message[];
  artifacts: Artifact[];
}

export const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/** Whether a message or artifact (or an event carrying one) holds a file's bytes inline. */
const hasInlineFile = (value: unknown): boolean => {
  if (value === null || typeof value !== 'object') return false;
  const parts = (value as { parts?: unknown }).parts;
  if (Array.isArray(parts) && parts.some((p) => typeof p?.raw === 'string')) return true;
  return Object.values(value).some((v) => v !== null && typeof v === 'object' && hasInlineFile(v));
};

const INLINE_FILE_HINT =
  'inline file bytes (raw parts, base64) count toward it; send a larger file as a url part';

export const assertWithin = (what: string, value: unknown, limit: number): void => {
  const size = byteLength(value);
  if (size > limit)
    throw new PayloadTooLargeError(what, size, limit, hasInlineFile(value) ? INLINE_FILE_HINT : undefined);
};

/** Parse untrusted event input into a draft, or throw a typed validation error naming the field. */
export const parseEventDraft = (input: unknown): EventDraft => {
  const result = eventDraftSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || undefined;
    throw new ValidationError(
      `Invalid event: ${field ? `${field}: ` : ''}${issue?.message ?? 'malformed'}`,
      field,
    );
  }
  assertWithin('event', result.data, MAX_EVENT_BYTES);
  if (result.data.data) assertWithin('event data', result.data.data, MAX_EVENT_DATA_BYTES);
  if (result.data.reason?.details)
    assertWithin('reason details', result.data.reason.details, MAX_METADATA_BYTES);
  if (result.data.taskMetadata) assertWithin('task metadata', result.data.taskMetadata, MAX_METADATA_BYTES);
  return result.data;
};

/**
 * Reduce artifact chunks, in event order, to the artifacts a task holds:
 * append adds parts to the artifact with the same id, otherwise the chunk
 * replaces it. Order of first appearance is kept.
 */
export const reduceArtifacts = (chunks: readonly ArtifactChunk[]): Artifact[] => {
  const byId = new Map<string, Artifact>();
  for (const { artifact, append } of chunks) {
    const existing = byId.get(artifact.artifactId);
    if (append && existing) {
      byId.set(artifact.artifactId, {
        ...existing,
        ...artifact,
        parts: [...existing.parts, ...artifact.parts],
        metadata:
          existing.metadata || artifact.metadata ? { ...existing.metadata, ...artifact.metadata } : undefined,
      });
    } else {
      // Map.set on an existing key keeps its position: a replaced artifact stays where it first appeared.
      byId.set(artifact.artifactId, artifact);
    }
  }
  return [...byId.values()].map((a) => (a.metadata === undefined ? omitUndefined(a) : a));
};

const omitUndefined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
