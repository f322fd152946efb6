/**
 * The SQS queue adapters (shared/adapters/sqs) on the local SQS (local/sqs.ts: the emulator in this
 * process, the queues as the stack creates them): the queue ports' contracts (test/contract/queues.ts; the
 * in-memory twins run them in the unit suite, on a clock of their own), then what SQS adds: whole-second
 * delays, a dead letter's reason as message attributes, the delivery queue of the relay (no dead-letter
 * URL) refusing to dead-letter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { type LocalSqs, startLocalSqs } from '../../../../local/sqs.ts';
import { SqsDeliveryQueue, sqsDelayOf } from '../../../../shared/adapters/sqs/delivery-queue.ts';
import { SqsExecutorQueue } from '../../../../shared/adapters/sqs/executor-queue.ts';
import { SqsHeartbeatQueue } from '../../../../shared/adapters/sqs/heartbeat-queue.ts';
import { SqsProbeQueue } from '../../../../shared/adapters/sqs/probe-queue.ts';
import {
  DELIVERY_QUEUE,
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  REGISTRY_PROBE_QUEUE,
} from '../../../../shared/adapters/sqs/queues.ts';
import type { DeadLetterInfo, DeliveryMessage } from '../../../../shared/ports/delivery-queue.ts';
import {
  deliveryQueueContract,
  executorQueueContract,
  heartbeatQueueContract,
  probeQueueContract,
} from '../../../contract/queues.ts';

let sqs: LocalSqs;

before(async () => {
  sqs = await startLocalSqs({
    queues: [EXECUTOR_QUEUE, HEARTBEAT_QUEUE, DELIVERY_QUEUE, REGISTRY_PROBE_QUEUE],
  });
});
after(async () => sqs?.stop());

/** Every message visible now, taken off the queue (received, then deleted), with its attributes. */
const drain = async (url: string) => {
  const out: Array<{ body: unknown; attributes: Record<string, string | undefined> }> = [];
  for (;;) {
    const { Messages = [] } = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return out;
    for (const m of Messages) {
      out.push({
        body: JSON.parse(m.Body ?? 'null'),
        attributes: Object.fromEntries(
          Object.entries(m.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue]),
        ),
      });
      await sqs.client.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
    }
  }
};
const bodies = async (url: string) => (await drain(url)).map((m) => m.body);
const wait = (seconds: number) => new Promise<void>((r) => setTimeout(r, seconds * 1000));
const deadLettersOf = async (url: string) =>
  (await bodies(url)).map((body) => {
    const { deadLetter, ...message } = body as DeliveryMessage & { deadLetter: DeadLetterInfo };
    return { message, info: deadLetter };
  });

describe('on the local SQS', () => {
  executorQueueContract('SQS', {
    make: () => {
      const { url } = sqs.queues[EXECUTOR_QUEUE.name]!;
      return { queue: new SqsExecutorQueue(sqs.client, url), receive: () => bodies(url), wait };
    },
  });

  heartbeatQueueContract('SQS', {
    make: () => {
      const { url } = sqs.queues[HEARTBEAT_QUEUE.name]!;
      return { queue: new SqsHeartbeatQueue(sqs.client, url), receive: () => bodies(url), wait };
    },
  });

  probeQueueContract('SQS', {
    make: () => {
      const { url } = sqs.queues[REGISTRY_PROBE_QUEUE.name]!;
      return { queue: new SqsProbeQueue(sqs.client, url), receive: () => bodies(url), wait };
    },
  });

  deliveryQueueContract('SQS', {
    make: () => {
      const { url, deadLetterUrl } = sqs.queues[DELIVERY_QUEUE.name]!;
      return {
        queue: new SqsDeliveryQueue(sqs.client, url, deadLetterUrl),
        receive: () => bodies(url),
        wait,
        receiveDeadLetters: () => deadLettersOf(deadLetterUrl),
      };
    },
  });

  describe('SqsDeliveryQueue', () => {
    const message: DeliveryMessage = {
      tenant: 'acme',
      taskId: 't1',
      contextId: 'c',
      configId: 'c1',
      version: 4,
      attempt: 2,
    };

    it('a dead letter carries its reason and error as message attributes; the body keeps it for a redrive', async () => {
      const { url, deadLetterUrl } = sqs.queues[DELIVERY_QUEUE.name]!;
      const info: DeadLetterInfo = {
        reason: 'attempts_exhausted',
        error: `HTTP 500 ${'x'.repeat(400)}`,
        attempt: 5,
        redrive: 0,
        at: '2026-01-01T00:00:00.000Z',
      };
      await new SqsDeliveryQueue(sqs.client, url, deadLetterUrl).deadLetter(message, info);
      const [letter] = await drain(deadLetterUrl);
      assert.equal(letter?.attributes.reason, 'attempts_exhausted');
      assert.equal(letter?.attributes.error, info.error!.slice(0, 256), 'cut to 256 characters');
      assert.deepEqual(letter?.body, { ...message, deadLetter: info });
    });

    it('the relay’s queue (built without the dead-letter URL) refuses to dead-letter', async () => {
      const { url } = sqs.queues[DELIVERY_QUEUE.name]!;
      await assert.rejects(
        new SqsDeliveryQueue(sqs.client, url).deadLetter(message, {
          reason: 'refused',
          attempt: 1,
          redrive: 0,
          at: '2026-01-01T00:00:00.000Z',
        }),
        /without its dead-letter queue URL/,
      );
    });

    it('a sub-second delay is rounded to whole seconds: a test policy’s 0.4 s is no delay on SQS', async () => {
      const { url, deadLetterUrl } = sqs.queues[DELIVERY_QUEUE.name]!;
      assert.equal(sqsDelayOf(0.4), 0);
      await new SqsDeliveryQueue(sqs.client, url, deadLetterUrl).enqueue([message], 0.4);
      assert.deepEqual(await bodies(url), [message]);
    });
  });
});
