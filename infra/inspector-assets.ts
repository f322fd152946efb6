/**
 * The inspector page the CDK stack deploys beside the inspector function's bundle (docs/inspector.md):
 * built from its sources when the function is bundled (a child process: a construct is synchronous and
 * esbuild's build is not), or, in an installed package, the page it ships built (dist/inspector).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from './bundling.ts';

const SOURCES = join(PROJECT_ROOT, 'inspector', 'page');
const PACKAGED = join(PROJECT_ROOT, 'dist', 'inspector');

let built: string | undefined;

/** The folder of the built page (built once per synth). */
export const inspectorAssetsForBundling = (): string => {
  if (!existsSync(SOURCES) && existsSync(join(PACKAGED, 'index.html'))) return PACKAGED;
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), 'synapse-inspector-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'inspector', 'build.ts'), dir],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (run.status !== 0) throw new Error(`building the inspector page failed (exit ${run.status})`);
  built = dir;
  return dir;
};
