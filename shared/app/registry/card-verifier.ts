/**
 * Whether a published card's signature is trusted (docs/registry.md#trust): a signature counts when a
 * key of the publisher domain's allowlist entry verifies it. The only URLs fetched are the allowlist's
 * JWKS URLs (through the guarded HttpClient), each kept a few minutes in a bounded cache; a `jku` or
 * `x5u` a card names is never fetched.
 */

import type { CardVerification } from '../../domain/registry/record.ts';
import {
  publisherHostOf,
  type TrustAllowlist,
  type TrustEntry,
  trustEntryFor,
} from '../../domain/registry/trust.ts';
import type { HttpClient } from '../../ports/http-client.ts';
import { type TrustedCardKey, verifyCardSignatures } from '../../protocol/a2a/card-signature.ts';

export const JWKS_CACHE_MS = 5 * 60_000;
export const JWKS_CACHE_MAX_ENTRIES = 100;
export const JWKS_FETCH_TIMEOUT_MS = 5_000;
/** A JWKS of a few keys is a few kilobytes. */
export const JWKS_MAX_BYTES = 64 * 1024;

export interface CardVerifierOptions {
  allowlist: TrustAllowlist;
  http: HttpClient;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  cacheMs?: number;
  maxCachedJwks?: number;
}

type JwksResult = { ok: true; keys: Record<string, unknown>[] } | { ok: false; error: string };

export class CardVerifier {
  private readonly jwks = new Map<string, { at: number; result: Promise<JwksResult> }>();
  private readonly now: () => number;
  private readonly cacheMs: number;
  private readonly maxCached: number;

  constructor(private readonly options: CardVerifierOptions) {
    this.now = options.now ?? Date.now;
    this.cacheMs = options.cacheMs ?? JWKS_CACHE_MS;
    this.maxCached = options.maxCachedJwks ?? JWKS_CACHE_MAX_ENTRIES;
  }

  /** `publisherUrl`: the URL the card was fetched from, when it was (publisherHostOf says why). */
  async verify(card: object, { publisherUrl }: { publisherUrl?: string } = {}): Promise<CardVerification> {
    const signatures = (card as { signatures?: unknown }).signatures;
    if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0))
      return { status: 'unsigned' };
    const host = publisherHostOf(card, publisherUrl);
    if (!host)
      return { status: 'unverified', reason: 'no publisher host: the card has no URL and no interface URL' };
    const trust = trustEntryFor(this.options.allowlist, host);
    if (!trust)
      return {
        status: 'unverified',
        reason: `no trusted keys for ${host}: the trust allowlist (REGISTRY_TRUSTED_KEYS) has no entry for it`,
      };
    let keys: Record<string, unknown>[];
    let trustedBy: string;
    if ('keys' in trust.entry) {
      keys = trust.entry.keys;
      trustedBy = `${trust.domain} (inline key)`;
    } else {
      const fetched = await this.keysAt(trust.entry);
      if (!fetched.ok)
        return {
          status: 'unverified',
          reason: `the JWKS of ${trust.domain} (${trust.entry.jwksUrl}) could not be read: ${fetched.error}`,
        };
      keys = fetched.keys;
      trustedBy = `${trust.domain} ${trust.entry.jwksUrl}`;
    }
    return verifyCardSignatures(card, async ({ kid }): Promise<TrustedCardKey | undefined> => {
      const jwk = keys.find((k) => k.kid === kid && (k.use === undefined || k.use === 'sig'));
      return jwk ? { key: jwk as TrustedCardKey['key'], trustedBy } : undefined;
    });
  }

  /** The keys at an allowlisted JWKS URL, from the cache while fresh; a failure is not kept. */
  private keysAt(entry: Extract<TrustEntry, { jwksUrl: string }>): Promise<JwksResult> {
    const url = entry.jwksUrl;
    const cached = this.jwks.get(url);
    if (cached && this.now() - cached.at < this.cacheMs) return cached.result;
    const result = this.fetchJwks(url);
    this.jwks.delete(url);
    this.jwks.set(url, { at: this.now(), result });
    // bounded: the oldest entry (Map keeps insertion order) leaves first
    while (this.jwks.size > this.maxCached) this.jwks.delete(this.jwks.keys().next().value as string);
    void result.then((r) => {
      if (!r.ok && this.jwks.get(url)?.result === result) this.jwks.delete(url);
    });
    return result;
  }

  private async fetchJwks(url: string): Promise<JwksResult> {
    const answer = await this.options.http.request({
      method: 'GET',
      url,
      headers: { accept: 'application/jwk-set+json, application/json' },
      timeoutMs: JWKS_FETCH_TIMEOUT_MS,
      maxBytes: JWKS_MAX_BYTES,
    });
    if (!answer.ok) return { ok: false, error: `${answer.kind}: ${answer.error}` };
    if (answer.status !== 200) return { ok: false, error: `HTTP ${answer.status}` };
    let json: unknown;
    try {
      json = JSON.parse(answer.body);
    } catch {
      return { ok: false, error: 'the answer is not JSON' };
    }
    const keys = (json as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return { ok: false, error: 'the answer has no `keys` array (RFC 7517 §5)' };
    return {
      ok: true,
      keys: keys.filter(
        (k): k is Record<string, unknown> => k !== null && typeof k === 'object' && !Array.isArray(k),
      ),
    };
  }
}
