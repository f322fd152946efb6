/**
 * Retry backoff for a failed SQS record: instead of waiting out the queue's
 * (long) visibility timeout, make the message visible again after
 * 2 s x 2^(attempt-1) with jitter, capped. The event source mapping then
 * redelivers it; after maxReceiveCount receives SQS moves it to the DLQ.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';

export const RETRY_BASE_SECONDS = 2;
export const RETRY_MAX_SECONDS = 300;

/** Seconds before attempt `receiveCount + 1`; jitter keeps retries of one burst apart. */
export const backoffSeconds = (receiveCount: number, random: () => number = Math.random): number => {
  const exponential = RETRY_BASE_SECONDS * 2 ** Math.max(0, receiveCount - 1);
  return Math.min(RETRY_MAX_SECONDS, Math.round(exponential * (0.75 + random() * 0.5)));
};

export const retryLater = async (
  client: SQSClient,
  queueUrl: string,
  receiptHandle: string,
  receiveCount: number,
): Promise<number> => {
  const seconds = backoffSeconds(receiveCount);
  await client.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
  return seconds;
};
