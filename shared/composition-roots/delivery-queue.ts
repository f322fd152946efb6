/**
 * The delivery queue from the environment (DELIVERY_QUEUE_URL): what the relay enqueues push
 * deliveries to. Kept apart from the worker's composition (delivery-worker-wiring.ts), so the relay's
 * bundle carries no HTTP sender, signer or codec.
 */
import { SqsDeliveryQueue } from '../adapters/sqs/delivery-queue.ts';
import { DELIVERY_QUEUE } from '../adapters/sqs/queues.ts';
import type { DeliveryQueue } from '../ports/delivery-queue.ts';
import { sqsClient } from './core.ts';

export const deliveryQueueUrl = (): string => {
  const url = process.env[DELIVERY_QUEUE.urlEnv];
  if (!url) throw new Error(`Environment variable ${DELIVERY_QUEUE.urlEnv} is not set`);
  return url;
};

let queue: { url: string; queue: DeliveryQueue } | undefined;
/** The delivery queue the relay enqueues to (per URL: a local hub started again gets its own). */
export const deliveryQueueFromEnv = (): DeliveryQueue => {
  const url = deliveryQueueUrl();
  if (queue?.url !== url) queue = { url, queue: new SqsDeliveryQueue(sqsClient(), url) };
  return queue.queue;
};
