/**
 * The SQS consumers' batch (shared/adapters/lambda/sqs-batch.ts, Powertools' batch processor): poison
 * records go to the dead-letter queue with the reason and count as handled, a record that throws is
 * reported alone and comes back after the backoff, or on its last receive goes to the dead-letter queue
 * with the error, a batch whose every record throws is answered (each listed), never thrown, and the
 * records run side by side. The dead-letter queue is a fake port here; the deliver function's test
 * (test/integration/functions/deliver.test.ts) sends to the local SQS.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { messageOf, processSqsBatch } from '../../../../shared/adapters/lambda/sqs-batch.ts';
import { logger } from '../../../../shared/observability/index.ts';
import type { Poison, PoisonQueue } from '../../../../shared/ports/poison-queue.ts';
import * as z from '../../../../shared/validation/zod.ts';

before(() => logger.setLogLevel('SILENT'));

const schema = z.object({ id: z.string().check(z.minLength(1)) });

const record = (messageId: string, body: string, receives = 1): SQSRecord =>
  ({
    messageId,
    receiptHandle: `rh-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: String(receives) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:work',
    awsRegion: 'us-east-1',
  }) as unknown as SQSRecord;

const eventOf = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
const message = (id: string, receives = 1) => record(id, JSON.stringify({ id }), receives);
/** A queue that gives up on a record after its third receive. */
const base = { schema, what: 'work item', maxReceiveCount: 3 };

/** A dead-letter queue that keeps what it is sent (or refuses it). */
const deadLetterQueue = (refuse = false) => {
  const sent: Array<{ body: string } & Poison> = [];
  const queue: PoisonQueue = {
    send: async (body, poison) => {
      if (refuse) throw new Error('SQS unavailable');
      sent.push({ body, ...poison });
    },
  };
  return { sent, deadLetters: () => queue };
};

describe('processSqsBatch', () => {
  it('sends a poison record (not JSON, not of the schema) to the DLQ with the reason; the others are handled', async () => {
    const dlq = deadLetterQueue();
    const handled: string[] = [];
    const response = await processSqsBatch(
      eventOf(message('a'), record('junk', '{not json'), record('wrong', '{"id":""}'), message('b')),
      { ...base, deadLetters: dlq.deadLetters },
      async (m) => void handled.push(m.id),
    );
    assert.deepEqual(response, { batchItemFailures: [] }, 'a poison record counts as handled');
    assert.deepEqual(handled.sort(), ['a', 'b']);
    assert.deepEqual(
      dlq.sent.map((s) => [s.body, s.reason]),
      [
        ['{not json', 'not_json'],
        ['{"id":""}', 'not_a_message'],
      ],
      'the body as it came, with why',
    );
    assert.match(dlq.sent[1]!.error, /^id: /, 'the schema names the field');
  });

  it('reports a record that throws, and only it', async () => {
    const dlq = deadLetterQueue();
    const handled: string[] = [];
    const response = await processSqsBatch(
      eventOf(message('a'), message('fails'), message('b')),
      { ...base, deadLetters: dlq.deadLetters },
      async (m) => {
        if (m.id === 'fails') throw new Error('table unavailable');
        handled.push(m.id);
      },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'fails' }] });
    assert.deepEqual(handled.sort(), ['a', 'b']);
    assert.deepEqual(dlq.sent, [], 'a failure is not poison: it comes back');
  });

  it('makes a failed record come back after the backoff, before its last receive', async () => {
    const dlq = deadLetterQueue();
    const backedOff: string[] = [];
    const response = await processSqsBatch(
      eventOf(message('a', 2)),
      {
        ...base,
        deadLetters: dlq.deadLetters,
        comeBack: async (r) => {
          backedOff.push(r.receiptHandle);
          return 4;
        },
      },
      async () => {
        throw new Error('table unavailable');
      },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'a' }] });
    assert.deepEqual(backedOff, ['rh-a']);
    assert.deepEqual(dlq.sent, []);
  });

  it('sends a record that fails on its last receive to the DLQ with the error, not back to SQS', async () => {
    const dlq = deadLetterQueue();
    const backedOff: string[] = [];
    const response = await processSqsBatch(
      eventOf(message('last', 3), message('earlier', 2)),
      {
        ...base,
        deadLetters: dlq.deadLetters,
        comeBack: async (r) => {
          backedOff.push(r.messageId);
          return 4;
        },
      },
      async () => {
        throw new Error('table unavailable');
      },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'earlier' }] });
    assert.deepEqual(
      dlq.sent.map((s) => [s.body, s.reason, s.error]),
      [['{"id":"last"}', 'retries_exhausted', '3 receives, the last: table unavailable']],
    );
    assert.deepEqual(backedOff, ['earlier'], 'what is given up on does not come back');
  });

  it('leaves a record that fails on its last receive to SQS when the DLQ refuses it', async () => {
    const response = await processSqsBatch(
      eventOf(message('last', 3)),
      { ...base, deadLetters: deadLetterQueue(true).deadLetters },
      async () => {
        throw new Error('table unavailable');
      },
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'last' }] });
  });

  it('answers a batch whose every record throws with each of them, without throwing', async () => {
    const response = await processSqsBatch(
      eventOf(message('a'), message('b'), message('c')),
      { ...base, deadLetters: deadLetterQueue().deadLetters },
      async () => {
        throw new Error('table unavailable');
      },
    );
    assert.deepEqual(
      response.batchItemFailures.map((f) => f.itemIdentifier),
      ['a', 'b', 'c'],
    );
  });

  it('reports a poison record the DLQ refused, so it comes back to be sent again', async () => {
    const response = await processSqsBatch(
      eventOf(message('a'), record('junk', 'nope')),
      { ...base, deadLetters: deadLetterQueue(true).deadLetters },
      async () => {},
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: 'junk' }] });
  });

  it('runs the records of a batch side by side', async () => {
    const steps: string[] = [];
    await processSqsBatch(
      eventOf(message('a'), message('b')),
      { ...base, deadLetters: deadLetterQueue().deadLetters },
      async (m) => {
        steps.push(`start ${m.id}`);
        await new Promise((r) => setImmediate(r));
        steps.push(`end ${m.id}`);
      },
    );
    assert.deepEqual(steps, ['start a', 'start b', 'end a', 'end b']);
  });

  it('answers each batch with a list of its own', async () => {
    const consumer = { ...base, deadLetters: deadLetterQueue().deadLetters };
    const first = await processSqsBatch(eventOf(message('a')), consumer, async () => {});
    first.batchItemFailures.push({ itemIdentifier: 'changed by its caller' });
    const second = await processSqsBatch(eventOf(message('b')), consumer, async () => {});
    assert.deepEqual(second, { batchItemFailures: [] });
  });
});

describe('messageOf', () => {
  it('is the message, or why the body is poison', () => {
    assert.deepEqual(messageOf('{"id":"x"}', schema), { message: { id: 'x' } });
    assert.equal((messageOf('', schema) as { poison: Poison }).poison.reason, 'not_json');
    assert.equal((messageOf('[1]', schema) as { poison: Poison }).poison.reason, 'not_a_message');
    assert.match((messageOf('[1]', schema) as { poison: Poison }).poison.error, /^\(message\): /);
  });
});
