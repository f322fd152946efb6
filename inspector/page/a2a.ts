/** The A2A v1.0 shapes the page reads (ProtoJSON: enum names, camelCase). */
import { A2A_STATE_OF, A2A_STATES, type A2AState, type SynapseState } from '../../shared/domain/states.ts';

export { A2A_STATE_OF, A2A_STATES, type A2AState, type SynapseState };

export interface Part {
  text?: string;
  data?: unknown;
  raw?: string;
  url?: string;
  mediaType?: string;
  filename?: string;
  metadata?: Record<string, unknown>;
}

export interface A2AMessage {
  messageId: string;
  role: string;
  parts: Part[];
  taskId?: string;
  contextId?: string;
  metadata?: Record<string, unknown>;
}

export interface Task {
  id: string;
  contextId: string;
  status: { state: A2AState | string; message?: A2AMessage; timestamp?: string };
  artifacts?: unknown[];
  history?: A2AMessage[];
  metadata?: Record<string, unknown>;
}

export interface StreamResponse {
  task?: Task;
  message?: A2AMessage;
  statusUpdate?: {
    taskId: string;
    contextId: string;
    status: Task['status'];
    metadata?: Record<string, unknown>;
  };
  artifactUpdate?: { taskId: string; artifact: unknown };
}

/** `TASK_STATE_INPUT_REQUIRED` → `input required`. */
export const stateLabel = (s: string): string =>
  s
    .replace(/^TASK_STATE_/, '')
    .replace(/_/g, ' ')
    .toLowerCase();

/** A CSS class naming a state's colour family. */
export function stateTone(a2a: string): string {
  switch (a2a) {
    case 'TASK_STATE_SUBMITTED':
      return 'tone-submitted';
    case 'TASK_STATE_WORKING':
      return 'tone-working';
    case 'TASK_STATE_INPUT_REQUIRED':
    case 'TASK_STATE_AUTH_REQUIRED':
      return 'tone-input';
    case 'TASK_STATE_COMPLETED':
      return 'tone-completed';
    case 'TASK_STATE_FAILED':
    case 'TASK_STATE_REJECTED':
      return 'tone-failed';
    case 'TASK_STATE_CANCELED':
      return 'tone-canceled';
    default:
      return 'tone-unknown';
  }
}

/** The text of a message's text parts. */
export const textOf = (m: { parts?: Part[] } | undefined): string =>
  (m?.parts ?? [])
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join(' ');
