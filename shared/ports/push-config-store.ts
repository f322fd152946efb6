/** Where push-notification configs are kept, each beside its task (shared/adapters/dynamodb/push-config-store.ts). */
/** A webhook as registered: its secrets are kept to be sent, never to be read back. */
export interface StoredPushConfig {
  tenant: string;
  taskId: string;
  id: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /**
   * The A2A version the config was registered over: deliveries use its shapes (a v0.3 receiver reads v0.3
   * objects, docs/push-notifications.md); or
   * `synapse`: the task's Synapse requester, told with signed p2p callbacks (shared/app/synapse).
   */
  version: '1.0' | '0.3' | 'synapse';
  /** A Synapse requester: the peer (its keys sign the callbacks) and its own id of the task. */
  synapse?: { peerId: string; remoteTaskId: string };
  createdAt: string;
}

/** A config as reads show it: no token, no credentials. */
export interface PushConfigSummary {
  taskId: string;
  id: string;
  url: string;
  authentication?: { scheme: string };
}

/** Where configs are kept (one item each, beside their task). */
export interface PushConfigStore {
  /**
   * Writes (or replaces) a config: it counts once the task's event lists it. `keepUntil` (ISO 8601): when
   * the store may forget it (the task delivers nothing after its deadline). With `ifAbsent` a config
   * already there is left as it is (nothing written) and the put resolves false: the config of a task
   * being created, whose retry must not rewrite what the first delivery registered. A removed config's id
   * may stay taken for a while (DynamoDB keeps its tombstone for a day): such a put resolves false too.
   */
  put(config: StoredPushConfig, keepUntil: string, options?: { ifAbsent?: boolean }): Promise<boolean>;
  /** The task's configs among `ids`, in the order of `ids`. */
  get(tenant: string, taskId: string, ids: readonly string[]): Promise<StoredPushConfig[]>;
  remove(tenant: string, taskId: string, id: string): Promise<void>;
}
