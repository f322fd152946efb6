/**
 * Composition root of the registry's probe function (functions/registry-probe.ts, docs/registry.md#health):
 * the store on the table, the catalog of live agents followed from its feed, the probe queue, and the
 * guarded HTTP client every probe request goes through. Built once per container.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import { DynamoRegistryStore } from '../adapters/dynamodb/registry-store.ts';
import { guardedHttpClientFromEnv } from '../adapters/http/guarded-client.ts';
import { SqsPoisonQueue } from '../adapters/sqs/poison-queue.ts';
import { SqsProbeQueue } from '../adapters/sqs/probe-queue.ts';
import { CardVerifier } from '../app/registry/card-verifier.ts';
import { Catalog, CatalogEntries } from '../app/registry/catalog.ts';
import { RegistryProber } from '../app/registry/prober.ts';
import { RegistryService } from '../app/registry/registry-service.ts';
import { REGISTRY_PROBE_DLQ_URL, REGISTRY_PROBE_QUEUE_URL, TABLE_NAME } from '../config/deployment.ts';
import { probeScheduleFrom, probeTimeoutMsFrom } from '../config/registry-probe.ts';
import { requireSetting } from '../config/settings.ts';
import { systemClock } from '../ports/clock.ts';
import type { PoisonQueue } from '../ports/poison-queue.ts';
import { cardHandling, trustedKeys } from './registry-cards.ts';

let store: DynamoRegistryStore | undefined;
const registryStore = (): DynamoRegistryStore => {
  store ??= new DynamoRegistryStore(awsClient(new DynamoDBClient(SDK_RETRY)), requireSetting(TABLE_NAME));
  return store;
};

let sqs: SQSClient | undefined;
const sqsClient = (): SQSClient => {
  sqs ??= awsClient(new SQSClient(SDK_RETRY));
  return sqs;
};

/** The probe queue's dead-letter queue, where a message that is neither a tick nor a probe goes. */
export const probePoisonQueue = (): PoisonQueue =>
  new SqsPoisonQueue(sqsClient(), requireSetting(REGISTRY_PROBE_DLQ_URL));

let prober: RegistryProber | undefined;

export const registryProber = (): RegistryProber => {
  if (!prober) {
    const store = registryStore();
    prober = new RegistryProber(
      store,
      // a tick reads the feed once: the catalog it reads is as fresh as the tick
      new Catalog(new CatalogEntries(), store, systemClock, 0),
      new SqsProbeQueue(sqsClient(), requireSetting(REGISTRY_PROBE_QUEUE_URL)),
      guardedHttpClientFromEnv(),
      probeScheduleFrom(),
      systemClock,
      probeTimeoutMsFrom(),
    );
  }
  return prober;
};

/** The management use case, for the hub's own card (published by this function at deployment). */
export const registryService = (): RegistryService => {
  const http = guardedHttpClientFromEnv();
  return new RegistryService(
    registryStore(),
    cardHandling(http, new CardVerifier({ allowlist: trustedKeys(), http })),
    systemClock,
  );
};
