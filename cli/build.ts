/**
 * The `synapse` command line as one ESM file (esbuild, the options the functions use: infra/bundling.ts),
 * so that it starts without compiling TypeScript: what the package ships as its bin, and what the tests run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE, ESM_REQUIRE_BANNER, PROJECT_ROOT } from '../infra/bundling.ts';

export const CLI_ENTRY = join(PROJECT_ROOT, 'cli', 'main.ts');

const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Bundles the CLI to `outfile`; its size in bytes. */
export async function buildCli(outfile: string): Promise<number> {
  const result = await build({
    entryPoints: [CLI_ENTRY],
    outfile,
    bundle: true,
    platform: BUNDLE.platform,
    format: BUNDLE.format,
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    sourcemap: false,
    mainFields: [...BUNDLE.mainFields],
    banner: { js: ESM_REQUIRE_BANNER },
    define: { SYNAPSE_VERSION: JSON.stringify(packageVersion()) },
    metafile: true,
    logLevel: 'warning',
  });
  return Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
}
