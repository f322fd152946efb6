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
 * - still `sending`, within the time an invocation may run: left for later (another invocation has it);
 * - still `sending` past it: the invocation that claimed it died between claim and outcome. Whether its
 *   request reached the receiver is unknown; the attempt is recorded `interrupted` and the next one
 *   follows (with the same Idempotency-Key: receivers de-duplicate).
 * A failure before the request is sent (reading the task, signing) releases the claim, so the SQS
 * retry of the same message may claim the attempt again. Delivery as a whole is at least once.
 */

import { randomUUID } from 'node:crypto';
import {
  DEFAULT_DELIVERY_POLICY,
  type DeliveryPolicy,
  type NextStep,
  nextStepOf,
} from '../../domain/delivery.ts';
import { DEFAULT_HEARTBEAT_RULES } from '../../domain/heartbeat.ts';
import { pushJwtHeaders } from '../../domain/push-signing.ts';
import type { TaskEvent } from '../../domain/task.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { AttemptStatus, DeliveryAttempt, DeliveryLog } from '../../ports/delivery-log.ts';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';
import type { PushConfigStore, StoredPushConfig } from '../../ports/push-config-store.ts';
import type { PushSigner } from '../../ports/push-signer.ts';
import type { TaskRecord, TaskStore } from '../../ports/task-store.ts';
import type { DeliveryResult, WebhookSender } from '../../ports/webhook-sender.ts';
import * as v1Wire from '../../protocol/a2a/v1-wire.ts';
import * as v03Wire from '../../protocol/a2a/v03-wire.ts';
import { composeMessage } from '../../protocol/synapse/compose.ts';
import type { SynapseSender } from '../../protocol/synapse/envelope.ts';
import type { PeerDirectory } from '../../protocol/synapse/peers.ts';
import { signForPeer } from '../../protocol/synapse/signing.ts';
import { finalStatusOf, streamEventOf } from '../a2a/events.ts';
import {
  callbackMessageId,
  callbackOf,
  heartbeatMessageId,
  isCallbackEvent,
  requesterMessageOf,
  SYNAPSE_CALLBACK_CONFIG_ID,
} from '../synapse/callbacks.ts';
import { deliveryKey, lateRegistration } from './deliveries.ts';

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
   * Retries of a message to a Synapse peer after its first attempt (SYNAPSE_MAX_RETRIES, the seed's
   * MaxRetries: 5), with the policy's delays; then the dead-letter queue.
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
  synapse?: { peers: () => Promise<PeerDirectory>; self: SynapseSender };
}

/** What one delivery message came to. */
export type DeliverResult =
  /** The attempt was made or resolved now: see its record. */
  | { result: 'recorded'; attempt: DeliveryAttempt }
  /** The attempt was recorded before (a redelivered message): nothing was sent. */
  | { result: 'duplicate'; existing: DeliveryAttempt }
  /** Another invocation holds the attempt (or died holding it less than inFlightSeconds ago): try later. */
  | { result: 'in_flight'; retryInSeconds: number }
  /** A p2p:heartbeat: `sent` when the requester took it, `next` when the following one is queued. */
  | { result: 'heartbeat'; sent: boolean; next: boolean; error?: string }
  /** A Synapse message whose task's previous message is not delivered yet: queued again, nothing sent. */
  | { result: 'waiting'; retryInSeconds: number; previousVersion: number };

/** The task's retention (30 days, as the store keeps a finished task) and the week its parts outlive it. */
export const DELIVERY_LOG_KEEP_SECONDS = 37 * 86_400;

/** The default time an attempt may stay `sending`: the delivery queue's consumer timeout. */
export const DEFAULT_IN_FLIGHT_SECONDS = 60;

/** Request headers a delivery carries besides the config's own (docs/deliveries.md). */
export const DeliveryHeader = {
  /** deliveryKey: the same on every attempt of a delivery (and its redrives); de-duplicate on it. */
  IdempotencyKey: 'Idempotency-Key',
  /** The event's version: the task's own sequence; order by it. */
  EventVersion: 'A2A-Event-Version',
  /** The attempt's number within its round (1 for the first). */
  Attempt: 'A2A-Delivery-Attempt',
} as const;

/** The seed's MaxRetries: a message to a Synapse peer is tried once and retried this many times. */
export const DEFAULT_SYNAPSE_MAX_RETRIES = 5;

/** How long a Synapse message waits before it looks again whether the one before it was delivered. */
const ORDER_WAIT_SECONDS = 1;
/** Before it goes back to the queue, it looks this many times, this far apart (within the invocation). */
const ORDER_QUICK_LOOKS = 4;
const ORDER_QUICK_LOOK_MS = 100;
/** It waits at most this many times (a minute and more), then goes anyway. */
const MAX_ORDER_WAITS = 90;
/** How far back the previous message to the peer is looked for. */
const ORDER_LOOKBACK = 20;
/** Statuses after which an attempt is over (nothing more will be sent for it). */
const ENDED: ReadonlySet<AttemptStatus> = new Set([
  'delivered',
  'failed',
  'config_removed',
  'task_missing',
  'not_deliverable',
]);

/** v0.3 Task bodies show the artifacts and the status, not the history (a receiver reads it with GetTask). */
const V03_BODY = { includeArtifacts: true, historyLength: 0 } as const;
/** What a final status needs of a finished task: its status (its message may be kept apart). */
const FINAL_STATUS_VIEW = { includeArtifacts: false, historyLength: 0 } as const;

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
    this.synapsePolicy = {
      ...this.policy,
      maxAttempts: (options.synapseMaxRetries ?? DEFAULT_SYNAPSE_MAX_RETRIES) + 1,
    };
    this.inFlightSeconds = options.inFlightSeconds ?? DEFAULT_IN_FLIGHT_SECONDS;
    this.keepSeconds = options.keepSeconds ?? DELIVERY_LOG_KEEP_SECONDS;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.newClaim = options.newClaim ?? randomUUID;
    this.heartbeatSeconds = options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_RULES.intervalSeconds;
  }

  /** A Synapse peer's messages are tried its protocol's way (the seed's MaxRetries); webhooks, the policy's. */
  private policyOf(message: DeliveryMessage): DeliveryPolicy {
    return message.configId === SYNAPSE_CALLBACK_CONFIG_ID ? this.synapsePolicy : this.policy;
  }

  async deliver(message: DeliveryMessage): Promise<DeliverResult> {
    if (message.heartbeat) return this.beatPeer(message, message.heartbeat);
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
      // nothing was sent: give the attempt back, so the SQS retry of this message may claim it again
      await this.ports.log.finish({ ...claimed, status: 'released', error: errorText(e) }).catch(() => false);
      throw e;
    }
    if (typeof prepared === 'string') {
      return this.record({ ...claimed, status: prepared, finishedAt: this.clock.now().toISOString() });
    }
    if ('waitFor' in prepared) {
      // not this one's turn: back to the queue (the claim given back first, so the copy may take it)
      const retryInSeconds = ORDER_WAIT_SECONDS;
      await this.ports.log.finish({
        ...claimed,
        status: 'released',
        error: `waits for version ${prepared.waitFor}`,
      });
      await this.ports.queue.enqueue([{ ...message, waited: (message.waited ?? 0) + 1 }], retryInSeconds);
      return { result: 'waiting', retryInSeconds, previousVersion: prepared.waitFor };
    }
    const sending = { ...claimed, keepUntil: this.keepUntilOf(prepared.record, now) };
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

  /** Every recorded attempt of a task's deliveries (the log). */
  log(tenant: string, taskId: string): Promise<DeliveryAttempt[]> {
    return this.ports.log.list(tenant, taskId);
  }

  private async alreadyClaimed(message: DeliveryMessage, existing: DeliveryAttempt): Promise<DeliverResult> {
    if (existing.status !== 'sending') return { result: 'duplicate', existing };
    const heldFor = (this.clock.now().getTime() - Date.parse(existing.startedAt)) / 1000;
    if (heldFor < this.inFlightSeconds) {
      return { result: 'in_flight', retryInSeconds: Math.ceil(this.inFlightSeconds - heldFor) };
    }
    // its invocation is gone: whether the request went out is unknown; the next attempt follows
    const interrupted: DeliveryAttempt = {
      ...existing,
      status: 'interrupted',
      error: 'the attempt was cut off before its outcome was recorded',
    };
    const next = nextStepOf(this.policyOf(message), message.attempt, 'retry', undefined, this.random);
    return this.follow(message, interrupted, next);
  }

  /** Queues what follows the attempt (a retry, the dead-letter message), then records its outcome. */
  private async follow(
    message: DeliveryMessage,
    attempt: DeliveryAttempt,
    next: NextStep,
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
    return this.record(recorded);
  }

  private async record(attempt: DeliveryAttempt): Promise<DeliverResult> {
    const mine = await this.ports.log.finish(attempt);
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
      const waitFor =
        (message.waited ?? 0) < MAX_ORDER_WAITS ? await this.previousInFlight(record, message) : undefined;
      if (waitFor !== undefined) return { waitFor };
      return this.prepareCallback(message, record, event, config);
    }
    const body = await this.bodyOf(record, event, config);
    if (body === undefined) return 'not_deliverable';

    const jwt = await this.ports.signer.sign({ taskId: head.taskId, body, audience: config.url });
    const auth = config.authentication;
    const headers: Record<string, string> = {
      'Content-Type': config.version === '1.0' ? 'application/a2a+json' : 'application/json',
      ...pushJwtHeaders(jwt, { authorizationTaken: auth !== undefined }),
      ...(auth
        ? { Authorization: auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme }
        : {}),
      ...(config.token ? { 'X-A2A-Notification-Token': config.token } : {}),
      [DeliveryHeader.IdempotencyKey]: deliveryKey(message),
      [DeliveryHeader.EventVersion]: String(message.version),
      [DeliveryHeader.Attempt]: String(message.attempt),
    };
    return { config, body, headers, record };
  }

  /**
   * One p2p:heartbeat to the task's Synapse requester, while the claim it follows runs the task; then
   * the next one, an interval later. Best effort and not logged (a lost one is followed by the next; a
   * requester counts any message as a sign of life): not retried, never dead-lettered.
   */
  private async beatPeer(
    message: DeliveryMessage,
    beat: NonNullable<DeliveryMessage['heartbeat']>,
  ): Promise<DeliverResult> {
    const record = await this.ports.store.get({ tenant: message.tenant, taskId: message.taskId });
    const head = record?.head;
    const running =
      head?.role === 'executor' &&
      head.state === 'executing' &&
      head.leaseUntil === beat.claim &&
      (head.pushConfigIds ?? []).includes(message.configId);
    if (!head || !running) return { result: 'heartbeat', sent: false, next: false };
    const [config] = await this.ports.configs.get(message.tenant, message.taskId, [message.configId]);
    const peer = config?.synapse
      ? (await this.ports.synapse?.peers())?.peer(config.synapse.peerId)
      : undefined;
    // nothing can be sent (the config or the peer is gone): the chain ends
    if (!config?.synapse || !peer || !this.ports.synapse)
      return { result: 'heartbeat', sent: false, next: false };
    let sent = false;
    let error: string | undefined;
    {
      const now = this.clock.now();
      const messageId = heartbeatMessageId(head.taskId, beat.claim, beat.beat);
      const body = JSON.stringify(
        composeMessage(
          'p2p:heartbeat',
          {
            task_id: config.synapse.remoteTaskId,
            status: head.state,
            ...(head.progress !== undefined ? { progress: head.progress } : {}),
            interval: this.heartbeatSeconds,
          },
          {
            sender: this.ports.synapse.self,
            recipient: { agent_id: peer.peerId },
            task_id: config.synapse.remoteTaskId,
            message_id: messageId,
            timestamp: now,
          },
        ),
      );
      const result = await this.ports.sender.post({
        url: peer.endpoint,
        body,
        headers: { 'Content-Type': 'application/json', ...signForPeer(peer, body, messageId, now.getTime()) },
        ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      });
      sent = result.outcome === 'delivered';
      error = result.error;
    }
    await this.ports.queue.enqueue(
      [{ ...message, heartbeat: { claim: beat.claim, beat: beat.beat + 1 } }],
      this.heartbeatSeconds,
    );
    return { result: 'heartbeat', sent, next: true, ...(error ? { error } : {}) };
  }

  /**
   * The previous message's version while it is still on its way. Messages of one change are delivered
   * side by side (the previous one is usually being sent this very moment): look again a few times,
   * briefly, before the message goes back to the queue for ORDER_WAIT_SECONDS.
   */
  private async previousInFlight(record: TaskRecord, message: DeliveryMessage): Promise<number | undefined> {
    for (let look = 1; ; look++) {
      const waitFor = await this.undeliveredBefore(record, message);
      if (waitFor === undefined || look >= ORDER_QUICK_LOOKS) return waitFor;
      await new Promise((r) => setTimeout(r, ORDER_QUICK_LOOK_MS));
    }
  }

  /**
   * The version of the task's previous message to the same peer while its delivery has not ended (a peer
   * gets a task's messages in order: a completion never overtakes the last progress report, a cancel never
   * the request), or undefined. The previous message is the latest told event of the few before this one
   * (they are in the task item); it has ended once its last attempt is delivered, failed or dropped.
   */
  private async undeliveredBefore(record: TaskRecord, message: DeliveryMessage): Promise<number | undefined> {
    const from = Math.max(0, message.version - 1 - ORDER_LOOKBACK);
    const before = await this.ports.store.events(record, from, message.version - 1 - from);
    const previous = [...before].reverse().find((e) => isCallbackEvent(record.head.role, e));
    if (!previous) return undefined;
    const attempts = (await this.ports.log.list(message.tenant, message.taskId)).filter(
      (a) => a.configId === message.configId && a.version === previous.version,
    );
    const last = attempts.sort((a, b) => a.redrive - b.redrive || a.attempt - b.attempt).at(-1);
    return last && ENDED.has(last.status) ? undefined : previous.version;
  }

  /**
   * A Synapse callback: the p2p message of the event (its id the same on every attempt), signed with
   * the peer's first key, the timestamp of this attempt. A peer no longer configured gets nothing.
   */
  private async prepareCallback(
    message: DeliveryMessage,
    record: TaskRecord,
    event: TaskEvent,
    config: StoredPushConfig,
  ): Promise<Prepared | Dropped> {
    if (!config.synapse || !this.ports.synapse) return 'not_deliverable';
    const peer = (await this.ports.synapse.peers()).peer(config.synapse.peerId);
    // an unknown peer, or one of another tenant (its reports could never find this task), gets nothing
    if (!peer || peer.tenant !== record.head.tenant) return 'not_deliverable';
    const callback =
      record.head.role === 'requester'
        ? requesterMessageOf(event, {
            head: record.head,
            ...(event.type === 'submit'
              ? { request: (await this.ports.store.events(record, 0, 1))[0]?.message }
              : {}),
          })
        : callbackOf(
            event,
            config.synapse.remoteTaskId,
            event.type === 'complete'
              ? await this.ports.store.view(record, { includeArtifacts: true, historyLength: 0 })
              : undefined,
          );
    if (!callback) return 'not_deliverable';
    const messageId = callbackMessageId(record.head.taskId, event.version);
    const body = JSON.stringify(
      composeMessage(callback.type, callback.payload, {
        sender: this.ports.synapse.self,
        recipient: { agent_id: peer.peerId },
        task_id: config.synapse.remoteTaskId,
        message_id: messageId,
        timestamp: event.at,
      }),
    );
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      ...signForPeer(peer, body, messageId, this.clock.now().getTime()),
      [DeliveryHeader.IdempotencyKey]: deliveryKey(message),
      [DeliveryHeader.EventVersion]: String(message.version),
      [DeliveryHeader.Attempt]: String(message.attempt),
    };
    // to the peer's configured endpoint, whatever a message named (a peer cannot aim signed messages elsewhere)
    return { config: { ...config, url: peer.endpoint }, body, headers, record };
  }

  /**
   * v1.0: the StreamResponse of the event (what a stream shows of it). v0.3: the bare Task as it is now
   * (v0.3 receivers expect the task; A2A-Event-Version still names the event that caused the delivery).
   */
  private async bodyOf(
    record: TaskRecord,
    event: TaskEvent,
    config: StoredPushConfig,
  ): Promise<string | undefined> {
    // a config registered on a finished task: its registration is delivered as the final status
    const streamed =
      lateRegistration(event) === config.id
        ? finalStatusOf(await this.ports.store.view(record, FINAL_STATUS_VIEW))
        : streamEventOf(record.head, event);
    if (!streamed) return undefined;
    if (config.version === '1.0') return JSON.stringify(v1Wire.encodeStreamEvent(streamed));
    const view = await this.ports.store.view(record, V03_BODY);
    return JSON.stringify(v03Wire.encodeTask(view, V03_BODY));
  }

  /** As long as the task keeps what it wrote: its retention after its deadline or last status. */
  private keepUntilOf(record: TaskRecord, now: Date): string {
    const { deadlineAt, statusAt } = record.head;
    const from = Math.max(Date.parse(deadlineAt), Date.parse(statusAt), now.getTime());
    return new Date(from + this.keepSeconds * 1000).toISOString();
  }
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 500);

/** A positive number from the environment, or the default. */
const numberFrom = (
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  valid: (n: number) => boolean,
  what: string,
): number => {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || !valid(n))
    throw new Error(`${name} must be ${what} (got ${JSON.stringify(text)})`);
  return n;
};

/**
 * The policy the environment asks for: DELIVERY_MAX_ATTEMPTS (5), DELIVERY_BASE_DELAY_SECONDS (2; may be
 * below 1 to scale tests down), DELIVERY_BACKOFF_FACTOR (2), DELIVERY_MAX_DELAY_SECONDS (900, at most),
 * DELIVERY_JITTER (0.2, from 0 to 1).
 */
/** SYNAPSE_MAX_RETRIES (5): retries of a message to a Synapse peer, 0 to 99. */
export const synapseMaxRetriesFrom = (env: Record<string, string | undefined>): number =>
  numberFrom(
    env,
    'SYNAPSE_MAX_RETRIES',
    DEFAULT_SYNAPSE_MAX_RETRIES,
    (n) => Number.isInteger(n) && n >= 0 && n <= 99,
    'an integer from 0 to 99',
  );

export const deliveryPolicyFrom = (env: Record<string, string | undefined>): DeliveryPolicy => ({
  maxAttempts: numberFrom(
    env,
    'DELIVERY_MAX_ATTEMPTS',
    DEFAULT_DELIVERY_POLICY.maxAttempts,
    (n) => Number.isInteger(n) && n >= 1 && n <= 100,
    'an integer from 1 to 100',
  ),
  baseDelaySeconds: numberFrom(
    env,
    'DELIVERY_BASE_DELAY_SECONDS',
    DEFAULT_DELIVERY_POLICY.baseDelaySeconds,
    (n) => n >= 0 && n <= 900,
    'a number of seconds from 0 to 900',
  ),
  factor: numberFrom(
    env,
    'DELIVERY_BACKOFF_FACTOR',
    DEFAULT_DELIVERY_POLICY.factor,
    (n) => n >= 1,
    'at least 1',
  ),
  maxDelaySeconds: numberFrom(
    env,
    'DELIVERY_MAX_DELAY_SECONDS',
    DEFAULT_DELIVERY_POLICY.maxDelaySeconds,
    (n) => n >= 0 && n <= 900,
    'a number of seconds from 0 to 900',
  ),
  jitter: numberFrom(
    env,
    'DELIVERY_JITTER',
    DEFAULT_DELIVERY_POLICY.jitter,
    (n) => n >= 0 && n <= 1,
    'from 0 to 1',
  ),
});
