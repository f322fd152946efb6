/** The hub's push-signing key set: from the environment or Secrets Manager (shared/adapters/keys, docs/push-signing.md). */
import type { SigningKeySet } from '../domain/push-signing.ts';

/** Where the key set comes from. */
export interface SigningKeys {
  /** The current set (an adapter may cache it); rejects with SigningKeysUnavailableError when there is none. */
  load(): Promise<SigningKeySet>;
}
