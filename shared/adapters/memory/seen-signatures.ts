/**
 * SeenSignatures in memory: for tests and a single local process (the hub's adapter is
 * DynamoSeenSignatures, shared/adapters/dynamodb/seen-signatures.ts). A request is remembered while
 * the clock, in whole seconds, is at most its `until` (the verifier still accepts its timestamp then)
 * and forgotten after; forgotten entries are dropped as the store grows, so it stays bounded by the
 * requests of one window.
 */
import type { SeenSignatures } from '../../ports/seen-signatures.ts';

export interface InMemorySeenSignaturesOptions {
  /** Epoch milliseconds; default Date.now. */
  now?: () => number;
}

export class InMemorySeenSignatures implements SeenSignatures {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;
  /** The size after the last purge: the next purge runs when the store has doubled. */
  #purgedAt = 0;

  constructor(options: InMemorySeenSignaturesOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Requests held, forgotten ones not yet dropped included. */
  get size(): number {
    return this.#seen.size;
  }

  async remember(peer: string, signature: string, signedAt: number, until: number): Promise<boolean> {
    if (!Number.isSafeInteger(signedAt) || !Number.isSafeInteger(until)) {
      throw new RangeError('signedAt and until must be whole epoch seconds');
    }
    const now = Math.floor(this.#now() / 1000);
    const key = JSON.stringify([peer, signature, signedAt]);
    const kept = this.#seen.get(key);
    if (kept !== undefined && now <= kept) return false;
    this.#seen.set(key, until);
    if (this.#seen.size >= 2 * Math.max(this.#purgedAt, 64)) this.#purge(now);
    return true;
  }

  #purge(now: number): void {
    for (const [key, until] of this.#seen) if (now > until) this.#seen.delete(key);
    this.#purgedAt = this.#seen.size;
  }
}
