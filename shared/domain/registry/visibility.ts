/**
 * Who may see a catalog entry (docs/registry.md#visibility): a `public` entry everyone, a `tenant` one
 * its tenant, a `private` one its owner. One rule for search, browse, explore and skill resolution.
 */
import type { Caller } from '../caller.ts';
import type { CatalogEntry } from './record.ts';

/** Who may see an entry: the caller's rule. */
export type VisibleTo = (entry: CatalogEntry) => boolean;

/** What `caller` (a principal, or a task's caller: its tenant and owner) may find (none given: the public only). */
export const visibleTo =
  (caller?: Caller): VisibleTo =>
  (entry) =>
    entry.visibility === 'public' ||
    (caller !== undefined &&
      entry.tenant === caller.tenant &&
      (entry.visibility === 'tenant' || entry.owner === caller.owner));

/** What `visibleTo(caller)` depends on: callers of one tenant and owner see alike (a cache key). */
export const visibilityKeyOf = (caller?: Caller): string =>
  caller ? `${caller.tenant}\u0000${caller.owner}` : '';
