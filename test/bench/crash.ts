/**
 * The crash figure: `npm start --data-dir` is killed (SIGKILL of its whole
 * process group, DynamoDB Local included) while 10 tasks are queued, then
 * started again on the same data (test/local/fixtures/crash.ts). Measured:
 * how long after the restart (the new process being spawned) every one of
 * the tasks has started, and completed. test/local/restart.test.ts proves
 * the same scenario loses nothing; this file only times it.
 */
import { queueTasksBehindGate } from '../local/fixtures/crash.ts';
import { waitForOutput } from '../local/fixtures/process.ts';

export interface CrashResult {
  queued: number;
  /** Restart (spawn) to the hub's ready line. */
  restartToReadyMs: number;
  /** Restart to the moment every queued task had left SUBMITTED. */
  restartToAllStartedMs: number;
  /** Restart to every queued task completed (the agent completes at once). */
  restartToAllCompletedMs: number;
}

export const benchCrash = async (queued = 10): Promise<CrashResult> => {
  const crash = await queueTasksBehindGate(queued);
  try {
    await crash.kill();
    const restarted = performance.now();
    await waitForOutput(crash.restart(), /ready in/, 60_000);
    const restartToReadyMs = performance.now() - restarted;
    let allStartedMs: number | undefined;
    let completed = 0;
    while (completed < queued && performance.now() - restarted < 60_000) {
      const states = await crash.states();
      completed = states.filter((s) => s === 'TASK_STATE_COMPLETED').length;
      if (allStartedMs === undefined && states.every((s) => s && s !== 'TASK_STATE_SUBMITTED'))
        allStartedMs = performance.now() - restarted;
      if (completed < queued) await new Promise((r) => setTimeout(r, 50));
    }
    if (allStartedMs === undefined || completed < queued)
      throw new Error(`after the restart only ${completed} of ${queued} tasks completed`);
    return {
      queued,
      restartToReadyMs: Math.round(restartToReadyMs),
      restartToAllStartedMs: Math.round(allStartedMs),
      restartToAllCompletedMs: Math.round(performance.now() - restarted),
    };
  } finally {
    await crash.cleanup();
  }
};
