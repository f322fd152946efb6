/** Signs push notifications with the hub's key (shared/adapters/keys/jose-signer.ts, docs/push-signing.md). */
import type { PublicJwks } from '../domain/push-signing.ts';

/** The input of one signature: one delivery attempt of one push. */
export interface PushSignInput {
  taskId: string;
  /** The exact bytes POSTed (a string is hashed as UTF-8). */
  body: string | Uint8Array;
  /** The push URL: the token's `aud`. */
  audience: string;
}

/** The claims of a push token. */
export interface PushTokenClaims {
  /** The hub's public URL (PUBLIC_URL), when it has one. */
  iss?: string;
  /** The push URL the request is sent to. */
  aud: string;
  iat: number;
  exp: number;
  /** Unique per attempt (a retry gets a new one): receivers may reject a jti seen before. */
  jti: string;
  taskId: string;
  /** SHA-256 of the exact request body bytes, base64url without padding (`bodySha256`). */
  body_sha256: string;
}

export interface PushSigner {
  /** The compact JWT for one delivery attempt. */
  sign(input: PushSignInput): Promise<string>;
  /** The public keys of the current set (what GET /.well-known/jwks.json serves). */
  jwks(): Promise<PublicJwks>;
}
