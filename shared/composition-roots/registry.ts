/**
 * Composition root of the agent registry's function (functions/registry.ts, docs/registry.md): the store
 * on the table, the guarded HTTP client every fetch goes through (the SSRF guard's settings,
 * shared/config/push.ts), the card verifier with the trusted keys (REGISTRY_TRUSTED_KEYS), and the
 * catalog this container holds, kept current from the store's feed. Built once per container.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistryStore } from '../adapters/dynamodb/registry-store.ts';
import { guardedHttpClientFromEnv } from '../adapters/http/guarded-client.ts';
import { CardVerifier } from '../app/registry/card-verifier.ts';
import { Catalog, CatalogDiscovery } from '../app/registry/discovery.ts';
import { RegistryHttpApi } from '../app/registry/http-api.ts';
import { type CardHandling, RegistryService } from '../app/registry/registry-service.ts';
import { PUBLIC_URL, TABLE_NAME } from '../config/deployment.ts';
import { REGISTRY_CATALOG_REFRESH_MS, REGISTRY_DISPLAY_NAME } from '../config/registry.ts';
import { REGISTRY_TRUSTED_KEYS } from '../config/registry-trust.ts';
import { readSetting, requireSetting } from '../config/settings.ts';
import { JWKS_PATH } from '../contracts/routes.ts';
import { type TrustAllowlist, withOwnHost } from '../domain/registry/trust.ts';
import { systemClock } from '../ports/clock.ts';
import type { HttpClient } from '../ports/http-client.ts';
import type { RegistryStore } from '../ports/registry-store.ts';
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

let built:
  | {
      client: DynamoDBClient;
      store: RegistryStore;
      catalog: Catalog;
      service: RegistryService;
      http: HttpClient;
    }
  | undefined;

/** The registry's parts in this container. */
export const registry = () => {
  if (!built) {
    const client = new DynamoDBClient({});
    const store = new DynamoRegistryStore(client, requireSetting(TABLE_NAME));
    const http = guardedHttpClientFromEnv();
    const verifier = new CardVerifier({ allowlist: trustedKeys(), http });
    const catalog = new Catalog(store, systemClock, readSetting(REGISTRY_CATALOG_REFRESH_MS));
    const service = new RegistryService(store, cardHandling(http, verifier), systemClock, undefined, (e) =>
      catalog.apply(e),
    );
    built = { client, store, catalog, service, http };
  }
  return built;
};

/** The registry's DynamoDB client in this container (the benchmark meters what it reads and writes). */
export const registryDynamoClient = (): DynamoDBClient => registry().client;

/** The HTTP API for a request whose public base URL is `publicUrl`. */
export const registryApi = (publicUrl: string): RegistryHttpApi => {
  const { catalog, service } = registry();
  return new RegistryHttpApi(
    service,
    new CatalogDiscovery(catalog, () => `${publicUrl}/registry`, {
      displayName: readSetting(REGISTRY_DISPLAY_NAME),
    }),
  );
};
