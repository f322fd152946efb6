/** ExecutorQueue on SQS: one message per run request, sent in batches of ten. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ExecutorQueue, ExecutorRun } from '../../app/ports.ts';

const BATCH = 10;

export class SqsExecutorQueue implements ExecutorQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(runs: readonly ExecutorRun[], delaySeconds = 0): Promise<void> {
    const batches: ExecutorRun[][] = [];
    for (let i = 0; i < runs.length; i += BATCH) batches.push(runs.slice(i, i + BATCH));
    await Promise.all(
      batches.map(async (batch) => {
        const out = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: batch.map((run, i) => ({
              Id: String(i),
              MessageBody: JSON.stringify(run),
              ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
            })),
          }),
        );
        if (out.Failed?.length) {
          throw new Error(
            `SQS refused ${out.Failed.length} executor message(s): ${JSON.stringify(out.Failed)}`,
          );
        }
      }),
    );
  }
}
