/** The hub's push-signing key set: from the environment or Secrets Manager (shared/adapters/keys, docs/push-signing.md). */
/** One public key as the JWKS publishes it. */
export interface PublicJwk {
  kty: string;
  kid: string;
  alg: string;
  use: 'sig';
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

export interface PublicJwks {
  keys: PublicJwk[];
}

/**
 * One key of a signing key set: a JWK with its private part (`d`), or a public one that is only
 * published (it verifies what it signed elsewhere, it never signs here).
 */
export interface SigningJwk {
  kty: string;
  kid: string;
  alg: string;
  d?: string;
  /** Epoch seconds from which the key may sign; absent: from the start. */
  active_from?: number;
  [member: string]: unknown;
}

/**
 * The keys a hub signs with and publishes, newest first: after a rotation the new key, then the
 * previous one (still published, so what it signed keeps verifying). Stored as this JSON.
 */
export interface SigningKeySet {
  keys: SigningJwk[];
}

/** Where the key set comes from. */
export interface SigningKeys {
  /** The current set (an adapter may cache it); rejects with SigningKeysUnavailableError when there is none. */
  load(): Promise<SigningKeySet>;
}

/** No usable key set (yet): e.g. the secret before its first rotation. */
export class SigningKeysUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SigningKeysUnavailableError';
  }
}
