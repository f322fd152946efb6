/**
 * The inspector page the CDK stack deploys beside the inspector function's bundle (docs/inspector.md): the
 * shell commands that put it there when the function is bundled (NodejsFunction's afterBundling hook, run
 * only when a synth bundles): built from its sources, or, in an installed package, the page it ships built.
 */
import { join } from 'node:path';
import { BUNDLED_ASSETS_FOLDER } from '../shared/composition-roots/inspector.ts';
import { INSPECTOR_BUILD, PROJECT_ROOT, packagedInspectorDir } from './bundling.ts';

/** The commands that put the built page in `outputDir`/inspector. */
export const inspectorAssetsCommands = (outputDir: string): string[] => {
  const target = join(outputDir, BUNDLED_ASSETS_FOLDER);
  const packaged = packagedInspectorDir();
  if (packaged) return [`cp -R "${packaged}" "${target}"`];
  return [`cd "${PROJECT_ROOT}" && node --import tsx "${INSPECTOR_BUILD}" "${target}"`];
};
