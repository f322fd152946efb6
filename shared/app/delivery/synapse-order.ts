/**
 * The order of a task's messages to its Synapse peer: a peer gets them one after the other (a
 * completion never overtakes the last progress report, a cancel never the request), so a message whose
 * predecessor is still on its way waits for it, a while at most (docs/synapse-protocol.md).
 */
import type { AttemptStatus, DeliveryLog } from '../../ports/delivery-log.ts';
import type { DeliveryMessage } from '../../ports/delivery-queue.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import { isCallbackEvent } from '../synapse/callbacks.ts';

/** How long a Synapse message waits before it looks again whether the one before it was delivered. */
export const ORDER_WAIT_SECONDS = 1;
/** Before it goes back to the queue, it looks this many times, this far apart (within the invocation). */
const ORDER_QUICK_LOOKS = 4;
const ORDER_QUICK_LOOK_MS = 100;
/** It waits at most this many times (a minute and more), then goes anyway. */
const MAX_ORDER_WAITS = 90;
/** How far back the previous message to the peer is looked for. */
const ORDER_LOOKBACK = 20;
/** Statuses after which an attempt is over (nothing more will be sent for it). */
const ENDED: ReadonlySet<AttemptStatus> = new Set([
  'delivered',
  'failed',
  'config_removed',
  'task_missing',
  'not_deliverable',
]);

export interface OrderPorts {
  store: Pick<TaskStore, 'events'>;
  log: Pick<DeliveryLog, 'list'>;
}

/**
 * The version of the message this one waits for, or undefined when it may go: its predecessor was
 * delivered (or dropped, or failed), or it has waited MAX_ORDER_WAITS times already.
 */
export const orderWaitFor = (
  ports: OrderPorts,
  record: TaskRecord,
  message: DeliveryMessage,
): Promise<number | undefined> =>
  (message.waited ?? 0) < MAX_ORDER_WAITS
    ? previousInFlight(ports, record, message)
    : Promise.resolve(undefined);

/**
 * The previous message's version while it is still on its way. Messages of one change are delivered
 * side by side (the previous one is usually being sent this very moment): look again a few times,
 * briefly, before the message goes back to the queue for ORDER_WAIT_SECONDS.
 */
const previousInFlight = async (
  ports: OrderPorts,
  record: TaskRecord,
  message: DeliveryMessage,
): Promise<number | undefined> => {
  for (let look = 1; ; look++) {
    const waitFor = await undeliveredBefore(ports, record, message);
    if (waitFor === undefined || look >= ORDER_QUICK_LOOKS) return waitFor;
    await new Promise((r) => setTimeout(r, ORDER_QUICK_LOOK_MS));
  }
};

/**
 * The version of the task's previous message to the same peer while its delivery has not ended, or
 * undefined. The previous message is the latest told event of the few before this one (they are in the
 * task item); it has ended once its last attempt is delivered, failed or dropped.
 */
const undeliveredBefore = async (
  ports: OrderPorts,
  record: TaskRecord,
  message: DeliveryMessage,
): Promise<number | undefined> => {
  const from = Math.max(0, message.version - 1 - ORDER_LOOKBACK);
  const before = await ports.store.events(record, from, message.version - 1 - from);
  const previous = [...before].reverse().find((e) => isCallbackEvent(record.head.role, e));
  if (!previous) return undefined;
  const attempts = (await ports.log.list(message.tenant, message.taskId)).filter(
    (a) => a.configId === message.configId && a.version === previous.version,
  );
  const last = attempts.sort((a, b) => a.redrive - b.redrive || a.attempt - b.attempt).at(-1);
  return last && ENDED.has(last.status) ? undefined : previous.version;
};
