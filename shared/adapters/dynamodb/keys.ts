import { createHash } from 'node:crypto';
/** Key construction for the single table (see table.ts for the item layout). */
import { DEADLINE_SHARDS } from './table.ts';

const VERSION_WIDTH = 10;

export const pad = (version: number): string => String(version).padStart(VERSION_WIDTH, '0');

export const taskPk = (taskId: string): string => `TASK#${taskId}`;
export const HEAD_SK = 'HEAD';
export const eventSk = (version: number): string => `EVT#${pad(version)}`;
export const EVENT_SK_MAX = `EVT#${'9'.repeat(VERSION_WIDTH)}`;
export const messageKindSk = (version: number): string => `MSG#${pad(version)}`;
export const artifactKindSk = (version: number): string => `ART#${pad(version)}`;

/** Hashed: sender and message ids are client strings whose encoded length could pass DynamoDB's key limit. */
export const dedupPk = (tenant: string, scope: string, messageId: string): string =>
  `DEDUP#${encodeURIComponent(tenant)}#${createHash('sha256').update(scope).update('\0').update(messageId).digest('base64url')}`;
export const DEDUP_SK = 'DEDUP';

export const contextPk = (tenant: string, contextId: string): string =>
  `${encodeURIComponent(tenant)}#${contextId}`;
export const ownerPk = (tenant: string, owner: string): string =>
  `${encodeURIComponent(tenant)}#${encodeURIComponent(owner)}`;
export const statusSk = (statusAt: string, taskId: string): string => `${statusAt}#${taskId}`;

/** Spread tasks over DEADLINE_SHARDS partitions by a stable hash of the id. */
export const deadlineShard = (taskId: string): number => {
  let h = 0;
  for (let i = 0; i < taskId.length; i++) h = (h * 31 + taskId.charCodeAt(i)) >>> 0;
  return h % DEADLINE_SHARDS;
};
export const deadlinePk = (shard: number): string => `DL#${shard}`;
export const deadlineSk = (deadlineAt: string, taskId: string): string => `${deadlineAt}#${taskId}`;

export const outboxPk = (shard: number): string => `OUTBOX#${shard}`;
