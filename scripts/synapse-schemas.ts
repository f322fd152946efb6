/**
 * `npx tsx scripts/synapse-schemas.ts`: writes the Synapse P2P JSON Schemas (generated from the zod
 * schemas the hub validates with, shared/protocol/synapse/json-schema.ts) to docs/synapse-schemas/,
 * formatted by Biome like the rest of the tree. `--check` writes nothing and exits 1 when the
 * committed files differ from what the schemas generate (test/unit/protocol/synapse/json-schema.test.ts
 * checks the same).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { synapseSchemaFiles } from '../shared/protocol/synapse/json-schema.ts';

export const SCHEMA_DIR = join(import.meta.dirname, '..', 'docs', 'synapse-schemas');

const listJson = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.json'))
      .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'));
  } catch {
    return [];
  }
};

/** Paths (under SCHEMA_DIR) that are missing, stale or extra. */
export function staleSchemaFiles(dir = SCHEMA_DIR): string[] {
  const files = synapseSchemaFiles();
  const stale = Object.entries(files)
    .filter(([path, schema]) => {
      try {
        return !isDeepStrictEqual(JSON.parse(readFileSync(join(dir, path), 'utf8')), schema);
      } catch {
        return true;
      }
    })
    .map(([path]) => path);
  const extra = listJson(dir).filter((path) => !Object.hasOwn(files, path));
  return [...stale, ...extra].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  if (values.check) {
    const stale = staleSchemaFiles();
    if (stale.length > 0) {
      console.error(`docs/synapse-schemas is out of date: ${stale.join(', ')}`);
      console.error('run: npx tsx scripts/synapse-schemas.ts');
      process.exit(1);
    }
    console.log('docs/synapse-schemas is up to date');
  } else {
    rmSync(SCHEMA_DIR, { recursive: true, force: true });
    const files = synapseSchemaFiles();
    for (const [path, schema] of Object.entries(files)) {
      const target = join(SCHEMA_DIR, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
    }
    const biome = spawnSync('npx', ['biome', 'format', '--write', SCHEMA_DIR], { stdio: 'inherit' });
    if (biome.status !== 0) process.exit(biome.status ?? 1);
    console.log(
      `wrote ${Object.keys(files).length} schemas to ${relative(process.cwd(), SCHEMA_DIR) || '.'}`,
    );
  }
}
