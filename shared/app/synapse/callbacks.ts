/**
 * What this hub, as a Synapse executor, tells the requester of each committed event of its task
 * (docs/synapse-protocol.md#callbacks). Pure: the stream relay asks `isCallbackEvent` of every change
 * to queue the deliveries, and the delivery worker builds the message with `callbackOf`.
 *
 * | event | callback |
 * |---|---|
 * | confirm | p2p:task_confirm |
 * | reject | p2p:task_reject (the reason) |
 * | need_info | p2p:task_need_info (the missing fields, the question) |
 * | status_update (the agent's progress or message) | p2p:task_status_update |
 * | need_human | p2p:task_need_human (the question, the options) |
 * | complete | p2p:task_complete (the artifacts as the result, the final message as the summary) |
 * | fail, timeout, heartbeat_lost | p2p:task_failed (the reason's code) |
 *
 * Nothing else is sent: the requester's own messages (answers, decisions, cancel: a cancel is answered
 * synchronously with p2p:task_ack), claims, artifacts (they travel in the completion), push configs.
 */
import { textOf } from '../../agent/api.ts';
import type { Artifact, Message, TaskEvent, TaskView } from '../../domain/task.ts';
import type { SynapseMessageType, SynapsePayloadInput } from '../../protocol/synapse/index.ts';

/** The config id of a task's Synapse requester among its push configs (reserved: A2A may not use it). */
export const SYNAPSE_CALLBACK_CONFIG_ID = 'synapse';

/** The longest text a callback carries in one field (the schemas' MAX_TEXT_LENGTH). */
const MAX_TEXT = 8_192;

const CALLBACK_TYPE: Partial<Record<TaskEvent['type'], SynapseMessageType>> = {
  confirm: 'p2p:task_confirm',
  reject: 'p2p:task_reject',
  need_info: 'p2p:task_need_info',
  status_update: 'p2p:task_status_update',
  need_human: 'p2p:task_need_human',
  complete: 'p2p:task_complete',
  fail: 'p2p:task_failed',
  timeout: 'p2p:task_failed',
  heartbeat_lost: 'p2p:task_failed',
};

/** Whether the requester is told of this event. */
export const isCallbackEvent = (event: Pick<TaskEvent, 'type'>): boolean =>
  CALLBACK_TYPE[event.type] !== undefined;

export interface Callback<T extends SynapseMessageType = SynapseMessageType> {
  type: T;
  payload: SynapsePayloadInput<T>;
}

const clipText = (text: string): string => (text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text);

const agentText = (message: Message | undefined): string | undefined => {
  if (message?.role !== 'agent') return undefined;
  const text = textOf(message);
  return text ? clipText(text) : undefined;
};

/** An artifact as a result output: its text when it is only text, else its parts. */
const outputOf = (artifacts: readonly Artifact[]): unknown =>
  artifacts.map((a) => ({
    artifact_id: a.artifactId,
    ...(a.name ? { name: a.name } : {}),
    parts: a.parts,
  }));

const MISSING_FIELD_LIMIT = 100;

/**
 * The callback of `event` to the requester whose task id is `remoteTaskId`, or undefined when the
 * event is not told. `view` (the task with its artifacts) is read for a completion only.
 */
export function callbackOf(
  event: TaskEvent,
  remoteTaskId: string,
  view?: Pick<TaskView, 'artifacts'>,
): Callback | undefined {
  const type = CALLBACK_TYPE[event.type];
  if (!type) return undefined;
  const task_id = remoteTaskId;
  const text = agentText(event.message);
  switch (event.type) {
    case 'confirm':
      return { type: 'p2p:task_confirm', payload: { task_id, confirmed: true } };
    case 'reject':
      return {
        type: 'p2p:task_reject',
        payload: {
          task_id,
          reason: {
            code: event.reason?.code ?? 'capability_lacking',
            message: clipText(event.reason?.message || text || 'The task was rejected'),
          },
        },
      };
    case 'need_info': {
      const fields = Array.isArray(event.data?.missingFields) ? event.data.missingFields : [];
      const missing = fields
        .filter((f): f is { field: string; reason?: unknown; suggestedValue?: unknown } => {
          return typeof f === 'object' && f !== null && typeof (f as { field?: unknown }).field === 'string';
        })
        .slice(0, MISSING_FIELD_LIMIT)
        .map((f) => ({
          field: f.field,
          ...(typeof f.reason === 'string' ? { reason: clipText(f.reason) } : {}),
          ...(f.suggestedValue !== undefined ? { suggested_value: f.suggestedValue } : {}),
        }));
      return {
        type: 'p2p:task_need_info',
        payload: {
          task_id,
          // the seed's payload names at least one field: a plain question asks for the answer
          missing_fields: missing.length ? missing : [{ field: 'answer', ...(text ? { reason: text } : {}) }],
          ...(text ? { question: text } : {}),
        },
      };
    }
    case 'status_update':
      return {
        type: 'p2p:task_status_update',
        payload: {
          task_id,
          status: event.to,
          ...(event.progress !== undefined ? { progress: event.progress } : {}),
          ...(text ? { message: text } : {}),
        },
      };
    case 'need_human': {
      const options = Array.isArray(event.data?.options) ? event.data.options : [];
      return {
        type: 'p2p:task_need_human',
        payload: {
          task_id,
          reason: { code: 'human_decision_required', message: text ?? 'A human must decide' },
          ...(options.length
            ? {
                options: options.slice(0, MISSING_FIELD_LIMIT).map((o, i) => {
                  const opt = (typeof o === 'object' && o !== null ? o : { value: o }) as Record<
                    string,
                    unknown
                  >;
                  return {
                    field: typeof opt.field === 'string' ? opt.field : `option_${i + 1}`,
                    value: opt.value,
                    ...(typeof opt.prosCons === 'string' ? { pros_cons: clipText(opt.prosCons) } : {}),
                    ...(typeof opt.confidence === 'number' ? { confidence: opt.confidence } : {}),
                  };
                }),
              }
            : {}),
        },
      };
    }
    case 'complete':
      return {
        type: 'p2p:task_complete',
        payload: {
          task_id,
          result: { output_type: 'artifacts', output: outputOf(view?.artifacts ?? []) },
          ...(text ? { summary: text } : {}),
        },
      };
    default:
      // fail, timeout, heartbeat_lost
      return {
        type: 'p2p:task_failed',
        payload: {
          task_id,
          error: {
            code:
              event.type === 'timeout'
                ? 'execution_timeout'
                : event.type === 'heartbeat_lost'
                  ? 'heartbeat_lost'
                  : (event.reason?.code ?? 'execution_failed'),
            message: clipText(event.reason?.message || text || `The task ended with ${event.type}`),
            recoverable: event.type === 'heartbeat_lost' || event.type === 'timeout',
          },
        },
      };
  }
}

/** The message id of the callback of one event: the same on every retry (receivers de-duplicate on it). */
export const callbackMessageId = (taskId: string, version: number): string =>
  `cb_${taskId.replace(/[^A-Za-z0-9_:-]/g, '_')}_${version}`;
