/**
 * DeliveryQueue in memory: the twin of SqsDeliveryQueue (contract: test/contract/queues.ts). Deliveries
 * wait as in queue.ts; a delivery that gave up goes to `deadLetters`, with why (as the dead-letter
 * queue's message says), and is taken off it with `receiveDeadLetters`.
 */
import type { DeadLetterInfo, DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';
import { stored } from './json.ts';
import { InMemoryQueue } from './queue.ts';

export interface DeadLettered {
  message: DeliveryMessage;
  info: DeadLetterInfo;
}

export class InMemoryDeliveryQueue extends InMemoryQueue<DeliveryMessage> implements DeliveryQueue {
  /** Every delivery handed to the dead-letter queue, oldest first. */
  readonly deadLetters: DeadLettered[] = [];
  #unread = 0;

  async enqueue(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void> {
    this.send(messages, delaySeconds);
  }

  async deadLetter(message: DeliveryMessage, info: DeadLetterInfo): Promise<void> {
    this.deadLetters.push(stored({ message, info }));
  }

  /** The dead letters not taken yet, oldest first (as a reader of the dead-letter queue gets them). */
  receiveDeadLetters(): DeadLettered[] {
    const unread = this.deadLetters.slice(this.#unread);
    this.#unread = this.deadLetters.length;
    return stored(unread);
  }
}
