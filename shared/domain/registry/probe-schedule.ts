/**
 * When each agent is probed (docs/registry.md#spreading). A schedule ticks every `tickSeconds`;
 * on each tick the probe function enqueues the agents due in it, each with an SQS `DelaySeconds` below
 * the tick, so thousands of agents are spread over the period instead of fired at once.
 *
 * Each agent has a fixed offset in the period, from a hash of its id: `offset = hash(id) mod P`. Its
 * tick in the period is `floor(offset / T)` and its delay `offset mod T`. As T divides P, every agent
 * is due on exactly one tick of P / T, and is probed at the same offset each period: P apart.
 */
import { createHash } from 'node:crypto';

/** SQS's longest message delay, and so the longest tick. */
export const MAX_TICK_SECONDS = 900;

export const DEFAULT_PROBE_PERIOD_SECONDS = 3600;

export interface ProbeSchedule {
  /** How often each agent is probed. */
  periodSeconds: number;
  /** How often the schedule ticks; divides periodSeconds, at most MAX_TICK_SECONDS. */
  tickSeconds: number;
}

export interface DueProbe {
  id: string;
  /** The SQS DelaySeconds of its probe message: in [0, tickSeconds). */
  delaySeconds: number;
}

/** The tick of a period by default: the largest divisor of the period up to MAX_TICK_SECONDS. */
export const defaultTickSeconds = (periodSeconds: number): number => {
  for (let t = Math.min(periodSeconds, MAX_TICK_SECONDS); t > 1; t--) if (periodSeconds % t === 0) return t;
  return 1;
};

/** The schedule's problem, naming the field, or undefined when it is valid. */
export const scheduleProblem = ({ periodSeconds, tickSeconds }: ProbeSchedule): string | undefined => {
  if (!Number.isSafeInteger(periodSeconds) || periodSeconds < 1)
    return `periodSeconds must be a whole number ≥ 1, got ${periodSeconds}`;
  if (!Number.isSafeInteger(tickSeconds) || tickSeconds < 1 || tickSeconds > MAX_TICK_SECONDS)
    return `tickSeconds must be a whole number from 1 to ${MAX_TICK_SECONDS}, got ${tickSeconds}`;
  if (periodSeconds % tickSeconds !== 0)
    return `tickSeconds (${tickSeconds}) must divide periodSeconds (${periodSeconds})`;
  return undefined;
};

const checked = (schedule: ProbeSchedule): ProbeSchedule => {
  const problem = scheduleProblem(schedule);
  if (problem) throw new RangeError(problem);
  return schedule;
};

/**
 * The agent's offset in the period, in whole seconds: the first 48 bits of the SHA-256 of its id,
 * modulo the period (the bias of the modulo is below 2^-20 for any period up to a year).
 */
export const probeOffsetSeconds = (id: string, periodSeconds: number): number =>
  createHash('sha256').update(id).digest().readUIntBE(0, 6) % periodSeconds;

/**
 * The index of the tick a schedule event stands for: the nearest multiple of `tickSeconds` since the
 * epoch, so an event delivered a little late (or early) still counts as its own tick.
 */
export const tickIndexOf = (time: Date | number, tickSeconds: number): number => {
  const ms = typeof time === 'number' ? time : time.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('time must be a valid time');
  if (!Number.isSafeInteger(tickSeconds) || tickSeconds < 1)
    throw new RangeError(`tickSeconds must be a whole number ≥ 1, got ${tickSeconds}`);
  return Math.round(ms / 1000 / tickSeconds);
};

/** The agents due on tick `tickIndex`, each with the delay of its probe. */
export const dueThisTick = (
  agents: Iterable<string | { id: string }>,
  schedule: ProbeSchedule & { tickIndex: number },
): DueProbe[] => {
  const { periodSeconds, tickSeconds } = checked(schedule);
  if (!Number.isSafeInteger(schedule.tickIndex))
    throw new RangeError(`tickIndex must be a whole number, got ${schedule.tickIndex}`);
  const ticksPerPeriod = periodSeconds / tickSeconds;
  const tickInPeriod = ((schedule.tickIndex % ticksPerPeriod) + ticksPerPeriod) % ticksPerPeriod;
  const due: DueProbe[] = [];
  for (const agent of agents) {
    const id = typeof agent === 'string' ? agent : agent.id;
    const offset = probeOffsetSeconds(id, periodSeconds);
    if (Math.floor(offset / tickSeconds) === tickInPeriod)
      due.push({ id, delaySeconds: offset % tickSeconds });
  }
  return due;
};
