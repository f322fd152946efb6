/**
 * The expiry sweep: every live task whose deadline has passed gets the
 * timeout transition, through the same conditional write as everything else
 * (a task that finished meanwhile simply refuses it). A run that died is
 * caught earlier, by its lease watch on the executor queue; the deadline is
 * the backstop for everything else.
 */
import { ConflictError, InvalidTransitionError, TaskNotFoundError } from '../../domain/errors.ts';
import type { Clock } from '../../ports/clock.ts';
import { systemClock } from '../../ports/clock.ts';
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
      const record = await engine.store.get(ref);
      if (!record) throw new TaskNotFoundError(ref.taskId);
      // the index is eventually consistent: the task may have moved on since
      if (record.head.deadlineAt > now)
        throw new InvalidTransitionError(ref.taskId, record.head.state, 'timeout', 'not due');
      const why = `The task's deadline (${record.head.deadlineAt}) passed before it finished`;
      return engine.apply(
        ref,
        {
          type: 'timeout',
          // the reason, and a status message saying it (clients show the status message)
          message: {
            messageId: crypto.randomUUID(),
            role: 'agent',
            parts: [{ text: why, mediaType: 'text/plain' }],
          },
          reason: { code: 'execution_timeout', message: why },
        },
        { seen: record },
      );
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
