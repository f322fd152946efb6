/**
 * Which committed events are delivered where: the stream relay asks this of each task change, and
 * enqueues one delivery per (event, push config). Pure: the relay and its tests share it.
 *
 * What is delivered is what a stream shows (shared/app/a2a/events.ts: status and artifact updates) to an
 * A2A receiver, and the Synapse callbacks (shared/app/synapse/callbacks.ts) to a task's Synapse requester,
 * to the configs the task lists after the change, each from the event that follows its registration
 * on (a config registered mid-change gets only the events after its `push_config` event); a config
 * registered on a finished task gets one delivery of its own `push_config` event, which the worker
 * sends as the task's final status (docs/push-notifications.md). Order: a
 * delivery carries its event's version, the task's own sequence, so a receiver orders by it and drops
 * what it has seen (deliveries of one task may arrive out of order when one is retried: we do not hold
 * the later ones back behind it).
 */

import { isTerminal } from '../../domain/states.ts';
import type { TaskEvent, TaskHead } from '../../domain/task.ts';
import type { DeliveryMessage, DeliveryRequest } from '../../ports/delivery-queue.ts';
import type { TaskChange } from '../../ports/task-changes.ts';
import { streamEventOf } from '../a2a/events.ts';
import { isCallbackEvent, SYNAPSE_CALLBACK_CONFIG_ID } from '../synapse/callbacks.ts';

/** The idempotency key of a delivery, the same for every attempt of it. */
export const deliveryKey = (d: Pick<DeliveryRequest, 'taskId' | 'configId' | 'version'>): string =>
  `${d.taskId}:${d.configId}:${d.version}`;

/** The deliveries a committed change asks for. */
export const deliveriesOf = (change: TaskChange): DeliveryRequest[] => {
  const head = change.after?.head;
  const listed = head?.pushConfigIds ?? [];
  if (!head || listed.length === 0) return [];
  // the configs listed before the change receive all its events; one registered in it, those after
  const before = new Set(change.before?.pushConfigIds ?? []);
  const active = new Set([...before].filter((id) => listed.includes(id)));
  const out: DeliveryRequest[] = [];
  for (const event of change.events) {
    if (event.type === 'push_config') {
      applyRegistration(active, event);
      const late = lateRegistration(event);
      if (late !== undefined && listed.includes(late)) out.push(requestOf(head, late, event.version));
      continue;
    }
    const streamed = streamEventOf(head, event) !== undefined;
    const toldSynapse = isCallbackEvent(head.role, event);
    for (const configId of listed) {
      if (!active.has(configId)) continue;
      // a Synapse requester is told its protocol's events; an A2A receiver, what a stream shows
      if (!(configId === SYNAPSE_CALLBACK_CONFIG_ID ? toldSynapse : streamed)) continue;
      out.push(requestOf(head, configId, event.version));
    }
  }
  return out;
};

const requestOf = (head: TaskHead, configId: string, version: number): DeliveryRequest => ({
  tenant: head.tenant,
  taskId: head.taskId,
  contextId: head.contextId,
  configId,
  version,
  attempt: 1,
});

/**
 * The A2A config a `push_config` event registered on a finished task (sent the final status once), or
 * undefined. A task's Synapse requester is registered when its task is made, never late.
 */
export const lateRegistration = (event: TaskEvent): string | undefined => {
  const set = event.type === 'push_config' && isTerminal(event.to) ? event.data?.set : undefined;
  return typeof set === 'string' && set !== SYNAPSE_CALLBACK_CONFIG_ID ? set : undefined;
};

const applyRegistration = (active: Set<string>, event: TaskEvent): void => {
  if (typeof event.data?.set === 'string') active.add(event.data.set);
  if (typeof event.data?.deleted === 'string') active.delete(event.data.deleted);
};

/**
 * The first p2p:heartbeat of a claim of a task a Synapse requester waits on (docs/synapse-protocol.md#heartbeats):
 * a delivery of the task's `synapse` config that sends the heartbeat, then queues the next, as long as
 * that claim runs. `version` is the task's when claimed (heartbeats are not events: they have none).
 */
export const firstPeerHeartbeat = (head: TaskHead, claim: string): DeliveryMessage => ({
  tenant: head.tenant,
  taskId: head.taskId,
  contextId: head.contextId,
  configId: SYNAPSE_CALLBACK_CONFIG_ID,
  version: head.version,
  attempt: 1,
  heartbeat: { claim, beat: 1 },
});
