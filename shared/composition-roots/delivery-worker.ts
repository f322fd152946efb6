/**
 * Composition root of the delivery worker functions/deliver.ts runs (docs/deliveries.md), built from
 * the environment once per container: its settings are declared in shared/config/delivery.ts (the
 * retry policy, the request timeout, Synapse retries) beside the queues, the table, the SSRF guard's
 * exceptions, the push signing keys and the Synapse peers they share with other functions
 * (docs/configuration.md).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log.ts';
import { DynamoPushConfigStore } from '../adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../adapters/dynamodb/task-store.ts';
import { urlGuardFromEnv } from '../adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../adapters/http/webhook-sender.ts';
import { signerFromEnv } from '../adapters/keys/index.ts';
import { SqsDeliveryQueue } from '../adapters/sqs/delivery-queue.ts';
import { type DeliveryObserver, DeliveryWorker } from '../app/delivery/delivery-worker.ts';
import {
  DELIVERY_IN_FLIGHT_SECONDS,
  DELIVERY_TIMEOUT_MS,
  deliveryPolicyFrom,
  SYNAPSE_MAX_RETRIES,
} from '../config/delivery.ts';
import { DELIVERY_DLQ_URL, DELIVERY_QUEUE_URL, PUBLIC_URL, TABLE_NAME } from '../config/deployment.ts';
import { heartbeatRulesFrom } from '../config/heartbeat.ts';
import { PUSH_URL_ALLOW_HTTP, PUSH_URL_ALLOWLIST } from '../config/push.ts';
import { requireSetting, section } from '../config/settings.ts';
import { SYNAPSE_AGENT_ID } from '../config/synapse.ts';
import { countMetric, MetricName, metrics } from '../observability/index.ts';
import type { DeliveryAttempt } from '../ports/delivery-log.ts';
import { dynamoClient, sqsClient } from './core.ts';
import { deliveryQueueUrl } from './delivery-queue.ts';
import { synapsePeers, synapseSelf } from './synapse-peers.ts';

/** Metrics of each recorded attempt (names in observability/names.ts). */
export const deliveryMetrics: DeliveryObserver = {
  recorded: (a: DeliveryAttempt) => {
    if (a.latencyMs !== undefined)
      metrics.addMetric(MetricName.DeliveryLatency, MetricUnit.Milliseconds, a.latencyMs);
    if (a.status === 'delivered') countMetric(MetricName.DeliveriesSucceeded);
    if (a.retryInSeconds !== undefined) countMetric(MetricName.DeliveriesRetried);
    if (a.deadLetter !== undefined) {
      countMetric(MetricName.DeliveriesFailed);
      countMetric(MetricName.DlqArrivals);
    }
  },
};

/** The worker's own settings besides its policy and the heartbeat rules: a new value builds a new worker. */
const workerSettings = section({
  tableName: TABLE_NAME,
  queueUrl: DELIVERY_QUEUE_URL,
  deadLetterUrl: DELIVERY_DLQ_URL,
  publicUrl: PUBLIC_URL,
  allowlist: PUSH_URL_ALLOWLIST,
  allowHttp: PUSH_URL_ALLOW_HTTP,
  timeoutMs: DELIVERY_TIMEOUT_MS,
  inFlightSeconds: DELIVERY_IN_FLIGHT_SECONDS,
  synapseMaxRetries: SYNAPSE_MAX_RETRIES,
  agentId: SYNAPSE_AGENT_ID,
});

let built: { worker: DeliveryWorker; from: readonly unknown[] } | undefined;
/** The worker as the environment configures it (a local hub started again with other settings gets a new one). */
export const deliveryWorker = (): DeliveryWorker => {
  const from = [workerSettings(), deliveryPolicyFrom(), heartbeatRulesFrom()] as const;
  if (built?.from.every((value, i) => value === from[i])) return built.worker;
  const [settings, policy, heartbeat] = from;
  const tableName = requireSetting(TABLE_NAME);
  const worker = new DeliveryWorker(
    {
      store: new DynamoTaskStore(dynamoClient(), { tableName }),
      configs: new DynamoPushConfigStore(dynamoClient(), tableName),
      log: new DynamoDeliveryLog(dynamoClient(), tableName),
      sender: new HttpWebhookSender({ guard: urlGuardFromEnv() }),
      signer: { sign: (input) => signerFromEnv().sign(input) },
      queue: new SqsDeliveryQueue(sqsClient(), deliveryQueueUrl(), requireSetting(DELIVERY_DLQ_URL)),
      // Synapse callbacks: signed with the peer's key, sent as this hub (PUBLIC_URL's /synapse/callback)
      synapse: { peers: () => synapsePeers(), self: synapseSelf(requireSetting(PUBLIC_URL)) },
    },
    {
      policy,
      inFlightSeconds: settings.inFlightSeconds,
      timeoutMs: settings.timeoutMs,
      observer: deliveryMetrics,
      heartbeatSeconds: heartbeat.intervalSeconds,
      synapseMaxRetries: settings.synapseMaxRetries,
    },
  );
  built = { worker, from };
  return worker;
};
