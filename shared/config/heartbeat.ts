/** The heartbeats of running tasks (docs/heartbeats.md): how often, how many missed, how many reruns. */
import { DEFAULT_HEARTBEAT_RULES, type HeartbeatRules } from '../domain/heartbeat.ts';
import { type Setting, section, wholeNumber } from './settings.ts';

export const HEARTBEAT_INTERVAL_SECONDS = {
  name: 'HEARTBEAT_INTERVAL_SECONDS',
  doc: 'How often a silent run makes a liveness write, and a Synapse requester gets a p2p:heartbeat.',
  format: () => wholeNumber(1, undefined, 'seconds'),
  get default() {
    return DEFAULT_HEARTBEAT_RULES.intervalSeconds;
  },
  readBy: ['deliver', 'executor', 'heartbeat', 'jsonrpc', 'relay', 'rest', 'npm start'],
} satisfies Setting<number>;

export const HEARTBEAT_MISSED_LIMIT = {
  name: 'HEARTBEAT_MISSED_LIMIT',
  doc: 'Intervals a run may stay silent before its watch declares it lost.',
  format: () => wholeNumber(1),
  get default() {
    return DEFAULT_HEARTBEAT_RULES.missedLimit;
  },
  readBy: ['deliver', 'executor', 'heartbeat', 'jsonrpc', 'relay', 'rest', 'npm start'],
} satisfies Setting<number>;

export const HEARTBEAT_MAX_RERUNS = {
  name: 'HEARTBEAT_MAX_RERUNS',
  doc: 'Times a lost run of an idempotent agent is run again before the task fails (0: never).',
  format: () => wholeNumber(0),
  get default() {
    return DEFAULT_HEARTBEAT_RULES.maxReruns;
  },
  readBy: ['deliver', 'executor', 'heartbeat', 'jsonrpc', 'relay', 'rest', 'npm start'],
} satisfies Setting<number>;

/** The heartbeat rules; SQS delays stop at 900 s, so a watch must come back before a run is due to be lost. */
export const heartbeatRulesFrom = /* @__PURE__ */ section(
  {
    intervalSeconds: HEARTBEAT_INTERVAL_SECONDS,
    missedLimit: HEARTBEAT_MISSED_LIMIT,
    maxReruns: HEARTBEAT_MAX_RERUNS,
  },
  (rules): HeartbeatRules => {
    if (rules.intervalSeconds * rules.missedLimit > 900)
      throw new Error('HEARTBEAT_INTERVAL_SECONDS x HEARTBEAT_MISSED_LIMIT must be at most 900 s');
    return Object.freeze({ ...rules });
  },
);
