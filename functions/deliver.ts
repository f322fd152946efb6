/**
 * Deliver: SQS event source on the delivery queue. Each record is one push notification attempt (an
 * event of a task to one of its push configs); the worker claims the attempt in the task's delivery
 * log before sending, so a redelivered record sends nothing twice, and queues its own retries and
 * dead-letter messages (shared/app/delivery/delivery-worker.ts, docs/deliveries.md). A record whose attempt
 * another invocation holds comes back once that one must have ended; a record that throws (DynamoDB,
 * SQS or the signing keys unavailable) comes back after a backoff, and after the queue's
 * maxReceiveCount goes to the dead-letter queue as it is. A record that is not a delivery goes to the
 * dead-letter queue at once, with why (adapters/lambda/sqs-batch.ts).
 */
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { processSqsBatch, receiveCount } from '../shared/adapters/lambda/sqs-batch.ts';
import { retryLater } from '../shared/adapters/sqs/retry.ts';
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

/** The attempt is held by another invocation: the record comes back later, no backoff. */
class AttemptInFlight extends Error {}

export interface DeliverHandlerDeps {
  worker: () => Pick<DeliveryWorker, 'deliver'>;
  /** Makes a failed record visible again after `seconds` (best effort). */
  comeBackIn: (record: SQSRecord, seconds: number | 'backoff') => Promise<unknown>;
  /** Where a record that is not a delivery goes, with why: the delivery DLQ. */
  deadLetters: () => PoisonQueue;
}

const defaultDeps: DeliverHandlerDeps = {
  worker: deliveryWorker,
  deadLetters: () => poisonQueueAt(DELIVERY_DLQ_URL),
  comeBackIn: (record, seconds) =>
    seconds === 'backoff'
      ? retryLater(sqsClient(), deliveryQueueUrl(), record.receiptHandle, receiveCount(record))
      : sqsClient().send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: deliveryQueueUrl(),
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: Math.min(43_200, Math.max(0, seconds)),
          }),
        ),
};

const consumerOf = (deps: DeliverHandlerDeps) => ({
  schema: messageSchema,
  what: 'delivery message',
  deadLetters: deps.deadLetters,
});

export const createDeliverHandler =
  (deps: DeliverHandlerDeps = defaultDeps) =>
  (event: SQSEvent): Promise<SQSBatchResponse> =>
    processSqsBatch(event, consumerOf(deps), async (parsed, record) => {
      const message: DeliveryMessage = parsed;
      const keys = {
        taskId: message.taskId,
        configId: message.configId,
        version: message.version,
        attempt: message.attempt,
        redrive: message.redrive ?? 0,
        messageId: record.messageId,
      };
      try {
        const outcome = await deps.worker().deliver(message);
        if (outcome.result === 'in_flight') {
          // another invocation holds the attempt: look again once it must have ended
          await deps.comeBackIn(record, outcome.retryInSeconds + 1).catch(() => undefined);
          logger.info('delivery attempt held by another invocation', { ...keys, ...outcome });
          throw new AttemptInFlight();
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
      } catch (e) {
        if (!(e instanceof AttemptInFlight)) {
          await deps.comeBackIn(record, 'backoff').catch(() => undefined);
          logger.error('delivery failed before its outcome was recorded', {
            ...keys,
            receiveCount: receiveCount(record),
            error: e as Error,
          });
        }
        throw e;
      }
    });

export const deliverHandler = createDeliverHandler();

export const handler = withObservability(deliverHandler, { functionName: 'deliver' });
