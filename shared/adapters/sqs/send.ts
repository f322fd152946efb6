/** Sends JSON messages to one SQS queue in batches of ten, each with its own delay. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

const BATCH = 10;

export const sendDelayedJsonBatches = async (
  client: SQSClient,
  queueUrl: string,
  messages: readonly { body: unknown; delaySeconds: number }[],
  what = 'message',
): Promise<void> => {
  const batches: { body: unknown; delaySeconds: number }[][] = [];
  for (let i = 0; i < messages.length; i += BATCH) batches.push(messages.slice(i, i + BATCH));
  await Promise.all(
    batches.map(async (batch) => {
      const out = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map(({ body, delaySeconds }, i) => ({
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

/** Sends JSON messages to one SQS queue in batches of ten, with one delay for all of them. */
export const sendJsonBatches = (
  client: SQSClient,
  queueUrl: string,
  bodies: readonly unknown[],
  delaySeconds = 0,
  what = 'message',
): Promise<void> =>
  sendDelayedJsonBatches(
    client,
    queueUrl,
    bodies.map((body) => ({ body, delaySeconds })),
    what,
  );
