/**
 * API keys and tenants on the task table (shared/adapters/dynamodb/auth-store.ts) on DynamoDB Local:
 * put/get/list, revocation, a key id never overwritten, the `AUTH#` partition whose items the stream
 * relay passes over; and the Lambda authorizer (functions/authorizer.ts) reading that table: Allow on
 * the whole stage with the principal's context and its tenant's usage key, `Unauthorized` for
 * credentials that do not verify, Deny for an unregistered tenant, the credential never logged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayRequestAuthorizerEvent, DynamoDBRecord } from 'aws-lambda';
import { type LocalIssuer, startLocalIssuer } from '../../../../local/oidc-issuer.ts';
import { type StreamSource, startStreamSource } from '../../../../local/stream-source.ts';
import { AUTH_PARTITION, DynamoAuthStore } from '../../../../shared/adapters/dynamodb/auth-store.ts';
import { relayWants, taskChangeOf } from '../../../../shared/adapters/dynamodb/stream.ts';
import { TASK_TABLE } from '../../../../shared/adapters/dynamodb/table.ts';
import { principalOf } from '../../../../shared/adapters/lambda/auth-context.ts';
import { newApiKey, verifyApiKey } from '../../../../shared/app/auth/api-keys.ts';
import { AuthError } from '../../../../shared/domain/errors.ts';
import { logger } from '../../../../shared/observability/index.ts';
import type { ApiKeyRecord } from '../../../../shared/ports/api-key-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let store: DynamoAuthStore;

before(async () => {
  table = await createTestTable();
  store = new DynamoAuthStore(table.client, table.tableName);
});
after(async () => table?.drop());

const isUnauthenticated = (e: unknown) => e instanceof AuthError && e.code === 'unauthenticated';

/** The raw items of the AUTH# partition, as DynamoDB keeps them. */
/** Every item of the directory partition, all pages (earlier tests leave more than one page of keys). */
const rawAuthItems = async () => {
  const doc = DynamoDBDocumentClient.from(table.client);
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TASK_TABLE.partitionKey },
        ExpressionAttributeValues: { ':pk': AUTH_PARTITION },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

describe('DynamoAuthStore', () => {
  it('put and get a key; unknown ids are undefined', async () => {
    const { record } = newApiKey(
      { tenant: 'acme', principal: 'ci', rights: ['read', 'write'], description: 'pipeline' },
      new Date('2025-01-01T00:00:00.000Z'),
    );
    await store.putKey(record);
    assert.deepEqual(await store.getKey(record.keyId), record);
    assert.equal(await store.getKey('abcdefghijklmnop'), undefined);
    const { record: bare } = newApiKey({ tenant: 'acme', principal: 'bot', rights: ['read'] });
    await store.putKey(bare);
    const got = await store.getKey(bare.keyId);
    assert.deepEqual(got, bare);
    assert.ok(got && !('description' in got) && !('revokedAt' in got));
  });

  it('putKey refuses an existing key id and leaves the first record as it was', async () => {
    const { record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    const usurper: ApiKeyRecord = {
      ...record,
      tenant: 'globex',
      principal: 'mallory',
      rights: ['read', 'write'],
    };
    await assert.rejects(store.putKey(usurper), { name: 'ConditionalCheckFailedException' });
    assert.deepEqual(await store.getKey(record.keyId), record);
  });

  it('revokeKey: true for a key (idempotent, the first time kept), false for no such key', async () => {
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    assert.deepEqual((await verifyApiKey(store, key)).owner, 'ci');
    assert.equal(await store.revokeKey(record.keyId, '2025-02-01T00:00:00.000Z'), true);
    assert.equal(await store.revokeKey(record.keyId, '2025-03-01T00:00:00.000Z'), true);
    assert.equal((await store.getKey(record.keyId))?.revokedAt, '2025-02-01T00:00:00.000Z');
    await assert.rejects(verifyApiKey(store, key), isUnauthenticated);
    assert.equal(await store.revokeKey('abcdefghijklmnop', '2025-02-01T00:00:00.000Z'), false);
    assert.equal(await store.getKey('abcdefghijklmnop'), undefined, 'revoking creates nothing');
  });

  it('verifyApiKey on the table: the principal of a valid key, refusals for a wrong secret', async () => {
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'alice', rights: ['write'] });
    await store.putKey(record);
    assert.deepEqual(await verifyApiKey(store, key), {
      tenant: 'acme',
      owner: 'alice',
      rights: ['write'],
      scheme: 'api-key',
    });
    await assert.rejects(verifyApiKey(store, `syn_${record.keyId}_${'x'.repeat(43)}`), isUnauthenticated);
  });

  it('put, get and list tenants (names needing escapes included)', async () => {
    await store.putTenant({ tenant: 'acme', usageKey: 'usage-acme', createdAt: '2025-01-01T00:00:00Z' });
    await store.putTenant({
      tenant: 'odd#name/1',
      usageKey: 'usage-odd',
      createdAt: '2025-01-02T00:00:00Z',
      disabledAt: '2025-01-03T00:00:00Z',
    });
    assert.deepEqual(await store.getTenant('acme'), {
      tenant: 'acme',
      usageKey: 'usage-acme',
      createdAt: '2025-01-01T00:00:00Z',
    });
    assert.equal((await store.getTenant('odd#name/1'))?.disabledAt, '2025-01-03T00:00:00Z');
    assert.equal(await store.getTenant('nobody'), undefined);
    const tenants = await store.listTenants();
    assert.deepEqual(tenants.map((t) => t.tenant).sort(), ['acme', 'odd#name/1']);
    // tenants are not keys and keys are not tenants
    for (const k of await store.listKeys())
      assert.ok(k.keyId !== 'undefined' && k.secretHash !== 'undefined');
  });

  it('listKeys: every key, or those of one tenant, across pages', async () => {
    const fresh = new DynamoAuthStore(table.client, table.tableName);
    const before = (await fresh.listKeys()).length;
    const made: ApiKeyRecord[] = [];
    // enough padding that the partition spans more than one 1 MB query page
    const description = 'd'.repeat(40_000);
    for (let i = 0; i < 30; i++) {
      const { record } = newApiKey({
        tenant: i % 3 === 0 ? 'paged-a' : 'paged-b',
        principal: `p${i}`,
        rights: ['read'],
        description,
      });
      made.push(record);
    }
    await Promise.all(made.map((r) => fresh.putKey(r)));
    const firstPage = await DynamoDBDocumentClient.from(table.client).send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': TASK_TABLE.partitionKey },
        ExpressionAttributeValues: { ':pk': AUTH_PARTITION },
      }),
    );
    assert.ok(firstPage.LastEvaluatedKey, 'the partition takes more than one page');
    const all = await fresh.listKeys();
    assert.equal(all.length, before + 30);
    const a = await fresh.listKeys('paged-a');
    assert.deepEqual(
      a.map((k) => k.keyId).sort(),
      made
        .filter((r) => r.tenant === 'paged-a')
        .map((r) => r.keyId)
        .sort(),
    );
    assert.ok(a.every((k) => k.description === description));
    assert.deepEqual(await fresh.listKeys('nobody'), []);
  });

  it('items live under pk AUTH# with sort keys that are not the task sort key; the key item holds no secret', async () => {
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'layout', rights: ['read', 'write'] });
    await store.putKey(record);
    const items = await rawAuthItems();
    assert.ok(items.length > 0);
    for (const item of items) {
      assert.equal(item[TASK_TABLE.partitionKey], 'AUTH#');
      const sk = String(item[TASK_TABLE.sortKey]);
      assert.match(sk, /^(KEY#[a-z2-7]{16}|TENANT#.+)$/);
      assert.notEqual(sk, 'T');
      // in no index: none of the index key attributes
      for (const index of TASK_TABLE.globalIndexes) assert.ok(!(index.partitionKey in item), index.name);
    }
    const item = items.find((i) => i[TASK_TABLE.sortKey] === `KEY#${record.keyId}`)!;
    assert.equal(item.rights, 'read write', 'rights kept as a string');
    assert.ok(!JSON.stringify(item).includes(key.slice(-43)), 'the secret is not stored');
    assert.equal(item.secretHash, record.secretHash);

    // a stream record of such an item is not one the relay wants, or can decode as a task change
    const fake = (keys: Record<string, string>): DynamoDBRecord => ({
      eventName: 'INSERT',
      dynamodb: {
        Keys: marshall(keys) as never,
        NewImage: marshall(item, { removeUndefinedValues: true }) as never,
        SequenceNumber: '1',
      },
    });
    const authRecord = fake({ pk: 'AUTH#', sk: `KEY#${record.keyId}` });
    assert.equal(relayWants(authRecord), false);
    assert.equal(relayWants({ ...authRecord, eventName: 'MODIFY' }), false);
    assert.equal(relayWants(fake({ pk: 'AUTH#', sk: 'TENANT#acme' })), false);
    assert.equal(taskChangeOf(authRecord), undefined);
    // the control: the task sort key is wanted
    assert.equal(relayWants({ ...fake({ pk: 'acme#t1', sk: 'T' }) }), true);
  });

  it("on the table's real stream, the auth items' records are all passed over by the relay filter", async () => {
    const streamTable = await createTestTable();
    const streams = new DynamoDBStreamsClient({
      endpoint: streamTable.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
    const seen: DynamoDBRecord[] = [];
    let source: StreamSource | undefined;
    try {
      const { Table } = await streamTable.client.send(
        new DescribeTableCommand({ TableName: streamTable.tableName }),
      );
      source = await startStreamSource({
        client: streams,
        streamArn: Table!.LatestStreamArn!,
        functionName: 'relay',
        batchSize: 100,
        bisectBatchOnError: false,
        maxRetryAttempts: 0,
        idlePollMs: 50,
        log: () => {},
        handler: async (event) => {
          seen.push(...event.Records);
        },
      });
      const s = new DynamoAuthStore(streamTable.client, streamTable.tableName);
      const { record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
      await s.putTenant({ tenant: 'acme', usageKey: 'u', createdAt: 'now' });
      await s.putKey(record);
      await s.revokeKey(record.keyId, 'later');
      // a control item with the task sort key (only its keys matter to the filter)
      await DynamoDBDocumentClient.from(streamTable.client).send(
        new PutCommand({ TableName: streamTable.tableName, Item: { pk: 'acme#control', sk: 'T' } }),
      );
      await source.caughtUp();
      const auth = seen.filter((r) => r.dynamodb?.Keys?.pk?.S === AUTH_PARTITION);
      assert.deepEqual(
        auth.map((r) => `${r.eventName} ${r.dynamodb?.Keys?.sk?.S}`),
        ['INSERT TENANT#acme', `INSERT KEY#${record.keyId}`, `MODIFY KEY#${record.keyId}`],
      );
      for (const r of auth) assert.equal(relayWants(r), false);
      assert.deepEqual(
        seen.filter(relayWants).map((r) => r.dynamodb?.Keys?.pk?.S),
        ['acme#control'],
      );
    } finally {
      await source?.stop();
      streams.destroy();
      await streamTable.drop();
    }
  });
});

describe('the Lambda authorizer on DynamoDB Local', () => {
  let issuer: LocalIssuer;
  let authorizerHandler: typeof import('../../../../functions/authorizer.ts').authorizerHandler;
  const methodArn = 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/POST/v1/message:send';
  const stageArn = 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/*';

  const eventWith = (authorization?: string): APIGatewayRequestAuthorizerEvent =>
    ({
      type: 'REQUEST',
      methodArn,
      resource: '/v1/message:send',
      path: '/v1/message:send',
      httpMethod: 'POST',
      headers: authorization === undefined ? {} : { Authorization: authorization },
      multiValueHeaders: {},
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: {},
    }) as unknown as APIGatewayRequestAuthorizerEvent;

  /** Runs `fn` with the module logger's output captured (its Console, not process.stdout). */
  const captureLogs = async <T>(
    fn: () => Promise<T>,
  ): Promise<{ value?: T; error?: unknown; logs: string }> => {
    const target = logger as unknown as { console: Console };
    const saved = target.console;
    const lines: string[] = [];
    const capture = (...args: unknown[]) => void lines.push(args.map(String).join(' '));
    target.console = { ...saved, log: capture, info: capture, warn: capture, error: capture, debug: capture };
    try {
      return { value: await fn(), logs: lines.join('\n') };
    } catch (error) {
      return { error, logs: lines.join('\n') };
    } finally {
      target.console = saved;
    }
  };

  before(async () => {
    issuer = await startLocalIssuer();
    process.env.TABLE_NAME = table.tableName;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = table.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    process.env.AUTH_JWT_ISSUER = issuer.url;
    process.env.AUTH_JWT_AUDIENCE = issuer.audience;
    process.env.AUTH_JWT_JWKS_URL = issuer.jwksUrl;
    ({ authorizerHandler } = await import('../../../../functions/authorizer.ts'));
    await store.putTenant({
      tenant: 'registered',
      usageKey: 'usage-registered',
      createdAt: '2025-01-01T00:00:00Z',
    });
    await store.putTenant({
      tenant: 'disabled',
      usageKey: 'usage-disabled',
      createdAt: '2025-01-01T00:00:00Z',
      disabledAt: '2025-01-02T00:00:00Z',
    });
  });
  after(async () => issuer?.stop());

  it('a valid API key of a registered tenant: Allow on the stage, with the context and usage key', async () => {
    const { key, record } = newApiKey({ tenant: 'registered', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    const {
      value: result,
      error,
      logs,
    } = await captureLogs(() => authorizerHandler(eventWith(`Bearer ${key}`)));
    assert.equal(error, undefined);
    assert.deepEqual(result, {
      principalId: 'registered/ci',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageArn }],
      },
      context: { tenant: 'registered', owner: 'ci', rights: 'read', scheme: 'api-key' },
      usageIdentifierKey: 'usage-registered',
    });
    assert.match(logs, /authorized/);
    assert.ok(!logs.includes(key.slice(-43)), `the key was logged: ${logs}`);
    // what the functions read back from that context
    const principal = principalOf({ requestContext: { authorizer: { ...result!.context } } });
    assert.deepEqual(principal, { tenant: 'registered', owner: 'ci', rights: ['read'], scheme: 'api-key' });
    // the header name in any case
    const lower = await authorizerHandler({ ...eventWith(), headers: { authorization: `bearer ${key}` } });
    assert.equal(lower.principalId, 'registered/ci');
    assert.equal(lower.usageIdentifierKey, 'usage-registered');
  });

  it("credentials that do not verify: throws 'Unauthorized' (API Gateway's 401), never logging them", async () => {
    const unknown = newApiKey({ tenant: 'registered', principal: 'ci', rights: ['read'] });
    const revoked = newApiKey({ tenant: 'registered', principal: 'ci', rights: ['read'] });
    await store.putKey(revoked.record);
    await store.revokeKey(revoked.record.keyId, new Date().toISOString());
    const expiredJwt = await issuer.token('alice', { tenant: 'registered' }, { expiresIn: -60 });
    for (const header of [
      `Bearer ${unknown.key}`,
      `Bearer ${revoked.key}`,
      'Bearer syn_malformed',
      `Bearer ${expiredJwt}`,
      'Bearer garbage',
      'Basic dXNlcjpwYXNz',
      undefined,
    ]) {
      const { error, logs } = await captureLogs(() => authorizerHandler(eventWith(header)));
      assert.ok(error instanceof Error && error.message === 'Unauthorized', `${header}: ${String(error)}`);
      assert.match(logs, /refused/);
      for (const secret of [unknown.key.slice(-43), revoked.key.slice(-43), expiredJwt.split('.')[2]!])
        assert.ok(!logs.includes(secret), `logged: ${logs}`);
    }
  });

  it('a valid credential of an unregistered or disabled tenant: Deny', async () => {
    for (const tenant of ['unregistered', 'disabled']) {
      const { key, record } = newApiKey({ tenant, principal: 'ci', rights: ['read'] });
      await store.putKey(record);
      const result = await authorizerHandler(eventWith(`Bearer ${key}`));
      assert.equal(result.principalId, 'denied');
      assert.deepEqual(result.policyDocument.Statement, [
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: stageArn },
      ]);
      assert.equal(result.usageIdentifierKey, undefined);
      assert.match(String(result.context?.reason), new RegExp(`Tenant "${tenant}" is not registered`));
    }
  });

  it("a JWT of the configured issuer: Allow with the token's principal and expiry; another tenant's: Deny", async () => {
    const token = await issuer.token(
      'alice',
      { tenant: 'registered', scope: 'tasks:write' },
      { alg: 'RS256' },
    );
    const result = await authorizerHandler(eventWith(`Bearer ${token}`));
    assert.equal(result.principalId, 'registered/alice');
    assert.equal(result.usageIdentifierKey, 'usage-registered');
    assert.equal(result.context?.scheme, 'bearer');
    assert.equal(result.context?.rights, 'write');
    assert.equal(typeof result.context?.expiresAt, 'number');
    const denied = await authorizerHandler(
      eventWith(`Bearer ${await issuer.token('bob', { tenant: 'elsewhere' })}`),
    );
    assert.equal(denied.principalId, 'denied');
    // a token naming no tenant (and no default configured): Deny, not a 401
    const none = await authorizerHandler(eventWith(`Bearer ${await issuer.token('carol')}`));
    assert.equal(none.principalId, 'denied');
    await assert.rejects(
      authorizerHandler(
        eventWith(`Bearer ${await issuer.token('eve', { tenant: 'registered' }, { forged: true })}`),
      ),
      { message: 'Unauthorized' },
    );
  });
});
