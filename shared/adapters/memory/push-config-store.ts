/**
 * PushConfigStore in memory: the twin of DynamoPushConfigStore (shared/adapters/dynamodb/push-config-store.ts;
 * contract: test/contract/push-config-store.ts). Configs are kept per task of a tenant, by id, as JSON; a
 * put replaces one (or, `ifAbsent`, leaves one already there and resolves false), `get` answers those of
 * the ids asked for, in their order, and another tenant's task under the same id is another task.
 * `keepUntil` is kept (see `keepUntilOf`), never enforced.
 */
import type { PushConfigStore, StoredPushConfig } from '../../ports/push-config-store.ts';
import { stored } from './json.ts';

const keyOf = (tenant: string, taskId: string, id: string): string => JSON.stringify([tenant, taskId, id]);

export class InMemoryPushConfigStore implements PushConfigStore {
  readonly #configs = new Map<string, { config: StoredPushConfig; keepUntil: string }>();

  async put(
    config: StoredPushConfig,
    keepUntil: string,
    options: { ifAbsent?: boolean } = {},
  ): Promise<boolean> {
    const key = keyOf(config.tenant, config.taskId, config.id);
    if (options.ifAbsent && this.#configs.has(key)) return false;
    this.#configs.set(key, { config: stored(config), keepUntil });
    return true;
  }

  async get(tenant: string, taskId: string, ids: readonly string[]): Promise<StoredPushConfig[]> {
    return ids.flatMap((id) => {
      const kept = this.#configs.get(keyOf(tenant, taskId, id));
      return kept ? [stored(kept.config)] : [];
    });
  }

  async remove(tenant: string, taskId: string, id: string): Promise<void> {
    this.#configs.delete(keyOf(tenant, taskId, id));
  }

  /** When the store may forget the config, as its last put said; undefined when there is none. */
  keepUntilOf(tenant: string, taskId: string, id: string): string | undefined {
    return this.#configs.get(keyOf(tenant, taskId, id))?.keepUntil;
  }
}
