import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { type LocalSqs, startLocalSqs } from '../../local/sqs.ts';
import type { QueueDefinition } from '../../shared/adapters/sqs/queues.ts';
import { backoffSeconds, RETRY_MAX_SECONDS, retryLater } from '../../shared/adapters/sqs/retry.ts';

const QUEUE: QueueDefinition = {
  name: 'retry-test',
  visibilityTimeoutSeconds: 60,
  consumerTimeoutSeconds: 30,
  maxReceiveCount: 5,
  batchSize: 1,
  urlEnv: 'RETRY_TEST_QUEUE_URL',
  dlqUrlEnv: 'RETRY_TEST_DLQ_URL',
};

let sqs: LocalSqs;
before(async () => {
  sqs = await startLocalSqs({ queues: [QUEUE] });
});
after(async () => sqs.stop());

describe('failed record backoff', () => {
  it('doubles from 2 s with jitter and stays capped', () => {
    assert.equal(
      backoffSeconds(1, () => 0.5),
      2,
    );
    assert.equal(
      backoffSeconds(2, () => 0.5),
      4,
    );
    assert.equal(
      backoffSeconds(4, () => 0.5),
      16,
    );
    assert.equal(
      backoffSeconds(1, () => 0),
      2,
      'rounded: 1.5 s → 2 s',
    );
    assert.equal(
      backoffSeconds(30, () => 1),
      RETRY_MAX_SECONDS,
    );
  });

  it('makes a received message visible again after the backoff, not the visibility timeout', async () => {
    const url = sqs.queues[QUEUE.name]!.url;
    await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"n":1}' }));
    const first = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
    const message = first.Messages?.[0];
    assert.ok(message?.ReceiptHandle);
    // hidden for the queue's 60 s visibility timeout...
    const hidden = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1 }));
    assert.equal(hidden.Messages?.length ?? 0, 0);
    // ...until the retry makes it visible after about 2 s
    const seconds = await retryLater(sqs.client, url, message.ReceiptHandle, 1);
    assert.ok(seconds >= 2 && seconds <= 3);
    const again = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 5 }));
    assert.equal(again.Messages?.[0]?.Body, '{"n":1}');
  });

  it('counts receives, not visibility changes: a record backed off on each failure gets every receive, then the DLQ', async () => {
    const { url, deadLetterUrl } = sqs.queues[QUEUE.name]!;
    await sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: '{"n":2}' }));
    const counts: number[] = [];
    for (let i = 0; i < QUEUE.maxReceiveCount + 1; i++) {
      const { Messages } = await sqs.client.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          WaitTimeSeconds: 1,
          // the emulator honours only the older AttributeNames
          AttributeNames: ['All'],
        }),
      );
      const message = Messages?.[0];
      if (!message) break;
      counts.push(Number(message.Attributes?.ApproximateReceiveCount));
      // failed: back at once (the backoff's visibility change, scaled down)
      await sqs.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: url,
          ReceiptHandle: message.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
    }
    assert.deepEqual(counts, [1, 2, 3, 4, 5], 'each receive counted once, up to maxReceiveCount');
    const moved = await sqs.client.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, WaitTimeSeconds: 2 }),
    );
    assert.equal(moved.Messages?.[0]?.Body, '{"n":2}', 'then moved to the DLQ by the redrive policy');
  });
});
