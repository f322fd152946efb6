/**
 * The delivery worker (functions/deliver.ts, docs/deliveries.md#retries): how often and how long it
 * tries a push notification or a message to a Synapse peer.
 */
import { DEFAULT_TIMEOUT_MS } from '../adapters/http/vetted-connection.ts';
import { DELIVERY_QUEUE } from '../adapters/sqs/queues.ts';
import { DEFAULT_SYNAPSE_MAX_RETRIES } from '../app/delivery/synapse-callback.ts';
import { DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from '../domain/delivery.ts';
import type { Env } from './settings.ts';
import { decimal, readSetting, type Setting, section, wholeNumber } from './settings.ts';

const DELIVER = ['deliver'] as const;

export const DELIVERY_MAX_ATTEMPTS = {
  name: 'DELIVERY_MAX_ATTEMPTS',
  doc: 'Attempts of a push notification before it goes to the dead-letter queue.',
  format: () => wholeNumber(1, 100),
  get default() {
    return DEFAULT_DELIVERY_POLICY.maxAttempts;
  },
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_BASE_DELAY_SECONDS = {
  name: 'DELIVERY_BASE_DELAY_SECONDS',
  doc: 'The delay before the first retry (below 1 scales tests down).',
  format: () => decimal(0, { max: 900, unit: 'seconds' }),
  get default() {
    return DEFAULT_DELIVERY_POLICY.baseDelaySeconds;
  },
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_BACKOFF_FACTOR = {
  name: 'DELIVERY_BACKOFF_FACTOR',
  doc: 'Each retry waits this many times longer than the one before.',
  format: () => decimal(1),
  get default() {
    return DEFAULT_DELIVERY_POLICY.factor;
  },
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_MAX_DELAY_SECONDS = {
  name: 'DELIVERY_MAX_DELAY_SECONDS',
  doc: 'The longest wait between attempts (an SQS delay is at most 900 s).',
  format: () => decimal(0, { max: 900, unit: 'seconds' }),
  get default() {
    return DEFAULT_DELIVERY_POLICY.maxDelaySeconds;
  },
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_JITTER = {
  name: 'DELIVERY_JITTER',
  doc: 'Each delay is moved by up to this fraction of it, at random.',
  format: () => decimal(0, { max: 1 }),
  get default() {
    return DEFAULT_DELIVERY_POLICY.jitter;
  },
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_TIMEOUT_MS = {
  name: 'DELIVERY_TIMEOUT_MS',
  doc: 'The timeout of one request: DNS, connect and response.',
  format: () => wholeNumber(1, undefined, 'milliseconds'),
  default: DEFAULT_TIMEOUT_MS,
  readBy: DELIVER,
} satisfies Setting<number>;

export const DELIVERY_IN_FLIGHT_SECONDS = {
  name: 'DELIVERY_IN_FLIGHT_SECONDS',
  doc: "How long a claimed attempt may stay `sending` before another invocation takes it over (one that died left it there). It must not be shorter than the deliver function's timeout, or an attempt still running could be sent twice; the local runtime shortens both together (visibilityTimeoutCapSeconds).",
  format: () => wholeNumber(1, undefined, 'seconds'),
  default: DELIVERY_QUEUE.consumerTimeoutSeconds,
  readBy: DELIVER,
} satisfies Setting<number>;

export const SYNAPSE_MAX_RETRIES = {
  name: 'SYNAPSE_MAX_RETRIES',
  doc: "Retries of a message to a Synapse peer after its first attempt (the protocol's MaxRetries), with the delays above.",
  format: () => wholeNumber(0, 99),
  default: DEFAULT_SYNAPSE_MAX_RETRIES,
  readBy: DELIVER,
} satisfies Setting<number>;

/** The retry policy of push notifications. */
export const deliveryPolicyFrom = /* @__PURE__ */ section(
  {
    maxAttempts: DELIVERY_MAX_ATTEMPTS,
    baseDelaySeconds: DELIVERY_BASE_DELAY_SECONDS,
    factor: DELIVERY_BACKOFF_FACTOR,
    maxDelaySeconds: DELIVERY_MAX_DELAY_SECONDS,
    jitter: DELIVERY_JITTER,
  },
  (policy): DeliveryPolicy => Object.freeze({ ...policy }),
);

/** Retries of a message to a Synapse peer. */
export const synapseMaxRetriesFrom = (env?: Env): number => readSetting(SYNAPSE_MAX_RETRIES, env);
