/**
 * The hub's read API, transport-neutral (docs/inspector.md#the-read-api): what A2A does not carry of a
 * task, for the caller's own tasks only, with the read right.
 *
 * | request | answer |
 * |---|---|
 * | `GET /hub/me` | `WhoAmI`: the caller's tenant, principal, rights and scheme |
 * | `GET /hub/tasks?ids=a,b,…` | `TaskFactsList`: the facts of the caller's tasks among the ids (at most 50) |
 * | `GET /hub/tasks/{id}/events?after=N&limit=M` | `TaskEventsPage`: the task's facts and its events with version > N (M ≤ 1000, default 500) |
 * | `GET /hub/tasks/{id}/deliveries` | `TaskDeliveries`: every attempt of every push notification and Synapse message |
 * | `GET /hub/tasks/{id}/peer-messages` | `PeerMessages`: a Synapse task's messages with its peer, in the task's order |
 *
 * Errors are `{error: {code, message}}`: 400 (a bad query), 401 / 403 (credentials), 404 (no such task of
 * the caller's, or no such route), 405 (not GET). Nothing here writes.
 */

import { textOf } from '../../agent/api.ts';
import { AuthError, TaskNotFoundError } from '../../domain/errors.ts';
import { authorize, type Principal } from '../../domain/principal.ts';
import type { Message, TaskEvent, TaskHead } from '../../domain/task.ts';
import type { DeliveryAttempt, DeliveryLog } from '../../ports/delivery-log.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import { errorHeaders, toProtocolError } from '../../protocol/a2a/errors.ts';
import { clip } from '../../validation/text.ts';
import {
  callbackMessageId,
  callbackOf,
  requesterMessageOf,
  SYNAPSE_CALLBACK_CONFIG_ID,
} from '../synapse/callbacks.ts';
import { PEER_KEY, REQUEST_PART_KEY } from '../synapse/requester.ts';
import { REQUEST_SKILL_KEY } from '../tasks/deadlines.ts';
import { ownedTask } from '../tasks/task-service.ts';
import type {
  InspectedAttempt,
  InspectedEvent,
  PeerMessage,
  PeerMessages,
  TaskDeliveries,
  TaskEventsPage,
  TaskFacts,
  TaskFactsList,
  WhoAmI,
} from './read-model.ts';

export interface ReadApiRequest {
  method: string;
  /** Below `/hub`: `/me`, `/tasks/{id}/events`, … (percent-encoded as received). */
  path: string;
  query: Readonly<Record<string, string | undefined>>;
  /** Who is calling (shared/adapters/lambda/auth-context.ts), or why they may not: answered before anything else. */
  principal: Principal | AuthError;
}

export interface ReadApiAnswer {
  statusCode: number;
  body: unknown;
  /** `WWW-Authenticate` of a 401. */
  headers?: Record<string, string>;
  meta: { taskId?: string; code?: string };
}

export const DEFAULT_EVENTS_LIMIT = 500;
export const MAX_EVENTS_LIMIT = 1000;
/** Ids in one facts request: a ListTasks page is 50 by default. */
export const MAX_FACTS_IDS = 50;
const REQUEST_TEXT_LENGTH = 120;

const problem = (statusCode: number, code: string, message: string): ReadApiAnswer => ({
  statusCode,
  body: { error: { code, message } },
  meta: { code },
});

/** A whole number from `min` to `max`, or the default when absent; undefined when it is something else. */
const wholeNumber = (text: string | undefined, min: number, max: number, fallback: number) => {
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
};

/** The skill a request names: its metadata's `synapse.skill`, or the type of a Synapse request. */
const skillOf = (request: Message | undefined): string | undefined => {
  const named = request?.metadata?.[REQUEST_SKILL_KEY];
  if (typeof named === 'string') return named;
  for (const part of request?.parts ?? []) {
    const type = (part.data as { [REQUEST_PART_KEY]?: { type?: unknown } } | undefined)?.[REQUEST_PART_KEY]
      ?.type;
    if (typeof type === 'string') return type;
  }
  return undefined;
};

const requestTextOf = (request: Message | undefined): string | undefined => {
  const text = request ? textOf(request).trim() : '';
  return text ? clip(text, REQUEST_TEXT_LENGTH) : undefined;
};

/**
 * What a task shows beside A2A's Task: its role, protocol, deadline and heartbeat, and (given its first
 * message, the `created` event's) the skill and the text it was asked with.
 */
export const factsOf = (head: TaskHead, request?: Message): TaskFacts => {
  const peer = head.metadata?.[PEER_KEY];
  const skill = skillOf(request);
  const text = requestTextOf(request);
  return {
    taskId: head.taskId,
    contextId: head.contextId,
    state: head.state,
    version: head.version,
    role: head.role,
    protocol: head.protocol,
    createdAt: head.createdAt,
    statusAt: head.statusAt,
    deadlineAt: head.deadlineAt,
    ...(head.heartbeatAt ? { heartbeatAt: head.heartbeatAt } : {}),
    ...(head.leaseUntil ? { leaseUntil: head.leaseUntil } : {}),
    ...(head.progress !== undefined ? { progress: head.progress } : {}),
    ...(head.reruns ? { reruns: head.reruns } : {}),
    ...(typeof peer === 'string' ? { peer } : {}),
    ...(skill ? { skill } : {}),
    ...(text ? { request: text } : {}),
  };
};

/** The task's first message when the record holds it (a young task), with no read. */
const recentRequestOf = (record: TaskRecord): Message | undefined =>
  record.recent.find((e) => e.version === 1)?.message;

const inspectedEvent = ({ tenant: _tenant, ...event }: TaskEvent): InspectedEvent => event;

/** An attempt as the API shows it: without the tenant and the claim (the worker's own bookkeeping). */
const inspectedAttempt = ({
  tenant: _tenant,
  taskId: _taskId,
  claim: _claim,
  keepUntil: _keepUntil,
  ...attempt
}: DeliveryAttempt): InspectedAttempt => attempt;

/**
 * The Synapse message a peer sent that made each event (docs/synapse-protocol.md): as executor, the
 * requester's request, answers, decisions and cancel; as requester, the executor's reports.
 */
const RECEIVED: Readonly<Record<TaskHead['role'], Readonly<Partial<Record<TaskEvent['type'], string>>>>> = {
  executor: {
    created: 'p2p:task_request',
    info_provided: 'p2p:task_info_provided',
    human_approve: 'p2p:human_decision',
    human_reject: 'p2p:human_decision',
    cancel: 'p2p:task_cancel',
  },
  requester: {
    confirm: 'p2p:task_confirm',
    reject: 'p2p:task_reject',
    need_info: 'p2p:task_need_info',
    status_update: 'p2p:task_status_update',
    need_human: 'p2p:task_need_human',
    complete: 'p2p:task_complete',
    fail: 'p2p:task_failed',
  },
};

export class InspectorReadApi {
  constructor(
    private readonly store: TaskStore,
    private readonly log: DeliveryLog,
  ) {}

  async handle(request: ReadApiRequest): Promise<ReadApiAnswer> {
    let principal: Principal;
    try {
      if (request.principal instanceof AuthError) throw request.principal;
      principal = request.principal;
      authorize(principal, 'read');
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      const error = toProtocolError(e);
      return { ...problem(error.code, e.code, e.message), headers: errorHeaders(error) };
    }
    if (request.method !== 'GET')
      return {
        ...problem(405, 'method_not_allowed', 'the read API answers GET only'),
        headers: { Allow: 'GET' },
      };
    const segments = request.path.split('/').slice(1);
    if (segments.length === 1 && segments[0] === 'me')
      return { statusCode: 200, body: whoAmI(principal), meta: {} };
    if (segments.length === 1 && segments[0] === 'tasks') return this.facts(principal, request.query.ids);
    const [collection, encodedId, what, ...rest] = segments;
    if (collection !== 'tasks' || !encodedId || !what || rest.length)
      return problem(404, 'not_found', `no route ${request.path}: see docs/inspector.md#the-read-api`);
    let taskId: string;
    try {
      taskId = decodeURIComponent(encodedId);
    } catch {
      return problem(404, 'task_not_found', 'No such task');
    }
    const read = { events: this.events, deliveries: this.deliveries, 'peer-messages': this.peerMessages }[
      what
    ];
    if (!read)
      return problem(404, 'not_found', `no route ${request.path}: events, deliveries or peer-messages`);
    try {
      const record = await ownedTask(this.store, principal, taskId);
      const answer = await read.call(this, record, request.query);
      return { ...answer, meta: { ...answer.meta, taskId } };
    } catch (e) {
      if (e instanceof TaskNotFoundError)
        return { ...problem(404, 'task_not_found', 'No such task'), meta: { taskId } };
      throw e;
    }
  }

  private async facts(principal: Principal, ids: string | undefined): Promise<ReadApiAnswer> {
    const wanted = [...new Set((ids ?? '').split(',').filter((id) => id !== ''))];
    if (wanted.length === 0 || wanted.length > MAX_FACTS_IDS)
      return problem(400, 'invalid_request', `ids: 1 to ${MAX_FACTS_IDS} task ids, comma-separated`);
    const records = await Promise.all(
      wanted.map((taskId) => ownedTask(this.store, principal, taskId).catch(() => undefined)),
    );
    const tasks = await Promise.all(
      records
        .filter((r): r is TaskRecord => r !== undefined)
        .map(async (record) => factsOf(record.head, await this.requestOf(record))),
    );
    const body: TaskFactsList = { tasks };
    return { statusCode: 200, body, meta: {} };
  }

  /** The task's first message: in the record while the task is young, else one read of its history. */
  private async requestOf(record: TaskRecord): Promise<Message | undefined> {
    const young = recentRequestOf(record);
    if (young) return young;
    const created = record.recent.find((e) => e.version === 1) ?? (await this.store.events(record, 0, 1))[0];
    return created?.message;
  }

  private async events(record: TaskRecord, query: ReadApiRequest['query']): Promise<ReadApiAnswer> {
    const after = wholeNumber(query.after, 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = wholeNumber(query.limit, 1, MAX_EVENTS_LIMIT, DEFAULT_EVENTS_LIMIT);
    if (after === undefined)
      return problem(400, 'invalid_request', 'after: a whole number (an event version)');
    if (limit === undefined)
      return problem(400, 'invalid_request', `limit: a whole number from 1 to ${MAX_EVENTS_LIMIT}`);
    const events = after >= record.head.version ? [] : await this.store.events(record, after, limit);
    const last = events.at(-1)?.version ?? after;
    // what the task was asked: read with the first page (the page keeps it); a later page, read as the task
    // goes on, adds no read of the task's history for it
    const request = events[0]?.version === 1 ? events[0].message : recentRequestOf(record);
    const page: TaskEventsPage = {
      task: factsOf(record.head, request),
      events: events.map(inspectedEvent),
      nextAfter: last < record.head.version ? last : null,
    };
    return { statusCode: 200, body: page, meta: {} };
  }

  private async deliveries(record: TaskRecord): Promise<ReadApiAnswer> {
    const attempts = await this.log.list(record.head.tenant, record.head.taskId);
    const body: TaskDeliveries = { taskId: record.head.taskId, attempts: attempts.map(inspectedAttempt) };
    return { statusCode: 200, body, meta: {} };
  }

  private async peerMessages(record: TaskRecord): Promise<ReadApiAnswer> {
    const { head } = record;
    const body: PeerMessages = {
      taskId: head.taskId,
      role: head.role,
      ...(typeof head.metadata?.[PEER_KEY] === 'string' ? { peer: head.metadata[PEER_KEY] } : {}),
      messages: [],
    };
    if (head.protocol !== 'synapse') return { statusCode: 200, body, meta: {} };
    const [events, attempts] = await Promise.all([
      this.allEvents(record),
      this.log.list(head.tenant, head.taskId),
    ]);
    const request = events.find((e) => e.type === 'created')?.message;
    for (const event of events) {
      const received = RECEIVED[head.role][event.type];
      if (received)
        body.messages.push({
          direction: 'received',
          type: received,
          version: event.version,
          at: event.at,
          ...(event.message ? { messageId: event.message.messageId } : {}),
        });
      const sent =
        head.role === 'requester'
          ? requesterMessageOf(event, { head, ...(request ? { request } : {}) })
          : callbackOf(event, head.taskId, { artifacts: [] });
      if (sent) body.messages.push(sentMessage(sent.type, event, head.taskId, attempts));
    }
    return { statusCode: 200, body, meta: {} };
  }

  /** Every event of a task, oldest first (a Synapse task's log is short: a few dozen events). */
  private async allEvents(record: TaskRecord): Promise<TaskEvent[]> {
    const events: TaskEvent[] = [];
    let after = 0;
    while (after < record.head.version) {
      const page = await this.store.events(record, after, MAX_EVENTS_LIMIT);
      if (page.length === 0) break;
      events.push(...page);
      after = page.at(-1)!.version;
    }
    return events;
  }
}

const sentMessage = (
  type: string,
  event: TaskEvent,
  taskId: string,
  attempts: readonly DeliveryAttempt[],
): PeerMessage => ({
  direction: 'sent',
  type,
  version: event.version,
  at: event.at,
  messageId: callbackMessageId(taskId, event.version),
  attempts: attempts
    .filter((a) => a.configId === SYNAPSE_CALLBACK_CONFIG_ID && a.version === event.version)
    .map(inspectedAttempt),
});

const whoAmI = (principal: Principal): WhoAmI => ({
  tenant: principal.tenant,
  principal: principal.owner,
  rights: principal.rights,
  scheme: principal.scheme,
});
