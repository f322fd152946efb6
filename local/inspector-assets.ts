/**
 * The inspector page the local hub serves (docs/inspector.md): built from its sources once per process
 * into a temporary folder (removed at exit), as the CDK stack builds it for the inspector function; an
 * installed package, which ships the page built (dist/inspector) and not its sources, serves that.
 */
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../infra/bundling.ts';

/** The page built by `npm run build` into the package (scripts/build-package.ts). */
export const PACKAGED_INSPECTOR_DIR = join(PROJECT_ROOT, 'dist', 'inspector');

const SOURCES = join(PROJECT_ROOT, 'inspector', 'page');

let built: Promise<string> | undefined;

/** The folder of the built page: INSPECTOR_ASSETS_DIR of the hub's inspector function. */
export const localInspectorAssets = (): Promise<string> => {
  if (!existsSync(SOURCES) && existsSync(join(PACKAGED_INSPECTOR_DIR, 'index.html')))
    return Promise.resolve(PACKAGED_INSPECTOR_DIR);
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'synapse-inspector-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // by its path, not a literal specifier: a bundle of the local hub (`synapse dev`, cli/build.ts) serves the
    // page the package ships built and carries no page build of its own
    const { buildInspector }: typeof import('../inspector/build.ts') = await import(
      pathToFileURL(join(PROJECT_ROOT, 'inspector', 'build.ts')).href
    );
    await buildInspector(dir);
    return dir;
  })().catch((e) => {
    built = undefined;
    throw e;
  });
  return built;
};
