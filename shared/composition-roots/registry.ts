/**
 * Composition root of the agent registry's function (functions/registry.ts, docs/registry.md): the store
 * on the table, the guarded HTTP client every fetch goes through (the SSRF guard's settings,
 * shared/config/push.ts), the card verifier with the trusted keys (REGISTRY_TRUSTED_KEYS), and the
 * catalog this container holds, kept current from the store's feed. Built once per container.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import { DynamoRegistryStore } from '../adapters/dynamodb/registry-store.ts';
import { guardedHttpClientFromEnv } from '../adapters/http/guarded-client.ts';
import { CardVerifier } from '../app/registry/card-verifier.ts';
import { Catalog } from '../app/registry/catalog.ts';
import { CatalogIndex } from '../app/registry/catalog-index.ts';
import { CatalogDiscovery, type DiscoveryCatalog } from '../app/registry/discovery.ts';
import { RegistryHttpApi } from '../app/registry/http-api.ts';
import { RegistryService } from '../app/registry/registry-service.ts';
import { TABLE_NAME } from '../config/deployment.ts';
import { REGISTRY_CATALOG_REFRESH_MS, REGISTRY_DISPLAY_NAME } from '../config/registry.ts';
import { readSetting, requireSetting } from '../config/settings.ts';
import { systemClock } from '../ports/clock.ts';
import type { HttpClient } from '../ports/http-client.ts';
import type { RegistryStore } from '../ports/registry-store.ts';
import { cardHandling, trustedKeys } from './registry-cards.ts';

let built:
  | {
      client: DynamoDBClient;
      store: RegistryStore;
      catalog: DiscoveryCatalog;
      service: RegistryService;
      http: HttpClient;
    }
  | undefined;

/** The registry's parts in this container. */
export const registry = () => {
  if (!built) {
    const client = awsClient(new DynamoDBClient(SDK_RETRY));
    const store = new DynamoRegistryStore(client, requireSetting(TABLE_NAME));
    const http = guardedHttpClientFromEnv();
    const verifier = new CardVerifier({ allowlist: trustedKeys(), http });
    const catalog = new Catalog(
      new CatalogIndex(),
      store,
      systemClock,
      readSetting(REGISTRY_CATALOG_REFRESH_MS),
    );
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
