/**
 * The outbox relay: turns the changes committed to tasks (the table's
 * stream, in order per task) into what must follow them:
 * - an executor run for a task a change left waiting for one (a new
 *   submission, an answer to resume on, a task handed back);
 * - a heartbeat watch for a task a change claimed (start, resume), due when
 *   its run would be declared lost, so a run that dies is noticed within
 *   the heartbeat limit (heartbeat.ts); it replaces the lease watch, which
 *   is sent only by a relay given no heartbeat queue;
 * - lifecycle events for integrations (docs/events.md);
 * - push notification deliveries: each event a stream would show, to each
 *   push config the task lists (deliveries.ts; docs/deliveries.md), and the
 *   Synapse messages of a task with a Synapse peer (synapse/callbacks.ts);
 * - for a claim of a task a Synapse requester waits on, its first
 *   p2p:heartbeat, a heartbeat interval later (each one queues the next).
 * Each output is harmless to repeat (the executor's claim drops a run that
 * is not needed; lifecycle events carry a unique id), so a change delivered
 * twice does no harm, and nothing that must follow a commit depends on a
 * second write succeeding.
 */
import { DEFAULT_HEARTBEAT_RULES, type HeartbeatRules } from '../../domain/heartbeat.ts';
import { awaitsLocalRun, toA2AState } from '../../domain/states.ts';
import type { TaskHead } from '../../domain/task.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';
import type { ExecutorQueue, ExecutorRun } from '../../ports/executor-queue.ts';
import type { HeartbeatQueue, HeartbeatWatch } from '../../ports/heartbeat-queue.ts';
import type { LifecycleEvent, LifecyclePublisher } from '../../ports/lifecycle-publisher.ts';
import type { TaskChange } from '../../ports/task-changes.ts';
import type { TaskRecord } from '../../ports/task-store.ts';
import { watchDelaySeconds, watchOf } from '../heartbeat/heartbeat.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../synapse/callbacks.ts';
import { deliveriesOf, firstPeerHeartbeat } from './deliveries.ts';

/** SQS's longest delay; a longer lease is watched in several steps. */
export const MAX_DELAY_SECONDS = 900;

export const DetailType = {
  Created: 'Task Created',
  StateChanged: 'Task State Changed',
  Completed: 'Task Completed',
  Failed: 'Task Failed',
  Expired: 'Task Expired',
  Canceled: 'Task Canceled',
  Rejected: 'Task Rejected',
} as const;

export interface RelayPorts {
  executor: ExecutorQueue;
  lifecycle: LifecyclePublisher;
  /** Where claims get their heartbeat watch; without it, a lease watch on the executor queue. */
  heartbeats?: { queue: HeartbeatQueue; rules: HeartbeatRules };
  /** Where push notification deliveries go; without it, none are derived. */
  deliveries?: Pick<DeliveryQueue, 'enqueue'>;
  clock?: Clock;
}

export interface RelayResult {
  changes: number;
  runs: number;
  watches: number;
  events: number;
  deliveries: number;
}

/** The detail type naming how a task ended, or undefined for a state that is not an ending. */
const endingOf = (change: TaskChange, after: TaskHead): string | undefined => {
  switch (after.state) {
    case 'completed':
      return DetailType.Completed;
    case 'failed':
      return change.events.some((e) => e.type === 'timeout') ? DetailType.Expired : DetailType.Failed;
    case 'cancelled':
      return DetailType.Canceled;
    case 'rejected':
      return DetailType.Rejected;
    default:
      return undefined;
  }
};

/**
 * The lifecycle events of a committed change: `Task Created` for a new task (in the state the change left
 * it in), and a state change or an ending when the state moved. A task created already finished (an inline
 * validation that rejected it, say) gets both its `Task Created` and its ending, so a subscriber to endings
 * misses none. Each event's id is `<taskId>:<version>` of the event it reports (1 for the creation).
 */
export const lifecycleEventsOf = (change: TaskChange): LifecycleEvent[] => {
  const after = change.after?.head;
  if (!after) return [];
  const reason = [...change.events].reverse().find((e) => e.reason)?.reason;
  const detail = {
    taskId: after.taskId,
    tenant: after.tenant,
    owner: after.owner,
    contextId: after.contextId,
    version: after.version,
    state: after.state,
    a2aState: toA2AState(after.state),
  };
  const out: LifecycleEvent[] = [];
  if (!change.before) {
    out.push({
      detailType: DetailType.Created,
      id: `${after.taskId}:1`,
      time: after.createdAt,
      detail: { ...detail, events: change.events.map((e) => e.type) },
    });
    const ending = endingOf(change, after);
    if (ending) {
      const initial = change.events[0]?.to ?? after.state;
      out.push({
        detailType: ending,
        id: `${after.taskId}:${after.version}`,
        time: after.statusAt,
        detail: {
          ...detail,
          previousState: initial,
          previousA2aState: toA2AState(initial),
          events: change.events.map((e) => e.type),
          ...(reason ? { reason } : {}),
        },
      });
    }
    return out;
  }
  if (change.before.state === after.state) return out;
  out.push({
    detailType: endingOf(change, after) ?? DetailType.StateChanged,
    id: `${after.taskId}:${after.version}`,
    time: after.statusAt,
    detail: {
      ...detail,
      previousState: change.before.state,
      previousA2aState: toA2AState(change.before.state),
      events: change.events.map((e) => e.type),
      ...(reason ? { reason } : {}),
    },
  });
  return out;
};

export const relayChanges = async (
  changes: readonly TaskChange[],
  ports: RelayPorts,
): Promise<RelayResult> => {
  const clock = ports.clock ?? systemClock;
  const events = changes.flatMap(lifecycleEventsOf);
  // every delivery of every change, in commit order: each is its own event, none is coalesced
  const deliveries = ports.deliveries ? changes.flatMap(deliveriesOf) : [];

  // per task, what its last change in this batch leaves behind (earlier ones are already overtaken)
  const lastOf = new Map<string, TaskRecord>();
  const madeRunnable = new Set<string>();
  const claimed = new Set<string>();
  for (const change of changes) {
    const after = change.after?.head;
    if (!after) continue;
    lastOf.set(after.taskId, change.after!);
    if (awaitsLocalRun(after) && change.before?.state !== after.state) madeRunnable.add(after.taskId);
    if (change.events.some((e) => e.type === 'start' || e.type === 'resume')) claimed.add(after.taskId);
    // a requester task whose peer started (again) to work on it: the peer's heartbeats are watched
    if (after.role === 'requester' && after.state === 'executing' && change.before?.state !== 'executing')
      claimed.add(after.taskId);
  }
  const runs: ExecutorRun[] = [];
  const watches: Array<{ run: ExecutorRun; delaySeconds: number }> = [];
  const heartbeatWatches: Array<{ watch: HeartbeatWatch; delaySeconds: number }> = [];
  const peerBeats: DeliveryMessage[] = [];
  const now = clock.now().getTime();
  for (const [taskId, record] of lastOf) {
    const { head } = record;
    const ref = { tenant: head.tenant, taskId, version: head.version };
    if (madeRunnable.has(taskId) && awaitsLocalRun(head)) runs.push(ref);
    const watch = claimed.has(taskId) ? watchOf(head) : undefined;
    // a claimed task of a Synapse requester: its p2p:heartbeats begin (each one queues the next)
    if (watch?.claim && head.role === 'executor' && head.pushConfigIds?.includes(SYNAPSE_CALLBACK_CONFIG_ID))
      peerBeats.push(firstPeerHeartbeat(head, watch.claim));
    if (watch && ports.heartbeats) {
      heartbeatWatches.push({ watch, delaySeconds: watchDelaySeconds(record, ports.heartbeats.rules, now) });
    } else if (watch?.claim) {
      // without a heartbeat queue only a claim's lease is watched (a requester task then has its deadline)
      const seconds = Math.ceil((Date.parse(watch.claim) - now) / 1000);
      watches.push({
        run: { ...ref, watch: 'lease' },
        delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, seconds)),
      });
    }
  }

  const byDelay = new Map<number, ExecutorRun[]>();
  for (const w of watches) byDelay.set(w.delaySeconds, [...(byDelay.get(w.delaySeconds) ?? []), w.run]);
  const heartbeatsByDelay = new Map<number, HeartbeatWatch[]>();
  for (const w of heartbeatWatches)
    heartbeatsByDelay.set(w.delaySeconds, [...(heartbeatsByDelay.get(w.delaySeconds) ?? []), w.watch]);
  await Promise.all([
    runs.length ? ports.executor.enqueue(runs) : undefined,
    ...[...byDelay].map(([delay, due]) => ports.executor.enqueue(due, delay)),
    ...[...heartbeatsByDelay].map(([delay, due]) => ports.heartbeats!.queue.arm(due, delay)),
    events.length ? ports.lifecycle.publish(events) : undefined,
    deliveries.length ? ports.deliveries!.enqueue(deliveries) : undefined,
    peerBeats.length && ports.deliveries
      ? ports.deliveries.enqueue(
          peerBeats,
          ports.heartbeats?.rules.intervalSeconds ?? DEFAULT_HEARTBEAT_RULES.intervalSeconds,
        )
      : undefined,
  ]);
  return {
    changes: changes.length,
    runs: runs.length,
    watches: watches.length + heartbeatWatches.length,
    events: events.length,
    deliveries: deliveries.length,
  };
};
