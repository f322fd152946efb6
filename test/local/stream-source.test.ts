/**
 * The local stream event source on DynamoDB Local's stream: order, partial
 * batch failures, bisecting to a poison record, the on-failure destination,
 * and checkpoints that let a restart resume after the last handled record.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DescribeTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import {
  type FailedBatch,
  fileCheckpoints,
  memoryCheckpoints,
  type StreamHandler,
  startStreamSource,
} from '../../local/stream-source.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let table: TestTable;
let streams: DynamoDBStreamsClient;
let streamArn: string;
let dir: string;

const keyOf = (r: DynamoDBRecord) => r.dynamodb?.Keys?.pk?.S ?? '';
const put = async (pks: string[]) => {
  for (const pk of pks)
    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { pk: { S: pk }, sk: { S: 'x' } } }),
    );
};
const source = (
  handler: StreamHandler,
  more: Partial<Parameters<typeof startStreamSource>[0]> = {},
): ReturnType<typeof startStreamSource> =>
  startStreamSource({
    client: streams,
    streamArn,
    handler,
    functionName: 'relay-test',
    batchSize: 10,
    maxRetryAttempts: 2,
    bisectBatchOnError: true,
    idlePollMs: 10,
    log: () => {},
    ...more,
  });

before(async () => {
  table = await createTestTable();
  const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
  streamArn = Table!.LatestStreamArn!;
  streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  dir = mkdtempSync(join(tmpdir(), 'synapse-stream-'));
});
after(async () => {
  streams.destroy();
  await table.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('local stream source', () => {
  it('delivers every record in order; a partial failure retries from the failed record only', async () => {
    const seen: string[] = [];
    let failOnce = true;
    const checkpoints = memoryCheckpoints();
    const s = await source(
      async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
        for (const r of event.Records) {
          if (keyOf(r) === 'a3' && failOnce) {
            failOnce = false;
            return { batchItemFailures: [{ itemIdentifier: r.dynamodb!.SequenceNumber! }] };
          }
          seen.push(keyOf(r));
        }
        return { batchItemFailures: [] };
      },
      { checkpoints },
    );
    await put(['a1', 'a2', 'a3', 'a4', 'a5']);
    await s.caughtUp();
    await s.stop();
    assert.deepEqual(seen, ['a1', 'a2', 'a3', 'a4', 'a5'], 'a1 and a2 were handled once, a3 on the retry');
  });

  it('bisects a failing batch down to the poison record, hands it to the on-failure destination, moves on', async () => {
    const handled: string[] = [];
    const failed: FailedBatch[] = [];
    const s = await source(
      async (event) => {
        if (event.Records.some((r) => keyOf(r) === 'b-poison')) throw new Error('cannot relay');
        handled.push(...event.Records.map(keyOf));
      },
      { checkpoints: memoryCheckpoints(), onFailure: async (f) => void failed.push(f) },
    );
    await s.caughtUp();
    handled.length = 0;
    await put(['b1', 'b2', 'b-poison', 'b3', 'b4']);
    await s.caughtUp();
    await s.stop();
    assert.deepEqual(
      handled.filter((k) => k.startsWith('b')),
      ['b1', 'b2', 'b3', 'b4'],
    );
    assert.equal(failed.length, 1);
    assert.equal(failed[0]?.batchSize, 1, 'only the poison record');
    assert.equal(failed[0]?.startSequenceNumber, failed[0]?.endSequenceNumber);
  });

  it('keeps its position in a file: a restart resumes after the last handled record', async () => {
    const file = join(dir, 'checkpoints.json');
    const first: string[] = [];
    const s1 = await source(async (e) => void first.push(...e.Records.map(keyOf)), {
      checkpoints: fileCheckpoints(file, streamArn),
    });
    await put(['c1', 'c2']);
    await s1.caughtUp();
    await s1.stop();
    await put(['c3', 'c4']);
    const second: string[] = [];
    const s2 = await source(async (e) => void second.push(...e.Records.map(keyOf)), {
      checkpoints: fileCheckpoints(file, streamArn),
    });
    await s2.caughtUp();
    await s2.stop();
    assert.ok(first.includes('c1') && first.includes('c2'));
    assert.deepEqual(second, ['c3', 'c4'], 'nothing handled twice, nothing lost');
  });

  it('a failed read resumes from the checkpoint: nothing skipped, nothing handled twice', async () => {
    const handled: string[] = [];
    let armed = false;
    let failures = 0;
    // the real client, except that one GetRecords fails once armed (an expired iterator, a network error)
    const flaky = new Proxy(streams, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver);
        return async (command: { constructor: { name: string } }) => {
          if (armed && command.constructor.name === 'GetRecordsCommand') {
            armed = false;
            failures++;
            throw Object.assign(new Error('Iterator expired'), { name: 'ExpiredIteratorException' });
          }
          return target.send(command as never);
        };
      },
    });
    const s = await source(async (e) => void handled.push(...e.Records.map(keyOf)), {
      client: flaky,
      checkpoints: memoryCheckpoints(),
    });
    await s.caughtUp();
    await put(['d1', 'd2']);
    await s.caughtUp();
    armed = true;
    await put(['d3', 'd4']);
    await s.caughtUp();
    await s.stop();
    assert.equal(failures, 1, 'the failing read happened');
    assert.deepEqual(
      handled.filter((k) => k.startsWith('d')),
      ['d1', 'd2', 'd3', 'd4'],
    );
    assert.equal(new Set(handled).size, handled.length, 'no record handled twice');
  });

  it('passes over what the filter refuses, and keeps its position past it', async () => {
    const handled: string[] = [];
    const checkpoints = memoryCheckpoints();
    const wanted = (r: DynamoDBRecord) => keyOf(r).startsWith('f-');
    const s1 = await source(async (e) => void handled.push(...e.Records.map(keyOf)), {
      checkpoints,
      filter: wanted,
    });
    await s1.caughtUp();
    handled.length = 0;
    await put(['x-1', 'f-1', 'x-2', 'x-3']);
    await s1.caughtUp();
    await s1.stop();
    assert.deepEqual(handled, ['f-1'], 'the handler saw only what the filter passed');
    const again: string[] = [];
    const s2 = await source(async (e) => void again.push(...e.Records.map(keyOf)), { checkpoints });
    await s2.caughtUp();
    await s2.stop();
    assert.deepEqual(again, [], 'the refused records after the last handled one are not read again');
  });
});
