/**
 * The delivery worker (docs/deliveries.md): sends one A2A push notification per delivery message (one
 * event of a task to one of its push configs), records every attempt in the task's delivery log, and
 * retries with delayed messages of its own until the policy gives up, then hands the delivery to the
 * dead-letter queue, saying why.
 *
 * Each attempt is sent at most once. Before anything is sent the attempt is claimed in the log (a
 * conditional put: `sending`); a redelivered SQS message whose attempt is claimed sends nothing:
 * - recorded with an outcome: dropped (what followed it, a retry or the dead-letter message, was queued
 *   before the outcome was written, so nothing is missing);
 * - still `sending`, within the time an invocation may run: queued again for later (another invocation has it);
 * - still `sending` past it: the invocation that claimed it died between claim and outcome. Whether its
 *   request reached the receiver is unknown; the attempt is recorded `interrupted` and the next one
 *   follows (with the same Idempotency-Key: receivers de-duplicate).
 * An invocation that finds, once its request is ready, that it has held the claim that long sends nothing
 * and does the same: the takeover may have happened (a Lambda timeout stops it first; the local runtime,
 * whose in-flight time is seconds, does not). Nor does it give such a claim back; and a takeover's record
 * lands over a claim given back late all the same (DeliveryLog.interrupt): an attempt whose successor is
 * queued is never claimed and sent beside it (a Synapse message would be the same signed bytes twice).
 * A failure before the request is sent (reading the task, signing) releases the claim, so the SQS
 * retry of the same message may claim the attempt again. Delivery as a whole is at least once.
 *
 * What an attempt sends is built apart: a webhook's request in ./push-body.ts, a Synapse peer's in
 * ./synapse-callback.ts (in the order of ./synapse-order.ts); ./peer-heartbeats.ts sends the
 * p2p:heartbeats that share the queue. Its settings are read by shared/config/delivery.ts.
 */

import { randomUUID } from 'node:crypto';
import {
  DEFAULT_DELIVERY_POLICY,
  type DeliveryPolicy,
  type NextStep,
  nextStepOf,
} from '../../domain/delivery.ts';
import { DEFAULT_HEARTBEAT_RULES } from '../../domain/heartbeat.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { AttemptStatus, DeliveryAttempt, DeliveryLog } from '../../ports/delivery-log.ts';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';
import type { PushConfigStore, StoredPushConfig } from '../../ports/push-config-store.ts';
import type { PushSigner } from '../../ports/push-signer.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import type { DeliveryResult, WebhookSender } from '../../ports/webhook-sender.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../synapse/callbacks.ts';
import { beatPeer, type HeartbeatResult } from './peer-heartbeats.ts';
import { pushRequestOf } from './push-body.ts';
import {
  callbackRequestOf,
  DEFAULT_SYNAPSE_MAX_RETRIES,
  type SynapseSigning,
  synapsePolicyOf,
} from './synapse-callback.ts';
import { ORDER_WAIT_SECONDS, orderWaitFor } from './synapse-order.ts';

/** Told of every attempt recorded with an outcome (metrics). */
export interface DeliveryObserver {
  recorded(attempt: DeliveryAttempt): void;
}

export interface DeliveryWorkerOptions {
  policy?: DeliveryPolicy;
  /**
   * How long an attempt may stay `sending` before it counts as cut off: the longest an invocation may
   * run (the worker's Lambda timeout), after which the one that claimed it is surely gone.
   */
  inFlightSeconds?: number;
  /** The request timeout (DNS, connect and response); default the sender's. */
  timeoutMs?: number;
  /** How long the log keeps an attempt after its task's deadline or last status. */
  keepSeconds?: number;
  clock?: Clock;
  random?: () => number;
  newClaim?: () => string;
  observer?: DeliveryObserver;
  /**
   * Retries of a message to a Synapse peer after its first attempt (SYNAPSE_MAX_RETRIES, the Synapse
   * protocol's MaxRetries: 5, docs/synapse-protocol.md#callbacks), with the policy's delays; then the
   * dead-letter queue.
   */
  synapseMaxRetries?: number;
  /** How often a Synapse requester gets a p2p:heartbeat while its task runs (HEARTBEAT_INTERVAL_SECONDS, 30). */
  heartbeatSeconds?: number;
}

export interface DeliveryWorkerPorts {
  store: Pick<TaskStore, 'get' | 'events' | 'view'>;
  configs: Pick<PushConfigStore, 'get'>;
  log: DeliveryLog;
  sender: WebhookSender;
  signer: Pick<PushSigner, 'sign'>;
  queue: DeliveryQueue;
  /** Where Synapse callbacks are signed: the peers' keys and this hub as the sender. */
  synapse?: SynapseSigning;
}

/** What one delivery message came to. */
export type DeliverResult =
  /** The attempt was made or resolved now: see its record. */
  | { result: 'recorded'; attempt: DeliveryAttempt }
  /** The attempt was recorded before (a redelivered message): nothing was sent. */
  | { result: 'duplicate'; existing: DeliveryAttempt }
  /** Another invocation holds the attempt (or died holding it less than inFlightSeconds ago): queued again for then. */
  | { result: 'in_flight'; retryInSeconds: number }
  /** A p2p:heartbeat: `sent` when the requester took it, `next` when the following one is queued. */
  | HeartbeatResult
  /** A Synapse message whose task's previous message is not delivered yet: queued again, nothing sent. */
  | { result: 'waiting'; retryInSeconds: number; previousVersion: number };

/** The task's retention (30 days, as the store keeps a finished task) and the week its parts outlive it. */
export const DELIVERY_LOG_KEEP_SECONDS = 37 * 86_400;

/** The default time an attempt may stay `sending`: the delivery queue's consumer timeout. */
export const DEFAULT_IN_FLIGHT_SECONDS = 60;

interface Prepared {
  config: StoredPushConfig;
  body: string;
  headers: Record<string, string>;
  record: TaskRecord;
}

type Dropped = Extract<AttemptStatus, 'config_removed' | 'task_missing' | 'not_deliverable'>;

export class DeliveryWorker {
  private readonly policy: DeliveryPolicy;
  private readonly synapsePolicy: DeliveryPolicy;
  private readonly inFlightSeconds: number;
  private readonly keepSeconds: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly newClaim: () => string;
  private readonly heartbeatSeconds: number;

  constructor(
    private readonly ports: DeliveryWorkerPorts,
    private readonly options: DeliveryWorkerOptions = {},
  ) {
    this.policy = options.policy ?? DEFAULT_DELIVERY_POLICY;
    this.synapsePolicy = synapsePolicyOf(
      this.policy,
      options.synapseMaxRetries ?? DEFAULT_SYNAPSE_MAX_RETRIES,
    );
    this.inFlightSeconds = options.inFlightSeconds ?? DEFAULT_IN_FLIGHT_SECONDS;
    this.keepSeconds = options.keepSeconds ?? DELIVERY_LOG_KEEP_SECONDS;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.newClaim = options.newClaim ?? randomUUID;
    this.heartbeatSeconds = options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_RULES.intervalSeconds;
  }

  /** A Synapse peer's messages are tried its protocol's way (its MaxRetries); webhooks, the policy's. */
  private policyOf(message: DeliveryMessage): DeliveryPolicy {
    return message.configId === SYNAPSE_CALLBACK_CONFIG_ID ? this.synapsePolicy : this.policy;
  }

  async deliver(message: DeliveryMessage): Promise<DeliverResult> {
    if (message.heartbeat)
      return beatPeer(
        { ...this.ports, clock: this.clock },
        {
          heartbeatSeconds: this.heartbeatSeconds,
          ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
        },
        message,
        message.heartbeat,
      );
    const now = this.clock.now();
    const claimed: DeliveryAttempt = {
      tenant: message.tenant,
      taskId: message.taskId,
      configId: message.configId,
      version: message.version,
      redrive: message.redrive ?? 0,
      attempt: message.attempt,
      status: 'sending',
      claim: this.newClaim(),
      startedAt: now.toISOString(),
      // until the task is read: as long as a task finished now would be kept
      keepUntil: new Date(now.getTime() + this.keepSeconds * 1000).toISOString(),
    };
    const claim = await this.ports.log.claim(claimed);
    if (!claim.claimed) return this.alreadyClaimed(message, claim.existing);

    let prepared: Prepared | Dropped | { waitFor: number };
    try {
      prepared = await this.prepare(message);
    } catch (e) {
      // nothing was sent: give the attempt back, so the SQS retry of this message may claim it again;
      // unless held too long, when a takeover may have queued the next one: left to it
      if (!this.heldTooLong(now))
        await this.ports.log
          .finish({ ...claimed, status: 'released', error: errorText(e) })
          .catch(() => false);
      throw e;
    }
    if (typeof prepared === 'string') {
      return this.record({ ...claimed, status: prepared, finishedAt: this.clock.now().toISOString() });
    }
    if ('waitFor' in prepared) {
      // not this one's turn: back to the queue (the claim given back first, so the copy may take it)
      const retryInSeconds = ORDER_WAIT_SECONDS;
      // (held too long, the claim is left to a takeover: the copy finds it so)
      if (!this.heldTooLong(now))
        await this.ports.log.finish({
          ...claimed,
          status: 'released',
          error: `waits for version ${prepared.waitFor}`,
        });
      await this.ports.queue.enqueue([{ ...message, waited: (message.waited ?? 0) + 1 }], retryInSeconds);
      return { result: 'waiting', retryInSeconds, previousVersion: prepared.waitFor };
    }
    const sending = { ...claimed, keepUntil: this.keepUntilOf(prepared.record, now) };
    if (this.heldTooLong(now)) {
      // held past the time an invocation may hold an attempt: another may have taken it over and sent the
      // next one already (a Synapse message's twice, signed in one second, is refused as a replay)
      const late: DeliveryAttempt = {
        ...sending,
        status: 'interrupted',
        error: 'not sent: its claim outlived the time an invocation may hold an attempt',
      };
      const next = nextStepOf(this.policyOf(message), message.attempt, 'retry', undefined, this.random);
      return this.follow(message, late, next);
    }
    const result = await this.ports.sender.post({
      url: prepared.config.url,
      body: prepared.body,
      headers: prepared.headers,
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
    });
    const next = nextStepOf(
      this.policyOf(message),
      message.attempt,
      result.outcome,
      result.retryAfterSeconds,
      this.random,
    );
    return this.follow(message, this.outcomeOf(sending, result), next);
  }

  /** Whether a claim made at `claimedAt` is held past the time an invocation may hold one: another may take it over. */
  private heldTooLong(claimedAt: Date): boolean {
    return (this.clock.now().getTime() - claimedAt.getTime()) / 1000 >= this.inFlightSeconds;
  }

  /** Every recorded attempt of a task's deliveries (the log). */
  log(tenant: string, taskId: string): Promise<DeliveryAttempt[]> {
    return this.ports.log.list(tenant, taskId);
  }

  private async alreadyClaimed(message: DeliveryMessage, existing: DeliveryAttempt): Promise<DeliverResult> {
    if (existing.status !== 'sending') return { result: 'duplicate', existing };
    const heldFor = (this.clock.now().getTime() - Date.parse(existing.startedAt)) / 1000;
    if (heldFor < this.inFlightSeconds) {
      // a copy for when its holder must have ended (a second past it), so that this receive succeeds: a
      // failed one would count against the queue's maxReceiveCount, which is for failures
      const retryInSeconds = Math.ceil(this.inFlightSeconds - heldFor) + 1;
      await this.ports.queue.enqueue([message], retryInSeconds);
      return { result: 'in_flight', retryInSeconds };
    }
    // its invocation is gone: whether the request went out is unknown; the next attempt follows
    const interrupted: DeliveryAttempt = {
      ...existing,
      status: 'interrupted',
      error: 'the attempt was cut off before its outcome was recorded',
    };
    const next = nextStepOf(this.policyOf(message), message.attempt, 'retry', undefined, this.random);
    return this.follow(message, interrupted, next, { takeover: true });
  }

  /**
   * Queues what follows the attempt (a retry, the dead-letter message), then records its outcome; a
   * takeover's over the claim it found even if given back since (DeliveryLog.interrupt).
   */
  private async follow(
    message: DeliveryMessage,
    attempt: DeliveryAttempt,
    next: NextStep,
    { takeover = false } = {},
  ): Promise<DeliverResult> {
    const finishedAt = this.clock.now().toISOString();
    let recorded: DeliveryAttempt = { ...attempt, finishedAt };
    if (next.step === 'retry') {
      await this.ports.queue.enqueue([{ ...message, attempt: message.attempt + 1 }], next.delaySeconds);
      recorded = {
        ...recorded,
        ...(recorded.status === 'interrupted' ? {} : { status: 'retrying' as const }),
        retryInSeconds: next.delaySeconds,
      };
    } else if (next.step === 'give_up') {
      const round = message.redrive ?? 0;
      await this.ports.queue.deadLetter(
        { ...message, attempt: 1, redrive: round + 1 },
        {
          reason: next.reason,
          ...(attempt.error ? { error: attempt.error } : {}),
          attempt: message.attempt,
          redrive: round,
          at: finishedAt,
        },
      );
      recorded = {
        ...recorded,
        ...(recorded.status === 'interrupted' ? {} : { status: 'failed' as const }),
        deadLetter: next.reason,
      };
    }
    return this.record(recorded, takeover);
  }

  private async record(attempt: DeliveryAttempt, takeover = false): Promise<DeliverResult> {
    const mine = await (takeover ? this.ports.log.interrupt(attempt) : this.ports.log.finish(attempt));
    // not ours any more only if this invocation outlived inFlightSeconds: another resolved the attempt
    if (mine) this.options.observer?.recorded(attempt);
    return { result: 'recorded', attempt };
  }

  private outcomeOf(attempt: DeliveryAttempt, result: DeliveryResult): DeliveryAttempt {
    return {
      ...attempt,
      status: result.outcome === 'delivered' ? 'delivered' : 'failed',
      latencyMs: result.latencyMs,
      ...(result.status !== undefined ? { httpStatus: result.status } : {}),
      ...(result.error ? { error: result.error } : {}),
    };
  }

  /** The task, the config, the event and what to send; or why there is nothing to send, or whom it waits for. */
  private async prepare(message: DeliveryMessage): Promise<Prepared | Dropped | { waitFor: number }> {
    const record = await this.ports.store.get({ tenant: message.tenant, taskId: message.taskId });
    if (!record) return 'task_missing';
    const { head } = record;
    if (!(head.pushConfigIds ?? []).includes(message.configId)) return 'config_removed';
    const [config] = await this.ports.configs.get(message.tenant, message.taskId, [message.configId]);
    if (!config) return 'config_removed';
    const [event] = await this.ports.store.events(record, message.version - 1, 1);
    if (!event || event.version !== message.version) return 'not_deliverable';
    if (config.version === 'synapse') {
      const waitFor = await orderWaitFor(this.ports, record, message);
      if (waitFor !== undefined) return { waitFor };
      const callback = await callbackRequestOf(
        { ...this.ports, clock: this.clock },
        message,
        record,
        event,
        config,
      );
      if (!callback) return 'not_deliverable';
      return {
        config: { ...config, url: callback.url },
        body: callback.body,
        headers: callback.headers,
        record,
      };
    }
    const push = await pushRequestOf(this.ports, message, record, event, config);
    if (!push) return 'not_deliverable';
    return { config, ...push, record };
  }

  /** As long as the task keeps what it wrote: its retention after its deadline or last status. */
  private keepUntilOf(record: TaskRecord, now: Date): string {
    const { deadlineAt, statusAt } = record.head;
    const from = Math.max(Date.parse(deadlineAt), Date.parse(statusAt), now.getTime());
    return new Date(from + this.keepSeconds * 1000).toISOString();
  }
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 500);
