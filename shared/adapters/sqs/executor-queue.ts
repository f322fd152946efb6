/** ExecutorQueue on SQS: one message per run request, sent in batches of ten. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ExecutorQueue, ExecutorRun } from '../../ports/executor-queue.ts';
import { sendJsonBatches } from './send.ts';

export class SqsExecutorQueue implements ExecutorQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  enqueue(runs: readonly ExecutorRun[], delaySeconds = 0): Promise<void> {
    return sendJsonBatches(this.client, this.queueUrl, runs, delaySeconds, 'executor message');
  }
}
