/** Key construction for the single table (see table.ts for the item layout). */
import { type SynapseState, toA2AState } from '../../domain/states.ts';
import { CONTEXT_SHARDS, DEADLINE_SHARDS, OWNER_SHARDS } from './table.ts';

const VERSION_WIDTH = 10;

export const pad = (version: number): string => String(version).padStart(VERSION_WIDTH, '0');

export const TASK_PREFIX = 'T#';
export const taskPk = (taskId: string): string => `${TASK_PREFIX}${taskId}`;
export const taskIdOfPk = (pk: string): string => pk.slice(TASK_PREFIX.length);
export const TASK_SK = 'T';

/** Where spilled events go: messages (the history), artifact chunks, and every other event. */
export type ChunkKind = 'M' | 'A' | 'S';
export const CHUNK_KINDS: readonly ChunkKind[] = ['M', 'A', 'S'];
export const chunkSk = (kind: ChunkKind, lastVersion: number): string => `${kind}#${pad(lastVersion)}`;
/** Bodies are fetched by exact key (never ranged over), so their version needs no padding. */
export const bodySk = (version: number, ref: string): string => `B#${version}#${ref}`;

/**
 * Index key parts are encoded so a '#' inside a tenant, owner or context id cannot forge another key.
 * A lone surrogate (refused at the edge; never in a key) is written as `%u<hex>` rather than throwing.
 */
const part = (s: string): string => {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c >= 0xd800 && c <= 0xdfff ? `%u${c.toString(16)}` : encodeURIComponent(ch);
  }
  return out;
};

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
