/**
 * The delivery queue from the environment (DELIVERY_QUEUE_URL): what the relay enqueues push
 * deliveries to. Kept apart from the worker's composition (delivery-worker.ts), so the relay's
 * bundle carries no HTTP sender, signer or codec.
 */
import { SqsDeliveryQueue } from '../adapters/sqs/delivery-queue.ts';
import { DELIVERY_QUEUE_URL } from '../config/deployment.ts';
import { requireSetting } from '../config/settings.ts';
import type { DeliveryQueue } from '../ports/delivery-queue.ts';
import { sqsClient } from './core.ts';

export const deliveryQueueUrl = (): string => requireSetting(DELIVERY_QUEUE_URL);

let queue: { url: string; queue: DeliveryQueue } | undefined;
/** The delivery queue the relay enqueues to (per URL: a local hub started again gets its own). */
export const deliveryQueueFromEnv = (): DeliveryQueue => {
  const url = deliveryQueueUrl();
  if (queue?.url !== url) queue = { url, queue: new SqsDeliveryQueue(sqsClient(), url) };
  return queue.queue;
};
