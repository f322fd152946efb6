/**
 * DynamoRegistryStore on DynamoDB Local: the RegistryStore contract (test/contract/registry-store.ts; the
 * in-memory twin runs it in the unit suite), then the items and what a publication costs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { registryPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import { DynamoRegistryStore } from '../../../../shared/adapters/dynamodb/registry-store.ts';
import { registryStoreContract } from '../../../contract/registry-store.ts';
import { catalogEntry } from '../../../support/catalog-entry.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let store: DynamoRegistryStore;

before(async () => {
  table = await createTestTable();
  store = new DynamoRegistryStore(table.client, table.tableName);
});
after(async () => table?.drop());

registryStoreContract('DynamoDB', { make: () => store });

describe('DynamoRegistryStore', () => {
  it("keeps a record's items in its own partition: the record, each version, the catalog entry", async () => {
    const tenant = `t-${crypto.randomUUID()}`;
    const id = crypto.randomUUID();
    const at = new Date().toISOString();
    const card = {
      name: 'Weather',
      description: 'Forecasts',
      supportedInterfaces: [
        { url: 'https://a.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const record = {
      tenant,
      id,
      identifier: `urn:air:a.example:${tenant}:weather`,
      owner: 'alice',
      name: 'Weather',
      visibility: 'public' as const,
      state: 'APPROVED' as const,
      latestVersion: 1,
      liveVersion: 1,
      health: 'unknown' as const,
      reviews: [],
      createdAt: at,
      updatedAt: at,
      revision: 1,
    };
    await store.write({
      record,
      version: {
        tenant,
        recordId: id,
        version: 1,
        card,
        shape: '1.0',
        digest: 'd',
        source: { kind: 'inline' },
        verification: { status: 'unsigned' },
        publishedAt: at,
        publishedBy: 'alice',
      },
      entry: catalogEntry(id, card, {
        identifier: record.identifier,
        tenant,
        health: 'unknown',
        updatedAt: at,
      }),
    });
    const items = await DynamoDBDocumentClient.from(table.client).send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': registryPk(tenant, id) },
      }),
    );
    assert.deepEqual(
      (items.Items ?? []).map((i) => i.sk),
      ['C', 'R', 'V#000001'],
    );
  });

  it('a first publication (record, version, identifier) costs at most 10 write units', async () => {
    const { usage } = table;
    const measured = store;
    const tenant = `t-${crypto.randomUUID()}`;
    const id = crypto.randomUUID();
    const at = new Date().toISOString();
    usage.reset();
    const card = JSON.parse(
      JSON.stringify({
        name: 'Weather',
        description: 'Forecasts for any place on earth, hourly and daily, from several models.',
        supportedInterfaces: [
          { url: 'https://a.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'https://a.example/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ],
        version: '1.4.2',
        capabilities: { streaming: true, pushNotifications: true },
        defaultInputModes: ['text/plain', 'application/json'],
        defaultOutputModes: ['text/plain', 'application/json'],
        skills: Array.from({ length: 4 }, (_, i) => ({
          id: `skill-${i}`,
          name: `Skill ${i}`,
          description: 'Answers questions about the weather at a place and a time.',
          tags: ['weather', 'forecast', 'climate'],
          examples: ['Will it rain in Lisbon tomorrow?', 'How warm is Oslo this weekend?'],
        })),
      }),
    );
    await measured.write({
      record: {
        tenant,
        id,
        identifier: `urn:air:a.example:${tenant}:weather`,
        owner: 'alice',
        name: 'Weather',
        visibility: 'public',
        state: 'PENDING_APPROVAL',
        latestVersion: 1,
        health: 'unknown',
        reviews: [],
        createdAt: at,
        updatedAt: at,
        revision: 1,
      },
      version: {
        tenant,
        recordId: id,
        version: 1,
        card,
        shape: '1.0',
        digest: 'd',
        source: { kind: 'url', url: 'https://a.example/.well-known/agent-card.json', etag: 'W/"x"' },
        verification: { status: 'unsigned' },
        publishedAt: at,
        publishedBy: 'alice',
      },
    });
    const totals = usage.totals;
    assert.equal(totals.requests, 1, 'one request');
    assert.ok(totals.writeUnits > 0 && totals.writeUnits <= 10, `${totals.writeUnits} write units`);
  });
});
