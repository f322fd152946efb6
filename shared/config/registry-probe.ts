/**
 * The registry's health probe (docs/registry.md#health): how often each agent is probed, how often the
 * schedule ticks to spread the probes, and how long one request may take.
 */
import {
  DEFAULT_PROBE_PERIOD_SECONDS,
  defaultTickSeconds,
  MAX_TICK_SECONDS,
  type ProbeSchedule,
  scheduleProblem,
} from '../domain/registry/probe-schedule.ts';
import type { Env } from './settings.ts';
import { readSetting, type Setting, section, wholeNumber } from './settings.ts';

const PROBE = ['registry-probe'] as const;

export const DEFAULT_PROBE_TIMEOUT_MS = 5000;

export const REGISTRY_PROBE_PERIOD_SECONDS = {
  name: 'REGISTRY_PROBE_PERIOD_SECONDS',
  doc: 'How often each published agent is probed (small values scale tests down).',
  format: () => wholeNumber(1, undefined, 'seconds'),
  default: DEFAULT_PROBE_PERIOD_SECONDS,
  readBy: PROBE,
} satisfies Setting<number>;

export const REGISTRY_PROBE_TICK_SECONDS = {
  name: 'REGISTRY_PROBE_TICK_SECONDS',
  doc: 'How often the probe schedule ticks; it must divide the period (an SQS delay is at most 900 s).',
  format: () => wholeNumber(1, MAX_TICK_SECONDS, 'seconds'),
  defaultText: `the largest divisor of the period up to ${MAX_TICK_SECONDS} s`,
  readBy: PROBE,
} satisfies Setting<number>;

export const REGISTRY_PROBE_TIMEOUT_MS = {
  name: 'REGISTRY_PROBE_TIMEOUT_MS',
  doc: "The timeout of one probe request (the card, or one interface's GetTask): DNS, connect and response.",
  format: () => wholeNumber(1, undefined, 'milliseconds'),
  default: DEFAULT_PROBE_TIMEOUT_MS,
  readBy: PROBE,
} satisfies Setting<number>;

/** The probe's schedule: the period, and a tick that divides it. */
export const probeScheduleFrom = /* @__PURE__ */ section(
  { periodSeconds: REGISTRY_PROBE_PERIOD_SECONDS, tickSeconds: REGISTRY_PROBE_TICK_SECONDS },
  ({ periodSeconds, tickSeconds }): ProbeSchedule => {
    const schedule = { periodSeconds, tickSeconds: tickSeconds ?? defaultTickSeconds(periodSeconds) };
    if (scheduleProblem(schedule))
      throw new Error(
        `REGISTRY_PROBE_TICK_SECONDS (${schedule.tickSeconds}) must divide REGISTRY_PROBE_PERIOD_SECONDS (${periodSeconds})`,
      );
    return Object.freeze(schedule);
  },
);

/** The timeout of one probe request. */
export const probeTimeoutMsFrom = (env?: Env): number => readSetting(REGISTRY_PROBE_TIMEOUT_MS, env);
