/**
 * What an A2A push notification carries (A2A §6, docs/deliveries.md): the body of the event in the
 * config's protocol version, the push JWT, the config's own credentials, and the headers that name the
 * attempt.
 */
import { pushJwtHeaders } from '../../domain/push-signing.ts';
import type { TaskEvent } from '../../domain/task.ts';
import type { DeliveryMessage } from '../../ports/delivery-queue.ts';
import type { StoredPushConfig } from '../../ports/push-config-store.ts';
import type { PushSigner } from '../../ports/push-signer.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import * as v1Wire from '../../protocol/a2a/v1-wire.ts';
import * as v03Wire from '../../protocol/a2a/v03-wire.ts';
import { finalStatusOf, streamEventOf } from '../a2a/events.ts';
import { deliveryKey, lateRegistration } from './deliveries.ts';

/** Request headers a delivery carries besides the config's own (docs/deliveries.md). */
export const DeliveryHeader = {
  /** deliveryKey: the same on every attempt of a delivery (and its redrives); de-duplicate on it. */
  IdempotencyKey: 'Idempotency-Key',
  /** The event's version: the task's own sequence; order by it. */
  EventVersion: 'A2A-Event-Version',
  /** The attempt's number within its round (1 for the first). */
  Attempt: 'A2A-Delivery-Attempt',
} as const;

/** The DeliveryHeader values of a delivery message (webhooks and Synapse callbacks alike). */
export const attemptHeaders = (message: DeliveryMessage): Record<string, string> => ({
  [DeliveryHeader.IdempotencyKey]: deliveryKey(message),
  [DeliveryHeader.EventVersion]: String(message.version),
  [DeliveryHeader.Attempt]: String(message.attempt),
});

/** v0.3 Task bodies show the artifacts and the status, not the history (a receiver reads it with GetTask). */
const V03_BODY = { includeArtifacts: true, historyLength: 0 } as const;
/** What a final status needs of a finished task: its status (its message may be kept apart). */
const FINAL_STATUS_VIEW = { includeArtifacts: false, historyLength: 0 } as const;

export interface PushRequestPorts {
  store: Pick<TaskStore, 'view'>;
  signer: Pick<PushSigner, 'sign'>;
}

/** The signed request of one event to one webhook config, or undefined when the event shows nothing. */
export const pushRequestOf = async (
  ports: PushRequestPorts,
  message: DeliveryMessage,
  record: TaskRecord,
  event: TaskEvent,
  config: StoredPushConfig,
): Promise<{ body: string; headers: Record<string, string> } | undefined> => {
  const body = await bodyOf(ports.store, record, event, config);
  if (body === undefined) return undefined;
  const jwt = await ports.signer.sign({ taskId: record.head.taskId, body, audience: config.url });
  const auth = config.authentication;
  const headers: Record<string, string> = {
    'Content-Type': config.version === '1.0' ? 'application/a2a+json' : 'application/json',
    ...pushJwtHeaders(jwt, { authorizationTaken: auth !== undefined }),
    ...(auth ? { Authorization: auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme } : {}),
    ...(config.token ? { 'X-A2A-Notification-Token': config.token } : {}),
    ...attemptHeaders(message),
  };
  return { body, headers };
};

/**
 * v1.0: the StreamResponse of the event (what a stream shows of it). v0.3: the bare Task as it is now
 * (v0.3 receivers expect the task; A2A-Event-Version still names the event that caused the delivery).
 */
const bodyOf = async (
  store: Pick<TaskStore, 'view'>,
  record: TaskRecord,
  event: TaskEvent,
  config: StoredPushConfig,
): Promise<string | undefined> => {
  // a config registered on a finished task: its registration is delivered as the final status
  const streamed =
    lateRegistration(event) === config.id
      ? finalStatusOf(await store.view(record, FINAL_STATUS_VIEW))
      : streamEventOf(record.head, event);
  if (!streamed) return undefined;
  if (config.version === '1.0') return JSON.stringify(v1Wire.encodeStreamEvent(streamed));
  const view = await store.view(record, V03_BODY);
  return JSON.stringify(v03Wire.encodeTask(view, V03_BODY));
};
