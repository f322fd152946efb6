/**
 * Composition root of the delivery worker functions/deliver.ts runs (docs/deliveries.md), built from
 * the environment once per container.
 *
 * - DELIVERY_QUEUE_URL (DELIVERY_QUEUE.urlEnv), DELIVERY_DLQ_URL (the worker only), TABLE_NAME;
 * - the retry policy: DELIVERY_MAX_ATTEMPTS, DELIVERY_BASE_DELAY_SECONDS, DELIVERY_BACKOFF_FACTOR,
 *   DELIVERY_MAX_DELAY_SECONDS, DELIVERY_JITTER; DELIVERY_TIMEOUT_MS (per request, 10 s);
 * - the SSRF guard: PUSH_URL_ALLOWLIST, PUSH_URL_ALLOW_HTTP (docs/ssrf.md);
 * - the push JWT: PUSH_SIGNING_KEYS or PUSH_SIGNING_SECRET_ARN, PUBLIC_URL (docs/push-signing.md);
 * - Synapse messages: SYNAPSE_PEERS or SYNAPSE_PEERS_SECRET_ARN, SYNAPSE_AGENT_ID (shared/composition-roots/synapse-peers.ts),
 *   SYNAPSE_MAX_RETRIES (5).
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log.ts';
import { DynamoPushConfigStore } from '../adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../adapters/dynamodb/task-store.ts';
import { urlGuardFromEnv } from '../adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../adapters/http/webhook-sender.ts';
import { signerFromEnv } from '../adapters/keys/index.ts';
import { SqsDeliveryQueue } from '../adapters/sqs/delivery-queue.ts';
import { DELIVERY_DLQ_URL_ENV, DELIVERY_QUEUE } from '../adapters/sqs/queues.ts';
import {
  type DeliveryObserver,
  DeliveryWorker,
  deliveryPolicyFrom,
  synapseMaxRetriesFrom,
} from '../app/delivery/delivery-worker.ts';
import { heartbeatRulesFrom } from '../app/heartbeat/heartbeat.ts';
import { countMetric, MetricName, metrics } from '../observability/index.ts';
import type { DeliveryAttempt } from '../ports/delivery-log.ts';
import { dynamoClient, sqsClient } from './core.ts';
import { deliveryQueueUrl } from './delivery-queue.ts';
import { synapsePeers, synapseSelf } from './synapse-peers.ts';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
};

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

/** The delivery log of the table (what the worker records; `list` reads a task's). */
export const deliveryLogFromEnv = (): DynamoDeliveryLog =>
  new DynamoDeliveryLog(dynamoClient(), required('TABLE_NAME'));

let worker: DeliveryWorker | undefined;
let workerEnv: string | undefined;
/** The worker as the environment configures it (a local hub started again with other settings gets a new one). */
export const deliveryWorker = (): DeliveryWorker => {
  const env = process.env;
  const id = [
    env.TABLE_NAME,
    env[DELIVERY_QUEUE.urlEnv],
    env[DELIVERY_DLQ_URL_ENV],
    env.PUSH_URL_ALLOWLIST,
    env.PUSH_URL_ALLOW_HTTP,
    env.DELIVERY_MAX_ATTEMPTS,
    env.DELIVERY_BASE_DELAY_SECONDS,
    env.DELIVERY_BACKOFF_FACTOR,
    env.DELIVERY_MAX_DELAY_SECONDS,
    env.DELIVERY_JITTER,
    env.DELIVERY_TIMEOUT_MS,
    env.PUBLIC_URL,
    env.SYNAPSE_AGENT_ID,
    env.HEARTBEAT_INTERVAL_SECONDS,
    env.SYNAPSE_MAX_RETRIES,
  ].join('\n');
  if (worker && workerEnv === id) return worker;
  const tableName = required('TABLE_NAME');
  const timeoutMs = env.DELIVERY_TIMEOUT_MS ? Number(env.DELIVERY_TIMEOUT_MS) : undefined;
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw new Error('DELIVERY_TIMEOUT_MS must be a positive integer');
  worker = new DeliveryWorker(
    {
      store: new DynamoTaskStore(dynamoClient(), { tableName }),
      configs: new DynamoPushConfigStore(dynamoClient(), tableName),
      log: new DynamoDeliveryLog(dynamoClient(), tableName),
      sender: new HttpWebhookSender({ guard: urlGuardFromEnv(env) }),
      signer: { sign: (input) => signerFromEnv().sign(input) },
      queue: new SqsDeliveryQueue(sqsClient(), deliveryQueueUrl(), required(DELIVERY_DLQ_URL_ENV)),
      // Synapse callbacks: signed with the peer's key, sent as this hub (PUBLIC_URL's /synapse/callback)
      synapse: { peers: () => synapsePeers(), self: synapseSelf(required('PUBLIC_URL')) },
    },
    {
      policy: deliveryPolicyFrom(env),
      inFlightSeconds: DELIVERY_QUEUE.consumerTimeoutSeconds,
      ...(timeoutMs ? { timeoutMs } : {}),
      observer: deliveryMetrics,
      heartbeatSeconds: heartbeatRulesFrom(env).intervalSeconds,
      synapseMaxRetries: synapseMaxRetriesFrom(env),
    },
  );
  workerEnv = id;
  return worker;
};
