/**
 * DynamoDeliveryLog on DynamoDB Local: the DeliveryLog contract (test/contract/delivery-log.ts; the
 * in-memory twin runs it in the unit suite), then the item: one per attempt in its task's partition, its
 * sort key the attempt's identity (zero-padded, so the log lists in delivery order), its TTL at keepUntil.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDeliveryLog, deliveryLogSk } from '../../../../shared/adapters/dynamodb/delivery-log.ts';
import { taskPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import { deliveryLogContract } from '../../../contract/delivery-log.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let log: DynamoDeliveryLog;

before(async () => {
  table = await createTestTable();
  log = new DynamoDeliveryLog(table.client, table.tableName);
});
after(async () => table?.drop());

deliveryLogContract('DynamoDB', { make: () => log });

describe('DynamoDeliveryLog', () => {
  it('keeps an attempt as one item beside its task, keyed by its identity, its TTL at keepUntil', async () => {
    const attempt = {
      tenant: 'acme',
      taskId: crypto.randomUUID(),
      configId: 'c1',
      version: 12,
      redrive: 1,
      attempt: 3,
      status: 'sending' as const,
      claim: crypto.randomUUID(),
      startedAt: '2026-01-01T00:00:00.000Z',
      keepUntil: '2030-01-01T00:00:00.000Z',
    };
    await log.claim(attempt);
    assert.equal(deliveryLogSk(attempt), 'L#0000000012#c1#001#003');
    const item = (
      await DynamoDBDocumentClient.from(table.client).send(
        new GetCommand({
          TableName: table.tableName,
          Key: { pk: taskPk('acme', attempt.taskId), sk: deliveryLogSk(attempt) },
          ConsistentRead: true,
        }),
      )
    ).Item;
    assert.deepEqual(
      [item?.st, item?.ck, item?.ttl],
      ['sending', attempt.claim, Date.parse(attempt.keepUntil) / 1000],
    );
    assert.deepEqual(JSON.parse(String(item?.at)), attempt);
  });
});
