/**
 * The DynamoDB table's stream as the relay reads it (shared/adapters/dynamodb/stream.ts, filtered as the
 * event source mapping filters it, polled by the local stream source): the change-feed contract
 * (test/contract/task-changes.ts), which the in-memory store's feed runs in the unit suite.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { type StreamSource, startStreamSource } from '../../../../local/stream-source.ts';
import { relayWants, STREAM_RELAY, taskChangeOf } from '../../../../shared/adapters/dynamodb/stream.ts';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import type { TaskChange } from '../../../../shared/ports/task-changes.ts';
import { taskChangesContract } from '../../../contract/task-changes.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let streams: DynamoDBStreamsClient;
let source: StreamSource;
let store: DynamoTaskStore;
const received: TaskChange[] = [];

before(async () => {
  table = await createTestTable();
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
  assert.ok(Table?.LatestStreamArn, 'the test table has a stream');
  streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  source = await startStreamSource({
    client: streams,
    streamArn: Table.LatestStreamArn,
    functionName: 'relay',
    batchSize: STREAM_RELAY.batchSize,
    bisectBatchOnError: false,
    maxRetryAttempts: 0,
    idlePollMs: 10,
    filter: relayWants,
    log: () => {},
    handler: async (event) => {
      for (const record of event.Records) {
        const change = taskChangeOf(record);
        if (change) received.push(change);
      }
    },
  });
});
after(async () => {
  await source?.stop();
  streams?.destroy();
  await table?.drop();
});

taskChangesContract('the DynamoDB stream', {
  make: () => ({
    store,
    take: async () => {
      await source.caughtUp();
      return received.splice(0, received.length);
    },
  }),
});
