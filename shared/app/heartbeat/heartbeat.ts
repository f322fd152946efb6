/**
 * Heartbeats of running tasks (docs/heartbeats.md). Two halves:
 * - the run keeps itself alive: every event the agent reports counts, and
 *   while it is silent the executor makes a liveness write each interval
 *   (LivenessWriter; no event, no new version);
 * - a watch follows each claim: one delayed message on the heartbeat queue
 *   (armed by the relay when it sees the claim, and by restart recovery),
 *   which reads the task when it comes due and either stops (the task left
 *   `executing`, or another claim runs it), re-arms itself for when the run
 *   would next be due to be declared lost, or resolves the lost run with a
 *   conditional write: `release` (run again) for an idempotent agent, up to
 *   `maxReruns` times, otherwise `heartbeat_lost` (failed, saying why).
 * The watch replaces the lease watch: it enforces the lease too.
 */

import { ConflictError, InvalidTransitionError } from '../../domain/errors.ts';
import {
  type HeartbeatRules,
  type HeartbeatVerdict,
  judgeHeartbeat,
  LOST_RUN,
  lastSignOfLife,
} from '../../domain/heartbeat.ts';
import type { EventDraft, TaskHead } from '../../domain/task.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { HeartbeatQueue, HeartbeatWatch } from '../../ports/heartbeat-queue.ts';
import type { TaskRecord, TaskRef } from '../../ports/task-store.ts';
import type { TaskEngine } from '../tasks/task-engine.ts';

const lastEventAt = (record: TaskRecord): string | undefined => record.recent.at(-1)?.at;

/**
 * The watch of a claimed, executing task, or of an executing requester task (its Synapse peer works on
 * it: the peer's silence past the limit fails it); undefined for any other.
 */
export const watchOf = (head: TaskHead): HeartbeatWatch | undefined => {
  if (head.state !== 'executing') return undefined;
  if (head.role === 'requester') return { tenant: head.tenant, taskId: head.taskId, version: head.version };
  return head.leaseUntil
    ? { tenant: head.tenant, taskId: head.taskId, version: head.version, claim: head.leaseUntil }
    : undefined;
};

/** When a new watch of `record` should come due: when its run would be declared lost (0: now). */
export const watchDelaySeconds = (record: TaskRecord, rules: HeartbeatRules, nowMs: number): number => {
  const verdict = judgeHeartbeat({
    head: record.head,
    lastEventAt: lastEventAt(record),
    claim: record.head.leaseUntil,
    nowMs,
    rules,
    idempotent: false,
  });
  return verdict.kind === 'alive' ? verdict.checkAgainInSeconds : 0;
};

export type WatchResult = 'stopped' | 'rearmed' | 'rerun' | 'failed';

export interface WatchOutcome {
  result: WatchResult;
  /** For `rearmed`: when the watch comes back. */
  delaySeconds?: number;
  /** For `rerun` and `failed`: the task as the resolution left it. */
  record?: TaskRecord;
}

export interface HeartbeatWatcherOptions {
  /** The agent declared that its execute() may run again from the start (AgentHandler.idempotent). */
  idempotent: boolean;
  clock?: Clock;
}

export class HeartbeatWatcher {
  private readonly clock: Clock;

  constructor(
    private readonly engine: TaskEngine,
    private readonly queue: HeartbeatQueue,
    readonly rules: HeartbeatRules,
    private readonly options: HeartbeatWatcherOptions,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /** A watch came due. */
  async check(watch: HeartbeatWatch, attempt = 1): Promise<WatchOutcome> {
    const ref: TaskRef = { tenant: watch.tenant, taskId: watch.taskId };
    const record = await this.engine.store.get(ref);
    if (!record) return { result: 'stopped' };
    const verdict = this.judge(record, watch);
    if (verdict.kind === 'stop') return { result: 'stopped' };
    if (verdict.kind === 'alive') {
      await this.queue.arm([{ ...watch, version: record.head.version }], verdict.checkAgainInSeconds);
      return { result: 'rearmed', delaySeconds: verdict.checkAgainInSeconds };
    }
    try {
      const { record: resolved } = await this.engine.apply(ref, this.resolution(record, verdict), {
        seen: record,
        // a lost race is re-decided only while the run still counts as lost the same way
        guard: (current) => {
          const again = this.judge(current, watch);
          return again.kind === 'lost' && again.action === verdict.action;
        },
      });
      return { result: verdict.action === 'rerun' ? 'rerun' : 'failed', record: resolved };
    } catch (e) {
      // the task moved on meanwhile (a sign of life, an outcome, a cancel): look at it as it is now
      if ((e instanceof InvalidTransitionError || e instanceof ConflictError) && attempt < 3)
        return this.check(watch, attempt + 1);
      if (e instanceof InvalidTransitionError) return { result: 'stopped' };
      throw e;
    }
  }

  private judge(record: TaskRecord, watch: HeartbeatWatch): HeartbeatVerdict {
    return judgeHeartbeat({
      head: record.head,
      lastEventAt: lastEventAt(record),
      claim: watch.claim,
      nowMs: this.clock.now().getTime(),
      rules: this.rules,
      // a requester task is the peer's to run: lost, it fails (nothing here can run it again)
      idempotent: this.options.idempotent && record.head.role === 'executor',
    });
  }

  /** The event that resolves a lost run, with a status message saying why (clients show it). */
  private resolution(record: TaskRecord, verdict: Extract<HeartbeatVerdict, { kind: 'lost' }>): EventDraft[] {
    const { head } = record;
    const { intervalSeconds, missedLimit, maxReruns } = this.rules;
    const code = LOST_RUN[verdict.cause];
    const lastAt = new Date(lastSignOfLife(head, lastEventAt(record))).toISOString();
    const peer = head.role === 'requester' ? head.metadata?.['synapse.peer'] : undefined;
    const why =
      verdict.cause === 'lease'
        ? `The run ended without an outcome; its lease expired at ${head.leaseUntil}`
        : peer !== undefined
          ? `No heartbeat from the Synapse peer ${String(peer)} for ${verdict.silentSeconds} s (last sign of life at ${lastAt}; ` +
            `a peer is lost after ${missedLimit} missed heartbeats, ${intervalSeconds} s apart)`
          : `No heartbeat from the run for ${verdict.silentSeconds} s (last sign of life at ${lastAt}; ` +
            `a run is lost after ${missedLimit} missed heartbeats, ${intervalSeconds} s apart): the executor was lost`;
    const reruns = head.reruns ?? 0;
    const details = {
      lastSignOfLifeAt: lastAt,
      silentSeconds: verdict.silentSeconds,
      limitSeconds: intervalSeconds * missedLimit,
      reruns,
    };
    const text =
      verdict.action === 'rerun'
        ? `${why}; running it again (${reruns + 1} of ${maxReruns})`
        : this.options.idempotent && head.role === 'executor'
          ? `${why}; it was run again ${reruns} time${reruns === 1 ? '' : 's'} already, the most allowed`
          : why;
    return [
      {
        type: verdict.action === 'rerun' ? 'release' : 'heartbeat_lost',
        message: {
          messageId: crypto.randomUUID(),
          role: 'agent',
          parts: [{ text, mediaType: 'text/plain' }],
        },
        reason: { code, message: text, details },
      },
    ];
  }
}
