/**
 * Task partition keys: the tenant is part of the key, encoded so no tenant can forge another's key, and
 * a key reads back as the tenant and task id it was built from.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskIdOfPk, taskPk, taskRefOfPk } from '../../../../shared/adapters/dynamodb/keys.ts';
import {
  decodeReply,
  decodeTask,
  encodeReply,
  planWrite,
} from '../../../../shared/adapters/dynamodb/task-codec.ts';
import type { TaskHead } from '../../../../shared/domain/task.ts';

const at = '2026-01-01T00:00:00.000Z';
const head = (tenant: string, taskId: string): TaskHead => ({
  taskId,
  tenant,
  owner: 'alice',
  contextId: 'ctx',
  state: 'pending',
  version: 1,
  role: 'executor',
  protocol: 'a2a',
  createdAt: at,
  statusAt: at,
  deadlineAt: '2026-01-01T01:00:00.000Z',
});

describe('task partition keys', () => {
  it('are T#<encoded tenant>#<taskId>', () => {
    assert.equal(taskPk('acme', '0b0e5f1e-1c1d'), 'T#acme#0b0e5f1e-1c1d');
    assert.equal(taskPk('a#b', 't'), 'T#a%23b#t');
    assert.equal(taskPk('', 't'), 'T##t');
  });

  it('read back as the tenant and task id they were built from, whatever the characters', () => {
    const tenants = [
      'acme',
      'a#b',
      'a%23b',
      '%u0041',
      '50%',
      'ünï cødé 租户',
      '\ud800x',
      'x\udfff',
      '',
      '#',
      'T#',
    ];
    const ids = ['0b0e5f1e-1c1d-8a2b-9c3d-4e5f60718293', 'a#b#c', '', '#', '消'.repeat(256)];
    for (const tenant of tenants)
      for (const taskId of ids) {
        const pk = taskPk(tenant, taskId);
        assert.deepEqual(taskRefOfPk(pk), { tenant, taskId }, pk);
        assert.equal(taskIdOfPk(pk), taskId);
      }
  });

  it('cannot be forged by a # in a tenant: distinct (tenant, id) pairs make distinct keys', () => {
    const pairs: Array<[string, string]> = [
      ['a', 'b#c'],
      ['a#b', 'c'],
      ['a%23b', 'c'],
      ['a', '%23b#c'],
    ];
    const keys = pairs.map(([t, id]) => taskPk(t, id));
    assert.equal(new Set(keys).size, keys.length);
  });

  it('refuses keys that are not task partitions', () => {
    for (const pk of ['SEEN#p#m', 'AUTH#', 'T#legacy-id-without-tenant', 'x'])
      assert.throws(() => taskRefOfPk(pk), /not a task partition key/);
  });

  it('the codec writes a task and a reply under their tenant, and refuses an item whose key and tenant disagree', () => {
    const plan = planWrite(undefined, head('a#b', 'same-id'), [], { retentionSeconds: 86_400 });
    assert.equal(plan.item.pk, 'T#a%23b#same-id');
    assert.equal(decodeTask(plan.item).head.tenant, 'a#b');
    assert.throws(() => decodeTask({ ...plan.item, tn: 'other' }), /disagree/);
    const reply = {
      tenant: 'acme',
      key: 'same-id',
      message: { messageId: 'm', role: 'agent' as const, parts: [{ text: 'hi' }] },
      createdAt: at,
    };
    const item = encodeReply(reply);
    assert.equal(item.pk, 'T#acme#same-id');
    assert.deepEqual(decodeReply(item), reply);
  });
});
