/**
 * The in-memory PushConfigStore (shared/adapters/memory/push-config-store.ts): the port's contract
 * (test/contract/push-config-store.ts, which DynamoPushConfigStore runs on DynamoDB Local too), and the
 * `keepUntil` it keeps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryPushConfigStore } from '../../../../shared/adapters/memory/push-config-store.ts';
import { pushConfigStoreContract } from '../../../contract/push-config-store.ts';

pushConfigStoreContract('in memory', { make: () => new InMemoryPushConfigStore() });

describe('InMemoryPushConfigStore', () => {
  it('keeps the keepUntil of the last put (a refused ifAbsent put keeps the earlier one)', async () => {
    const store = new InMemoryPushConfigStore();
    const config = {
      tenant: 't',
      taskId: 'task',
      id: 'c',
      url: 'https://h.example/',
      version: '1.0' as const,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    await store.put(config, '2026-02-01T00:00:00.000Z');
    await store.put(config, '2026-03-01T00:00:00.000Z', { ifAbsent: true });
    assert.equal(store.keepUntilOf('t', 'task', 'c'), '2026-02-01T00:00:00.000Z');
    await store.put(config, '2026-04-01T00:00:00.000Z');
    assert.equal(store.keepUntilOf('t', 'task', 'c'), '2026-04-01T00:00:00.000Z');
    await store.remove('t', 'task', 'c');
    assert.equal(store.keepUntilOf('t', 'task', 'c'), undefined);
  });
});
