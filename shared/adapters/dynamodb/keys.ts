/** Key construction for the single table (see table.ts for the item layout). */
import { type SynapseState, toA2AState } from '../../domain/states.ts';
import { DEADLINE_SHARDS } from './table.ts';

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

// Index key parts are encoded so a '#' inside a tenant, owner or context id cannot forge another key.
const part = encodeURIComponent;

/** byOwner partition: one per caller and A2A state, so a status filter reads one partition. */
export const ownerPartition = (tenant: string, owner: string, state: SynapseState): string =>
  `${part(tenant)}#${part(owner)}#${toA2AState(state).replace('TASK_STATE_', '')}`;
/** byOwner sort key: status time, made unique by the task id (a stable cursor across partitions). */
export const ownerSort = (statusAt: string, taskId: string): string => `${statusAt}#${taskId}`;
export const statusAtOfOwnerSort = (os: string): string => os.slice(0, os.indexOf('#'));

/** byContext partition: the caller's tasks in one context. */
export const contextPartition = (tenant: string, owner: string, contextId: string): string =>
  `${part(tenant)}#${part(owner)}#${part(contextId)}`;

/** Spread live tasks over DEADLINE_SHARDS partitions by a stable hash of the id. */
export const deadlineShard = (taskId: string): number => {
  let h = 0;
  for (let i = 0; i < taskId.length; i++) h = (h * 31 + taskId.charCodeAt(i)) >>> 0;
  return h % DEADLINE_SHARDS;
};
export const deadlinePartition = (shard: number): string => `D#${shard}`;
