/** Key construction for the single table (see table.ts for the item layout). */
import { type SynapseState, toA2AState } from '../../domain/states.ts';
import { CONTEXT_SHARDS, DEADLINE_SHARDS, OWNER_SHARDS } from './table.ts';

const VERSION_WIDTH = 10;

export const pad = (version: number): string => String(version).padStart(VERSION_WIDTH, '0');

/**
 * Key parts (the tenant of a task partition, the tenant, owner and context id of index keys) are encoded
 * so a '#' inside one cannot forge another key. A lone surrogate (refused at the edge; never in a key) is
 * written as `%u<hex>` rather than throwing.
 */
const part = (s: string): string => {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c >= 0xd800 && c <= 0xdfff ? `%u${c.toString(16)}` : encodeURIComponent(ch);
  }
  return out;
};

/** `part`'s inverse: `%u<hex>` is only ever a lone surrogate (`%` itself is written `%25`). */
const unpart = (s: string): string =>
  s
    .split(/(%u[0-9a-f]{4})/)
    .map((piece) =>
      piece.startsWith('%u')
        ? String.fromCharCode(Number.parseInt(piece.slice(2), 16))
        : decodeURIComponent(piece),
    )
    .join('');

export const TASK_PREFIX = 'T#';
export const TASK_SK = 'T';

/** A task as its partition key names it. */
export interface TaskKeyRef {
  tenant: string;
  taskId: string;
}

/**
 * A task's partition: `T#<tenant>#<taskId>`, the tenant encoded (`part`: it holds no `#`, so the first `#`
 * after it ends it, and the task id may hold any character). Scoping is part of the key: every read is
 * addressed to the caller's tenant's partition, so another tenant's task under the same id is another
 * item, never read. A reply (a message answered without a task) is under the key its task would have had.
 */
export const taskPk = (tenant: string, taskId: string): string => `${TASK_PREFIX}${part(tenant)}#${taskId}`;

/** The tenant and task id a task partition key names (`taskPk`'s inverse); throws on any other key. */
export const taskRefOfPk = (pk: string): TaskKeyRef => {
  const end = pk.indexOf('#', TASK_PREFIX.length);
  if (!pk.startsWith(TASK_PREFIX) || end < 0) throw new Error(`not a task partition key: ${pk.slice(0, 80)}`);
  return { tenant: unpart(pk.slice(TASK_PREFIX.length, end)), taskId: pk.slice(end + 1) };
};
export const taskIdOfPk = (pk: string): string => taskRefOfPk(pk).taskId;

/** Where spilled events go: messages (the history), artifact chunks, and every other event. */
export type ChunkKind = 'M' | 'A' | 'S';
export const chunkSk = (kind: ChunkKind, lastVersion: number): string => `${kind}#${pad(lastVersion)}`;
/** Bodies are fetched by exact key (never ranged over), so their version needs no padding. */
export const bodySk = (version: number, ref: string): string => `B#${version}#${ref}`;

/** A stable hash of a task id into `shards` buckets. */
export const shardOf = (taskId: string, shards: number): number => {
  let h = 0;
  for (let i = 0; i < taskId.length; i++) h = (h * 31 + taskId.charCodeAt(i)) >>> 0;
  return h % shards;
};

/**
 * byOwner partition: one per caller, A2A state and shard, so a status filter reads that state's shards
 * only, and one busy caller's writes spread over OWNER_SHARDS partitions (docs/scaling.md).
 */
export const ownerPartition = (tenant: string, owner: string, state: SynapseState, shard: number): string =>
  `${part(tenant)}#${part(owner)}#${toA2AState(state).replace('TASK_STATE_', '')}#${shard}`;
export const ownerShard = (taskId: string): number => shardOf(taskId, OWNER_SHARDS);
/** A sort key made unique by the task id: one cursor is a position valid in every partition and shard. */
export const ownerSort = (statusAt: string, taskId: string): string => `${statusAt}#${taskId}`;
export const statusAtOfOwnerSort = (os: string): string => os.slice(0, os.indexOf('#'));

/** byContext partition: the caller's tasks in one context, spread over CONTEXT_SHARDS partitions. */
export const contextPartition = (tenant: string, owner: string, contextId: string, shard: number): string =>
  `${part(tenant)}#${part(owner)}#${part(contextId)}#${shard}`;
export const contextShard = (taskId: string): number => shardOf(taskId, CONTEXT_SHARDS);
/** byContext sort key: creation time, made unique by the task id. */
export const contextSort = ownerSort;

/** Spread live tasks over DEADLINE_SHARDS partitions by a stable hash of the id. */
export const deadlineShard = (taskId: string): number => shardOf(taskId, DEADLINE_SHARDS);
export const deadlinePartition = (shard: number): string => `D#${shard}`;

/** The partition of one registry record (table.ts): its record, versions, catalog entry and health report. */
export const registryPk = (tenant: string, recordId: string): string => `R#${part(tenant)}#${part(recordId)}`;
/** byRegistry's partition of a tenant's records. */
export const registryTenantGp = (tenant: string): string => `R#${part(tenant)}`;
/** The item saying which record holds a registry identifier. */
export const registryIdentifierPk = (identifier: string): string => `RI#${part(identifier)}`;
