/**
 * DynamoPushConfigStore on DynamoDB Local: the PushConfigStore contract (test/contract/push-config-store.ts;
 * the in-memory twin runs it in the unit suite), then the items: one per config in its task's partition,
 * the config as JSON text, its TTL at `keepUntil`; a removal a tombstone with no URL or secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { taskPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import {
  DynamoPushConfigStore,
  pushConfigSk,
} from '../../../../shared/adapters/dynamodb/push-config-store.ts';
import { pushConfigStoreContract } from '../../../contract/push-config-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let store: DynamoPushConfigStore;

before(async () => {
  table = await createTestTable();
  store = new DynamoPushConfigStore(table.client, table.tableName);
});
after(async () => table?.drop());

pushConfigStoreContract('DynamoDB', { make: () => store });

describe('DynamoPushConfigStore', () => {
  const itemOf = async (tenant: string, taskId: string, id: string) =>
    (
      await DynamoDBDocumentClient.from(table.client).send(
        new GetCommand({
          TableName: table.tableName,
          Key: { pk: taskPk(tenant, taskId), sk: pushConfigSk(id) },
          ConsistentRead: true,
        }),
      )
    ).Item;

  it('keeps a config as one item beside its task, its TTL at keepUntil; a removal leaves no URL or secret', async () => {
    const taskId = crypto.randomUUID();
    const config = {
      tenant: 'acme',
      taskId,
      id: 'c1',
      url: 'https://hooks.example.com/x',
      token: 'secret-token',
      version: '1.0' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await store.put(config, '2030-01-01T00:00:00.000Z');
    const item = await itemOf('acme', taskId, 'c1');
    assert.equal(item?.pk, `T#acme#${taskId}`);
    assert.equal(item?.sk, 'P#c1');
    assert.deepEqual(JSON.parse(String(item?.cf)), config);
    assert.equal(item?.ttl, Date.parse('2030-01-01T00:00:00.000Z') / 1000);
    await store.remove('acme', taskId, 'c1');
    const tombstone = await itemOf('acme', taskId, 'c1');
    assert.ok(tombstone, 'a tombstone');
    assert.equal(tombstone.cf, undefined);
    assert.ok(!JSON.stringify(tombstone).includes('secret-token'));
    assert.ok(Number(tombstone.ttl) <= Math.ceil(Date.now() / 1000) + 86_400);
  });
});
