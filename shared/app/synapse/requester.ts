/**
 * The requester role (docs/synapse-protocol.md#the-requester-role): this hub delegates a task to a
 * Synapse peer, and follows it through what the peer reports.
 *
 * - `delegate` makes a task of role `requester` that starts `idle`, its peer registered as the task's
 *   `synapse` push config and `submit` (→ pending) in the same write: the stream relay then queues
 *   the p2p:task_request as a delivery (retried until the peer acknowledges it, then the DLQ), as it
 *   queues every later message of the requester (./callbacks.ts). No local run is ever made for it.
 * - `receive` applies a peer's report (confirm, reject, need_info, status, need_human, complete,
 *   failed) with the engine's conditional writes. Reports may arrive out of order (a retried one is
 *   not held back): what a report implies happened first is applied with it (a completion that
 *   arrives before the confirmation confirms and starts the task in the same write), and a progress
 *   report the task has already moved past is acknowledged with no effect.
 * - Answers (info, a human decision) and cancel go through the task service like any requester's: the
 *   task waits in `info_needed` / `need_human` (input-required in A2A) for its owner.
 */

import { dataPart, textOf, textPart } from '../../agent/api.ts';
import type { Caller } from '../../domain/caller.ts';
import { ValidationError } from '../../domain/errors.ts';
import { isTerminal, type SynapseState } from '../../domain/states.ts';
import {
  type Artifact,
  type EventDraft,
  isWellFormed,
  MAX_ID_LENGTH,
  type Message,
  type Part,
} from '../../domain/task.ts';
import { nextState, type TransitionEvent } from '../../domain/transitions.ts';
import type { LivenessWriter } from '../../ports/liveness-writer.ts';
import type { PushConfigStore } from '../../ports/push-config-store.ts';
import type { TaskRecord } from '../../ports/task-store.ts';
import type { PeerDirectory, SynapseMessage, SynapseMessageType } from '../../protocol/synapse/index.ts';
import { clip } from '../../validation/text.ts';
import { type InlinePushConfig, keepUntilOf, storedConfig } from '../push/push-configs.ts';
import { REQUEST_DEADLINE_KEY, REQUEST_SKILL_KEY } from '../tasks/deadlines.ts';
import { messageKey, type TaskEngine } from '../tasks/task-engine.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from './callbacks.ts';

/** The Synapse protocol's TaskTimeout: a delegated task that has not finished by then fails. */
export const DEFAULT_DELEGATION_TIMEOUT_SECONDS = 300;

/** The data part of a delegated task's first message that holds its request (type, payload). */
export const REQUEST_PART_KEY = 'synapse.request';

/** The metadata key naming a requester task's peer (shown in A2A's Task.metadata). */
export const PEER_KEY = 'synapse.peer';

export interface Delegation {
  /** The peer to delegate to (a configured one). */
  peerId: string;
  /** The task type (`task.type`): the peer's skill. */
  type: string;
  /** The task's payload (`task.payload`); default `{text}` when only a text is given. */
  payload?: Record<string, unknown>;
  /** What the task is, as text (the first message's text part). */
  text?: string;
  /** Seconds until the task times out (default DEFAULT_DELEGATION_TIMEOUT_SECONDS). */
  deadlineSeconds?: number;
  contextId?: string;
  priority?: string;
  /**
   * The first message, when the caller has one (an A2A message bridged to a peer); else one is made.
   * Its id de-duplicates a retried delegation.
   */
  message?: Message;
  /** An A2A push config sent with a bridged message: registered in the same write. */
  pushConfig?: InlinePushConfig;
}

export interface Received {
  record: TaskRecord;
  /** The report was applied before (the same message id), or the task had moved past it. */
  duplicate: boolean;
}

/** Thrown when a report does not fit the task (it is not refused as a duplicate). */
export class ReportRefusedError extends Error {
  constructor(
    readonly state: SynapseState,
    message: string,
  ) {
    super(message);
    this.name = 'ReportRefusedError';
  }
}

/**
 * A peer's text as this hub keeps it: at most MAX_PEER_TEXT_BYTES of UTF-8 (the schemas count 8,192
 * characters; a task's status message is bounded in bytes), a reason's message at most MAX_REASON_BYTES.
 */
const MAX_PEER_TEXT_BYTES = 4_096;
const MAX_REASON_BYTES = 2_048;

/** The longest prefix of `items` whose JSON fits in `maxBytes` (what a task's event may hold). */
const fitting = <T>(items: readonly T[], maxBytes = 3_000): T[] => {
  const out: T[] = [];
  let bytes = 2;
  for (const item of items) {
    bytes += Buffer.byteLength(JSON.stringify(item) ?? '', 'utf8') + 1;
    if (bytes > maxBytes) break;
    out.push(item);
  }
  return out;
};

const agentMessage = (
  messageId: string,
  body: string | undefined,
  extra: Part[] = [],
): Message | undefined =>
  body || extra.length
    ? {
        messageId,
        role: 'agent',
        parts: [...(body ? [textPart(clip(body, { bytes: MAX_PEER_TEXT_BYTES }))] : []), ...extra],
      }
    : undefined;

/** States after an answer, before the peer reports it works on the task again. */
const RESUMED: ReadonlySet<SynapseState> = new Set(['info_provided', 'human_approved', 'human_rejected']);

/** Reports that only say work goes on: one the task has moved past is old news, not an error. */
const PROGRESS: ReadonlySet<string> = new Set(['p2p:task_confirm', 'p2p:task_status_update']);

/** What a report implies happened before it, tried in order when the report alone does not apply. */
const IMPLIED: readonly (readonly TransitionEvent[])[] = [
  [],
  ['status_update'],
  ['confirm'],
  ['confirm', 'status_update'],
];

const fitsFrom = (state: SynapseState, events: readonly TransitionEvent[]): boolean => {
  let s: SynapseState | undefined = state;
  for (const e of events) {
    s = s === undefined ? undefined : nextState(s, e);
    if (s === undefined) return false;
  }
  return true;
};

/** The artifacts a completion's `result.output` carries: this project's `[{artifact_id, parts}]`, or any value as data. */
const artifactsOf = (output: unknown, prefix: string): Artifact[] => {
  if (output === undefined || output === null) return [];
  if (Array.isArray(output) && output.every((a) => a && typeof a === 'object' && Array.isArray(a.parts))) {
    return output.map((a, i) => ({
      artifactId: typeof a.artifact_id === 'string' && a.artifact_id ? a.artifact_id : `${prefix}-${i + 1}`,
      ...(typeof a.name === 'string' ? { name: a.name } : {}),
      parts: a.parts as Part[],
    }));
  }
  return [{ artifactId: `${prefix}-1`, name: 'result', parts: [dataPart(output)] }];
};

/** The events a report of one type makes on the requester's task; `id` is the report's message id. */
type Report<T extends SynapseMessageType> = (report: SynapseMessage<T>, id: string) => EventDraft[];

/**
 * What each message type is to a requester's task: the events an executor's report makes, or null for
 * a type that is no report (a requester's own messages, acknowledgements, capabilities, heartbeats,
 * which the endpoint answers itself). A type without an entry is a type error here.
 */
const REPORTS: { readonly [T in SynapseMessageType]: Report<T> | null } = {
  'p2p:task_confirm': () => [{ type: 'confirm' }],
  'p2p:task_reject': (report, id) => {
    const { reason } = report.payload;
    return [
      {
        type: 'reject',
        message: agentMessage(id, reason.message || reason.code)!,
        reason: { code: reason.code, message: clip(reason.message, { bytes: MAX_REASON_BYTES }) },
      },
    ];
  },
  'p2p:task_need_info': (report, id) => {
    const p = report.payload;
    const fields = p.missing_fields.map((f) => f.field).join(', ');
    return [
      {
        type: 'need_info',
        // the question, and the fields asked for (what an A2A client sees as the status message)
        message: agentMessage(id, p.question ?? `The executor needs: ${fields}`, [
          dataPart({ missing_fields: fitting(p.missing_fields) }),
        ])!,
        data: {
          missingFields: fitting(p.missing_fields).map((f) => ({
            field: f.field,
            ...(f.reason ? { reason: f.reason } : {}),
            ...(f.suggested_value !== undefined ? { suggestedValue: f.suggested_value } : {}),
          })),
        },
      },
    ];
  },
  'p2p:task_status_update': (report, id) => {
    const p = report.payload;
    const message = agentMessage(id, p.message);
    return [
      {
        type: 'status_update',
        ...(p.progress !== undefined ? { progress: p.progress } : {}),
        ...(message ? { message } : {}),
      },
    ];
  },
  'p2p:task_need_human': (report, id) => {
    const p = report.payload;
    return [
      {
        type: 'need_human',
        // the question, and the options to decide between (A2A clients see them in the status message)
        message: agentMessage(
          id,
          p.reason.message || 'A human must decide',
          p.options?.length ? [dataPart({ options: fitting(p.options) })] : [],
        )!,
        data: {
          options: fitting(p.options ?? []).map((o) => ({
            field: o.field,
            value: o.value,
            ...(o.pros_cons ? { prosCons: o.pros_cons } : {}),
            ...(o.confidence !== undefined ? { confidence: o.confidence } : {}),
          })),
        },
      },
    ];
  },
  'p2p:task_complete': (report, id) => {
    const p = report.payload;
    const message = agentMessage(id, p.summary);
    return [
      ...artifactsOf(p.result.output, `${id}-artifact`).map((artifact) => ({
        type: 'artifact' as const,
        artifact: { artifact },
      })),
      { type: 'complete', ...(message ? { message } : {}) },
    ];
  },
  'p2p:task_failed': (report, id) => {
    const { error } = report.payload;
    return [
      {
        type: 'fail',
        message: agentMessage(id, error.message || error.code)!,
        reason: { code: error.code, message: clip(error.message, { bytes: MAX_REASON_BYTES }) },
      },
    ];
  },
  'p2p:task_request': null,
  'p2p:task_info_provided': null,
  'p2p:task_cancel': null,
  'p2p:human_decision': null,
  'p2p:task_ack': null,
  'p2p:ack': null,
  'p2p:nack': null,
  'p2p:heartbeat': null,
  'p2p:capability_query': null,
  'p2p:capability_response': null,
};

export class SynapseRequester {
  constructor(
    private readonly engine: TaskEngine,
    private readonly configs: PushConfigStore,
    /**
     * The configured peers, to refuse a delegation to an unknown one (or one of another tenant) at once.
     * Without them (the A2A bridge: its peers are the deployment's own configuration) the delivery
     * worker, which reads them to sign, finds out: a peer it does not know gets nothing.
     */
    private readonly peers?: () => Promise<PeerDirectory>,
    /** Records a peer's p2p:heartbeat on its task (a liveness write: no event). */
    private readonly liveness?: LivenessWriter,
  ) {}

  /**
   * A peer's p2p:heartbeat about a task it works on: a sign of life for the task's heartbeat watch (a
   * liveness write, no new version). A task still `confirmed` whose peer says it is executing moves to
   * `executing` (one status update), so its watch starts.
   */
  async heartbeat(record: TaskRecord, beat: SynapseMessage<'p2p:heartbeat'>): Promise<TaskRecord> {
    const { head } = record;
    // confirmed, or answered (info provided, a decision): the peer works on it again once it beats
    const waitingForWork = head.state === 'confirmed' || RESUMED.has(head.state);
    if (waitingForWork && (beat.payload.status === 'executing' || beat.payload.status === undefined)) {
      const applied = await this.engine.apply(
        { tenant: head.tenant, taskId: head.taskId },
        [
          {
            type: 'status_update',
            ...(beat.payload.progress !== undefined ? { progress: beat.payload.progress } : {}),
          },
        ],
        { seen: record },
      );
      return applied.record;
    }
    if (!isTerminal(head.state) && this.liveness) {
      const written = await this.liveness.beat(record, new Date().toISOString());
      if (!written.written && written.current) return written.current;
    }
    return record;
  }

  /** Delegates a task to a peer: the task is made (or found again, for a retried message) and its request queued. */
  async delegate(caller: Caller, input: Delegation): Promise<{ record: TaskRecord; duplicate: boolean }> {
    if (this.peers) {
      const peer = (await this.peers()).peer(input.peerId);
      if (!peer || peer.tenant !== caller.tenant)
        throw new ValidationError(`no Synapse peer "${input.peerId}" is configured`, 'peer');
    }
    const seconds = input.deadlineSeconds ?? DEFAULT_DELEGATION_TIMEOUT_SECONDS;
    const given = input.message;
    const body = input.text ?? (given ? textOf(given) : undefined);
    const message: Message = {
      messageId: given?.messageId ?? crypto.randomUUID(),
      role: 'user',
      parts: [
        ...(given?.parts.length ? given.parts : input.text ? [textPart(input.text)] : []),
        // what the request carries, under a key of its own (the last part: a client's parts come first)
        dataPart({
          [REQUEST_PART_KEY]: { type: input.type, payload: input.payload ?? (body ? { text: body } : {}) },
        }),
      ],
      metadata: { ...given?.metadata, [REQUEST_SKILL_KEY]: input.type, [REQUEST_DEADLINE_KEY]: seconds },
    };
    const base = {
      tenant: caller.tenant,
      owner: caller.owner,
      message,
      dedupScope: caller.owner,
      ...(input.contextId ? { contextId: input.contextId } : {}),
    };
    const taskId = this.engine.taskIdFor(base);
    const deadlineAt = new Date(Date.now() + seconds * 1000).toISOString();
    // the config first, then the write that lists it (as any push config)
    await this.configs.put(
      // the worker sends a requester's messages to the peer's configured endpoint (none is kept here)
      storedConfig(caller.tenant, taskId, { id: SYNAPSE_CALLBACK_CONFIG_ID, url: '' }, 'synapse', {
        peerId: input.peerId,
        remoteTaskId: taskId,
      }),
      keepUntilOf(deadlineAt),
      // a retried delegation finds its task made: what the first one registered stays as it was
      { ifAbsent: true },
    );
    const then: EventDraft[] = [{ type: 'push_config', data: { set: SYNAPSE_CALLBACK_CONFIG_ID } }];
    if (input.pushConfig) {
      // an A2A push config sent with a bridged message: kept beside the task, listed in the same write
      const id = input.pushConfig.config.id ?? taskId;
      await this.configs.put(
        storedConfig(caller.tenant, taskId, { ...input.pushConfig.config, id }, input.pushConfig.version),
        keepUntilOf(deadlineAt),
        { ifAbsent: true },
      );
      then.push({ type: 'push_config', data: { set: id } });
    }
    then.push({ type: 'submit' });
    const created = await this.engine.create(
      {
        ...base,
        role: 'requester',
        protocol: 'synapse',
        initialState: 'idle',
        deadlineAt,
        metadata: {
          [PEER_KEY]: input.peerId,
          ...(input.priority ? { 'synapse.priority': input.priority } : {}),
        },
        then,
      },
      taskId,
    );
    return { record: created.record, duplicate: created.duplicate };
  }

  /** The requester task `taskId` delegated to `peerId` in `tenant`, or undefined. */
  async taskOf(tenant: string, peerId: string, taskId: string): Promise<TaskRecord | undefined> {
    if (taskId.length === 0 || taskId.length > MAX_ID_LENGTH || !isWellFormed(taskId)) return undefined;
    const record = await this.engine.store.get({ tenant, taskId });
    if (record?.head.role !== 'requester' || record.head.metadata?.[PEER_KEY] !== peerId) return undefined;
    return record;
  }

  /** Applies a peer's report about a task this hub delegated to it. */
  async receive(record: TaskRecord, report: SynapseMessage): Promise<Received> {
    const drafts = this.draftsOf(report);
    if (!drafts)
      throw new ReportRefusedError(record.head.state, `${report.type} is not a report to a requester`);
    // the same report again (its message id, from this peer): applied before, whatever the task is now
    const key = messageKey(`synapse:${report.sender.agent_id}`, {
      messageId: report.message_id,
      role: 'agent',
      parts: [{ text: report.type }],
    });
    let seen = record;
    for (let attempt = 0; attempt < 3; attempt++) {
      if (seen.head.recentMessageKeys?.includes(key)) return { record: seen, duplicate: true };
      const state = seen.head.state;
      const first = drafts[0]!.type as TransitionEvent;
      const implied = IMPLIED.find((pre) => fitsFrom(state, [...pre, first]));
      if (!implied) {
        if (PROGRESS.has(report.type) && state !== 'idle') return { record: seen, duplicate: true };
        throw new ReportRefusedError(
          state,
          isTerminal(state) ? `The task is ${state}` : `The task is ${state}: ${report.type} does not apply`,
        );
      }
      try {
        const applied = await this.engine.apply(
          { tenant: seen.head.tenant, taskId: seen.head.taskId },
          [...implied.map((type) => ({ type })), ...drafts],
          { dedupKey: key, seen, maxAttempts: 1 },
        );
        return { record: applied.record, duplicate: applied.duplicate };
      } catch (e) {
        // a report that raced another one: decide again against the task as it is now
        const now = await this.engine.store.get({ tenant: seen.head.tenant, taskId: seen.head.taskId });
        if (!now || attempt === 2) throw e;
        seen = now;
      }
    }
    throw new Error('unreachable');
  }

  /** The events a report makes on the requester's task (its message id de-duplicates it), if a report. */
  private draftsOf(report: SynapseMessage): EventDraft[] | undefined {
    // the entry of the report's own type (the compiler cannot pair a union message with it)
    const drafts = REPORTS[report.type] as Report<SynapseMessageType> | null;
    return drafts?.(report, report.message_id);
  }
}
