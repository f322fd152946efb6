/**
 * functions/relay.ts on Powertools' batch processor: the records of a batch decoded in stream order, an
 * undecodable one described on the failure queue with the reason while the rest of the batch is relayed,
 * a record that fails reported as the batch's failure with nothing after it relayed, and a relay that
 * throws reporting the batch's first record. The queues and the bus are fakes (the relay's ports).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { createRelayHandler } from '../../../functions/relay.ts';
import { planWrite } from '../../../shared/adapters/dynamodb/task-codec.ts';
import type { TaskEvent, TaskHead } from '../../../shared/domain/task.ts';
import { logger } from '../../../shared/observability/index.ts';
import type { ExecutorRun } from '../../../shared/ports/executor-queue.ts';
import type { LifecycleEvent } from '../../../shared/ports/lifecycle-publisher.ts';
import type { Poison } from '../../../shared/ports/poison-queue.ts';

before(() => logger.setLogLevel('SILENT'));

const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
const STREAM_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026';

/** The stream record of a new task waiting for the executor (`pending`), `sequence` its number. */
const newTask = (taskId: string, sequence: string, item: (i: Record<string, unknown>) => void = () => {}) => {
  const head: TaskHead = {
    taskId,
    tenant: 'acme',
    owner: 'bob',
    contextId: `ctx-${taskId}`,
    state: 'pending',
    version: 1,
    role: 'executor',
    protocol: 'a2a',
    createdAt: at,
    statusAt: at,
    deadlineAt: new Date(Date.UTC(2026, 0, 2)).toISOString(),
  };
  const created: TaskEvent = {
    taskId,
    tenant: 'acme',
    version: 1,
    type: 'created',
    from: null,
    to: 'pending',
    at,
  };
  const written = { ...planWrite(undefined, head, [created], { retentionSeconds: 86_400 }).item };
  item(written);
  return {
    eventID: `e-${sequence}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    eventSourceARN: STREAM_ARN,
    dynamodb: {
      Keys: marshall({ pk: written.pk, sk: written.sk }),
      NewImage: marshall(written, { removeUndefinedValues: true }) as Record<string, AttributeValue>,
      SequenceNumber: sequence,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  } as unknown as DynamoDBRecord;
};

/** A task item whose key names another tenant than its tenant attribute: the codec refuses it. */
const corrupt = (taskId: string, sequence: string) =>
  newTask(taskId, sequence, (item) => {
    item.tn = 'someone-else';
  });

const eventOf = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

/** The relay's ports and failure queue, recording; each may be told to fail. */
const fakes = (fail: { executor?: boolean; failures?: boolean } = {}) => {
  const runs: ExecutorRun[] = [];
  const events: LifecycleEvent[] = [];
  const described: Array<{ body: Record<string, unknown> } & Poison> = [];
  const handler = createRelayHandler({
    ports: () => ({
      executor: {
        enqueue: async (batch) => {
          if (fail.executor) throw new Error('SQS unavailable');
          runs.push(...batch);
        },
      },
      lifecycle: { publish: async (batch) => void events.push(...batch) },
    }),
    failures: () => ({
      send: async (body, poison) => {
        if (fail.failures) throw new Error('SQS unavailable');
        described.push({ body: JSON.parse(body) as Record<string, unknown>, ...poison });
      },
    }),
  });
  return { handler, runs, events, described };
};

describe('relay handler', () => {
  it('describes an undecodable record on the failure queue with the reason, and relays the rest of the batch', async () => {
    const { handler, runs, events, described } = fakes();
    const response = await handler(eventOf(newTask('a', '100'), corrupt('bad', '200'), newTask('b', '300')));
    assert.deepEqual(response, { batchItemFailures: [] }, 'nothing to retry');
    assert.deepEqual(
      runs.map((r) => r.taskId),
      ['a', 'b'],
      'the records on both sides of it are relayed',
    );
    assert.deepEqual(
      events.map((e) => e.detail.taskId),
      ['a', 'b'],
    );
    assert.equal(described.length, 1);
    const [one] = described;
    assert.equal(one!.reason, 'undecodable');
    assert.match(one!.error, /tenant/);
    assert.deepEqual(one!.body.DDBStreamBatchInfo, {
      streamArn: STREAM_ARN,
      startSequenceNumber: '200',
      endSequenceNumber: '200',
      batchSize: 1,
    });
    assert.deepEqual((one!.body.requestContext as { condition: string }).condition, 'UndecodableRecord');
  });

  it('a record that fails is the batch failure: the ones before it are relayed, none after it', async () => {
    // the failure queue refuses the description: the record must come back, and the stream's order holds
    const { handler, runs } = fakes({ failures: true });
    const response = await handler(
      eventOf(newTask('a', '100'), corrupt('bad', '200'), newTask('b', '300'), newTask('c', '400')),
    );
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: '200' }] });
    assert.deepEqual(
      runs.map((r) => r.taskId),
      ['a'],
    );
  });

  it('a batch whose first record fails reports it, without throwing', async () => {
    const { handler, runs } = fakes({ failures: true });
    const response = await handler(eventOf(corrupt('bad', '100'), newTask('a', '200')));
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: '100' }] });
    assert.deepEqual(runs, []);
  });

  it('a relay that throws reports the batch from its first record', async () => {
    const { handler, described } = fakes({ executor: true });
    const response = await handler(eventOf(newTask('a', '100'), corrupt('bad', '200'), newTask('b', '300')));
    assert.deepEqual(response, { batchItemFailures: [{ itemIdentifier: '100' }] });
    assert.equal(described.length, 1, 'the undecodable record was described all the same');
  });
});
