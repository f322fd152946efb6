/**
 * Who reads what: only shared/config/environment.ts touches process.env (in shared/, functions/ and
 * local/), and each function's bundle, built as deployed (infra/bundling.ts), carries exactly the
 * declarations of the settings it is declared to read: the authorizer's carries no delivery setting,
 * no bundle the catalog or the local runtime's.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import {
  esbuildBuildOptions,
  functionEntry,
  functionEntryIds,
  PROJECT_ROOT,
} from '../../../infra/bundling.ts';
import { ALL_SETTINGS, CONCERNS } from '../../../shared/config/catalog.ts';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));

describe('the process environment', () => {
  it('is read in shared/, functions/ and local/ by shared/config/environment.ts alone', () => {
    const readers = ['shared', 'functions', 'local']
      .flatMap((dir) => sourceFiles(join(PROJECT_ROOT, dir)))
      .filter((file) => readFileSync(file, 'utf8').includes('process.env'))
      .map((file) => relative(PROJECT_ROOT, file));
    assert.deepEqual(readers, ['shared/config/environment.ts']);
  });
});

describe('bundles and their settings', () => {
  /** Every function entry (functions/*.ts). */
  const FUNCTIONS = functionEntryIds();
  /** Per function: its bundle's code (its names kept, so declarations can be found). */
  const code = new Map<string, string>();

  before(async () => {
    const {
      outfile: _,
      entryPoints: __,
      sourcemap: ___,
      ...options
    } = esbuildBuildOptions(FUNCTIONS[0]!, 'index.mjs');
    const result = await build({
      ...options,
      entryPoints: Object.fromEntries(FUNCTIONS.map((fn) => [fn, functionEntry(fn)])),
      outdir: join(PROJECT_ROOT, '.bundles-under-test'),
      // as deployed but for the names, so a declaration can be told by its name
      minify: false,
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: false,
      write: false,
      logLevel: 'error',
    });
    for (const file of result.outputFiles) {
      const fn = basename(file.path).replace(/\.m?js$/, '');
      if (FUNCTIONS.includes(fn)) code.set(fn, file.text);
    }
    assert.equal(code.size, FUNCTIONS.length);
  });

  /** Whether the bundle declares the setting (esbuild keeps a top-level name, or numbers it: NAME2). */
  const declares = (text: string, name: string): boolean =>
    new RegExp(`\\b${name}\\d*\\s*=\\s*\\{`).test(text);

  it("carry the declarations of exactly the settings their functions read (a setting's readBy)", () => {
    for (const fn of FUNCTIONS) {
      const text = code.get(fn)!;
      const carried = ALL_SETTINGS.filter((s) => declares(text, s.name)).map((s) => s.name);
      const read = ALL_SETTINGS.filter((s) => (s.readBy as readonly string[]).includes(fn)).map(
        (s) => s.name,
      );
      assert.deepEqual(carried.sort(), read.sort(), fn);
    }
  });

  it("the authorizer's carries no setting of deliveries, push, Synapse or the A2A endpoints; none the catalog", () => {
    const others = CONCERNS.filter((c) =>
      ['delivery.ts', 'push.ts', 'synapse.ts', 'a2a.ts'].includes(c.file),
    );
    for (const s of others.flatMap((c) => c.settings))
      assert.ok(!declares(code.get('authorizer')!, s.name), `the authorizer carries ${s.name}`);
    for (const [fn, text] of code) assert.ok(!text.includes('configurationDoc'), `${fn} carries the catalog`);
  });
});
