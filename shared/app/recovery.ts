/**
 * Re-derives the work that must be under way for live tasks: a run for every
 * task waiting for the executor, a lease watch for every claimed one. The
 * local runtime calls it after a restart (its queues live in memory); on AWS
 * the queues are durable and nothing calls it. Idempotent: the
 * executor's claim drops runs that are not needed. Reads every live task once.
 */
import { AWAITING_EXECUTOR } from '../domain/states.ts';
import type { Clock, ExecutorQueue, ExecutorRun, TaskStore } from './ports.ts';
import { systemClock } from './ports.ts';
import { MAX_DELAY_SECONDS } from './relay.ts';

/** Later than any deadline: the deadline index then yields every live task. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

export interface RecoveryResult {
  live: number;
  runs: number;
  watches: number;
}

export const recoverPendingWork = async (
  store: TaskStore,
  queue: ExecutorQueue,
  clock: Clock = systemClock,
  limitPerShard = 100_000,
): Promise<RecoveryResult> => {
  const live = await store.dueDeadlines(END_OF_TIME, limitPerShard);
  const records = await Promise.all(live.map((ref) => store.get(ref)));
  const runs: ExecutorRun[] = [];
  const watches: ExecutorRun[] = [];
  for (const record of records) {
    if (!record) continue;
    const { head } = record;
    const run = { tenant: head.tenant, taskId: head.taskId, version: head.version };
    if (AWAITING_EXECUTOR.has(head.state)) runs.push(run);
    else if (head.state === 'executing') watches.push({ ...run, watch: 'lease' });
  }
  if (runs.length) await queue.enqueue(runs);
  // a watch finds a lease still running and looks again when it ends
  const now = clock.now().getTime();
  for (const w of watches) {
    const record = records.find((r) => r?.head.taskId === w.taskId)!;
    const seconds = Math.ceil((Date.parse(record.head.leaseUntil ?? '') - now) / 1000);
    await queue.enqueue(
      [w],
      Number.isFinite(seconds) ? Math.min(MAX_DELAY_SECONDS, Math.max(0, seconds)) : 0,
    );
  }
  return { live: live.length, runs: runs.length, watches: watches.length };
};
