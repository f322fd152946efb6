/**
 * The common shape of the hub's SQS consumers (executor, heartbeat, deliver): each record of a batch
 * handled on its own, the ones that throw reported as partial batch failures (the event source mapping's
 * ReportBatchItemFailures) so only they come back. A body that is not a message of the queue's schema
 * can never succeed: it is logged and dropped rather than looped into the dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../../observability/index.ts';
import type * as z from '../../validation/zod.ts';

const parseJson = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/** How many times SQS has handed this record out (1 on its first delivery). */
export const receiveCount = (record: SQSRecord): number =>
  Number(record.attributes.ApproximateReceiveCount ?? 1);

export const eachRecord = async <S extends z.ZodMiniType>(
  event: SQSEvent,
  schema: S,
  /** What a message is, for the log of a malformed one ("executor message"). */
  what: string,
  handle: (message: z.output<S>, record: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> => {
  const results = await Promise.allSettled(
    event.Records.map(async (record) => {
      const parsed = schema.safeParse(parseJson(record.body));
      if (!parsed.success) {
        logger.error(`dropping malformed ${what}`, { body: record.body.slice(0, 1000) });
        return;
      }
      await handle(parsed.data, record);
    }),
  );
  return {
    batchItemFailures: results.flatMap((r, i) =>
      r.status === 'rejected' ? [{ itemIdentifier: event.Records[i]!.messageId }] : [],
    ),
  };
};
