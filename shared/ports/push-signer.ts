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

export interface PushSigner {
  /** The compact JWT for one delivery attempt. */
  sign(input: PushSignInput): Promise<string>;
  /** The public keys of the current set (what GET /.well-known/jwks.json serves). */
  jwks(): Promise<PublicJwks>;
}
