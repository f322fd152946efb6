/**
 * The crash figures: `npm start --data-dir` is killed (SIGKILL of its whole
 * process group, DynamoDB Local included), then started again on the same
 * data (test/local/fixtures/crash.ts).
 * - queued (benchCrash): 10 tasks queued when it dies; measured, how long
 *   after the restart (the new process being spawned) every one has
 *   started, and completed;
 * - running (benchCrashRunning): 10 tasks executing (`slow 60`) when it
 *   dies, heartbeat scaled down; measured, restart to every one resolved
 *   (failed by its heartbeat watch, the demo agent not being idempotent),
 *   to be read against 2 heartbeat intervals (the loss limit) after the
 *   restart's own start-up. Before heartbeats they stayed WORKING until
 *   their 960 s lease ran out.
 * test/local/restart.test.ts proves the same scenarios lose nothing; this
 * file only times them.
 */
import { queueTasksBehindGate, runTasksUntilWorking } from '../local/fixtures/crash.ts';
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

export interface CrashRunningResult {
  running: number;
  /** HEARTBEAT_INTERVAL_SECONDS of the run (scaled down from the default 30). */
  intervalSeconds: number;
  /** Silence after which a run is lost: interval x HEARTBEAT_MISSED_LIMIT (2). */
  lossLimitMs: number;
  /** Restart (spawn) to the hub's ready line. */
  restartToReadyMs: number;
  /** Restart to every task resolved (run again or failed), none left WORKING. */
  restartToAllResolvedMs: number;
  /** The same, from the ready line: what the watches took once the hub was up. */
  readyToAllResolvedMs: number;
  /** How they ended (A2A state: count). */
  endings: Record<string, number>;
}

export const benchCrashRunning = async (running = 10, intervalSeconds = 2): Promise<CrashRunningResult> => {
  const crash = await runTasksUntilWorking(running, intervalSeconds);
  try {
    await crash.kill();
    const restarted = performance.now();
    await waitForOutput(crash.restart(), /ready in/, 60_000);
    const restartToReadyMs = performance.now() - restarted;
    const resolved = (s: string | undefined) => s !== undefined && s !== 'TASK_STATE_WORKING';
    let states = await crash.states();
    while (!states.every(resolved) && performance.now() - restarted < 120_000) {
      await new Promise((r) => setTimeout(r, 50));
      states = await crash.states();
    }
    const restartToAllResolvedMs = performance.now() - restarted;
    if (!states.every(resolved))
      throw new Error(
        `after the restart ${states.filter((s) => !resolved(s)).length} task(s) stayed WORKING`,
      );
    const endings: Record<string, number> = {};
    for (const s of states) endings[s!] = (endings[s!] ?? 0) + 1;
    return {
      running,
      intervalSeconds,
      lossLimitMs: intervalSeconds * 2 * 1000,
      restartToReadyMs: Math.round(restartToReadyMs),
      restartToAllResolvedMs: Math.round(restartToAllResolvedMs),
      readyToAllResolvedMs: Math.round(restartToAllResolvedMs - restartToReadyMs),
      endings,
    };
  } finally {
    await crash.cleanup();
  }
};
