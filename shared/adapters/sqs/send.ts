/** Sends JSON messages to one SQS queue in batches of ten, with one delay for all of them. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

const BATCH = 10;

export const sendJsonBatches = async (
  client: SQSClient,
  queueUrl: string,
  bodies: readonly unknown[],
  delaySeconds = 0,
  what = 'message',
): Promise<void> => {
  const batches: unknown[][] = [];
  for (let i = 0; i < bodies.length; i += BATCH) batches.push(bodies.slice(i, i + BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      const out = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((body, i) => ({
            Id: String(i),
            MessageBody: JSON.stringify(body),
            ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
          })),
        }),
      );
      if (out.Failed?.length)
        throw new Error(`SQS refused ${out.Failed.length} ${what}(s): ${JSON.stringify(out.Failed)}`);
    }),
  );
};
