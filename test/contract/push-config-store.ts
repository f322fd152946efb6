/**
 * The PushConfigStore port's contract (shared/ports/push-config-store.ts): run against the in-memory twin
 * in the unit suite and against DynamoPushConfigStore on DynamoDB Local in the integration suite. A config
 * is kept whole, secrets included (they are sent, never shown), beside its task: a put writes or replaces
 * it (`ifAbsent`: leaves one already there and resolves false), get answers the configs among the ids asked
 * for in their order, remove forgets one, and a config is its tenant's task's alone. Each test works in
 * tasks of its own, so the suite may share one store.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { PushConfigStore, StoredPushConfig } from '../../shared/ports/push-config-store.ts';

export interface PushConfigStoreHarness {
  make(): PushConfigStore | Promise<PushConfigStore>;
}

const KEEP = '2030-01-01T00:00:00.000Z';

export const pushConfigStoreContract = (name: string, harness: PushConfigStoreHarness): void => {
  describe(`PushConfigStore contract: ${name}`, () => {
    let store: PushConfigStore;
    before(async () => {
      store = await harness.make();
    });

    const configOf = (over: Partial<StoredPushConfig> = {}): StoredPushConfig => ({
      tenant: 'acme',
      taskId: crypto.randomUUID(),
      id: 'c1',
      url: 'https://hooks.example.com/a',
      version: '1.0',
      createdAt: '2026-01-01T00:00:00.000Z',
      ...over,
    });

    it('keeps a config whole, its secrets included, and answers it by id', async () => {
      const config = configOf({
        token: 'secret-token',
        authentication: { scheme: 'Bearer', credentials: 'secret-credentials' },
      });
      assert.equal(await store.put(config, KEEP), true);
      assert.deepEqual(await store.get('acme', config.taskId, [config.id]), [config]);
      const synapse = configOf({
        id: 'synapse',
        version: 'synapse',
        synapse: { peerId: 'agent-b', remoteTaskId: 'r-1' },
      });
      await store.put(synapse, KEEP);
      assert.deepEqual(await store.get('acme', synapse.taskId, ['synapse']), [synapse]);
    });

    it('get answers the configs among the ids asked for, in their order, and none for no ids', async () => {
      const taskId = crypto.randomUUID();
      for (const id of ['a', 'b', 'c'])
        await store.put(configOf({ taskId, id, url: `https://h.example/${id}` }), KEEP);
      assert.deepEqual(
        (await store.get('acme', taskId, ['c', 'missing', 'a'])).map((c) => c.id),
        ['c', 'a'],
      );
      assert.deepEqual(await store.get('acme', taskId, []), []);
      assert.deepEqual(
        await store.get('acme', crypto.randomUUID(), ['a']),
        [],
        'another task has none of them',
      );
    });

    it('a put replaces the config of that id; with ifAbsent it leaves one there as it is and resolves false', async () => {
      const first = configOf({ token: 'one' });
      await store.put(first, KEEP);
      const second = { ...first, url: 'https://hooks.example.com/b', token: 'two' };
      assert.equal(await store.put(second, KEEP), true);
      assert.deepEqual(await store.get('acme', first.taskId, [first.id]), [second]);
      assert.equal(await store.put({ ...first, token: 'three' }, KEEP, { ifAbsent: true }), false);
      assert.deepEqual(await store.get('acme', first.taskId, [first.id]), [second], 'left as it was');
      const fresh = configOf();
      assert.equal(await store.put(fresh, KEEP, { ifAbsent: true }), true);
      assert.deepEqual(await store.get('acme', fresh.taskId, [fresh.id]), [fresh]);
    });

    it('remove forgets a config and leaves the others; removing one that is not there is no error', async () => {
      const taskId = crypto.randomUUID();
      await store.put(configOf({ taskId, id: 'x' }), KEEP);
      await store.put(configOf({ taskId, id: 'y' }), KEEP);
      await store.remove('acme', taskId, 'x');
      assert.deepEqual(
        (await store.get('acme', taskId, ['x', 'y'])).map((c) => c.id),
        ['y'],
      );
      await store.remove('acme', taskId, 'never');
      await store.remove('acme', crypto.randomUUID(), 'x');
    });

    it('a config is its tenant’s: the same task id in another tenant has none, and its remove touches none', async () => {
      const config = configOf();
      await store.put(config, KEEP);
      assert.deepEqual(await store.get('acme.rival', config.taskId, [config.id]), []);
      await store.remove('acme.rival', config.taskId, config.id);
      assert.deepEqual(await store.get('acme', config.taskId, [config.id]), [config]);
      const theirs = { ...config, tenant: 'acme.rival', url: 'https://rival.example/' };
      await store.put(theirs, KEEP);
      assert.deepEqual(await store.get('acme.rival', config.taskId, [config.id]), [theirs]);
      assert.deepEqual(await store.get('acme', config.taskId, [config.id]), [config]);
    });

    it('what the caller changes after a put or a get changes nothing kept', async () => {
      const config = configOf({ authentication: { scheme: 'Bearer', credentials: 'c' } });
      await store.put(config, KEEP);
      const expected = structuredClone(config);
      config.url = 'https://changed.example/';
      const [read] = await store.get('acme', config.taskId, [config.id]);
      read!.authentication!.credentials = 'changed';
      assert.deepEqual(await store.get('acme', config.taskId, [config.id]), [expected]);
    });
  });
};
