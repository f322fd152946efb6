/**
 * docs/configuration.md is what the declarations in shared/config/ make (`npm run docs:config` writes
 * it), and the catalog it is made from holds every declaration once, each read by functions that exist.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFIGURATION_DOC } from '../../../scripts/config-doc.ts';
import { ALL_SETTINGS, CONCERNS, configurationDoc } from '../../../shared/config/catalog.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** The files of shared/config/ that declare no setting: the machinery and the catalog. */
const MACHINERY = new Set(['settings.ts', 'environment.ts', 'catalog.ts']);

describe('docs/configuration.md', () => {
  it('is the page the declarations make (run `npm run docs:config` when they differ)', () => {
    assert.equal(readFileSync(CONFIGURATION_DOC, 'utf8'), configurationDoc());
  });

  it('lists every file of shared/config/ that declares settings', () => {
    const files = readdirSync(join(ROOT, 'shared', 'config')).filter((f) => !MACHINERY.has(f));
    assert.deepEqual(CONCERNS.map((c) => c.file).sort(), files.sort());
    for (const c of CONCERNS) assert.ok(c.settings.length > 0, `${c.file} declares settings`);
  });

  it('names each variable once, each with a line of doc and its readers, all of them real', () => {
    const names = ALL_SETTINGS.map((s) => s.name);
    assert.equal(new Set(names).size, names.length, 'each variable declared once');
    for (const s of ALL_SETTINGS) {
      assert.match(s.name, /^[A-Z][A-Z0-9_]*$/);
      assert.ok(s.doc.length > 0 && !s.doc.includes('\n'), `${s.name}: one line of doc`);
      assert.ok(s.readBy.length > 0, `${s.name}: read by someone`);
      for (const reader of s.readBy)
        assert.ok(
          reader === 'npm start' || existsSync(join(ROOT, 'functions', `${reader}.ts`)),
          `${s.name}: ${reader} is a function`,
        );
    }
  });
});
