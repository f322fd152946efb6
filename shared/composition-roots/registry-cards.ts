/**
 * How the registry reads published cards, for the registry function (./registry.ts) and the probe function
 * (./registry-probe.ts, which publishes the hub's own card) alike: fetched through the guarded HTTP client,
 * normalised (v1.0 and v0.3), and verified against the trusted keys (REGISTRY_TRUSTED_KEYS, and this hub's
 * own JWKS for its own host). Apart from ./registry.ts so the probe's bundle carries no discovery.
 */
import type { CardVerifier } from '../app/registry/card-verifier.ts';
import type { CardHandling } from '../app/registry/registry-service.ts';
import { PUBLIC_URL } from '../config/deployment.ts';
import { REGISTRY_TRUSTED_KEYS } from '../config/registry-trust.ts';
import { readSetting } from '../config/settings.ts';
import { JWKS_PATH } from '../contracts/routes.ts';
import { type TrustAllowlist, withOwnHost } from '../domain/registry/trust.ts';
import type { HttpClient } from '../ports/http-client.ts';
import { CARD_LIMITS, normaliseCard } from '../protocol/a2a/card-normalise.ts';

/** How long the registry waits for a card URL to answer. */
const CARD_FETCH_TIMEOUT_MS = 5_000;

/** Fetching, reading and checking published cards, through `http`. */
export const cardHandling = (http: HttpClient, verifier: CardVerifier): CardHandling => ({
  normalise: normaliseCard,
  fetch: async (url) => {
    const answer = await http.request({
      method: 'GET',
      url,
      headers: { accept: 'application/json' },
      timeoutMs: CARD_FETCH_TIMEOUT_MS,
      maxBytes: CARD_LIMITS.maxCardBytes,
    });
    if (!answer.ok) return { ok: false, error: answer.error };
    if (answer.status !== 200) return { ok: false, error: `HTTP ${answer.status}` };
    return { ok: true, body: answer.body, ...(answer.headers.etag ? { etag: answer.headers.etag } : {}) };
  },
  verify: (card, publisherUrl) => verifier.verify(card, { publisherUrl }),
});

/** The trusted keys: REGISTRY_TRUSTED_KEYS, and this hub's own JWKS for its own host (PUBLIC_URL). */
export const trustedKeys = (): TrustAllowlist => {
  const configured = readSetting(REGISTRY_TRUSTED_KEYS);
  const publicUrl = readSetting(PUBLIC_URL)?.replace(/\/+$/, '');
  return publicUrl ? withOwnHost(configured, publicUrl, `${publicUrl}${JWKS_PATH}`) : configured;
};
