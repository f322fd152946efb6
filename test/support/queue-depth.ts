/** Every message a queue holds: visible, in flight and delayed (what "drained" means for the runs and benches). */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

export const queueDepth = async (client: SQSClient, url: string): Promise<number> => {
  const { Attributes = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).reduce((n, v) => n + (Number(v) || 0), 0);
};
