/**
 * What the hub's read API answers (docs/inspector.md#the-read-api): what A2A does not carry of a task — its
 * full event log, its deliveries, the Synapse messages exchanged with its peer — and who the caller is.
 * Plain JSON types: the inspector page imports them too.
 */

import type { Right } from '../../domain/principal.ts';
import type { TaskEvent, TaskHead, TaskRole } from '../../domain/task.ts';
import type { DeliveryAttempt } from '../../ports/delivery-log.ts';

/** `GET /hub/me`: who the credentials are (in dev mode, the anonymous principal). */
export interface WhoAmI {
  tenant: string;
  principal: string;
  rights: readonly Right[];
  /** `dev`: the local hub's open mode (AUTH_MODE=none), `bearer` / `api-key`: the credential's kind. */
  scheme: string;
}

/** The facts of a task A2A's Task does not show: its role and protocol, its deadline, its heartbeat. */
export type TaskFacts = Pick<
  TaskHead,
  | 'taskId'
  | 'contextId'
  | 'state'
  | 'version'
  | 'role'
  | 'protocol'
  | 'createdAt'
  | 'statusAt'
  | 'deadlineAt'
  | 'heartbeatAt'
  | 'leaseUntil'
  | 'progress'
  | 'reruns'
> & {
  /** A Synapse task's peer. */
  peer?: string;
  /**
   * The skill asked for (the request's metadata `synapse.skill`, or a Synapse task's type), when one was. An
   * events page gives it and `request` with its first page (and while the task is young): never a read more.
   */
  skill?: string;
  /** The request's text, its first 120 characters (a data-only request has none). */
  request?: string;
};

/** `GET /hub/tasks?ids=a,b,…`: the facts of the caller's tasks among `ids` (others are left out). */
export interface TaskFactsList {
  tasks: TaskFacts[];
}

/** One event of the task's log, as stored (its content resolved), without the tenant. */
export type InspectedEvent = Omit<TaskEvent, 'tenant'>;

/** `GET /hub/tasks/{id}/events?after=N&limit=M`: events with version > N, oldest first. */
export interface TaskEventsPage {
  task: TaskFacts;
  events: InspectedEvent[];
  /** Pass as `after` for the next page; null when this page reached the task's current version. */
  nextAfter: number | null;
}

/**
 * One attempt of one delivery (a push notification or a Synapse message), as the delivery log keeps it,
 * without its tenant, task, claim and retention.
 */
export type InspectedAttempt = Omit<DeliveryAttempt, 'tenant' | 'taskId' | 'claim' | 'keepUntil'>;

/** `GET /hub/tasks/{id}/deliveries`: every attempt, by event version, config, round and attempt. */
export interface TaskDeliveries {
  taskId: string;
  attempts: InspectedAttempt[];
}

/** One Synapse message exchanged with the task's peer. */
export interface PeerMessage {
  direction: 'sent' | 'received';
  /** `p2p:task_request`, `p2p:task_confirm`, … */
  type: string;
  /** The event the message made (received) or was made of (sent). */
  version: number;
  at: string;
  /** The p2p message id (a received message's; a sent one's is the same on every attempt). */
  messageId?: string;
  /** A sent message's delivery attempts (empty while it is queued). */
  attempts?: InspectedAttempt[];
}

/** `GET /hub/tasks/{id}/peer-messages`: a Synapse task's messages with its peer, in the task's order. */
export interface PeerMessages {
  taskId: string;
  role: TaskRole;
  peer?: string;
  messages: PeerMessage[];
}

/** Every refusal: `{error: {code, message}}` with 400, 401, 403, 404 or 405. */
export interface ReadApiError {
  error: { code: string; message: string };
}
