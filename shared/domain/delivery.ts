/**
 * The retry rules of outbound deliveries (A2A push notifications; docs/deliveries.md), as data: how
 * many attempts a delivery gets, how long it waits between them, and what follows each outcome. Pure:
 * the delivery worker applies them, the tests and the docs read them.
 */

/** How a delivery is retried. Every figure is configurable (shared/app/delivery/delivery-worker.ts, env). */
export interface DeliveryPolicy {
  /** Sends of one delivery (per redrive round) before it goes to the dead-letter queue. */
  maxAttempts: number;
  /** The delay after the first failed attempt, in seconds (sub-second values scale tests down). */
  baseDelaySeconds: number;
  /** Each further failed attempt waits this many times longer. */
  factor: number;
  /** No delay is longer (SQS delays stop at 900 s, and so does a receiver's Retry-After). */
  maxDelaySeconds: number;
  /** A backoff delay is spread by ± this fraction, so a burst of failures does not retry in step. */
  jitter: number;
  /** No delay is shorter, whatever the backoff or a receiver's Retry-After say (default 0). */
  minDelaySeconds?: number;
}

/**
 * 5 sends; after failed attempt k the next waits 2 s × 2^(k-1) ± 20%: 2, 4, 8, 16 s (about half a minute
 * in all); a receiver's Retry-After replaces the backoff.
 */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 5,
  baseDelaySeconds: 2,
  factor: 2,
  maxDelaySeconds: 900,
  jitter: 0.2,
};

/** What one attempt came to, as the sender tells it (shared/ports/webhook-sender.ts DeliveryOutcome). */
export type AttemptOutcome = 'delivered' | 'retry' | 'final';

/** Why a delivery gave up. */
export type GiveUpReason = 'attempts_exhausted' | 'refused';

/** What follows an attempt. */
export type NextStep =
  | { step: 'done' }
  | { step: 'retry'; delaySeconds: number }
  | { step: 'give_up'; reason: GiveUpReason };

const millis = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/**
 * The delay before the attempt after failed attempt `attempt` (1-based): the receiver's Retry-After when
 * it sent one (honoured as given, no jitter), else the exponential backoff with jitter; capped.
 */
export const retryDelaySeconds = (
  policy: DeliveryPolicy,
  attempt: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number => {
  const least = policy.minDelaySeconds ?? 0;
  if (retryAfterSeconds !== undefined)
    return Math.min(policy.maxDelaySeconds, Math.max(least, retryAfterSeconds));
  const exponential = policy.baseDelaySeconds * policy.factor ** Math.max(0, attempt - 1);
  const spread = 1 + policy.jitter * (2 * random() - 1);
  return Math.min(policy.maxDelaySeconds, millis(Math.max(least, exponential * spread)));
};

/**
 * What follows attempt `attempt` with `outcome`: nothing after a delivery; another attempt after a
 * retryable failure while attempts remain; else the dead-letter queue (a final failure, such as a 4xx
 * or a refused URL, gives up at once: sending it again would be refused again).
 */
export const nextStepOf = (
  policy: DeliveryPolicy,
  attempt: number,
  outcome: AttemptOutcome,
  retryAfterSeconds?: number,
  random?: () => number,
): NextStep => {
  if (outcome === 'delivered') return { step: 'done' };
  if (outcome === 'final') return { step: 'give_up', reason: 'refused' };
  if (attempt >= policy.maxAttempts) return { step: 'give_up', reason: 'attempts_exhausted' };
  return { step: 'retry', delaySeconds: retryDelaySeconds(policy, attempt, retryAfterSeconds, random) };
};
