/**
 * A SigningKeys that keeps what another one loaded for a while (KEY_CACHE_SECONDS
 * by default), so a warm function reads its key source once per period and a
 * rotation still reaches it within that period.
 *
 * - Concurrent loads share one read.
 * - A failed refresh keeps serving the set it had (a key source outage does not
 *   stop signing) and tries again after `retryMs`; with no set yet, the error
 *   goes to the caller and nothing is cached, so the next call reads again
 *   (the secret before its first rotation is ready within seconds).
 */

import type { SigningKeySet } from '../../domain/push-signing.ts';
import { KEY_CACHE_SECONDS } from '../../domain/push-signing.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';

export interface CachedKeysOptions {
  ttlMs?: number;
  /** After a failed refresh, serve the old set this long before reading again (default 30 s). */
  retryMs?: number;
  now?: () => number;
  /** Told about a failed refresh that was answered from the cache (the error only: never the keys). */
  onStaleError?: (error: unknown) => void;
}

export const cachedKeys = (source: SigningKeys, options: CachedKeysOptions = {}): SigningKeys => {
  const ttlMs = options.ttlMs ?? KEY_CACHE_SECONDS * 1000;
  const retryMs = options.retryMs ?? 30_000;
  const now = options.now ?? Date.now;
  let cached: { set: SigningKeySet; freshUntil: number } | undefined;
  let inFlight: Promise<SigningKeySet> | undefined;

  const refresh = (): Promise<SigningKeySet> => {
    inFlight ??= source
      .load()
      .then(
        (set) => {
          cached = { set, freshUntil: now() + ttlMs };
          return set;
        },
        (error: unknown) => {
          if (!cached) throw error;
          options.onStaleError?.(error);
          cached = { ...cached, freshUntil: now() + retryMs };
          return cached.set;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return {
    load: async () => (cached && now() < cached.freshUntil ? cached.set : refresh()),
  };
};
