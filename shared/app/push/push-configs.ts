/**
 * Push-notification configs of a task (A2A §4.9): register, read, list and remove the webhooks a task's
 * events are delivered to. A config is stored apart from its task (its own item: secrets stay out of
 * the task item every transition rewrites), and its registration is recorded on the task with a
 * `push_config` event in the same conditional write as any transition: the task's head then lists its
 * configs, so the stream relay learns from the task's own change whom to notify. A config registered on
 * a finished task is sent the task's final state once (deliveries.ts), so a client that registers late
 * still learns the outcome.
 */

import type { Caller } from '../../domain/caller.ts';
import { InvalidTransitionError, TaskNotFoundError, ValidationError } from '../../domain/errors.ts';
import { isTerminal } from '../../domain/states.ts';
import type { PushConfigStore, PushConfigSummary, StoredPushConfig } from '../../ports/push-config-store.ts';
import type { PushUrlGuard } from '../../ports/push-url-guard.ts';
import type { TaskRecord } from '../../ports/task-store.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../synapse/callbacks.ts';
import type { TaskEngine } from '../tasks/task-engine.ts';

/** A task keeps at most this many configs (its head lists them). */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;

/** A config outlives its task's deadline by this much (its deliveries' retries, the task's reads). */
const KEEP_AFTER_DEADLINE_MS = 7 * 86_400_000;

export interface NewPushConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** An inline config, checked, for the write that creates or continues its task. */
export interface InlinePushConfig {
  config: NewPushConfig;
  version: StoredPushConfig['version'];
  synapse?: StoredPushConfig['synapse'];
}

export const storedConfig = (
  tenant: string,
  taskId: string,
  input: NewPushConfig & { id: string },
  version: StoredPushConfig['version'],
  synapse?: StoredPushConfig['synapse'],
): StoredPushConfig => ({
  tenant,
  taskId,
  id: input.id,
  url: input.url,
  ...(input.token ? { token: input.token } : {}),
  ...(input.authentication ? { authentication: input.authentication } : {}),
  version,
  ...(synapse ? { synapse } : {}),
  createdAt: new Date().toISOString(),
});

/** When the store may forget a config of a task with this deadline. */
export const keepUntilOf = (deadlineAt: string): string =>
  new Date(Date.parse(deadlineAt) + KEEP_AFTER_DEADLINE_MS).toISOString();

export const summaryOf = (c: StoredPushConfig): PushConfigSummary => ({
  taskId: c.taskId,
  id: c.id,
  url: c.url,
  ...(c.authentication ? { authentication: { scheme: c.authentication.scheme } } : {}),
});

/** The id of a task's Synapse requester (shared/app/synapse/callbacks.ts) is not an A2A config's to take. */
const refuseReserved = (id: string | undefined): void => {
  if (id === SYNAPSE_CALLBACK_CONFIG_ID)
    throw new ValidationError(
      `push notification config id "${id}" is reserved for the task's Synapse requester`,
      'id',
    );
};

/** The caller's tasks as the task service reads them (an interface here, so this service does not import it). */
export interface OwnedTasks {
  /** The caller's task: another caller's, a missing one and an impossible id are all "not found". */
  owned(caller: Caller, taskId: string): Promise<TaskRecord>;
}

export class PushConfigService {
  constructor(
    private readonly engine: TaskEngine,
    private readonly tasks: OwnedTasks,
    private readonly configs: PushConfigStore,
    /** Checks a webhook URL before it is stored (the sender checks again after DNS resolution). */
    private readonly urls: PushUrlGuard,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {}

  /**
   * Registers a config; a config with the id of an existing one replaces it. On a finished task it is
   * sent the final state once (each registration is one delivery, retried as any other).
   */
  async create(
    caller: Caller,
    taskId: string,
    input: NewPushConfig,
    version: StoredPushConfig['version'],
  ): Promise<PushConfigSummary> {
    const checked = this.urls.check(input.url);
    if (!checked.ok) throw new ValidationError(`push notification url refused: ${checked.reason}`, 'url');
    const record = await this.tasks.owned(caller, taskId);
    const id = input.id ?? this.newId();
    refuseReserved(input.id);
    const ids = record.head.pushConfigIds ?? [];
    if (!ids.includes(id) && ids.length >= MAX_PUSH_CONFIGS_PER_TASK) {
      throw new ValidationError(
        `a task has at most ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs; delete one first`,
        'id',
      );
    }
    const config = storedConfig(
      caller.tenant,
      record.head.taskId,
      { ...input, id, url: checked.url },
      version,
    );
    // the config first, then the event that lists it: a config nobody lists is never delivered to
    // a finished task's deadline may be long past: its config is kept for its delivery from now on
    const from = new Date(Math.max(Date.parse(record.head.deadlineAt), Date.now())).toISOString();
    await this.configs.put(config, keepUntilOf(from));
    await this.engine.apply(
      { tenant: caller.tenant, taskId: record.head.taskId },
      { type: 'push_config', data: { set: id } },
      { seen: record },
    );
    return summaryOf(config);
  }

  /**
   * A config sent inline with a message (SendMessage `configuration.taskPushNotificationConfig`): its URL
   * checked now; the task service registers it in the write that creates or continues the task.
   */
  inline(input: NewPushConfig, version: StoredPushConfig['version']): InlinePushConfig {
    const checked = this.urls.check(input.url);
    if (!checked.ok) throw new ValidationError(`push notification url refused: ${checked.reason}`, 'url');
    refuseReserved(input.id);
    return { config: { ...input, url: checked.url }, version };
  }

  /** One config; `id` absent (a v0.3 get) names the task's first. A config not listed is not found. */
  async get(caller: Caller, taskId: string, id: string | undefined): Promise<PushConfigSummary> {
    const record = await this.tasks.owned(caller, taskId);
    const ids = record.head.pushConfigIds ?? [];
    const wanted = id ?? ids[0];
    if (wanted === undefined || !ids.includes(wanted)) throw new PushConfigNotFoundError(taskId, id);
    const [config] = await this.configs.get(caller.tenant, record.head.taskId, [wanted]);
    if (!config) throw new PushConfigNotFoundError(taskId, id);
    return summaryOf(config);
  }

  /** Every config of the task (at most MAX_PUSH_CONFIGS_PER_TASK: one page), oldest first. */
  async list(caller: Caller, taskId: string): Promise<PushConfigSummary[]> {
    const record = await this.tasks.owned(caller, taskId);
    const ids = record.head.pushConfigIds ?? [];
    if (ids.length === 0) return [];
    return (await this.configs.get(caller.tenant, record.head.taskId, ids)).map(summaryOf);
  }

  /** Removes a config; idempotent (removing one that is not there succeeds). */
  async delete(caller: Caller, taskId: string, id: string): Promise<void> {
    const record = await this.tasks.owned(caller, taskId);
    if (!(record.head.pushConfigIds ?? []).includes(id)) return;
    // a finished task has nothing more to send it: its list needs no event (a delivery still on its
    // way finds the config gone)
    if (!isTerminal(record.head.state)) {
      try {
        await this.engine.apply(
          { tenant: caller.tenant, taskId: record.head.taskId },
          { type: 'push_config', data: { deleted: id } },
          { seen: record },
        );
      } catch (e) {
        if (!(e instanceof InvalidTransitionError)) throw e;
      }
    }
    await this.configs.remove(caller.tenant, record.head.taskId, id);
  }
}

/** A config that is not (or no longer) registered: A2A answers TaskNotFoundError, as for an unknown task. */
export class PushConfigNotFoundError extends TaskNotFoundError {
  constructor(
    taskId: string,
    readonly configId: string | undefined,
  ) {
    super(taskId);
    this.message = configId
      ? `Push notification config ${configId} not found for task ${taskId}`
      : `Task ${taskId} has no push notification config`;
  }
}
