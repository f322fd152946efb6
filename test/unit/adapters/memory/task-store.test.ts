/**
 * The in-memory TaskStore (shared/adapters/memory/task-store.ts): the TaskStore contract
 * (test/contract/task-store.ts, which DynamoTaskStore runs on DynamoDB Local too) and the change-feed contract
 * (test/contract/task-changes.ts, which the table's stream runs too), then what is its own: the record's
 * window of recent events, and the older ones read back through the store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { taskChangesContract } from '../../../contract/task-changes.ts';
import { taskStoreContract } from '../../../contract/task-store.ts';

taskStoreContract('in memory', { make: () => new InMemoryTaskStore() });

// the same contract with a record that carries only its latest event: every older one is read back
taskStoreContract('in memory, one recent event', { make: () => new InMemoryTaskStore({ recentEvents: 1 }) });

taskChangesContract('in memory', {
  make: () => {
    const store = new InMemoryTaskStore();
    return { store, take: async () => store.takeChanges() };
  },
});

describe('InMemoryTaskStore', () => {
  const message = (text: string) => ({
    messageId: crypto.randomUUID(),
    role: 'user' as const,
    parts: [{ text }],
  });

  it('a record carries its task’s latest `recentEvents` events, ending at its version', async () => {
    const store = new InMemoryTaskStore({ recentEvents: 3 });
    const engine = new TaskEngine(store);
    const { head } = await engine.create({ tenant: 't', owner: 'o', message: message('go') });
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    for (let i = 0; i < 5; i++) await engine.apply(head, { type: 'status_update', progress: i });
    const record = await store.get(head);
    assert.deepEqual(
      record?.recent.map((e) => e.version),
      [6, 7, 8],
    );
    assert.deepEqual(
      (await store.events(record!, 0)).map((e) => e.version),
      [1, 2, 3, 4, 5, 6, 7, 8],
      'the older ones read back',
    );
    assert.deepEqual(
      (await store.view(record!, {})).history.map((m) => m.parts[0]?.text),
      ['go'],
    );
    assert.equal(store.size, 1);
  });

  it('keeps values as JSON: undefined fields are dropped, as the DynamoDB adapter drops them', async () => {
    const store = new InMemoryTaskStore();
    const engine = new TaskEngine(store);
    const { head } = await engine.create({
      tenant: 't',
      owner: 'o',
      message: message('x'),
      metadata: { kept: 1, dropped: undefined },
    });
    const read = await store.get(head);
    assert.deepEqual(read?.head.metadata, { kept: 1 });
    assert.ok(read && !Object.hasOwn(read.head.metadata!, 'dropped'));
  });

  it('counts tasks, not replies', async () => {
    const store = new InMemoryTaskStore();
    await store.putReply({
      tenant: 't',
      key: 'k',
      message: { messageId: 'm', role: 'agent', parts: [{ text: 'hi' }] },
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    assert.equal(store.size, 0);
  });
});
