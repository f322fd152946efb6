/**
 * A queue in memory, for the twins of the SQS queues (delivery, executor, heartbeat): what is sent is
 * kept as JSON (an SQS message body), becomes visible after its delay (by the queue's clock), and is
 * received once. `sent` keeps every send as it was asked for (its delay as given, before any rounding),
 * for tests that check what followed what; `receive` is the consumer's side.
 */
import { stored } from './json.ts';

export interface InMemoryQueueOptions {
  /** Epoch milliseconds; default Date.now. */
  now?: () => number;
}

/** One send: the messages and the delay asked for. */
export interface Sent<T> {
  messages: T[];
  delaySeconds?: number;
}

export class InMemoryQueue<T> {
  /** Every send, oldest first. */
  readonly sent: Sent<T>[] = [];
  readonly #waiting: Array<{ message: T; visibleAt: number }> = [];
  readonly #now: () => number;

  constructor(options: InMemoryQueueOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  protected send(messages: readonly T[], delaySeconds?: number): void {
    if (messages.length === 0) return;
    const copies = stored([...messages]);
    this.sent.push({ messages: stored(copies), ...(delaySeconds !== undefined ? { delaySeconds } : {}) });
    const visibleAt = this.#now() + Math.max(0, delaySeconds ?? 0) * 1000;
    for (const message of copies) this.#waiting.push({ message, visibleAt });
  }

  /** Every message sent, oldest first, whatever its delay (flattened `sent`). */
  get messages(): T[] {
    return this.sent.flatMap((s) => stored(s.messages));
  }

  /** Messages waiting, visible or not. */
  get depth(): number {
    return this.#waiting.length;
  }

  /** Takes the messages visible now off the queue, in the order they became visible (then were sent). */
  receive(): T[] {
    const now = this.#now();
    const visible = this.#waiting
      .map((w, order) => ({ ...w, order }))
      .filter((w) => w.visibleAt <= now)
      .sort((a, b) => a.visibleAt - b.visibleAt || a.order - b.order);
    const taken = new Set(visible.map((w) => w.order));
    const kept = this.#waiting.filter((_, i) => !taken.has(i));
    this.#waiting.splice(0, this.#waiting.length, ...kept);
    return visible.map((w) => w.message);
  }
}
