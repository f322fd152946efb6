/**
 * The remote-skill resolver's catalog (shared/app/synapse/registry-skills.ts): entries held by the skill
 * ids their cards declare; a new version moves an entry between skills, a retirement takes it out, an
 * unreachable one is left out, and a caller sees only what visibility lets it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatalogEntries } from '../../../../shared/app/registry/catalog.ts';
import { SkillDirectory } from '../../../../shared/app/synapse/registry-skills.ts';
import type { CatalogEntry } from '../../../../shared/domain/registry/record.ts';
import { catalogEntry } from '../../../support/catalog-entry.ts';

const entry = (id: string, skills: string[], overrides: Partial<CatalogEntry> = {}): CatalogEntry =>
  catalogEntry(
    id,
    {
      name: id.toUpperCase(),
      skills: skills.map((s) => ({ id: s, name: s, description: s, tags: [] })),
    } as never,
    overrides,
  );

const alice = { tenant: 'acme', owner: 'alice' };
const ids = (list: readonly CatalogEntry[]) => list.map((e) => e.id);

describe('SkillDirectory', () => {
  it('finds the entries declaring a skill, by name then id, and follows each change', () => {
    const directory = new SkillDirectory();
    directory.upsert(entry('b', ['weather', 'tides']));
    directory.upsert(entry('a', ['weather']));
    assert.deepEqual(ids(directory.declaring('weather', alice)), ['a', 'b']);
    assert.deepEqual(ids(directory.declaring('tides', alice)), ['b']);
    assert.deepEqual(ids(directory.declaring('surf', alice)), []);

    directory.upsert(entry('b', ['surf'], { version: 2 }));
    assert.deepEqual(ids(directory.declaring('tides', alice)), [], 'a skill the new card dropped');
    assert.deepEqual(ids(directory.declaring('weather', alice)), ['a']);
    assert.deepEqual(ids(directory.declaring('surf', alice)), ['b']);

    directory.upsert(entry('a', ['weather'], { health: 'unreachable' }));
    assert.deepEqual(ids(directory.declaring('weather', alice)), [], 'unreachable is left out');
    directory.upsert(entry('a', ['weather'], { health: 'degraded' }));
    assert.deepEqual(ids(directory.declaring('weather', alice)), ['a'], 'degraded stays');

    directory.upsert(entry('b', ['surf'], { state: 'DEPRECATED' }));
    assert.deepEqual(ids(directory.declaring('surf', alice)), [], 'a retirement takes it out');
  });

  it('shows a caller only what it may see: public, its tenant’s, its own private', () => {
    const directory = new SkillDirectory();
    directory.upsert(entry('pub', ['s']));
    directory.upsert(entry('ten', ['s'], { visibility: 'tenant' }));
    directory.upsert(entry('mine', ['s'], { visibility: 'private' }));
    directory.upsert(entry('theirs', ['s'], { visibility: 'private', owner: 'bob' }));
    directory.upsert(entry('other', ['s'], { visibility: 'tenant', tenant: 'globex' }));
    assert.deepEqual(ids(directory.declaring('s', alice)), ['mine', 'pub', 'ten']);
    assert.deepEqual(ids(directory.declaring('s', { tenant: 'globex', owner: 'carol' })), ['other', 'pub']);
  });
});

describe('CatalogEntries', () => {
  it('holds the live entries by id: an upsert replaces, a retirement removes', () => {
    const held = new CatalogEntries();
    held.upsert(entry('a', ['s']));
    held.upsert(entry('b', ['s']));
    held.upsert(entry('a', ['t'], { version: 2 }));
    assert.equal(held.size, 2);
    assert.equal([...held.entries()].find((e) => e.id === 'a')?.version, 2);
    held.upsert(entry('b', ['s'], { state: 'DEPRECATED' }));
    assert.deepEqual(ids([...held.entries()]), ['a']);
  });
});
