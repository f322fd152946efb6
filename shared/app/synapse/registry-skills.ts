/**
 * The registry's catalog as the remote-skill resolver reads it (./remote-skills.ts): the live entries a
 * caller may see (`visibleTo`, as search shows them) whose card declares a skill, unreachable ones left
 * out (docs/registry.md#health). Held by skill id, kept current from the store's feed
 * (../registry/catalog.ts); no full-text index, so a function that routes messages loads none.
 */
import type { Caller } from '../../domain/caller.ts';
import type { CatalogEntry } from '../../domain/registry/record.ts';
import { visibleTo } from '../../domain/registry/visibility.ts';
import type { Catalog, CatalogHolder } from '../registry/catalog.ts';
import type { SkillCatalog } from './remote-skills.ts';

/** At most this many candidates are weighed for one skill. */
export const MAX_SKILL_CANDIDATES = 1_000;

/** The live entries by the skill ids their cards declare. */
export class SkillDirectory implements CatalogHolder {
  readonly #bySkill = new Map<string, Map<string, CatalogEntry>>();
  readonly #skillsOf = new Map<string, readonly string[]>();

  upsert(entry: CatalogEntry): void {
    for (const skill of this.#skillsOf.get(entry.id) ?? []) this.#bySkill.get(skill)?.delete(entry.id);
    this.#skillsOf.delete(entry.id);
    if (entry.state === 'DEPRECATED') return;
    const skills = [...new Set(entry.card.skills.map((s) => s.id))];
    this.#skillsOf.set(entry.id, skills);
    for (const skill of skills) {
      const entries = this.#bySkill.get(skill) ?? new Map<string, CatalogEntry>();
      entries.set(entry.id, entry);
      this.#bySkill.set(skill, entries);
    }
  }

  /** The entries declaring `skill` that `caller` may see, not unreachable, by name then id; at most {@link MAX_SKILL_CANDIDATES}. */
  declaring(skill: string, caller: Caller): CatalogEntry[] {
    const maySee = visibleTo(caller);
    const found: CatalogEntry[] = [];
    for (const entry of this.#bySkill.get(skill)?.values() ?? []) {
      if (entry.health !== 'unreachable' && maySee(entry)) found.push(entry);
    }
    return found.sort(byNameThenId).slice(0, MAX_SKILL_CANDIDATES);
  }
}

const byNameThenId = (a: CatalogEntry, b: CatalogEntry): number =>
  a.card.name < b.card.name ? -1 : a.card.name > b.card.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The skill catalog over the container's catalog of skills. */
export class CatalogSkills implements SkillCatalog {
  constructor(private readonly catalog: Pick<Catalog<SkillDirectory>, 'current'>) {}

  async declaring(skill: string, caller: Caller): Promise<readonly CatalogEntry[]> {
    return (await this.catalog.current()).declaring(skill, caller);
  }
}
