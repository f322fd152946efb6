/**
 * A2A v0.3 wire shapes (the v0.3 JSON Schema's: `kind` discriminators, lower-case states) and their
 * encoding from the neutral views: the half of the v0.3 codec that builds no schema, so what only
 * writes v0.3 (the delivery worker) loads none of the parsing. shared/protocol/a2a/v03.ts is the whole codec.
 */
import type { A2AState } from '../../domain/states.ts';
import type { Artifact, Message, Part, TaskView } from '../../domain/task.ts';
import {
  artifactFields,
  messageFields,
  nonEmpty,
  projectTask,
  type StreamEvent,
  type TaskEncodeOptions,
} from './projection.ts';

// ---- wire types (output) ------------------------------------------------------------------------

export type V03Role = 'user' | 'agent';
export type V03State =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'unknown';

export type V03Part =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> }
  | {
      kind: 'file';
      file:
        | { bytes: string; mimeType?: string; name?: string }
        | { uri: string; mimeType?: string; name?: string };
      metadata?: Record<string, unknown>;
    }
  | { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> };

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: { state: V03State; message?: V03Message; timestamp: string };
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: Record<string, unknown>;
  /**
   * The dev-1.1 generation, served to v0.3 clients as the card's extension (docs/generations.md): a JSON
   * number, as v0.3's JSON-RPC integers are (v1.0 writes the ProtoJSON int64 string).
   */
  generation?: number;
}

export interface V03ListTasksResponse {
  tasks: V03Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03Task['status'];
  /** True on the last event of the stream (v0.3 consumers stop reading on it). */
  final: boolean;
  metadata?: Record<string, unknown>;
  generation?: number;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
  generation?: number;
}

/** A v0.3 stream event's `result`: the bare object, told apart by `kind`. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

/** v0.3 error `data`: free-form. */
/** TaskPushNotificationConfig as reads return it (no token, no credentials). */
export interface V03PushConfig {
  taskId: string;
  pushNotificationConfig: { id: string; url: string; authentication?: { schemes: string[] } };
}

export type V03ErrorData = Record<string, unknown> & { reason: string };

export const V03_STATE_OF: Readonly<Record<A2AState, V03State>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
};

/**
 * v0.3 data parts must hold an object. Like a2a-js's compat layer, other JSON values
 * travel wrapped as `{value}` with this metadata flag, and are unwrapped on input.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

// ---- encoding -----------------------------------------------------------------------------------

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Lossy where v0.3 has no field: mediaType/filename of text and data parts are dropped. */
export function encodePart(p: Part): V03Part {
  const metadata = p.metadata ? { ...p.metadata } : undefined;
  const meta = metadata ? { metadata } : {};
  if (p.raw !== undefined || p.url !== undefined) {
    const details = {
      ...(nonEmpty(p.mediaType) ? { mimeType: p.mediaType } : {}),
      ...(nonEmpty(p.filename) ? { name: p.filename } : {}),
    };
    const file = p.raw !== undefined ? { bytes: p.raw, ...details } : { uri: p.url ?? '', ...details };
    return { kind: 'file', file, ...meta };
  }
  if (p.data !== undefined) {
    if (isPlainObject(p.data)) return { kind: 'data', data: p.data, ...meta };
    return {
      kind: 'data',
      data: { value: p.data },
      metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true },
    };
  }
  return { kind: 'text', text: p.text ?? '', ...meta };
}

export function encodeMessage(m: Message): V03Message {
  return { kind: 'message', ...messageFields(m, encodePart), role: m.role };
}

export function encodeArtifact(a: Artifact): V03Artifact {
  return artifactFields(a, encodePart);
}

export function encodeTask(view: TaskView, opts: TaskEncodeOptions): V03Task {
  const t = projectTask(view, opts);
  return {
    kind: 'task',
    id: t.id,
    contextId: t.contextId,
    status: {
      state: V03_STATE_OF[t.state],
      ...(t.statusMessage ? { message: encodeMessage(t.statusMessage) } : {}),
      timestamp: t.timestamp,
    },
    ...(t.artifacts ? { artifacts: t.artifacts.map(encodeArtifact) } : {}),
    ...(t.history ? { history: t.history.map(encodeMessage) } : {}),
    ...(t.metadata ? { metadata: t.metadata } : {}),
    ...(t.generation !== undefined ? { generation: t.generation } : {}),
  };
}

export function encodeStreamEvent(event: StreamEvent): V03StreamEvent {
  switch (event.kind) {
    case 'task':
      return encodeTask(event.view, event.show);
    case 'message':
      return encodeMessage(event.message);
    case 'status-update':
      return {
        kind: 'status-update',
        taskId: event.taskId,
        contextId: event.contextId,
        status: {
          state: V03_STATE_OF[event.status.state],
          ...(event.status.message ? { message: encodeMessage(event.status.message) } : {}),
          timestamp: event.status.timestamp,
        },
        final: event.final,
        ...(event.metadata ? { metadata: event.metadata } : {}),
        ...(event.generation !== undefined ? { generation: event.generation } : {}),
      };
    case 'artifact-update':
      return {
        kind: 'artifact-update',
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: encodeArtifact(event.artifact),
        ...(event.append !== undefined ? { append: event.append } : {}),
        ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
        ...(event.generation !== undefined ? { generation: event.generation } : {}),
      };
  }
}
