/**
 * DeliveryLog in memory: the twin of DynamoDeliveryLog (shared/adapters/dynamodb/delivery-log.ts; contract:
 * test/contract/delivery-log.ts). An attempt is identified by its task, event version, config, round and
 * attempt number: a claim records it `sending` unless it is recorded already (a `released` one may be
 * claimed again), an outcome is recorded only over the claim it names while that is still `sending` (a
 * takeover's also over that claim given back since), and a
 * task's log lists in the order the DynamoDB sort key gives (version, config, round, attempt).
 */
import type { ClaimResult, DeliveryAttempt, DeliveryLog } from '../../ports/delivery-log.ts';
import { stored } from './json.ts';

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

/** The position of an attempt in its task's log (the DynamoDB adapter's sort key, less its prefix). */
const positionOf = (a: Pick<DeliveryAttempt, 'version' | 'configId' | 'redrive' | 'attempt'>): string =>
  `${pad(a.version, 10)}#${a.configId}#${pad(a.redrive, 3)}#${pad(a.attempt, 3)}`;

const taskKey = (tenant: string, taskId: string): string => JSON.stringify([tenant, taskId]);

export class InMemoryDeliveryLog implements DeliveryLog {
  /** Per task, its attempts by position. */
  readonly #tasks = new Map<string, Map<string, DeliveryAttempt>>();

  async claim(attempt: DeliveryAttempt): Promise<ClaimResult> {
    const log = this.#logOf(attempt.tenant, attempt.taskId, true);
    const position = positionOf(attempt);
    const existing = log.get(position);
    if (existing && existing.status !== 'released') return { claimed: false, existing: stored(existing) };
    log.set(position, stored(attempt));
    return { claimed: true };
  }

  async finish(attempt: DeliveryAttempt): Promise<boolean> {
    const log = this.#logOf(attempt.tenant, attempt.taskId, false);
    const position = positionOf(attempt);
    const existing = log?.get(position);
    if (!log || existing?.status !== 'sending' || existing.claim !== attempt.claim) return false;
    log.set(position, stored(attempt));
    return true;
  }

  async interrupt(attempt: DeliveryAttempt): Promise<boolean> {
    const log = this.#logOf(attempt.tenant, attempt.taskId, false);
    const position = positionOf(attempt);
    const existing = log?.get(position);
    const held = existing?.status === 'sending' || existing?.status === 'released';
    if (!log || !held || existing.claim !== attempt.claim) return false;
    log.set(position, stored(attempt));
    return true;
  }

  async list(tenant: string, taskId: string): Promise<DeliveryAttempt[]> {
    const log = this.#logOf(tenant, taskId, false);
    if (!log) return [];
    return [...log].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, attempt]) => stored(attempt));
  }

  #logOf(tenant: string, taskId: string, create: true): Map<string, DeliveryAttempt>;
  #logOf(tenant: string, taskId: string, create: false): Map<string, DeliveryAttempt> | undefined;
  #logOf(tenant: string, taskId: string, create: boolean): Map<string, DeliveryAttempt> | undefined {
    const key = taskKey(tenant, taskId);
    let log = this.#tasks.get(key);
    if (!log && create) {
      log = new Map();
      this.#tasks.set(key, log);
    }
    return log;
  }
}
