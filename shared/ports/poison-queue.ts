/**
 * Where a consumer puts a record it can never handle (a poison record: not a message of its queue, a
 * stream record that does not decode), with why, so it is out of the way at once and an operator sees it
 * (docs/deliveries.md#poison-messages): a queue's dead-letter queue, the relay's failure queue.
 */

/** Why a record is poison. */
export interface Poison {
  /** `not_json`: the body is not JSON; `not_a_message`: JSON, not of the queue's schema; `undecodable`: a stream record. */
  reason: 'not_json' | 'not_a_message' | 'undecodable';
  /** What was wrong, for a reader (the parser's or the schema's words). */
  error: string;
}

export interface PoisonQueue {
  /** Sends `body` as it is, with the reason beside it. */
  send(body: string, poison: Poison): Promise<void>;
}
