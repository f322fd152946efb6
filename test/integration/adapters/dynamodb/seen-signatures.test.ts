/**
 * The SeenSignatures port on DynamoDB Local: its contract (test/contract/seen-signatures.ts; the in-memory
 * store runs it in the unit suite), then what the DynamoDB adapter adds: the item (its key, its TTL, one
 * conditional put, no relay invocation, errors that propagate).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import {
  DynamoSeenSignatures,
  seenPk,
  seenSk,
} from '../../../../shared/adapters/dynamodb/seen-signatures.ts';
import { relayWants } from '../../../../shared/adapters/dynamodb/stream.ts';
import { TASK_TABLE } from '../../../../shared/adapters/dynamodb/table.ts';
import type { SeenSignatures } from '../../../../shared/ports/seen-signatures.ts';
import { freshId, SIGNED_AT, seenSignaturesContract, UNTIL } from '../../../contract/seen-signatures.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
const dynamo = { make: (): SeenSignatures => new DynamoSeenSignatures(table.client, table.tableName) };

describe('on DynamoDB Local', () => {
  before(async () => {
    table = await createTestTable();
  });
  after(async () => table?.drop());

  seenSignaturesContract('DynamoDB', dynamo);

  describe('DynamoSeenSignatures', () => {
    const itemAt = async (pk: string, sk: string) =>
      (
        await DynamoDBDocumentClient.from(table.client).send(
          new GetCommand({ TableName: table.tableName, Key: { pk, sk }, ConsistentRead: true }),
        )
      ).Item;

    it('writes one item, SEEN#<peer>#<messageId> / <signedAt>, its TTL attribute at `until`, its write mark', async () => {
      const id = freshId();
      assert.equal(await dynamo.make().remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(seenPk('agent-b', id), `SEEN#agent-b#${id}`);
      assert.equal(seenSk(SIGNED_AT), String(SIGNED_AT));
      const item = await itemAt(`SEEN#agent-b#${id}`, String(SIGNED_AT));
      // and the write's own mark (shared/adapters/dynamodb/settled-write.ts)
      assert.deepEqual(item, { pk: `SEEN#agent-b#${id}`, sk: String(SIGNED_AT), ttl: UNTIL, wm: item?.wm });
      assert.match(String(item?.wm), /^[\w-]{12}$/);
      assert.equal(TASK_TABLE.ttlAttribute, 'ttl');
      assert.equal(item?.[TASK_TABLE.ttlAttribute], UNTIL);
    });

    it('a refused replay changes nothing: the TTL stays at the first `until`', async () => {
      const id = freshId();
      const seen = dynamo.make();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL + 3600), false);
      assert.equal((await itemAt(seenPk('agent-b', id), seenSk(SIGNED_AT)))?.ttl, UNTIL);
    });

    it('key parts are URI-encoded: a `#` in a peer id stays inside its part', async () => {
      assert.equal(seenPk('a#b', 'c'), 'SEEN#a%23b#c');
      assert.equal(seenPk('a', 'b#c'), 'SEEN#a#b%23c');
      assert.equal(seenPk('\ud800', 'm'), 'SEEN#%ud800#m');
    });

    it('costs one PutItem, a remember or a replay, and 1 WRU each', async () => {
      const id = freshId();
      const seen = dynamo.make();
      table.usage.reset();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      let usage = table.usage.reset();
      assert.deepEqual(usage.byOperation, { PutItem: 1 });
      assert.equal(usage.writeUnits, 1);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), false);
      usage = table.usage.reset();
      assert.deepEqual(usage.byOperation, { PutItem: 1 });
      assert.equal(usage.failedConditions, 1);
    });

    it('is not a task item: the relay stream filter does not pass it', () => {
      const record = (sk: string) =>
        ({
          eventName: 'INSERT',
          dynamodb: { Keys: { pk: { S: seenPk('agent-b', 'm1') }, sk: { S: sk } } },
        }) as DynamoDBRecord;
      assert.equal(relayWants(record(seenSk(SIGNED_AT))), false);
      assert.equal(relayWants(record('T')), true, 'the filter itself passes task items');
    });

    it('errors other than a refused condition propagate', async () => {
      const missing = new DynamoSeenSignatures(table.client, `missing-${crypto.randomUUID()}`);
      await assert.rejects(missing.remember('agent-b', freshId(), SIGNED_AT, UNTIL), {
        name: 'ResourceNotFoundException',
      });
      const down = new DynamoDBClient({
        endpoint: 'http://127.0.0.1:9',
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: 1,
      });
      try {
        await assert.rejects(new DynamoSeenSignatures(down, table.tableName).remember('p', 'm', 1, 2));
      } finally {
        down.destroy();
      }
    });
  });
});
