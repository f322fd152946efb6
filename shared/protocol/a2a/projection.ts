/**
 * What every A2A version encodes, before shape translation: the task projection, the stream events,
 * the list result, and the fields each version's Message and Artifact share. Apart from the operations'
 * parsing (./operations.ts), so what only writes A2A shapes (the delivery worker) loads no schema.
 */
import { type A2AState, toA2AState } from '../../domain/states.ts';
import type { Artifact, Message, TaskView } from '../../domain/task.ts';

/** Undefined for an absent or empty string or list (ProtoJSON's unset), else the value. */
export const nonEmpty = <T extends string | readonly unknown[]>(v: T | undefined): T | undefined =>
  v === undefined || v.length === 0 ? undefined : v;

export interface TaskEncodeOptions {
  /** false: the `artifacts` key is omitted entirely; true: present, possibly []. */
  includeArtifacts: boolean;
  /** undefined: all history the view holds; 0: no `history` key; N: the N most recent messages. */
  historyLength?: number;
  /** Show `generation` (the task's version), when the view knows it: generations are on (docs/generations.md). */
  generation?: boolean;
}

export interface ListTasksResult {
  tasks: TaskView[];
  /** "" on the last page. */
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** A task's status as a stream event carries it (A2A's TaskStatus). */
export interface StreamStatus {
  state: A2AState;
  /** The agent's status message, when the event carries one. */
  message?: Message;
  timestamp: string;
}

/**
 * One event of a stream, before shape translation: the Task snapshot that opens a task's stream, the
 * Message of a message-only reply, a status update or an artifact update. v1.0 wraps each in a
 * StreamResponse; v0.3 sends them bare, with `kind`, and `final` on status updates.
 */
export type StreamEvent =
  | { kind: 'task'; view: TaskView; show: TaskEncodeOptions }
  | { kind: 'message'; message: Message }
  | {
      kind: 'status-update';
      taskId: string;
      contextId: string;
      status: StreamStatus;
      /** The stream ends after this update (terminal or interrupted state): v0.3 `final: true`. */
      final: boolean;
      /**
       * The update's own metadata (TaskStatusUpdateEvent.metadata): the agent's progress and the kind of
       * its question, under `synapse.` keys (docs/streaming.md#progress-and-questions).
       */
      metadata?: Record<string, unknown>;
      /** The task's generation after the change (its event's version): set only when generations are on. */
      generation?: number;
    }
  | {
      kind: 'artifact-update';
      taskId: string;
      contextId: string;
      artifact: Artifact;
      append?: boolean;
      lastChunk?: boolean;
      generation?: number;
    };

/** A task as every A2A version sees it, before shape translation. */
export interface TaskProjection {
  id: string;
  contextId: string;
  state: A2AState;
  statusMessage?: Message;
  timestamp: string;
  /** Present iff includeArtifacts. */
  artifacts?: Artifact[];
  /** Present iff there is something to show. */
  history?: Message[];
  metadata?: Record<string, unknown>;
  /** The task's version, when asked for and known. */
  generation?: number;
}

export function projectTask(view: TaskView, opts: TaskEncodeOptions): TaskProjection {
  const { head } = view;
  let history: Message[] = view.history;
  if (opts.historyLength !== undefined) {
    history = opts.historyLength <= 0 ? [] : history.slice(-opts.historyLength);
  }
  return {
    id: head.taskId,
    contextId: head.contextId,
    state: toA2AState(head.state),
    ...(head.statusMessage ? { statusMessage: head.statusMessage } : {}),
    timestamp: head.statusAt,
    ...(opts.includeArtifacts ? { artifacts: view.artifacts } : {}),
    ...(history.length > 0 ? { history } : {}),
    ...(head.metadata && Object.keys(head.metadata).length > 0 ? { metadata: head.metadata } : {}),
    ...(opts.generation && head.version !== undefined ? { generation: head.version } : {}),
  };
}

const present = (v: string | readonly unknown[] | undefined): boolean => v !== undefined && v.length > 0;

/** The fields every version's Message shares; codecs add the role (and v0.3 its `kind`). */
export const messageFields = <P>(m: Message, encodePart: (p: Message['parts'][number]) => P) => ({
  messageId: m.messageId,
  ...(present(m.contextId) ? { contextId: m.contextId } : {}),
  ...(present(m.taskId) ? { taskId: m.taskId } : {}),
  parts: m.parts.map(encodePart),
  ...(m.metadata ? { metadata: m.metadata } : {}),
  ...(present(m.extensions) ? { extensions: m.extensions } : {}),
  ...(present(m.referenceTaskIds) ? { referenceTaskIds: m.referenceTaskIds } : {}),
});

/** An Artifact is the same in every version but for its parts. */
export const artifactFields = <P>(a: Artifact, encodePart: (p: Artifact['parts'][number]) => P) => ({
  artifactId: a.artifactId,
  ...(present(a.name) ? { name: a.name } : {}),
  ...(present(a.description) ? { description: a.description } : {}),
  parts: a.parts.map(encodePart),
  ...(a.metadata ? { metadata: a.metadata } : {}),
  ...(present(a.extensions) ? { extensions: a.extensions } : {}),
});

/** ListTasks results have the same four fields in every version; only the tasks' shape differs. */
export const listResultWith =
  <T>(encodeTask: (view: TaskView, opts: TaskEncodeOptions) => T) =>
  (result: ListTasksResult, opts: TaskEncodeOptions) => ({
    tasks: result.tasks.map((v) => encodeTask(v, opts)),
    // all four always present, a last page's token empty: A2A requires them (ProtoJSON would drop defaults)
    nextPageToken: result.nextPageToken ?? '',
    pageSize: result.pageSize,
    totalSize: result.totalSize,
  });
