/**
 * Where a consumer puts a record it can never handle (a poison record: not a message of its queue, a
 * stream record that does not decode) or has given up on (it failed on every receive), with why, so it is out of the way at once and an operator sees it
 * (docs/deliveries.md#poison-messages): a queue's dead-letter queue, the relay's failure queue.
 */

/** Why a record is given up on. */
export interface Poison {
  /**
   * `not_json`: the body is not JSON; `not_a_message`: JSON, not of the queue's schema; `undecodable`: a
   * stream record; `retries_exhausted`: a message that failed on each of its queue's maxReceiveCount receives.
   */
  reason: 'not_json' | 'not_a_message' | 'undecodable' | 'retries_exhausted';
  /** What was wrong, for a reader (the parser's or the schema's words). */
  error: string;
}

export interface PoisonQueue {
  /** Sends `body` as it is, with the reason beside it. */
  send(body: string, poison: Poison): Promise<void>;
}
