/**
 * DeliveryQueue on SQS (DELIVERY_QUEUE): deliveries sent in batches of ten, a retry as one delayed
 * message, and a delivery that gave up sent to the queue's dead-letter queue with the reason in its
 * body (`deadLetter`) and as message attributes, so an operator reading the DLQ sees why, and a
 * redrive (messages moved back to the delivery queue) brings back the next round's first attempt.
 */
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetterInfo, DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue.ts';

const BATCH = 10;
/** SQS's longest delay. */
const MAX_DELAY_SECONDS = 900;

/** SQS delays are whole seconds: a delay is rounded (a scaled-down test policy's sub-second delays become 0). */
export const sqsDelayOf = (seconds: number | undefined): number =>
  Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.round(seconds ?? 0)));

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    /** Needed by the worker only (the relay never dead-letters). */
    private readonly deadLetterUrl?: string,
  ) {}

  async enqueue(messages: readonly DeliveryMessage[], delaySeconds?: number): Promise<void> {
    const delay = sqsDelayOf(delaySeconds);
    const batches: DeliveryMessage[][] = [];
    for (let i = 0; i < messages.length; i += BATCH) batches.push(messages.slice(i, i + BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const out = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((m, i) => ({
              Id: String(i),
              MessageBody: JSON.stringify(m),
              ...(delay > 0 ? { DelaySeconds: delay } : {}),
            })),
          }),
        );
        if (out.Failed?.length)
          throw new Error(
            `SQS refused ${out.Failed.length} delivery message(s): ${JSON.stringify(out.Failed)}`,
          );
      }),
    );
  }

  async deadLetter(message: DeliveryMessage, info: DeadLetterInfo): Promise<void> {
    if (!this.deadLetterUrl)
      throw new Error('the delivery queue was built without its dead-letter queue URL');
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.deadLetterUrl,
        MessageBody: JSON.stringify({ ...message, deadLetter: info }),
        MessageAttributes: {
          reason: { DataType: 'String', StringValue: info.reason },
          ...(info.error ? { error: { DataType: 'String', StringValue: info.error.slice(0, 256) } } : {}),
        },
      }),
    );
  }
}
