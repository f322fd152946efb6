/**
 * The inspector page the CDK stack deploys beside the inspector function's bundle (docs/inspector.md): the
 * shell commands that put it there when the function is bundled (NodejsFunction's afterBundling hook, run
 * only when a synth bundles): built from its sources, or, in an installed package, the page it ships built
 * (dist/inspector).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_ASSETS_FOLDER } from '../shared/composition-roots/inspector.ts';
import { PROJECT_ROOT } from './bundling.ts';

const SOURCES = join(PROJECT_ROOT, 'inspector', 'page');
const PACKAGED = join(PROJECT_ROOT, 'dist', 'inspector');

/** The commands that put the built page in `outputDir`/inspector. */
export const inspectorAssetsCommands = (outputDir: string): string[] => {
  const target = join(outputDir, BUNDLED_ASSETS_FOLDER);
  if (!existsSync(SOURCES) && existsSync(join(PACKAGED, 'index.html')))
    return [`cp -R "${PACKAGED}" "${target}"`];
  return [`cd "${PROJECT_ROOT}" && node --import tsx inspector/build.ts "${target}"`];
};
