/** The log of delivery attempts (shared/adapters/dynamodb/delivery-log.ts, docs/deliveries.md). */
import type { GiveUpReason } from '../domain/delivery.ts';

export type AttemptStatus =
  /** Claimed; the request is being sent (or its invocation died: see `interrupted`). */
  | 'sending'
  | 'delivered'
  /** Failed; the next attempt is queued (`retryInSeconds`). */
  | 'retrying'
  /** Failed and given up (`deadLetter` says why); the delivery is on the dead-letter queue. */
  | 'failed'
  /** Its invocation died after the claim: the outcome is unknown; the next attempt (or the DLQ) followed. */
  | 'interrupted'
  /** Dropped: the config was deleted since the event (or is no longer listed by the task). */
  | 'config_removed'
  /** Dropped: the task is gone (or not this tenant's). */
  | 'task_missing'
  /** Dropped: the task has no such event, or a stream would not show it. */
  | 'not_deliverable'
  /** Given back before anything was sent (a failure reading or signing): the attempt may be claimed again. */
  | 'released';

/** One attempt as the delivery log keeps it (no secrets: no URL, no token, no credentials). */
export interface DeliveryAttempt {
  tenant: string;
  taskId: string;
  configId: string;
  /** The event delivered. */
  version: number;
  /** 0 until the delivery is redriven from the dead-letter queue. */
  redrive: number;
  attempt: number;
  status: AttemptStatus;
  /** The claim's identity: only its holder records the outcome. */
  claim: string;
  startedAt: string;
  finishedAt?: string;
  /** The receiver's HTTP status, when it answered. */
  httpStatus?: number;
  /** From the start of the request (DNS included) to its outcome. */
  latencyMs?: number;
  error?: string;
  /** `retrying` (or `interrupted`): the delay of the next attempt. */
  retryInSeconds?: number;
  /** `failed` (or `interrupted`): why the delivery went to the dead-letter queue. */
  deadLetter?: GiveUpReason;
  /** When the log may forget the attempt (ISO 8601): after its task. */
  keepUntil: string;
}

export type ClaimResult = { claimed: true } | { claimed: false; existing: DeliveryAttempt };

/** The delivery log: each attempt one item beside its task (shared/adapters/dynamodb/delivery-log.ts). */
export interface DeliveryLog {
  /** Records the attempt as `sending` unless it is recorded already (then that record comes back). */
  claim(attempt: DeliveryAttempt): Promise<ClaimResult>;
  /** Records the outcome, if the attempt is still `sending` under `attempt.claim`; false when it is not. */
  finish(attempt: DeliveryAttempt): Promise<boolean>;
  /**
   * A takeover's record (`interrupted`) under `attempt.claim`, the claim it found held too long: over that
   * claim still `sending`, or given back (`released`) since by its holder, late, because the attempt that
   * follows is queued already and the attempt must not be claimed and sent again; false otherwise.
   */
  interrupt(attempt: DeliveryAttempt): Promise<boolean>;
  /** Every attempt of the task's deliveries, by event version, config, round and attempt. */
  list(tenant: string, taskId: string): Promise<DeliveryAttempt[]>;
}
