/**
 * The expiry sweep: every live task whose deadline has passed gets the
 * timeout transition, and every task whose executor's lease ran out while
 * executing (the run died: a Lambda timeout, a crash) gets heartbeat_lost,
 * through the same conditional write as everything else (a task that
 * finished meanwhile simply refuses it).
 */
import { ConflictError, InvalidTransitionError, TaskNotFoundError } from '../domain/errors.ts';
import type { Clock } from './ports.ts';
import { systemClock } from './ports.ts';
import type { TaskEngine } from './task-engine.ts';

export interface SweepResult {
  due: number;
  expired: number;
  skipped: number;
}

export const sweepExpiredTasks = async (
  engine: TaskEngine,
  clock: Clock = systemClock,
  limitPerShard = 100,
): Promise<SweepResult> => {
  const now = clock.now().toISOString();
  const due = await engine.store.dueDeadlines(now, limitPerShard);
  const results = await Promise.allSettled(
    due.map(async (ref) => {
      const head = await engine.store.getHead(ref);
      if (!head) throw new TaskNotFoundError(ref.taskId);
      if (head.deadlineAt && head.deadlineAt <= now) {
        return engine.apply(
          ref,
          {
            type: 'timeout',
            reason: { code: 'execution_timeout', message: `Task deadline passed (swept at ${now})` },
          },
          { seen: head },
        );
      }
      if (head.state === 'executing' && head.leaseUntil && head.leaseUntil <= now) {
        return engine.apply(
          ref,
          {
            type: 'heartbeat_lost',
            reason: {
              code: 'executor_lost',
              message: `The executor's run ended without an outcome (swept at ${now})`,
            },
          },
          { seen: head },
        );
      }
      // the index entry was from an earlier head (e.g. a lease that has since ended)
      throw new InvalidTransitionError(ref.taskId, head.state, 'timeout', 'not due');
    }),
  );
  let expired = 0;
  let skipped = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') expired++;
    else if (
      r.reason instanceof InvalidTransitionError ||
      r.reason instanceof TaskNotFoundError ||
      r.reason instanceof ConflictError
    ) {
      skipped++;
    } else throw r.reason;
  }
  return { due: due.length, expired, skipped };
};
