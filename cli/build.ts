/**
 * The `synapse` command line as one ESM file (esbuild, the options the functions use: infra/bundling.ts),
 * so that it starts without compiling TypeScript: what the package ships as its bin, and what the tests run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildEntryBuildOptions, PROJECT_ROOT } from '../infra/bundling.ts';

export const CLI_ENTRY = join(PROJECT_ROOT, 'cli', 'main.ts');

const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Bundles the CLI to `outfile`; its size in bytes. */
export async function buildCli(outfile: string): Promise<number> {
  const result = await build({
    ...esbuildEntryBuildOptions(CLI_ENTRY, outfile),
    // no map beside a command people run; the version is known when it is built
    sourcemap: false,
    define: { SYNAPSE_VERSION: JSON.stringify(packageVersion()) },
    metafile: true,
  });
  return Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
}
