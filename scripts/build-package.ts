/**
 * `npm run build` (and `prepack`): what the package ships in dist/ (docs/package.md):
 *   dist/cli/synapse.mjs  the `synapse` bin (cli/build.ts)
 *   dist/agent.mjs        `synapse-a2a-hub/agent`, the agent API
 *   dist/cdk.mjs          `synapse-a2a-hub/cdk`, the construct
 * Both import their packages from the user's node_modules: aws-cdk-lib and constructs are the user's
 * (peer dependencies: a construct tree holds one copy of each), the rest the package's dependencies.
 *   dist/types/           the declarations of both (tsc, tsconfig.package.json)
 *   dist/inspector/       the inspector page, built (inspector/build.ts): what `synapse dev` and the
 *                         construct serve, since the package ships no page sources (docs/inspector.md)
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildCli } from '../cli/build.ts';
import { PROJECT_ROOT, userNodeBuildOptions } from '../infra/bundling.ts';
import { buildInspector } from '../inspector/build.ts';

export const DIST = join(PROJECT_ROOT, 'dist');

const buildEntry = (entry: string, outfile: string) =>
  build({
    entryPoints: [join(PROJECT_ROOT, 'package', entry)],
    outfile: join(DIST, outfile),
    // the user's synth and agent run on their Node, not Lambda's
    ...userNodeBuildOptions(),
    packages: 'external',
    metafile: true,
    sourcemap: true,
    logLevel: 'warning',
  });

export const buildPackage = async (): Promise<void> => {
  rmSync(DIST, { recursive: true, force: true });
  await buildCli(join(DIST, 'cli'));
  await buildEntry('agent.ts', 'agent.mjs');
  await buildEntry('cdk.ts', 'cdk.mjs');
  await buildInspector(join(DIST, 'inspector'));
  const tsc = spawnSync(
    process.execPath,
    [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.package.json'],
    { cwd: PROJECT_ROOT, stdio: 'inherit' },
  );
  if (tsc.status !== 0) throw new Error(`tsc (declarations) exited with ${tsc.status}`);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildPackage();
