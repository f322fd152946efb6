/**
 * The registry's catalog as the remote-skill resolver reads it (./remote-skills.ts): the live entries a
 * caller may see (`visibleTo`, as search shows them) whose card declares a skill, unreachable ones left
 * out (docs/registry.md#health). Read from the catalog this container holds, kept current from the
 * store's feed (../registry/discovery.ts).
 */
import type { Caller } from '../../domain/caller.ts';
import type { CatalogEntry } from '../../domain/registry/record.ts';
import { PAGE_SIZE } from '../registry/catalog-index.ts';
import { type Catalog, visibleTo } from '../registry/discovery.ts';
import type { SkillCatalog } from './remote-skills.ts';

/** At most this many candidates are weighed for one skill. */
export const MAX_SKILL_CANDIDATES = 1_000;

export class CatalogSkills implements SkillCatalog {
  constructor(private readonly catalog: Pick<Catalog, 'current'>) {}

  async declaring(skill: string, caller: Caller): Promise<readonly CatalogEntry[]> {
    const index = await this.catalog.current();
    const found: CatalogEntry[] = [];
    let pageToken: string | undefined;
    do {
      const page = index.browse({
        filter: { 'skills.id': [skill] },
        visibleTo: visibleTo(caller),
        pageSize: PAGE_SIZE.max,
        ...(pageToken ? { pageToken } : {}),
      });
      found.push(...page.items);
      pageToken = page.pageToken;
    } while (pageToken && found.length < MAX_SKILL_CANDIDATES);
    return found.slice(0, MAX_SKILL_CANDIDATES);
  }
}
