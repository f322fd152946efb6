/**
 * The SeenSignatures port (replay protection of signed Synapse requests; docs/synapse-protocol.md,
 * "Replays and retries"): one contract, run against the in-memory store and the DynamoDB adapter on
 * DynamoDB Local. A request is the triple (peer, signature, signedAt) (the verifier passes the HMAC it
 * computed: any string here): the same triple again is a replay, another signature (a retry signed
 * anew) or another peer is not.
 * Then what each implementation adds: the DynamoDB item (its key, its TTL, one conditional put, no
 * relay invocation, errors that propagate), the in-memory store's clock.
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
import { InMemorySeenSignatures } from '../../../../shared/adapters/memory/seen-signatures.ts';
import type { SeenSignatures } from '../../../../shared/ports/seen-signatures.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

const SIGNED_AT = 1_796_154_122;
const WINDOW = 300;
const UNTIL = SIGNED_AT + WINDOW;

/** A message id of its own for each case: every case starts from an empty store. */
const freshId = () => `msg-${crypto.randomUUID()}`;

const contract = (name: string, setup: { make: () => SeenSignatures }) => {
  describe(`SeenSignatures contract: ${name}`, () => {
    it('the first time a request is remembered resolves true', async () => {
      assert.equal(await setup.make().remember('agent-b', freshId(), SIGNED_AT, UNTIL), true);
    });

    it('the same (peer, message id, signedAt) again resolves false: a replay', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), false);
      // whatever `until` the replay asks for, and as often as it is sent
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL + 3600), false);
    });

    it('the same message id signed at another time resolves true: a retry is not a replay', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT + 2, UNTIL + 2), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT - 1, UNTIL - 1), true);
      // and each retry is a request of its own, refused when replayed
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT + 2, UNTIL + 2), false);
    });

    it('the same message id from another peer resolves true', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-c', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-c', id, SIGNED_AT, UNTIL), false);
    });

    it('a separator inside a peer id cannot make two requests one', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember(`agent#${id}`, 'x', SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent', `${id}#x`, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent%23', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent#', id, SIGNED_AT, UNTIL), true);
    });

    it('of 10 concurrent remembers of the same request exactly one resolves true', async () => {
      const seen = setup.make();
      const id = freshId();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => seen.remember('agent-b', id, SIGNED_AT, UNTIL)),
      );
      assert.equal(results.filter((r) => r).length, 1, JSON.stringify(results));
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), false);
    });

    it('times that are not whole epoch seconds are refused, and nothing is remembered', async () => {
      const seen = setup.make();
      const id = freshId();
      for (const [signedAt, until] of [
        [SIGNED_AT + 0.5, UNTIL],
        [SIGNED_AT, Number.NaN],
        [Number.POSITIVE_INFINITY, UNTIL],
      ] as const) {
        await assert.rejects(seen.remember('agent-b', id, signedAt, until), RangeError);
      }
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
    });
  });
};

// ---- in memory ----------------------------------------------------------------------------------

contract('in memory', { make: () => new InMemorySeenSignatures({ now: () => SIGNED_AT * 1000 }) });

describe('InMemorySeenSignatures', () => {
  it('remembers a request through the second of its `until` and forgets it after', async () => {
    let now = SIGNED_AT * 1000;
    const seen = new InMemorySeenSignatures({ now: () => now });
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL), true);
    now = UNTIL * 1000 + 999; // the verifier still accepts the timestamp in this second
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL), false);
    now = (UNTIL + 1) * 1000;
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL + 10), true, 'forgotten after until');
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL + 10), false, 'and remembered anew');
  });

  it('drops forgotten requests as it grows: it holds about one window of requests', async () => {
    let now = SIGNED_AT * 1000;
    const seen = new InMemorySeenSignatures({ now: () => now });
    for (let i = 0; i < 1000; i++) {
      now = (SIGNED_AT + i) * 1000;
      assert.equal(await seen.remember('agent-b', `m${i}`, SIGNED_AT + i, SIGNED_AT + i + 10), true);
    }
    assert.ok(seen.size < 200, `held ${seen.size}`);
    // the ones still in their window are still refused
    assert.equal(await seen.remember('agent-b', 'm999', SIGNED_AT + 999, SIGNED_AT + 1009), false);
  });

  it('uses the system clock by default', async () => {
    const seen = new InMemorySeenSignatures();
    const nowSeconds = Math.floor(Date.now() / 1000);
    assert.equal(await seen.remember('agent-b', 'm1', nowSeconds, nowSeconds + WINDOW), true);
    assert.equal(await seen.remember('agent-b', 'm1', nowSeconds, nowSeconds + WINDOW), false);
    // an `until` already past is forgotten at once
    assert.equal(await seen.remember('agent-b', 'm2', SIGNED_AT, UNTIL), true);
    assert.equal(await seen.remember('agent-b', 'm2', SIGNED_AT, UNTIL), true);
  });
});

// ---- DynamoDB Local -----------------------------------------------------------------------------

let table: TestTable;
const dynamo = { make: (): SeenSignatures => new DynamoSeenSignatures(table.client, table.tableName) };

describe('on DynamoDB Local', () => {
  before(async () => {
    table = await createTestTable();
  });
  after(async () => table?.drop());

  contract('DynamoDB', dynamo);

  describe('DynamoSeenSignatures', () => {
    const itemAt = async (pk: string, sk: string) =>
      (
        await DynamoDBDocumentClient.from(table.client).send(
          new GetCommand({ TableName: table.tableName, Key: { pk, sk }, ConsistentRead: true }),
        )
      ).Item;

    it('writes one item, SEEN#<peer>#<messageId> / <signedAt>, its TTL attribute at `until`', async () => {
      const id = freshId();
      assert.equal(await dynamo.make().remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(seenPk('agent-b', id), `SEEN#agent-b#${id}`);
      assert.equal(seenSk(SIGNED_AT), String(SIGNED_AT));
      const item = await itemAt(`SEEN#agent-b#${id}`, String(SIGNED_AT));
      assert.deepEqual(item, { pk: `SEEN#agent-b#${id}`, sk: String(SIGNED_AT), ttl: UNTIL });
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
