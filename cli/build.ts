/**
 * The `synapse` command line as ESM (esbuild, the options the functions use: infra/bundling.ts), so that it
 * starts without compiling TypeScript: what the package ships as its bin, and what the tests run. Split
 * into chunks: what only some commands need (an interactive session, the local runtime) is imported by
 * them, so `synapse --version` and `synapse card get` do not parse it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { esbuildEntryBuildOptions, PROJECT_ROOT } from '../infra/bundling.ts';

export const CLI_ENTRY = join(PROJECT_ROOT, 'cli', 'bin.ts');

/** The file the bin runs, in the directory `buildCli` writes. */
export const CLI_BIN = 'synapse.mjs';

const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export interface CliBundle {
  /** The file to run: `node <bin>`. */
  bin: string;
  /** Bytes every command but `--version` parses: cli/main.ts's chunk and what it imports statically. */
  entryBytes: number;
  /** Bytes of all files written. */
  totalBytes: number;
  /** The source files in what every command but `--version` parses (paths relative to the project). */
  entryInputs: string[];
}

/** Bundles the CLI into `outdir`. */
export async function buildCli(outdir: string): Promise<CliBundle> {
  const { outfile: _, ...options } = esbuildEntryBuildOptions(CLI_ENTRY, join(outdir, CLI_BIN));
  const result = await build({
    ...options,
    entryPoints: { synapse: CLI_ENTRY },
    outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    // no map beside a command people run; the version is known when it is built
    sourcemap: false,
    define: { SYNAPSE_VERSION: JSON.stringify(packageVersion()) },
    metafile: true,
  });
  const outputs = result.metafile.outputs;
  const main = Object.keys(outputs).find((file) => outputs[file]?.entryPoint?.endsWith('cli/main.ts'));
  const parsed = new Set<string>();
  const visit = (file: string | undefined) => {
    if (file === undefined || parsed.has(file)) return;
    parsed.add(file);
    for (const i of outputs[file]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
  };
  visit(main);
  const bytesOf = (files: Iterable<string>) =>
    [...files].reduce((sum, f) => sum + (outputs[f]?.bytes ?? 0), 0);
  return {
    bin: join(outdir, CLI_BIN),
    entryBytes: bytesOf(parsed),
    totalBytes: bytesOf(Object.keys(outputs)),
    entryInputs: [...parsed].flatMap((f) => Object.keys(outputs[f]?.inputs ?? {})),
  };
}
