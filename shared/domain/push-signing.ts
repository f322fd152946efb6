/**
 * Signed push notifications (docs/push-signing.md): the hub signs every push
 * delivery attempt with a short-lived JWT and publishes the public keys as a
 * JWKS (GET /.well-known/jwks.json), so a receiver can tell the request came
 * from this hub, for this task, to its URL, with this exact body.
 *
 * This file holds the values and the rules, no JOSE library, no AWS: the key set, the token's
 * lifetime, the body hash, which key of a set signs, how a set rotates. The ports are
 * shared/ports/push-signer.ts (what the delivery worker and the JWKS endpoint call) and
 * shared/ports/signing-keys.ts (where the key set comes from); their adapters are in shared/adapters/keys/.
 */

import { createHash } from 'node:crypto';

/** The algorithm of generated keys (ECDSA P-256 / SHA-256). */
export const DEFAULT_SIGNING_ALG = 'ES256';

/** A push token's lifetime: it is minted per attempt, right before the POST. */
export const PUSH_TOKEN_TTL_SECONDS = 300;

/**
 * How long a function keeps a key set it read before it reads again: a rotation reaches every
 * signer and the JWKS endpoint within this time.
 */
export const KEY_CACHE_SECONDS = 300;

/** `Cache-Control: max-age` of the JWKS. */
export const JWKS_MAX_AGE_SECONDS = 300;

/**
 * A rotated-in key is published at once but signs only this long after its creation: by then every
 * JWKS endpoint instance serves it (KEY_CACHE_SECONDS) and every receiver that honours the JWKS
 * max-age has fetched it (JWKS_MAX_AGE_SECONDS), with margin. Until then the previous key signs.
 */
export const KEY_ACTIVATION_DELAY_SECONDS = 900;

/**
 * The header that carries the hub's JWT on a push request. Not `Authorization`: in A2A v1.0 that
 * header belongs to the credentials the client configured (`authentication`), and it carries them.
 */
export const PUSH_JWT_HEADER = 'X-Synapse-Push-JWT';

/** SHA-256 of the body bytes, base64url without padding: the `body_sha256` claim. */
export const bodySha256 = (body: string | Uint8Array): string =>
  createHash('sha256').update(body).digest('base64url');

export const isActive = (key: SigningJwk, nowSeconds: number): boolean =>
  key.active_from === undefined || key.active_from <= nowSeconds;

/** Keys that can sign: those with a private part. */
const canSign = (key: SigningJwk): boolean => typeof key.d === 'string' && key.d.length > 0;

/**
 * The key that signs now: the newest private key that is active; when none is active yet, the
 * oldest private key (a set of one key just created has nothing older to fall back to).
 */
export const signingKeyOf = (set: SigningKeySet, nowSeconds: number): SigningJwk => {
  const candidates = set.keys.filter(canSign);
  const key = candidates.find((k) => isActive(k, nowSeconds)) ?? candidates.at(-1);
  if (!key) throw new SigningKeysUnavailableError('the signing key set holds no private key');
  return key;
};

/**
 * The set after a rotation: the new key first, then the current keys down to (and including) the
 * newest one that is active. Normally that is two keys: the new one (signing once its activation
 * delay has passed) and the previous one (signing until then, verifying after). A key rotated in
 * before the previous new key became active keeps that one too, so no key that may still sign is
 * ever dropped. Older keys are dropped: they stopped signing at least a rotation period ago.
 */
export const rotatedKeySet = (
  current: SigningKeySet,
  next: SigningJwk,
  nowSeconds: number,
): SigningKeySet => {
  const kept: SigningJwk[] = [];
  for (const key of current.keys) {
    if (key.kid === next.kid) continue;
    kept.push(key);
    if (canSign(key) && isActive(key, nowSeconds)) break;
  }
  return { keys: [next, ...kept] };
};

/** When a key rotated in at `nowSeconds` into `current` may sign: at once into an empty set. */
export const activationOf = (current: SigningKeySet, nowSeconds: number): number =>
  current.keys.some(canSign) ? nowSeconds + KEY_ACTIVATION_DELAY_SECONDS : nowSeconds;

/**
 * The headers that carry the JWT on a push request. Always PUSH_JWT_HEADER; and, when the push
 * config sets no `authentication` (so `Authorization` is free), `Authorization: Bearer <jwt>` as
 * well, which is where A2A's own JWT samples look for it.
 */
export const pushJwtHeaders = (
  jwt: string,
  options: { authorizationTaken: boolean },
): Record<string, string> => ({
  [PUSH_JWT_HEADER]: jwt,
  ...(options.authorizationTaken ? {} : { Authorization: `Bearer ${jwt}` }),
});

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

/** No usable key set (yet): e.g. the secret before its first rotation. */
export class SigningKeysUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SigningKeysUnavailableError';
  }
}
