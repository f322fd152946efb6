import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type SqsHandler, startEventSource } from '../../local/event-source.ts';
import { type LocalSqs, startLocalSqs } from '../../local/sqs.ts';
import {
  deadLetterName,
  EXECUTOR_QUEUE,
  QUEUES,
  type QueueDefinition,
} from '../../shared/adapters/sqs/queues.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** A queue made for tests: a 1 s visibility timeout, so redeliveries come quickly. */
const testQueue = (overrides: Partial<QueueDefinition> = {}): QueueDefinition => ({
  name: 'work',
  visibilityTimeoutSeconds: 1,
  maxReceiveCount: 2,
  batchSize: 5,
  consumerTimeoutSeconds: 1,
  urlEnv: 'WORK_QUEUE_URL',
  dlqUrlEnv: 'WORK_DLQ_URL',
  ...overrides,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 8000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

const sendAll = async (sqs: LocalSqs, bodies: string[], queue = 'work') => {
  for (let i = 0; i < bodies.length; i += 10) {
    await sqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: sqs.urls[queue],
        Entries: bodies.slice(i, i + 10).map((MessageBody, n) => ({ Id: String(n), MessageBody })),
      }),
    );
  }
};

/** Messages still in the queue, visible or in flight. */
const remaining = async (sqs: LocalSqs, queue = 'work') => {
  const { Attributes } = await sqs.client.send(
    new GetQueueAttributesCommand({
      QueueUrl: sqs.urls[queue],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes!.ApproximateNumberOfMessages) +
    Number(Attributes!.ApproximateNumberOfMessagesNotVisible)
  );
};

/** The emulator's own counts: ApproximateNumberOfMessages counts the messages in flight too. */
const counts = async (sqs: LocalSqs, queue = 'work') => {
  const { Attributes } = await sqs.client.send(
    new GetQueueAttributesCommand({
      QueueUrl: sqs.urls[queue],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    all: Number(Attributes!.ApproximateNumberOfMessages),
    inFlight: Number(Attributes!.ApproximateNumberOfMessagesNotVisible),
  };
};

interface Delivery {
  body: string;
  receiveCount: number;
  at: number;
  record: SQSRecord;
}

/** A handler that records every record and answers with `respond`. */
const recorder = (respond: (event: SQSEvent, call: number) => Promise<SQSBatchResponse | undefined>) => {
  const batches: SQSEvent[] = [];
  const deliveries: Delivery[] = [];
  const handler: SqsHandler = async (event) => {
    batches.push(event);
    for (const record of event.Records) {
      deliveries.push({
        body: record.body,
        receiveCount: Number(record.attributes.ApproximateReceiveCount),
        at: Date.now(),
        record,
      });
    }
    return respond(event, batches.length);
  };
  return { batches, deliveries, handler };
};

const withSqs = async (definition: QueueDefinition, run: (sqs: LocalSqs) => Promise<void>) => {
  const sqs = await startLocalSqs({ queues: [definition] });
  try {
    await run(sqs);
  } finally {
    await sqs.stop();
  }
};

describe('local SQS', () => {
  test('creates each queue and its DLQ with the definition’s visibility timeout and redrive policy', async () => {
    const sqs = await startLocalSqs();
    try {
      assert.match(sqs.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
      // every queue of QUEUES (the executor's, the heartbeat watches'...) with its DLQ
      assert.deepEqual(
        Object.keys(sqs.urls).sort(),
        QUEUES.flatMap((d) => [d.name, deadLetterName(d)]).sort(),
      );
      const q = sqs.queues.executor!;
      assert.equal(q.url, sqs.urls.executor);
      assert.ok(q.url.startsWith(sqs.endpoint));
      const { Attributes } = await sqs.client.send(
        new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['All'] }),
      );
      assert.equal(Attributes!.VisibilityTimeout, String(EXECUTOR_QUEUE.visibilityTimeoutSeconds));
      assert.deepEqual(JSON.parse(Attributes!.RedrivePolicy!), {
        deadLetterTargetArn: q.deadLetterArn,
        maxReceiveCount: EXECUTOR_QUEUE.maxReceiveCount,
      });
      assert.equal(q.deadLetterArn, 'arn:aws:sqs:us-east-1:123456789012:executor-dlq');
    } finally {
      await sqs.stop();
    }
  });
});

describe('SQS event source', { concurrency: true }, () => {
  test('delivers batches of up to batchSize as an SQSEvent and deletes what succeeded', async () => {
    await withSqs(testQueue(), async (sqs) => {
      const bodies = Array.from({ length: 12 }, (_, i) => `m${i}`);
      await sendAll(sqs, bodies);
      await sqs.client.send(
        new SendMessageCommand({
          QueueUrl: sqs.urls.work,
          MessageBody: 'with-attributes',
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'run' } },
        }),
      );
      const rec = recorder(async () => undefined);
      const source = startEventSource({ client: sqs.client, queue: sqs.queues.work!, handler: rec.handler });
      try {
        await waitFor('13 deliveries', () => rec.deliveries.length >= 13);
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
      } finally {
        await source.stop();
      }
      assert.equal(rec.deliveries.length, 13, 'each message exactly once');
      assert.deepEqual(rec.deliveries.map((d) => d.body).sort(), [...bodies, 'with-attributes'].sort());
      assert.ok(rec.batches.every((b) => b.Records.length >= 1 && b.Records.length <= 5));
      assert.equal(rec.batches[0]!.Records.length, 5, 'a full queue fills the first batch');
      const record = rec.deliveries.find((d) => d.body === 'with-attributes')!.record;
      assert.equal(record.eventSource, 'aws:sqs');
      assert.equal(record.eventSourceARN, sqs.queues.work!.arn);
      assert.equal(record.awsRegion, 'us-east-1');
      assert.equal(record.attributes.ApproximateReceiveCount, '1');
      assert.match(record.attributes.SentTimestamp, /^\d{13}$/);
      assert.match(record.md5OfBody, /^[0-9a-f]{32}$/);
      assert.ok(record.receiptHandle.length > 0);
      assert.deepEqual(record.messageAttributes.kind, {
        dataType: 'String',
        stringValue: 'run',
        binaryValue: undefined,
        stringListValues: [],
        binaryListValues: [],
      });
    });
  });

  test('batchItemFailures: only the failed message comes back, after the visibility timeout', async () => {
    await withSqs(testQueue(), async (sqs) => {
      await sendAll(sqs, ['ok1', 'bad', 'ok2']);
      const rec = recorder(async (event) => ({
        batchItemFailures: event.Records.filter(
          (r) => r.body === 'bad' && r.attributes.ApproximateReceiveCount === '1',
        ).map((r) => ({ itemIdentifier: r.messageId })),
      }));
      const source = startEventSource({ client: sqs.client, queue: sqs.queues.work!, handler: rec.handler });
      try {
        await waitFor(
          'the redelivery of "bad"',
          () => rec.deliveries.filter((d) => d.body === 'bad').length === 2,
        );
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
      } finally {
        await source.stop();
      }
      const bad = rec.deliveries.filter((d) => d.body === 'bad');
      assert.deepEqual(
        bad.map((d) => d.receiveCount),
        [1, 2],
      );
      assert.ok(bad[1]!.at - bad[0]!.at >= 900, `redelivered after ${bad[1]!.at - bad[0]!.at} ms`);
      assert.equal(rec.deliveries.filter((d) => d.body === 'ok1').length, 1);
      assert.equal(rec.deliveries.filter((d) => d.body === 'ok2').length, 1);
    });
  });

  test('a handler that throws leaves the whole batch for redelivery', async () => {
    await withSqs(testQueue(), async (sqs) => {
      await sendAll(sqs, ['a', 'b', 'c']);
      const logged: string[] = [];
      const rec = recorder(async (_event, call) => {
        if (call === 1) throw new Error('first attempt fails');
        return undefined;
      });
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        log: (m) => logged.push(m),
      });
      try {
        await waitFor('6 deliveries', () => rec.deliveries.length >= 6);
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
      } finally {
        await source.stop();
      }
      assert.equal(rec.batches[0]!.Records.length, 3);
      for (const body of ['a', 'b', 'c']) {
        assert.deepEqual(
          rec.deliveries.filter((d) => d.body === body).map((d) => d.receiveCount),
          [1, 2],
          body,
        );
      }
      assert.ok(logged.some((m) => m.includes('threw')));
    });
  });

  test('a response naming a message outside the batch fails the whole batch (Lambda’s rule)', async () => {
    await withSqs(testQueue(), async (sqs) => {
      await sendAll(sqs, ['x', 'y']);
      const rec = recorder(async (_event, call) =>
        call === 1 ? { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] } : { batchItemFailures: [] },
      );
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        log: () => {},
      });
      try {
        await waitFor('4 deliveries', () => rec.deliveries.length >= 4);
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
      } finally {
        await source.stop();
      }
      assert.deepEqual(rec.deliveries.map((d) => d.receiveCount).sort(), [1, 1, 2, 2]);
    });
  });

  test('without ReportBatchItemFailures the response is ignored and the batch deleted', async () => {
    await withSqs(testQueue(), async (sqs) => {
      await sendAll(sqs, ['p']);
      const rec = recorder(async (event) => ({
        batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })),
      }));
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        reportBatchItemFailures: false,
      });
      try {
        await waitFor('1 delivery', () => rec.deliveries.length >= 1);
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
        await sleep(1300); // past the visibility timeout: nothing comes back
      } finally {
        await source.stop();
      }
      assert.equal(rec.deliveries.length, 1);
    });
  });

  test('after maxReceiveCount failed receives the queue’s redrive policy moves the message to the DLQ', async () => {
    await withSqs(testQueue({ maxReceiveCount: 2 }), async (sqs) => {
      await sendAll(sqs, ['poison', 'fine']);
      const rec = recorder(async (event) => ({
        batchItemFailures: event.Records.filter((r) => r.body === 'poison').map((r) => ({
          itemIdentifier: r.messageId,
        })),
      }));
      const source = startEventSource({ client: sqs.client, queue: sqs.queues.work!, handler: rec.handler });
      let dead: string | undefined;
      try {
        await waitFor(
          'the poison message in the DLQ',
          async () => {
            const { Messages } = await sqs.client.send(
              new ReceiveMessageCommand({
                QueueUrl: sqs.urls['work-dlq'],
                WaitTimeSeconds: 0,
                MaxNumberOfMessages: 1,
              }),
            );
            dead = Messages?.[0]?.Body;
            return dead !== undefined;
          },
          10_000,
        );
        await sleep(1200); // one more visibility timeout: it must not come back to the handler
      } finally {
        await source.stop();
      }
      assert.equal(dead, 'poison');
      assert.deepEqual(
        rec.deliveries.filter((d) => d.body === 'poison').map((d) => d.receiveCount),
        [1, 2],
      );
      assert.equal(rec.deliveries.filter((d) => d.body === 'fine').length, 1);
      assert.equal(await remaining(sqs), 0);
    });
  });

  test('an idle poller delivers a new message quickly (long poll woken by the send)', async () => {
    await withSqs(testQueue({ batchSize: 5 }), async (sqs) => {
      const latencies: number[] = [];
      let sentAt = 0;
      const rec = recorder(async () => {
        latencies.push(Date.now() - sentAt);
        return undefined;
      });
      const source = startEventSource({ client: sqs.client, queue: sqs.queues.work!, handler: rec.handler });
      try {
        for (let i = 0; i < 5; i++) {
          await sleep(150); // the poller is idle in its long poll
          sentAt = Date.now();
          await sendAll(sqs, [`t${i}`]);
          await waitFor(`delivery ${i}`, () => rec.deliveries.length === i + 1, 3000);
        }
      } finally {
        await source.stop();
      }
      latencies.sort((a, b) => a - b);
      // a figure, not an assertion (the machine is shared): each message above was delivered while idle
      console.log(`# send → handler latency (ms), 5 samples: ${latencies.join(', ')}`);
      assert.equal(latencies.length, 5);
    });
  });

  test('concurrency: that many batches run at once, no more', async () => {
    await withSqs(testQueue({ batchSize: 1, visibilityTimeoutSeconds: 30 }), async (sqs) => {
      await sendAll(sqs, ['1', '2', '3', '4', '5', '6']);
      let running = 0;
      let peak = 0;
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const rec = recorder(async () => {
        running++;
        peak = Math.max(peak, running);
        await gate;
        running--;
        return undefined;
      });
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        concurrency: 3,
      });
      try {
        await waitFor('3 batches at once', () => running === 3);
        await sleep(300); // room for a fourth, were the cap not kept
        assert.equal(peak, 3);
        open();
        await waitFor('6 deliveries', () => rec.deliveries.length >= 6);
      } finally {
        open();
        await source.stop();
      }
      assert.equal(peak, 3);
      assert.ok(rec.batches.every((b) => b.Records.length === 1));
    });
  });

  test('a poller goes on receiving while its batches run: in flight grows to `concurrency`, no further', async () => {
    await withSqs(testQueue({ batchSize: 1, visibilityTimeoutSeconds: 30 }), async (sqs) => {
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const rec = recorder(async () => {
        await gate;
        return undefined;
      });
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        concurrency: 4,
        pollers: 1,
      });
      try {
        await sendAll(sqs, ['1', '2', '3', '4', '5', '6']);
        await waitFor('4 batches running', () => source.inFlight() === 4);
        await sleep(300); // the poller would have received the others by now if it did not wait for a slot
        assert.equal(rec.deliveries.length, 4, 'one poller, four batches at once, none beyond the cap');
        open();
        await waitFor('6 deliveries', () => rec.deliveries.length === 6);
        await waitFor('an empty queue', async () => (await remaining(sqs)) === 0);
      } finally {
        open();
        await source.stop();
      }
    });
  });

  test('a slow batch holds back no other message', async () => {
    await withSqs(testQueue({ batchSize: 5, visibilityTimeoutSeconds: 30 }), async (sqs) => {
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const rec = recorder(async (event) => {
        if (event.Records.some((r) => r.body === 'slow')) await gate;
        return undefined;
      });
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        concurrency: 10,
      });
      try {
        await sendAll(sqs, ['slow']);
        await waitFor('the slow delivery', () => rec.deliveries.length === 1);
        for (let i = 0; i < 3; i++) await sendAll(sqs, [`fast${i}`]);
        await waitFor('the fast messages handled and deleted', async () => (await counts(sqs)).all === 1);
        assert.deepEqual(await counts(sqs), { all: 1, inFlight: 1 }, 'the slow one is left, in flight');
        assert.equal(source.inFlight(), 1, 'its batch still runs');
        assert.equal(rec.deliveries.length, 4);
      } finally {
        open();
        await source.stop();
      }
      assert.equal(await remaining(sqs), 0);
    });
  });

  test('stop(graceMs) gives up on a batch still running after the grace and leaves its message in flight', async () => {
    await withSqs(testQueue({ visibilityTimeoutSeconds: 30 }), async (sqs) => {
      await sendAll(sqs, ['stuck']);
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let finished = false;
      const rec = recorder(async () => {
        await gate;
        finished = true;
        return undefined;
      });
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        log: () => {},
      });
      try {
        await waitFor('the delivery', () => rec.deliveries.length === 1);
        assert.equal(await source.stop(200), 1, 'one batch left running');
        assert.equal(finished, false, 'stop() returned while the batch still ran');
        assert.deepEqual(
          await counts(sqs),
          { all: 1, inFlight: 1 },
          'not deleted: in flight until its visibility timeout',
        );
      } finally {
        open();
      }
    });
  });

  test('a batch a pending receive brings back after stop() is not handled but made visible again', async () => {
    await withSqs(testQueue({ visibilityTimeoutSeconds: 30, maxReceiveCount: 5 }), async (sqs) => {
      const rec = recorder(async () => undefined);
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        waitTimeSeconds: 2,
        pollers: 1,
        log: () => {},
      });
      await sleep(200); // the poller waits in its long poll
      const stopped = source.stop();
      await sendAll(sqs, ['late']);
      await stopped;
      assert.equal(rec.deliveries.length, 0);
      const { Messages } = await sqs.client.send(
        new ReceiveMessageCommand({ QueueUrl: sqs.urls.work, WaitTimeSeconds: 1 }),
      );
      assert.equal(Messages?.[0]?.Body, 'late', 'visible at once, not after the 30 s visibility timeout');
    });
  });

  test('stop() waits for the batch in flight and its delete', async () => {
    await withSqs(testQueue({ visibilityTimeoutSeconds: 30 }), async (sqs) => {
      await sendAll(sqs, ['slow']);
      let finished = false;
      const rec = recorder(async () => {
        await sleep(300);
        finished = true;
        return undefined;
      });
      const source = startEventSource({ client: sqs.client, queue: sqs.queues.work!, handler: rec.handler });
      await waitFor('the delivery', () => rec.deliveries.length === 1);
      await source.stop();
      assert.equal(finished, true, 'stop() resolved only after the batch in flight finished');
      assert.equal(await remaining(sqs), 0, 'deleted, not left in flight');
    });
  });

  test('stop() of an idle poller returns within its long-poll time', async () => {
    await withSqs(testQueue(), async (sqs) => {
      const rec = recorder(async () => undefined);
      const source = startEventSource({
        client: sqs.client,
        queue: sqs.queues.work!,
        handler: rec.handler,
        waitTimeSeconds: 1,
      });
      await sleep(100);
      const started = Date.now();
      await source.stop();
      // bounded by the 1 s long poll, with room for a loaded machine
      assert.ok(Date.now() - started < 5000, `stopped in ${Date.now() - started} ms`);
    });
  });
});
