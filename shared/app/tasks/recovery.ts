/**
 * Re-derives the work that must be under way for live tasks: a run for every
 * task waiting for the executor, a heartbeat watch for every claimed one (a
 * lease watch when no heartbeat queue is given). The local runtime calls it
 * after a restart (its queues live in memory); on AWS the queues are durable
 * and nothing calls it. Idempotent: the executor's claim drops runs that are
 * not needed, and a watch of a task that needs none stops at its first
 * firing. Reads every live task once.
 */
import type { HeartbeatRules } from '../../domain/heartbeat.ts';
import { awaitsLocalRun } from '../../domain/states.ts';
import type { Clock } from '../../ports/clock.ts';
import { systemClock } from '../../ports/clock.ts';
import type { ExecutorQueue, ExecutorRun } from '../../ports/executor-queue.ts';
import type { HeartbeatQueue, HeartbeatWatch } from '../../ports/heartbeat-queue.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import { MAX_DELAY_SECONDS } from '../delivery/relay.ts';
import { watchDelaySeconds, watchOf } from '../heartbeat/heartbeat.ts';

/** Later than any deadline: the deadline index then yields every live task. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

export interface RecoveryResult {
  live: number;
  runs: number;
  /** Heartbeat watches (or lease watches, without a heartbeat queue) armed. */
  watches: number;
}

export interface RecoveryOptions {
  /** Where executing tasks get their heartbeat watch; without it, a lease watch on the executor queue. */
  heartbeats?: { queue: HeartbeatQueue; rules: HeartbeatRules };
  clock?: Clock;
  limitPerShard?: number;
}

export const recoverPendingWork = async (
  store: TaskStore,
  queue: ExecutorQueue,
  options: RecoveryOptions = {},
): Promise<RecoveryResult> => {
  const clock = options.clock ?? systemClock;
  const live = await store.dueDeadlines(END_OF_TIME, options.limitPerShard ?? 100_000);
  const records = await Promise.all(live.map((ref) => store.get(ref)));
  const runs: ExecutorRun[] = [];
  const claimed: TaskRecord[] = [];
  for (const record of records) {
    if (!record) continue;
    const { head } = record;
    if (awaitsLocalRun(head)) runs.push({ tenant: head.tenant, taskId: head.taskId, version: head.version });
    else if (watchOf(head)) claimed.push(record);
  }
  if (runs.length) await queue.enqueue(runs);
  const now = clock.now().getTime();
  // grouped by delay: a crash leaves many silent runs, whose watches are all due at once
  const byDelay = new Map<number, HeartbeatWatch[]>();
  for (const record of claimed) {
    const watch = watchOf(record.head)!;
    if (options.heartbeats) {
      const delay = watchDelaySeconds(record, options.heartbeats.rules, now);
      byDelay.set(delay, [...(byDelay.get(delay) ?? []), watch]);
      continue;
    }
    // a lease watch finds a lease still running and looks again when it ends (a requester task has none)
    if (!watch.claim) continue;
    const seconds = Math.ceil((Date.parse(watch.claim) - now) / 1000);
    await queue.enqueue(
      [{ tenant: watch.tenant, taskId: watch.taskId, version: watch.version, watch: 'lease' }],
      Math.min(MAX_DELAY_SECONDS, Math.max(0, seconds)),
    );
  }
  for (const [delay, watches] of byDelay) await options.heartbeats!.queue.arm(watches, delay);
  return { live: live.length, runs: runs.length, watches: claimed.length };
};
