/**
 * Push-notification configs on DynamoDB Local: registered with a `push_config` event in the task's own
 * conditional write (the head lists them), kept as items beside the task, read without secrets,
 * removed idempotently; accepted on finished tasks (one event, the state kept, the task not back in the
 * deadline index); refused over the limit, for a refused URL and for another caller's task, each refusal
 * writing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { taskPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import { DynamoPushConfigStore } from '../../../../shared/adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import {
  MAX_PUSH_CONFIGS_PER_TASK,
  PushConfigNotFoundError,
  PushConfigService,
} from '../../../../shared/app/push/push-configs.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../../../shared/app/tasks/task-service.ts';
import { TaskNotFoundError, ValidationError } from '../../../../shared/domain/errors.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';
import { recordRequestedKeys } from '../../../support/requested-keys.ts';

let table: TestTable;
let engine: TaskEngine;
let configs: DynamoPushConfigStore;
let service: PushConfigService;
const caller = { tenant: 'acme', owner: 'bob' };
const other = { tenant: 'acme', owner: 'eve' };
const url = 'https://hooks.example.com/a2a';

const newTask = async () =>
  (
    await new TaskService(engine).submit(caller, {
      messageId: crypto.randomUUID(),
      role: 'user',
      parts: [{ text: 'hello' }],
    })
  ).head;

/** Every item of the task's partition (`T#<tenant>#<taskId>`): what a refusal must leave as it was. */
const itemsOf = async (taskId: string, tenant = caller.tenant) => {
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const out = await DynamoDBDocumentClient.from(table.client).send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': taskPk(tenant, taskId) },
    }),
  );
  return out.Items ?? [];
};

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
  configs = new DynamoPushConfigStore(table.client, table.tableName);
  // the real guard: https to public names only (hooks.example.com is a name, checked again at send time)
  service = new PushConfigService(engine, new TaskService(engine), configs, new UrlGuard());
});
after(async () => table?.drop());

describe('push configs', () => {
  it('a config is registered by an event on the task and read back without its secrets', async () => {
    const task = await newTask();
    const made = await service.create(
      caller,
      task.taskId,
      { url, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } },
      '1.0',
    );
    assert.deepEqual(made, { taskId: task.taskId, id: made.id, url, authentication: { scheme: 'Bearer' } });
    const record = await engine.store.get({ tenant: caller.tenant, taskId: task.taskId });
    assert.deepEqual(record?.head.pushConfigIds, [made.id]);
    assert.equal(record?.head.version, task.version + 1, 'one event, one write');
    const events = await engine.store.events(record!, task.version);
    assert.deepEqual(
      events.map((e) => [e.type, e.from, e.to, e.data]),
      [['push_config', 'pending', 'pending', { set: made.id }]],
    );
    assert.deepEqual(await service.get(caller, task.taskId, made.id), made);
    assert.deepEqual(await service.get(caller, task.taskId, undefined), made, 'no id: the first config');
    assert.deepEqual(await service.list(caller, task.taskId), [made]);
    // the store keeps the secrets to send them (what the delivery worker reads)
    const [stored] = await configs.get(caller.tenant, task.taskId, record!.head.pushConfigIds ?? []);
    assert.equal(stored?.token, 'tok');
    assert.equal(stored?.authentication?.credentials, 'secret');
    assert.equal(stored?.version, '1.0');
  });

  it('the same id replaces a config; delete removes it, and deleting again succeeds', async () => {
    const task = await newTask();
    await service.create(caller, task.taskId, { id: 'c1', url }, '0.3');
    await service.create(caller, task.taskId, { id: 'c1', url: `${url}/v2` }, '0.3');
    await service.create(caller, task.taskId, { id: 'c2', url }, '0.3');
    assert.deepEqual(
      (await service.list(caller, task.taskId)).map((c) => [c.id, c.url]),
      [
        ['c1', `${url}/v2`],
        ['c2', url],
      ],
    );
    await service.delete(caller, task.taskId, 'c1');
    await service.delete(caller, task.taskId, 'c1');
    assert.deepEqual(
      (await service.list(caller, task.taskId)).map((c) => c.id),
      ['c2'],
    );
    await assert.rejects(service.get(caller, task.taskId, 'c1'), PushConfigNotFoundError);
    const tomb = (await itemsOf(task.taskId)).find((i) => i.sk === 'P#c1');
    assert.ok(tomb && tomb.cf === undefined, 'the item keeps no URL or secret');
  });

  it('refusals write nothing: a refused url, another caller, one config too many (on a finished task too)', async () => {
    const task = await newTask();
    const before = await itemsOf(task.taskId);
    await assert.rejects(
      service.create(caller, task.taskId, { url: 'http://10.0.0.1/' }, '1.0'),
      ValidationError,
    );
    await assert.rejects(service.create(other, task.taskId, { url }, '1.0'), TaskNotFoundError);
    // the id of a task's Synapse requester is reserved
    await assert.rejects(service.create(caller, task.taskId, { id: 'synapse', url }, '1.0'), /reserved/);
    assert.throws(() => service.inline({ id: 'synapse', url }, '1.0'), /reserved/);
    await assert.rejects(service.list(other, task.taskId), TaskNotFoundError);
    await assert.rejects(service.create(caller, 'no-such-task', { url }, '1.0'), TaskNotFoundError);
    assert.deepEqual(await itemsOf(task.taskId), before);

    for (let i = 0; i < MAX_PUSH_CONFIGS_PER_TASK; i++)
      await service.create(caller, task.taskId, { id: `c${i}`, url }, '1.0');
    const full = await itemsOf(task.taskId);
    await assert.rejects(
      service.create(caller, task.taskId, { id: 'one-more', url }, '1.0'),
      ValidationError,
    );
    assert.deepEqual(await itemsOf(task.taskId), full);

    await engine.apply({ tenant: caller.tenant, taskId: task.taskId }, { type: 'cancel' });
    const finished = await itemsOf(task.taskId);
    await assert.rejects(
      service.create(caller, task.taskId, { id: 'late', url }, '1.0'),
      ValidationError,
      'the limit holds on a finished task too',
    );
    assert.deepEqual(await itemsOf(task.taskId), finished);
    // a finished task's configs can still be read and removed
    assert.equal((await service.list(caller, task.taskId)).length, MAX_PUSH_CONFIGS_PER_TASK);
    await service.delete(caller, task.taskId, 'c0');
    assert.equal((await itemsOf(task.taskId)).find((i) => i.sk === 'P#c0')?.cf, undefined);
  });

  it('a finished task takes a config: one push_config event, its state, status time and index keys kept', async () => {
    const task = await newTask();
    const ended = await engine.apply({ tenant: caller.tenant, taskId: task.taskId }, { type: 'cancel' });
    const head = (await itemsOf(task.taskId)).find((i) => i.st !== undefined);
    const made = await service.create(caller, task.taskId, { id: 'late', url }, '1.0');
    assert.equal(made.id, 'late');
    const record = await engine.store.get({ tenant: caller.tenant, taskId: task.taskId });
    assert.equal(record?.head.state, 'cancelled');
    assert.equal(record?.head.version, ended.head.version + 1, 'one event, one write');
    assert.equal(record?.head.statusAt, ended.head.statusAt, 'a registration is not a status change');
    assert.deepEqual(record?.head.pushConfigIds, ['late']);
    const events = await engine.store.events(record!, ended.head.version);
    assert.deepEqual(
      events.map((e) => [e.type, e.from, e.to, e.data]),
      [['push_config', 'cancelled', 'cancelled', { set: 'late' }]],
    );
    const item = (await itemsOf(task.taskId)).find((i) => i.st !== undefined);
    assert.equal(item?.dp, undefined, 'a finished task stays out of the deadline index');
    assert.equal(item?.ttl, head?.ttl, 'its expiry does not move');
    const [stored] = await configs.get(caller.tenant, task.taskId, ['late']);
    assert.equal(stored?.url, url);
    assert.ok(
      Number((await itemsOf(task.taskId)).find((i) => i.sk === 'P#late')?.ttl) * 1000 > Date.now(),
      'the config item is kept (for its delivery)',
    );
  });

  it('a config item of another tenant is never read, even under the same task id', async () => {
    const task = await newTask();
    await configs.put(
      {
        tenant: 'intruder',
        taskId: task.taskId,
        id: 'x',
        url,
        version: '1.0',
        createdAt: new Date().toISOString(),
      },
      new Date(Date.now() + 86_400_000).toISOString(),
    );
    assert.equal((await itemsOf(task.taskId, 'intruder')).length, 1, "in the intruder's own partition");
    const keys = recordRequestedKeys(table.client);
    try {
      assert.deepEqual(await configs.get(caller.tenant, task.taskId, ['x']), []);
      await configs.remove(caller.tenant, task.taskId, 'x');
      assert.ok(keys.tablePartitions.length >= 2);
      for (const { command, pk } of keys.tablePartitions)
        assert.equal(pk, taskPk(caller.tenant, task.taskId), `${command} addressed ${pk}`);
    } finally {
      keys.detach();
    }
    // the intruder's config is untouched by the caller's remove, and the caller's partition holds no config x
    assert.equal(typeof (await itemsOf(task.taskId, 'intruder'))[0]?.cf, 'string');
    assert.equal((await itemsOf(task.taskId)).find((i) => i.sk === 'P#x')?.cf, undefined);
  });
});
