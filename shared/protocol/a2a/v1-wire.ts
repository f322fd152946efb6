/**
 * A2A v1.0 wire shapes (ProtoJSON of a2a.proto) and their encoding from the neutral views: the half of
 * the v1.0 codec that builds no schema, so what only writes v1.0 (the delivery worker) loads none of
 * the parsing. shared/protocol/a2a/v1.ts is the whole codec.
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

export type V1Role = 'ROLE_USER' | 'ROLE_AGENT';

export interface V1Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: unknown;
  mediaType?: string;
  filename?: string;
  metadata?: Record<string, unknown>;
}

export interface V1Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: V1Role;
  parts: V1Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V1Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V1Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

export interface V1TaskStatus {
  state: A2AState;
  message?: V1Message;
  timestamp: string;
}

export interface V1Task {
  id: string;
  contextId: string;
  status: V1TaskStatus;
  artifacts?: V1Artifact[];
  history?: V1Message[];
  metadata?: Record<string, unknown>;
  /** dev-1.1 `int64 generation`: ProtoJSON writes an int64 as a decimal string (docs/generations.md). */
  generation?: string;
}

export interface V1SendMessageResponse {
  task: V1Task;
}

/** SendMessageResponse's other payload: a message, no task. */
export interface V1SendMessageReply {
  message: V1Message;
}

export interface V1ListTasksResponse {
  tasks: V1Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface V1TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: V1TaskStatus;
  metadata?: Record<string, unknown>;
  generation?: string;
}

export interface V1TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: V1Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
  generation?: string;
}

/** One stream event (StreamResponse, oneof `payload`): exactly one member is set. */
export type V1StreamResponse =
  | { task: V1Task }
  | { message: V1Message }
  | { statusUpdate: V1TaskStatusUpdateEvent }
  | { artifactUpdate: V1TaskArtifactUpdateEvent };

/** v1.0 error details: an ErrorInfo, then (for field violations) a BadRequest. */
/** TaskPushNotificationConfig as reads return it (no token, no credentials). */
export interface V1PushConfig {
  id: string;
  taskId: string;
  url: string;
  authentication?: { scheme: string };
}

export interface V1ListPushConfigsResponse {
  configs: V1PushConfig[];
  nextPageToken: string;
}

// ---- encoding -----------------------------------------------------------------------------------

const ROLE_TO_WIRE: Readonly<Record<Message['role'], V1Role>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

export function encodePart(p: Part): V1Part {
  return {
    ...(p.text !== undefined ? { text: p.text } : {}),
    ...(p.raw !== undefined ? { raw: p.raw } : {}),
    ...(p.url !== undefined ? { url: p.url } : {}),
    ...(p.data !== undefined ? { data: p.data } : {}),
    ...(nonEmpty(p.mediaType) ? { mediaType: p.mediaType } : {}),
    ...(nonEmpty(p.filename) ? { filename: p.filename } : {}),
    ...(p.metadata ? { metadata: p.metadata } : {}),
  };
}

export function encodeMessage(m: Message): V1Message {
  return { ...messageFields(m, encodePart), role: ROLE_TO_WIRE[m.role] };
}

export function encodeArtifact(a: Artifact): V1Artifact {
  return artifactFields(a, encodePart);
}

export function encodeTask(view: TaskView, opts: TaskEncodeOptions): V1Task {
  const t = projectTask(view, opts);
  return {
    id: t.id,
    contextId: t.contextId,
    status: {
      state: t.state,
      ...(t.statusMessage ? { message: encodeMessage(t.statusMessage) } : {}),
      timestamp: t.timestamp,
    },
    ...(t.artifacts ? { artifacts: t.artifacts.map(encodeArtifact) } : {}),
    ...(t.history ? { history: t.history.map(encodeMessage) } : {}),
    ...(t.metadata ? { metadata: t.metadata } : {}),
    ...(t.generation !== undefined ? { generation: String(t.generation) } : {}),
  };
}

const generationOf = (g: number | undefined) => (g !== undefined ? { generation: String(g) } : {});

export function encodeStreamEvent(event: StreamEvent): V1StreamResponse {
  switch (event.kind) {
    case 'task':
      return { task: encodeTask(event.view, event.show) };
    case 'message':
      return { message: encodeMessage(event.message) };
    case 'status-update':
      // no `final` in v1.0 (v0.3 has one): the end of a stream is the close of the connection
      return {
        statusUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          status: {
            state: event.status.state,
            ...(event.status.message ? { message: encodeMessage(event.status.message) } : {}),
            timestamp: event.status.timestamp,
          },
          ...(event.metadata ? { metadata: event.metadata } : {}),
          ...generationOf(event.generation),
        },
      };
    case 'artifact-update':
      return {
        artifactUpdate: {
          taskId: event.taskId,
          contextId: event.contextId,
          artifact: encodeArtifact(event.artifact),
          ...(event.append !== undefined ? { append: event.append } : {}),
          ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}),
          ...generationOf(event.generation),
        },
      };
  }
}
