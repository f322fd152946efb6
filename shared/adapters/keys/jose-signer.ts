/**
 * PushSigner with jose: a compact JWS (JWT) per delivery attempt, signed with
 * the set's signing key (signingKeyOf), its `kid` and `alg` in the protected
 * header; the JWKS from the same set.
 */
import { randomUUID } from 'node:crypto';
import { type CryptoKey, importJWK, type JWK, SignJWT } from 'jose';
import type { PublicJwks, SigningJwk } from '../../domain/push-signing.ts';
import { bodySha256, PUSH_TOKEN_TTL_SECONDS, signingKeyOf } from '../../domain/push-signing.ts';
import type { PushSigner, PushSignInput } from '../../ports/push-signer.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';
import { publicJwksOf } from './key-set.ts';

export interface JosePushSignerOptions {
  keys: SigningKeys;
  /** The `iss` claim: the hub's public URL. Absent: no `iss`. */
  issuer?: string;
  ttlSeconds?: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

export class JosePushSigner implements PushSigner {
  /** Imported private keys by kid (with the JWK they came from: a kid re-used by a new key is re-imported). */
  private readonly imported = new Map<string, { jwk: SigningJwk; key: Promise<CryptoKey | Uint8Array> }>();
  private readonly issuer: string | undefined;
  private readonly ttlSeconds: number;
  private readonly now: () => number;

  constructor(private readonly options: JosePushSignerOptions) {
    this.issuer = options.issuer?.replace(/\/+$/, '') || undefined;
    this.ttlSeconds = options.ttlSeconds ?? PUSH_TOKEN_TTL_SECONDS;
    this.now = options.now ?? Date.now;
  }

  async sign(input: PushSignInput): Promise<string> {
    if (!input.taskId) throw new Error('a push token needs the task id');
    if (!input.audience) throw new Error('a push token needs the push URL as its audience');
    const set = await this.options.keys.load();
    const iat = Math.floor(this.now() / 1000);
    const jwk = signingKeyOf(set, iat);
    const jwt = new SignJWT({ taskId: input.taskId, body_sha256: bodySha256(input.body) })
      .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: 'JWT' })
      .setAudience(input.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(randomUUID());
    if (this.issuer) jwt.setIssuer(this.issuer);
    return jwt.sign(await this.privateKey(jwk));
  }

  async jwks(): Promise<PublicJwks> {
    return publicJwksOf(await this.options.keys.load());
  }

  private privateKey(jwk: SigningJwk): Promise<CryptoKey | Uint8Array> {
    const cached = this.imported.get(jwk.kid);
    if (cached && cached.jwk.d === jwk.d) return cached.key;
    const { active_from: _activeFrom, ...material } = jwk;
    const key = importJWK(material as JWK, jwk.alg);
    key.catch(() => this.imported.delete(jwk.kid));
    this.imported.set(jwk.kid, { jwk, key });
    return key;
  }
}
