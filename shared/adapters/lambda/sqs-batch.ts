/**
 * The common shape of the hub's SQS consumers (executor, heartbeat, deliver, registry-probe), on
 * Powertools' batch processor: the records of a batch handled concurrently, each on its own; the ones
 * that throw reported as partial batch failures (the event source mapping's ReportBatchItemFailures), so
 * only they come back. A poison record (a body that is not JSON, or not a message of the queue's schema)
 * can never succeed: it is sent to the queue's dead-letter queue at once with the reason, and counts as
 * handled (docs/deliveries.md#poison-messages). A record that throws comes back after a backoff; one that
 * throws on its last receive (the queue's maxReceiveCount) is sent to the dead-letter queue by the consumer
 * itself, with the error as its reason, rather than moved there by SQS without one
 * (docs/reliability.md#queue-and-stream-consumers). Only a consumer that dies on its last receive leaves that to SQS.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { countMetric, logger, MetricName } from '../../observability/index.ts';
import type { Poison, PoisonQueue } from '../../ports/poison-queue.ts';
import type * as z from '../../validation/zod.ts';
import { retryLater } from '../sqs/retry.ts';

/** How many times SQS has handed this record out (1 on its first delivery). */
export const receiveCount = (record: SQSRecord): number =>
  Number(record.attributes.ApproximateReceiveCount ?? 1);

/** A consumer's `comeBack`: the record visible again on its queue after the backoff for its receive count. */
export const backoffOn =
  (client: () => SQSClient, queueUrl: () => string) =>
  (record: SQSRecord): Promise<number> =>
    retryLater(client(), queueUrl(), record.receiptHandle, receiveCount(record));

/** The message in `body`, or why it is poison. */
export const messageOf = <S extends z.ZodMiniType>(
  body: string,
  schema: S,
): { message: z.output<S> } | { poison: Poison } => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (e) {
    return { poison: { reason: 'not_json', error: (e as Error).message } };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { message: parsed.data };
  const error = parsed.error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(message)'}: ${i.message}`)
    .join('; ');
  return { poison: { reason: 'not_a_message', error } };
};

export interface SqsConsumer<S extends z.ZodMiniType> {
  /** The queue's messages. */
  schema: S;
  /** What a message is, for the log ("executor message"). */
  what: string;
  /** The queue's dead-letter queue; asked for when a poison record shows up or one's receives run out. */
  deadLetters: () => PoisonQueue;
  /** The queue's maxReceiveCount (shared/adapters/sqs/queues.ts): the receive after which SQS gives up on a record. */
  maxReceiveCount: number;
  /**
   * Makes a failed record visible again after a backoff (adapters/sqs/retry.ts) instead of its queue's
   * visibility timeout, resolving to the seconds; best effort. Without it the record waits that out.
   */
  comeBack?: (record: SQSRecord) => Promise<number>;
  /** What identifies a message in the log (its task). */
  keysOf?: (message: z.output<S>) => Record<string, unknown>;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export const processSqsBatch = async <S extends z.ZodMiniType>(
  event: SQSEvent,
  consumer: SqsConsumer<S>,
  handle: (message: z.output<S>, record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> => {
  // one processor per batch: it keeps the batch's records and outcomes in itself, and the local runtime
  // runs several batches of one function at a time in one process
  const processor = new BatchProcessor(EventType.SQS);
  const response = await processPartialResponse(
    event,
    async (record: SQSRecord) => {
      const parsed = messageOf(record.body, consumer.schema);
      if ('message' in parsed) return handleOrGiveUp(consumer, parsed.message, record, handle);
      // never handled however often it comes back: out of the way now, with why (a throw here, the
      // dead-letter queue unreachable, leaves it to come back and be tried again)
      await consumer.deadLetters().send(record.body, parsed.poison);
      countMetric(MetricName.DlqArrivals);
      logger.error(`dead-lettered a poison ${consumer.what}`, {
        messageId: record.messageId,
        ...parsed.poison,
        body: record.body.slice(0, 1000),
      });
    },
    processor,
    {
      processInParallel: true,
      // a batch whose every record failed is answered like any partial failure, listing them all, not
      // thrown: the mapping brings each back as it would after a partial failure (after the backoff its
      // handler set, adapters/sqs/retry.ts), and the invocation is not an error (the Errors alarms,
      // infra/constructs/monitoring.ts, are for the function failing, not for its records)
      throwOnFullBatchFailure: false,
    },
  );
  // the processor answers a batch without failures with one object it shares between batches
  return { batchItemFailures: response.batchItemFailures.map((f) => ({ ...f })) };
};

/**
 * One record through its handler. A failure comes back after the backoff, or, on its last receive, goes
 * to the dead-letter queue with why and counts as handled. A throw while dead-lettering leaves the record
 * to SQS, which moves it on its next receive.
 */
const handleOrGiveUp = async <S extends z.ZodMiniType>(
  consumer: SqsConsumer<S>,
  message: z.output<S>,
  record: SQSRecord,
  handle: (message: z.output<S>, record: SQSRecord) => Promise<void>,
): Promise<void> => {
  try {
    await handle(message, record);
  } catch (e) {
    const received = receiveCount(record);
    const keys = { ...consumer.keysOf?.(message), messageId: record.messageId, receiveCount: received };
    if (received >= consumer.maxReceiveCount) {
      await consumer.deadLetters().send(record.body, {
        reason: 'retries_exhausted',
        error: `${received} receives, the last: ${errorText(e)}`,
      });
      countMetric(MetricName.DlqArrivals);
      logger.error(`${consumer.what} dead-lettered after its last receive`, { ...keys, error: e as Error });
      return;
    }
    const retryInSeconds = await consumer.comeBack?.(record).catch(() => undefined);
    logger.error(`${consumer.what} failed; it comes back`, { ...keys, retryInSeconds, error: e as Error });
    throw e;
  }
};
