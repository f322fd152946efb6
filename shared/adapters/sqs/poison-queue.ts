/**
 * PoisonQueue on SQS: the record's body unchanged, the reason and the error as the message attributes
 * `reason` and `error`, as the delivery worker's own dead letters carry them (delivery-queue.ts). The body
 * is left as it was so a redrive after a fix hands the consumer the very message it refused.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Poison, PoisonQueue } from '../../ports/poison-queue.ts';

/** The error is cut where the delivery worker cuts its own (delivery-queue.ts). */
const ERROR_CHARS = 256;

export class SqsPoisonQueue implements PoisonQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(body: string, poison: Poison): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: body,
        MessageAttributes: {
          reason: { DataType: 'String', StringValue: poison.reason },
          ...(poison.error
            ? { error: { DataType: 'String', StringValue: poison.error.slice(0, ERROR_CHARS) } }
            : {}),
        },
      }),
    );
  }
}
