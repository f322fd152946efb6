/** ExecutorQueue on SQS: one message per run request. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ExecutorQueue, ExecutorRun } from '../../app/ports.ts';

export class SqsExecutorQueue implements ExecutorQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(run: ExecutorRun): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(run) }),
    );
  }
}
