/**
 * The inspector page the local hub serves (docs/inspector.md): built from its sources once per process
 * into a temporary folder (removed at exit), as the CDK stack builds it for the inspector function; an
 * installed package, which ships the page built (dist/inspector) and not its sources, serves that.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { INSPECTOR_BUILD, packagedInspectorDir } from '../infra/bundling.ts';

let built: Promise<string> | undefined;

/** The folder of the built page: INSPECTOR_ASSETS_DIR of the hub's inspector function. */
export const localInspectorAssets = (): Promise<string> => {
  const packaged = packagedInspectorDir();
  if (packaged) return Promise.resolve(packaged);
  built ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'synapse-inspector-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    // by its path, not a literal specifier: a bundle of the local hub (`synapse dev`, cli/build.ts) serves the
    // page the package ships built and carries no page build of its own
    const { buildInspector }: typeof import('../inspector/build.ts') = await import(
      pathToFileURL(INSPECTOR_BUILD).href
    );
    await buildInspector(dir);
    return dir;
  })().catch((e) => {
    built = undefined;
    throw e;
  });
  return built;
};
