import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { startLocalHub } from '../../local/hub.ts';
import { TASK_TABLE } from '../../shared/adapters/dynamodb/table.ts';
import { fakeHandlers, resetFakeClients, sweeps } from './fixtures/fake-handlers.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Java processes started by this test process (tsx's esbuild service is a child too, so filter). */
const javaChildren = (): string[] => {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out
      .trim()
      .split('\n')
      .filter((line) => /\bjava\b/.test(line));
  } catch {
    return []; // ps exits 1 when there is no child at all
  }
};

const dynamoClient = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    maxAttempts: 1,
  });

const refused = async (url: string) => {
  try {
    await fetch(url);
    return false;
  } catch (e) {
    return (e as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
};

describe('local hub (fake handlers)', () => {
  test('wires gateway → DynamoDB → executor queue → executor, fires the sweeper, and stops cleanly', async () => {
    const previousTable = process.env.TABLE_NAME;
    const started = performance.now();
    // its own DynamoDB Local, whatever SYNAPSE_DYNAMO_ENDPOINT says: its stop is what this test checks
    const hub = await startLocalHub({
      handlers: fakeHandlers(),
      sweepIntervalMs: 200,
      dynamoEndpoint: false,
    });
    const readyMs = Math.round(performance.now() - started);
    console.log(`# hub ready in ${readyMs} ms (fake handlers, in-memory DynamoDB Local)`);
    const client = dynamoClient(hub.dynamoEndpoint);
    try {
      assert.match(hub.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(hub.url, `http://127.0.0.1:${hub.port}`);
      assert.equal(process.env.TABLE_NAME, hub.tableName);
      assert.equal(process.env.EXECUTOR_QUEUE_URL, hub.queueUrls.executor);
      assert.equal(process.env.AWS_ENDPOINT_URL_DYNAMODB, hub.dynamoEndpoint);
      assert.equal(process.env.AWS_ENDPOINT_URL_SQS, hub.sqsEndpoint);
      assert.equal(process.env.PUBLIC_URL, hub.url);
      assert.equal(process.env.AWS_REGION, 'us-east-1');
      assert.ok(hub.queueUrls['executor-dlq']);

      const { Table } = await client.send(new DescribeTableCommand({ TableName: hub.tableName }));
      assert.deepEqual(
        Table!.GlobalSecondaryIndexes!.map((i) => i.IndexName).sort(),
        TASK_TABLE.globalIndexes.map((i) => i.name).sort(),
      );

      const card = await fetch(`${hub.url}/.well-known/agent-card.json`);
      assert.equal(card.status, 200);
      assert.equal(((await card.json()) as { url: string }).url, `${hub.url}/a2a/jsonrpc`);

      const rpc = await fetch(`${hub.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'SendMessage',
          params: { message: { messageId: 't1' } },
        }),
      });
      assert.equal(rpc.status, 200);
      assert.equal(((await rpc.json()) as { id: number }).id, 7);

      // the executor (fed by the queue poller) completes what the jsonrpc handler stored and enqueued
      const deadline = Date.now() + 5000;
      let state: string | undefined;
      while (state !== 'completed' && Date.now() < deadline) {
        const { Item } = await client.send(
          new GetItemCommand({ TableName: hub.tableName, Key: { pk: { S: 'TASK#t1' }, sk: { S: 'HEAD' } } }),
        );
        state = Item?.state?.S;
        if (state !== 'completed') await sleep(20);
      }
      assert.equal(state, 'completed');

      while (sweeps.length === 0 && Date.now() < deadline) await sleep(20);
      assert.ok(sweeps.length >= 1, 'the schedule fired the sweeper');
      const before = sweeps.length;
      await hub.sweep();
      assert.ok(sweeps.length > before);

      assert.equal((await fetch(`${hub.url}/nope`)).status, 404);
    } finally {
      client.destroy();
      await hub.stop();
      resetFakeClients();
    }
    assert.equal(process.env.TABLE_NAME, previousTable, 'environment restored');
    assert.ok(await refused(`${hub.url}/.well-known/agent-card.json`), 'gateway closed');
    assert.ok(await refused(hub.dynamoEndpoint), 'DynamoDB Local stopped');
    assert.deepEqual(javaChildren(), [], 'no Java process left');
  });

  test('on a DynamoDB Local already running: a table of its own, dropped at stop, no Java started', async () => {
    const own = await startLocalHub({ handlers: fakeHandlers(), dynamoEndpoint: false });
    const javaBefore = javaChildren().length;
    const client = dynamoClient(own.dynamoEndpoint);
    try {
      const [a, b] = await Promise.all([
        startLocalHub({ handlers: fakeHandlers(), dynamoEndpoint: own.dynamoEndpoint }),
        startLocalHub({ handlers: fakeHandlers(), dynamoEndpoint: own.dynamoEndpoint }),
      ]);
      assert.equal(a.dynamoEndpoint, own.dynamoEndpoint);
      assert.notEqual(a.tableName, b.tableName, 'each hub its own table');
      assert.notEqual(a.tableName, own.tableName);
      assert.equal(javaChildren().length, javaBefore, 'no Java process started');
      const { Table } = await client.send(new DescribeTableCommand({ TableName: a.tableName }));
      assert.equal(Table?.TableStatus, 'ACTIVE');
      await Promise.all([a.stop(), b.stop()]);
      await assert.rejects(
        client.send(new DescribeTableCommand({ TableName: a.tableName })),
        /ResourceNotFoundException|non-existent table/,
        'its table dropped',
      );
      assert.equal(
        (await client.send(new DescribeTableCommand({ TableName: own.tableName }))).Table?.TableStatus,
        'ACTIVE',
        'the instance and its other tables are left as they were',
      );
    } finally {
      client.destroy();
      await own.stop();
    }
  });

  test('a data directory keeps the table and its items across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'synapse-hub-'));
    try {
      const first = await startLocalHub({ handlers: fakeHandlers(), dataDir });
      const c1 = dynamoClient(first.dynamoEndpoint);
      try {
        await c1.send(
          new PutItemCommand({
            TableName: first.tableName,
            Item: { pk: { S: 'TASK#kept' }, sk: { S: 'HEAD' }, state: { S: 'working' } },
          }),
        );
      } finally {
        c1.destroy();
        await first.stop();
      }
      const second = await startLocalHub({ handlers: fakeHandlers(), dataDir });
      const c2 = dynamoClient(second.dynamoEndpoint);
      try {
        const { Item } = await c2.send(
          new GetItemCommand({
            TableName: second.tableName,
            Key: { pk: { S: 'TASK#kept' }, sk: { S: 'HEAD' } },
          }),
        );
        assert.equal(Item?.state?.S, 'working');
      } finally {
        c2.destroy();
        await second.stop();
      }
      assert.deepEqual(javaChildren(), []);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a taken port fails at once with EADDRINUSE, before Java starts', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as { port: number };
    try {
      const started = Date.now();
      await assert.rejects(startLocalHub({ handlers: fakeHandlers(), port }), { code: 'EADDRINUSE' });
      assert.ok(Date.now() - started < 500, 'no JVM start-up was waited for');
      assert.deepEqual(javaChildren(), []);
    } finally {
      holder.close();
    }
  });

  test('a failure after DynamoDB Local started stops it again', async () => {
    const previousTable = process.env.TABLE_NAME;
    // DynamoDB rejects table names shorter than 3 characters, after the JVM is up
    await assert.rejects(startLocalHub({ handlers: fakeHandlers(), tableName: 'x' }), /table\/index name/i);
    assert.deepEqual(javaChildren(), []);
    assert.equal(process.env.TABLE_NAME, previousTable);
  });
});
