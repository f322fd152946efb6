/**
 * A task of many events on a local hub's table, written as the engine writes them (at most
 * MAX_EVENTS_PER_WRITE events a write): the inspector's virtualised timeline in the tests and the bench.
 */
import type { LocalHub } from '../../local/hub.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { MAX_EVENTS_PER_WRITE, TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { localDynamo } from '../e2e/fixtures/auth.ts';

export interface LongTaskOptions {
  tenant: string;
  owner: string;
  /** The task's version at the end: its created, confirm and start events, then progress reports. */
  events: number;
  /** Each progress report with an agent message too (`step N`). */
  withMessages?: boolean;
}

/** Writes the task; answers its id and its last version. */
export const writeLongTask = async (
  hub: LocalHub,
  { tenant, owner, events, withMessages = false }: LongTaskOptions,
): Promise<{ taskId: string; version: number }> => {
  const client = localDynamo(hub);
  try {
    const engine = new TaskEngine(new DynamoTaskStore(client, { tableName: hub.tableName }));
    const { head } = await engine.create({
      tenant,
      owner,
      message: { messageId: crypto.randomUUID(), role: 'user', parts: [{ text: 'a long task' }] },
    });
    let current = (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).head;
    while (current.version < events) {
      const from = current.version;
      const drafts = Array.from({ length: Math.min(MAX_EVENTS_PER_WRITE, events - from) }, (_, i) => ({
        type: 'status_update' as const,
        progress: (from + i) % 100,
        ...(withMessages
          ? {
              message: {
                messageId: crypto.randomUUID(),
                role: 'agent' as const,
                parts: [{ text: `step ${from + i + 1}` }],
              },
            }
          : {}),
      }));
      current = (await engine.apply(current, drafts)).head;
    }
    return { taskId: head.taskId, version: current.version };
  } finally {
    client.destroy();
  }
};
