/**
 * Deliver: SQS event source on the delivery queue. Each record is one push notification attempt (an
 * event of a task to one of its push configs); the worker claims the attempt in the task's delivery
 * log before sending, so a redelivered record sends nothing twice, and queues its own retries and
 * dead-letter messages (shared/app/delivery/delivery-worker.ts, docs/deliveries.md); a record whose
 * attempt another invocation holds is queued again (a delayed copy) for when that one must have ended. A
 * record that throws (DynamoDB, SQS or the signing keys unavailable) comes back after a backoff, and after
 * the queue's maxReceiveCount goes to the dead-letter queue as it is, with the error. A record that is
 * not a delivery goes to the dead-letter queue at once, with why (adapters/lambda/sqs-batch.ts).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { backoffOn, processSqsBatch, type SqsConsumer } from '../shared/adapters/lambda/sqs-batch.ts';
import { DELIVERY_QUEUE } from '../shared/adapters/sqs/queues.ts';
import type { DeliveryWorker } from '../shared/app/delivery/delivery-worker.ts';
import { poisonQueueAt, sqsClient } from '../shared/composition-roots/core.ts';
import { deliveryQueueUrl } from '../shared/composition-roots/delivery-queue.ts';
import { deliveryWorker } from '../shared/composition-roots/delivery-worker.ts';
import { DELIVERY_DLQ_URL } from '../shared/config/deployment.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import type { DeliveryMessage } from '../shared/ports/delivery-queue.ts';
import type { PoisonQueue } from '../shared/ports/poison-queue.ts';
import * as z from '../shared/validation/zod.ts';

const text = z.string().check(z.minLength(1), z.maxLength(1024));
const positive = z.number().check(z.int(), z.positive());
const messageSchema = z.object({
  tenant: text,
  taskId: text,
  contextId: text,
  configId: text,
  version: positive,
  attempt: positive,
  redrive: z.optional(z.number().check(z.int(), z.nonnegative())),
  waited: z.optional(z.number().check(z.int(), z.nonnegative())),
  heartbeat: z.optional(z.object({ claim: text, beat: positive })),
});

export interface DeliverHandlerDeps {
  worker: () => Pick<DeliveryWorker, 'deliver'>;
  /** Makes a failed record visible again after the backoff (best effort), resolving to the seconds. */
  comeBack: (record: SQSRecord) => Promise<number>;
  /** Where a record that is not a delivery, or failed on each receive, goes, with why: the delivery DLQ. */
  deadLetters: () => PoisonQueue;
}

const defaultDeps: DeliverHandlerDeps = {
  worker: deliveryWorker,
  deadLetters: () => poisonQueueAt(DELIVERY_DLQ_URL),
  comeBack: backoffOn(sqsClient, deliveryQueueUrl),
};

const consumerOf = (deps: DeliverHandlerDeps): SqsConsumer<typeof messageSchema> => ({
  schema: messageSchema,
  what: 'delivery message',
  deadLetters: deps.deadLetters,
  maxReceiveCount: DELIVERY_QUEUE.maxReceiveCount,
  comeBack: deps.comeBack,
  keysOf: (message) => ({
    taskId: message.taskId,
    configId: message.configId,
    version: message.version,
    attempt: message.attempt,
    redrive: message.redrive ?? 0,
  }),
});

export const createDeliverHandler =
  (deps: DeliverHandlerDeps = defaultDeps) =>
  (event: SQSEvent): Promise<SQSBatchResponse> => {
    const consumer = consumerOf(deps);
    return processSqsBatch(event, consumer, async (parsed, record) => {
      const message: DeliveryMessage = parsed;
      const keys = { ...consumer.keysOf?.(message), messageId: record.messageId };
      const outcome = await deps.worker().deliver(message);
      if (outcome.result === 'in_flight') {
        logger.info('delivery attempt held by another invocation: queued again', { ...keys, ...outcome });
        return;
      }
      if (outcome.result === 'heartbeat') {
        logger.info('synapse heartbeat', { ...keys, ...outcome });
        return;
      }
      if (outcome.result === 'waiting') {
        logger.info('synapse message waits for the one before it', { ...keys, ...outcome });
        return;
      }
      if (outcome.result === 'duplicate') {
        logger.info('delivery attempt recorded before: nothing sent', {
          ...keys,
          status: outcome.existing.status,
        });
        return;
      }
      const { status, httpStatus, latencyMs, retryInSeconds, deadLetter, error } = outcome.attempt;
      const log = status === 'delivered' ? logger.info : logger.warn;
      log.call(logger, 'delivery attempt', {
        ...keys,
        status,
        httpStatus,
        latencyMs,
        retryInSeconds,
        deadLetter,
        error,
      });
    });
  };

export const deliverHandler = createDeliverHandler();

export const handler = withObservability(deliverHandler, { functionName: 'deliver' });
