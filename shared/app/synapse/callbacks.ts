/**
 * What this hub tells the Synapse peer of a task of each committed event (docs/synapse-protocol.md#callbacks).
 * Pure: the stream relay asks `isCallbackEvent` of every change to queue the deliveries, and the delivery
 * worker builds the message with `callbackOf`.
 *
 * As executor (role `executor`: a peer delegated the task to this hub), to the requester:
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
 *
 * As requester (role `requester`: this hub delegated the task to the peer), to the executor:
 *
 * | event | message |
 * |---|---|
 * | submit | p2p:task_request (the task's first message: its type, payload, deadline, context) |
 * | info_provided | p2p:task_info_provided (the answer's provided fields, its text) |
 * | human_approve, human_reject | p2p:human_decision (who decided: the answer's `decided_by`, else the task's owner) |
 * | cancel | p2p:task_cancel |
 * | timeout (the task reached its deadline here) | p2p:task_cancel (reason `execution_timeout`) |
 * | heartbeat_lost (the peer's heartbeats stopped: the task failed here) | p2p:task_cancel (reason `heartbeat_lost`) |
 */
import { textOf } from '../../agent/api.ts';
import type { Artifact, EventType, Message, TaskEvent, TaskHead, TaskView } from '../../domain/task.ts';
import type { SynapseMessageType, SynapsePayloadInput } from '../../protocol/synapse/index.ts';
import { clip } from '../../validation/text.ts';

/** The config id of a task's Synapse requester among its push configs (reserved: A2A may not use it). */
export const SYNAPSE_CALLBACK_CONFIG_ID = 'synapse';

/** The longest text a callback carries in one field (the schemas' MAX_TEXT_LENGTH). */
const MAX_TEXT = 8_192;

type Role = TaskHead['role'];

export interface Callback<T extends SynapseMessageType = SynapseMessageType> {
  type: T;
  payload: SynapsePayloadInput<T>;
}

const clipText = (text: string): string => clip(text, MAX_TEXT);

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

/** What the callback of one event of a task this hub executes is made of. */
interface Executed {
  event: TaskEvent;
  /** The requester's id of the task. */
  task_id: string;
  /** The event's agent message as text (clipped), if any. */
  text: string | undefined;
  /** The task with its artifacts (a completion's result). */
  view: Pick<TaskView, 'artifacts'> | undefined;
}

type Tell = (executed: Executed) => Callback;

/** fail, timeout, heartbeat_lost: the task failed here (a timeout or a lost heartbeat may be retried). */
const failed: Tell = ({ event, task_id, text }) => ({
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
});

/**
 * The callback of each event of a task this hub executes (role `executor`), or null when the requester
 * is not told of it (the table at the top). An event type without an entry is a type error here.
 */
const CALLBACKS: { readonly [E in EventType]: Tell | null } = {
  created: null,
  submit: null,
  confirm: ({ task_id }) => ({ type: 'p2p:task_confirm', payload: { task_id, confirmed: true } }),
  reject: ({ event, task_id, text }) => {
    // the agent's validation may name alternatives in its details (`alternatives`, camelCase or snake_case)
    const alt = plainObject(event.reason?.details?.alternatives);
    const suggested = alt?.suggestedAgentId ?? alt?.suggested_agent_id;
    const retryAfter = alt?.retryAfter ?? alt?.retry_after;
    const partial = alt?.partialSupport ?? alt?.partial_support;
    const alternatives = {
      ...(typeof suggested === 'string' ? { suggested_agent_id: suggested } : {}),
      ...(typeof retryAfter === 'number' && Number.isInteger(retryAfter) && retryAfter >= 0
        ? { retry_after: retryAfter }
        : {}),
      ...(typeof partial === 'boolean' ? { partial_support: partial } : {}),
    };
    return {
      type: 'p2p:task_reject',
      payload: {
        task_id,
        reason: {
          code: event.reason?.code ?? 'capability_lacking',
          message: clipText(event.reason?.message || text || 'The task was rejected'),
        },
        ...(Object.keys(alternatives).length ? { alternatives } : {}),
      },
    };
  },
  start: null,
  resume: null,
  need_info: ({ event, task_id, text }) => {
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
        // the payload names at least one field: a plain question asks for the answer
        missing_fields: missing.length ? missing : [{ field: 'answer', ...(text ? { reason: text } : {}) }],
        ...(text ? { question: text } : {}),
      },
    };
  },
  info_provided: null,
  need_human: ({ event, task_id, text }) => {
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
  },
  human_deciding: null,
  human_approve: null,
  human_reject: null,
  status_update: ({ event, task_id, text }) => ({
    type: 'p2p:task_status_update',
    payload: {
      task_id,
      status: event.to,
      ...(event.progress !== undefined ? { progress: event.progress } : {}),
      ...(text ? { message: text } : {}),
    },
  }),
  // artifacts travel in the completion
  artifact: null,
  complete: ({ task_id, text, view }) => ({
    type: 'p2p:task_complete',
    payload: {
      task_id,
      result: { output_type: 'artifacts', output: outputOf(view?.artifacts ?? []) },
      ...(text ? { summary: text } : {}),
    },
  }),
  fail: failed,
  // a cancel is answered synchronously (p2p:task_ack)
  cancel: null,
  timeout: failed,
  heartbeat_lost: failed,
  release: null,
  push_config: null,
};

/**
 * The callback of `event` to the requester whose task id is `remoteTaskId`, or undefined when the
 * event is not told. `view` (the task with its artifacts) is read for a completion only.
 */
export function callbackOf(
  event: TaskEvent,
  remoteTaskId: string,
  view?: Pick<TaskView, 'artifacts'>,
): Callback | undefined {
  const tell = CALLBACKS[event.type];
  return tell ? tell({ event, task_id: remoteTaskId, text: agentText(event.message), view }) : undefined;
}

/** A task id as it may stand in a message id (only [A-Za-z0-9_:-]). */
const idPart = (taskId: string): string => taskId.replace(/[^A-Za-z0-9_:-]/g, '_');

/** The message id of the callback of one event: the same on every retry (receivers de-duplicate on it). */
export const callbackMessageId = (taskId: string, version: number): string =>
  `cb_${idPart(taskId)}_${version}`;

/** The message id of the `beat`-th p2p:heartbeat of the claim that ends at `claim`. */
export const heartbeatMessageId = (taskId: string, claim: string, beat: number): string =>
  `hb_${idPart(taskId)}_${Date.parse(claim)}_${beat}`;

/** What a requester's message needs besides its event: the task, and its first message for a request. */
export interface RequestContext {
  head: Pick<TaskHead, 'taskId' | 'contextId' | 'owner' | 'deadlineAt' | 'metadata'>;
  /** The task's first message (the `created` event's): what a p2p:task_request carries. */
  request?: Message;
}

/** The data part of a message holding `key`, if any. */
const dataWith = (message: Message | undefined, key: string): Record<string, unknown> | undefined => {
  for (const part of message?.parts ?? []) {
    const data = part.data as Record<string, unknown> | undefined;
    if (data && typeof data === 'object' && !Array.isArray(data) && key in data) return data;
  }
  return undefined;
};

/** The last data part of a message holding `key`, if any. */
const lastDataWith = (message: Message | undefined, key: string): Record<string, unknown> | undefined => {
  const parts = message?.parts ?? [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const data = parts[i]!.data as Record<string, unknown> | undefined;
    if (data && typeof data === 'object' && !Array.isArray(data) && key in data) return data;
  }
  return undefined;
};

const plainObject = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const textOrUndefined = (message: Message | undefined): string | undefined => {
  const text = message ? textOf(message) : '';
  return text ? clipText(text) : undefined;
};

type Ask = (event: TaskEvent, context: RequestContext) => Callback;

/** human_approve, human_reject: the decision, and who made it (the answer's `decided_by`, else the owner). */
const decided: Ask = (event, { head }) => {
  const task_id = head.taskId;
  const data = dataWith(event.message, 'decision') ?? {};
  const by = plainObject(data.decided_by) ?? plainObject(event.message?.metadata?.['synapse.decidedBy']);
  const notes =
    typeof event.data?.notes === 'string'
      ? event.data.notes
      : typeof data.notes === 'string'
        ? data.notes
        : undefined;
  return {
    type: 'p2p:human_decision',
    payload: {
      task_id,
      decision_id:
        typeof data.decision_id === 'string' && data.decision_id
          ? data.decision_id
          : `${task_id}:${event.version}`,
      decided_by: {
        user_id: typeof by?.user_id === 'string' && by.user_id ? by.user_id : head.owner,
        ...(typeof by?.user_name === 'string' ? { user_name: by.user_name } : {}),
        ...(typeof by?.role === 'string' ? { role: by.role } : {}),
      },
      decision: { action: event.type === 'human_approve' ? 'approve' : 'reject' },
      ...(notes ? { notes: clipText(notes) } : {}),
      timestamp: event.at,
    },
  };
};

/**
 * The message this hub sends the executor for each event of a task it delegated (role `requester`), or
 * null when the executor is not told of it (the table at the top). An event type without an entry is a
 * type error here.
 */
const REQUESTER_MESSAGES: { readonly [E in EventType]: Ask | null } = {
  created: null,
  submit: (_, context) => {
    const { head, request } = context;
    const meta = head.metadata ?? {};
    // the request part delegate() appended (the last one of its key: a client's own parts come before it),
    // and the task type the deployment routed it as (the message's skill), never a client's data
    const spec = plainObject(lastDataWith(request, 'synapse.request')?.['synapse.request']);
    const skill = request?.metadata?.['synapse.skill'];
    const type = typeof skill === 'string' ? skill : typeof spec?.type === 'string' ? spec.type : 'default';
    const text = textOrUndefined(request);
    const payload = plainObject(spec?.payload) ?? (text ? { text } : {});
    return {
      type: 'p2p:task_request',
      payload: {
        task: {
          id: head.taskId,
          type,
          ...(typeof meta['synapse.priority'] === 'string' ? { priority: meta['synapse.priority'] } : {}),
          deadline: head.deadlineAt,
          payload,
        },
        context: { session_id: head.contextId },
      },
    };
  },
  confirm: null,
  reject: null,
  start: null,
  resume: null,
  need_info: null,
  info_provided: (event, { head }) => {
    const text = textOrUndefined(event.message);
    const provided = plainObject(dataWith(event.message, 'provided_fields')?.provided_fields);
    return {
      type: 'p2p:task_info_provided',
      payload: {
        task_id: head.taskId,
        provided_fields: provided ?? { answer: text ?? '' },
        ...(text ? { message: text } : {}),
      },
    };
  },
  need_human: null,
  human_deciding: null,
  human_approve: decided,
  human_reject: decided,
  status_update: null,
  artifact: null,
  complete: null,
  fail: null,
  cancel: (event, { head }) => ({
    type: 'p2p:task_cancel',
    payload: {
      task_id: head.taskId,
      ...(event.reason
        ? { reason: { code: event.reason.code, message: clipText(event.reason.message) } }
        : {}),
    },
  }),
  // this hub gave up waiting: the peer stops too
  timeout: (_, { head }) => ({
    type: 'p2p:task_cancel',
    payload: {
      task_id: head.taskId,
      reason: {
        code: 'execution_timeout',
        message: 'The requester stopped waiting: the task reached its deadline',
      },
    },
  }),
  // this hub took the peer for lost (its heartbeats stopped): were it only late, it stops too rather than
  // finish work nobody waits for (docs/reliability.md#push-receivers-and-synapse-peers)
  heartbeat_lost: (_, { head }) => ({
    type: 'p2p:task_cancel',
    payload: {
      task_id: head.taskId,
      reason: {
        code: 'heartbeat_lost',
        message: 'The requester stopped waiting: no heartbeat from the executor in time',
      },
    },
  }),
  release: null,
  push_config: null,
};

/** The message this hub, as requester, sends the executor for `event`, or undefined when none. */
export function requesterMessageOf(event: TaskEvent, context: RequestContext): Callback | undefined {
  return REQUESTER_MESSAGES[event.type]?.(event, context);
}

/** Whether the peer is told of this event of a task in `role`. */
export const isCallbackEvent = (role: Role, event: Pick<TaskEvent, 'type'>): boolean =>
  (role === 'requester' ? REQUESTER_MESSAGES : CALLBACKS)[event.type] != null;
