/**
 * The hub signs its own agent card (A2A v1.0 §8.4, docs/registry.md#trust) with its push-signing key
 * set (docs/push-signing.md): the key that signs push JWTs now signs the card, its `kid` in the
 * protected header, so the JWKS the hub serves at /.well-known/jwks.json verifies both.
 */
import type { CryptoKey, JWK } from 'jose';
import { importJWK } from 'jose';
import { type SigningJwk, signingKeyOf } from '../../domain/push-signing.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';
import {
  type AgentCardSignature,
  type SignCardOptions,
  signCard,
} from '../../protocol/a2a/card-signature.ts';

export class HubCardSigner {
  /** Imported private keys by kid (with the JWK: a kid re-used by a new key is imported again). */
  private readonly imported = new Map<string, { jwk: SigningJwk; key: Promise<CryptoKey | Uint8Array> }>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key that signs now (the push signer's: signingKeyOf); rejects while there is no key set. */
  async currentKey(): Promise<SigningJwk> {
    return signingKeyOf(await this.keys.load(), Math.floor(this.now() / 1000));
  }

  /**
   * The card with the hub's signature: by `key` (the current key by default), naming `jwksUrl` (the
   * hub's JWKS at the card's public URL) as its `jku`, a hint for clients: verifiers keep their own store.
   */
  async sign<C extends object>(
    card: C,
    options: { key?: SigningJwk; jwksUrl?: string } = {},
  ): Promise<C & { signatures: AgentCardSignature[] }> {
    const jwk = options.key ?? (await this.currentKey());
    return signCard(card, {
      key: await this.privateKey(jwk),
      kid: jwk.kid,
      alg: jwk.alg as SignCardOptions['alg'],
      ...(options.jwksUrl ? { jku: options.jwksUrl } : {}),
    });
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
