/** Where deliveries wait between attempts: SQS on AWS and locally (shared/adapters/sqs/delivery-queue.ts). */
import type { GiveUpReason } from '../domain/delivery.ts';

export interface DeliveryRequest {
  tenant: string;
  taskId: string;
  contextId: string;
  configId: string;
  /** The version of the event delivered: the receiver's ordering and de-duplication key. */
  version: number;
  /** 1 for the first attempt; the worker re-sends with the next one. */
  attempt: number;
}

/**
 * One delivery as the queue carries it. `redrive` numbers the rounds a dead-lettered delivery was
 * given again (absent: 0): each round has its own attempts 1..maxAttempts, so a redriven message is
 * never taken for a duplicate of the attempts before it.
 */
export interface DeliveryMessage extends DeliveryRequest {
  redrive?: number;
  /**
   * How many times a Synapse message was put back to wait for the one before it (absent: 0): a peer
   * gets each task's messages in order, but never waits forever (MAX_ORDER_WAITS).
   */
  waited?: number;
  /**
   * A p2p:heartbeat to a task's Synapse requester, not an event's delivery: sent while the claim it
   * follows (the lease end of the run) still runs the task, `beat` counting them; each queues the next.
   */
  heartbeat?: { claim: string; beat: number };
}

/** Why a delivery reached the dead-letter queue, as its message there says. */
export interface DeadLetterInfo {
  reason: GiveUpReason;
  /** The last attempt's error (HTTP status, timeout, refused URL…). */
  error?: string;
  /** The attempt that gave up, and its round. */
  attempt: number;
  redrive: number;
  at: string;
}

/** Where deliveries wait (SQS in production and locally). */
export interface DeliveryQueue {
  /** Queues deliveries, visible after `delaySeconds` (the relay's first attempts: none). */
  enqueue(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void>;
  /**
   * Hands a delivery that gave up to the dead-letter queue. `message` is what a redrive will bring
   * back: the first attempt of the next round.
   */
  deadLetter(message: DeliveryMessage, info: DeadLetterInfo): Promise<void>;
}
