/**
 * Heartbeat rules: when the run of an executing task counts as lost, and
 * what becomes of the task then. Pure data and one verdict function; the
 * watch (shared/app/heartbeat/heartbeat.ts) reads the task and applies the verdict with
 * the same conditional write as everything else (docs/heartbeats.md).
 */
import type { TaskHead } from './task.ts';

export interface HeartbeatRules {
  /** A silent run writes a liveness beat this often (seconds). */
  intervalSeconds: number;
  /** The run is lost once this many intervals went by without a sign of life. */
  missedLimit: number;
  /** An idempotent agent's task is run again at most this many times after lost runs, then failed. */
  maxReruns: number;
}

export const DEFAULT_HEARTBEAT_RULES: Readonly<HeartbeatRules> = {
  intervalSeconds: 30,
  missedLimit: 2,
  maxReruns: 3,
};

/** Reason codes of a lost run: silent past the limit, or still executing past its lease. */
export const LOST_RUN = { silent: 'heartbeat_lost', lease: 'executor_lost' } as const;
const LOST_CODES: ReadonlySet<string> = new Set(Object.values(LOST_RUN));

/** A `release` that hands a lost run's task back to be run again: it counts toward `reruns`. */
export const isRerunRelease = (event: { type: string; reason?: { code: string } }): boolean =>
  event.type === 'release' && event.reason !== undefined && LOST_CODES.has(event.reason.code);

/** How long a run may stay silent before it is lost (ms). */
export const silenceLimitMs = (rules: HeartbeatRules): number =>
  rules.intervalSeconds * rules.missedLimit * 1000;

/**
 * The run's last sign of life (epoch ms): its latest liveness write or the task's latest event (the
 * claim, a status, progress or artifact the agent reported), whichever is later.
 */
export const lastSignOfLife = (
  head: Pick<TaskHead, 'heartbeatAt'>,
  lastEventAt: string | undefined,
): number =>
  Math.max(head.heartbeatAt ? Date.parse(head.heartbeatAt) : 0, lastEventAt ? Date.parse(lastEventAt) : 0);

export type HeartbeatVerdict =
  /** Nothing to watch: the task left `executing`, or another claim runs it now (its own watch follows it). */
  | { kind: 'stop'; why: 'not_executing' | 'other_claim' }
  /** Alive: look again when the run would next be due to be declared lost. */
  | { kind: 'alive'; checkAgainInSeconds: number }
  | {
      kind: 'lost';
      cause: keyof typeof LOST_RUN;
      /** Seconds since the last sign of life. */
      silentSeconds: number;
      /** Run it again (the agent is idempotent and reruns are left), or fail it. */
      action: 'rerun' | 'fail';
    };

export interface HeartbeatInput {
  head: Pick<TaskHead, 'state' | 'leaseUntil' | 'heartbeatAt' | 'reruns'>;
  /** Time of the task's latest event. */
  lastEventAt: string | undefined;
  /** The claim the watch follows: the lease end its claim set (a claim's identity). */
  claim: string | undefined;
  nowMs: number;
  rules: HeartbeatRules;
  idempotent: boolean;
}

/** SQS delays are whole seconds, at most 900. */
const MAX_DELAY_SECONDS = 900;

export const judgeHeartbeat = (input: HeartbeatInput): HeartbeatVerdict => {
  const { head, nowMs, rules } = input;
  if (head.state !== 'executing') return { kind: 'stop', why: 'not_executing' };
  if (input.claim !== undefined && head.leaseUntil !== input.claim)
    return { kind: 'stop', why: 'other_claim' };
  const last = lastSignOfLife(head, input.lastEventAt);
  const silentMs = Math.max(0, nowMs - last);
  const leaseEnd = head.leaseUntil ? Date.parse(head.leaseUntil) : Number.POSITIVE_INFINITY;
  // the lease stays the hard bound: a run still executing past it outlived what its runtime allows
  const cause = nowMs >= leaseEnd ? 'lease' : silentMs > silenceLimitMs(rules) ? 'silent' : undefined;
  if (cause) {
    const rerun = input.idempotent && (head.reruns ?? 0) < rules.maxReruns;
    return {
      kind: 'lost',
      cause,
      silentSeconds: Math.round(silentMs / 1000),
      action: rerun ? 'rerun' : 'fail',
    };
  }
  // come back when the loss would be due (silence past the limit, or the lease's end), not sooner
  const dueAt = Math.min(last + silenceLimitMs(rules) + 1, leaseEnd);
  const seconds = Math.ceil((dueAt - nowMs) / 1000);
  return { kind: 'alive', checkAgainInSeconds: Math.min(MAX_DELAY_SECONDS, Math.max(1, seconds)) };
};
