/**
 * How the Lambda functions are bundled, in one place: the CDK stack
 * (`NodejsFunction.bundling`) and the bundle benchmark (`test/bench/bundles.ts`,
 * esbuild's JS API) both derive their options from here, so they cannot drift.
 *
 * - ESM, minified, with source maps, target node22, the AWS SDK bundled (the
 *   versions pinned in package.json, not whatever the runtime ships).
 * - A banner defines `require` so CommonJS dependencies bundled into the ESM
 *   output (e.g. the X-Ray SDK) can still `require` Node built-ins.
 * - The agent is chosen at bundle time: `shared/agent/load.ts` imports the
 *   specifier `#agent` when AGENT_MODULE is unset (always, in Lambda), and the
 *   bundle aliases `#agent` to the deployment's agent module (default: the demo agent).
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above `from` holding a package.json (without one: the folder above `from`, this tree's layout). */
const packageRootOf = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '..');
  }
};

/**
 * The package root (the nearest folder holding package.json): the repository here, and the installed
 * package when this file is part of its bundled construct (dist/cdk.mjs, docs/package.md).
 */
export const PROJECT_ROOT = packageRootOf(dirname(fileURLToPath(import.meta.url)));

/** The package's name: what a user's agent imports the agent API from (`<name>/agent`). */
export const PACKAGE_NAME = 'synapse-a2a-hub';

/** The specifier of the agent API, as agents import it (docs/package.md). */
export const AGENT_API_SPECIFIER = `${PACKAGE_NAME}/agent`;

/** The folder holding one Lambda entry per file. */
export const FUNCTIONS_DIR = join(PROJECT_ROOT, 'functions');

/** Entry file of each function (each exports `handler`). */
export const functionEntry = (fn: string): string => join(FUNCTIONS_DIR, `${fn}.ts`);

/**
 * Every function entry in `functions/` (file name without `.ts`), sorted: the
 * bundle benchmark measures them all, including ones not yet in FUNCTION_IDS (infra/functions.ts).
 */
export const functionEntryIds = (): string[] =>
  readdirSync(FUNCTIONS_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.test.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();

/** The import specifier `shared/agent/load.ts` uses for the bundled agent. */
export const AGENT_SPECIFIER = '#agent';

/**
 * Packages the bundles take from another file: the AWS SDK's default credential chain becomes
 * its environment link alone, which is all Lambda uses (shared/adapters/aws/lambda-credentials.ts),
 * and the SDK's event-stream support, which none of the bundled clients' operations use, a stub
 * that says so if it is ever called (shared/adapters/aws/no-event-streams.ts).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(
    PROJECT_ROOT,
    'shared',
    'adapters',
    'aws',
    'lambda-credentials.ts',
  ),
  '@smithy/core/event-streams': join(PROJECT_ROOT, 'shared', 'adapters', 'aws', 'no-event-streams.ts'),
  // the agent API from its sources, whether the package is built or not (it keeps no state: a copy
  // in the agent's bundle would work as well)
  [AGENT_API_SPECIFIER]: join(PROJECT_ROOT, 'shared', 'agent', 'api.ts'),
};

/** The inspector page's build (inspector/build.ts: `buildInspector`, or run with the folder to build into). */
export const INSPECTOR_BUILD = join(PROJECT_ROOT, 'inspector', 'build.ts');

/**
 * The inspector page as an installed package ships it, built (`dist/inspector`, scripts/build-package.ts):
 * undefined in a source tree, where the page is built from its sources (docs/inspector.md).
 */
export const packagedInspectorDir = (): string | undefined => {
  const dir = join(PROJECT_ROOT, 'dist', 'inspector');
  return !existsSync(join(PROJECT_ROOT, 'inspector', 'page')) && existsSync(join(dir, 'index.html'))
    ? dir
    : undefined;
};

/** The agent bundled when none is given. */
export const DEFAULT_AGENT_MODULE = join(PROJECT_ROOT, 'agents', 'demo', 'index.ts');

/** Absolute path of an agent module given relative to `baseDir` (default: the working directory). */
export const resolveAgentModule = (agentModule?: string, baseDir = process.cwd()): string => {
  if (!agentModule) return DEFAULT_AGENT_MODULE;
  const file = isAbsolute(agentModule) ? agentModule : resolve(baseDir, agentModule);
  if (!existsSync(file)) throw new Error(`agent module not found: ${agentModule} (resolved to ${file})`);
  return file;
};

/** Makes `require` (and `__filename`-free CJS code) work inside an ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The options both builds share; values are esbuild's. */
export const BUNDLE = {
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  /** The map names files and positions; the sources' text stays out of it (a 4 MB map is 1 MB). */
  sourcesContent: false,
  /** Prefer the ESM build of dual packages (smaller, tree-shakable). */
  mainFields: ['module', 'main'],
  /** Nothing external: the AWS SDK is bundled too. */
  external: [] as string[],
  banner: ESM_REQUIRE_BANNER,
  /** File name inside the asset (NodejsFunction writes `index.mjs` for ESM). */
  outFile: 'index.mjs',
} as const;

/**
 * esbuild options of what runs on the user's own Node (>= 20, package.json engines), not Lambda's: the
 * package's entries (scripts/build-package.ts) and a user's agent under `synapse dev` (cli/dev/run.ts).
 */
export const userNodeBuildOptions = () => ({
  bundle: true,
  platform: BUNDLE.platform,
  format: BUNDLE.format,
  target: 'node20',
  mainFields: [...BUNDLE.mainFields],
  banner: { js: BUNDLE.banner },
});

/**
 * NODE_OPTIONS that map stack traces back to the TypeScript sources. The functions run without:
 * source maps are shipped next to each bundle, but `--enable-source-maps` makes every cold start
 * parse the map (measured by `test/bench/bundles.ts`). Deploy with `-c sourceMaps=true` to turn it on.
 */
export const SOURCE_MAP_NODE_OPTIONS = '--enable-source-maps';

/** Build options for esbuild's JS API (`esbuild.build`) for any entry file: the benchmark's, and the CLI's (cli/build.ts). */
export const esbuildEntryBuildOptions = (entry: string, outfile: string, agentModule?: string) => ({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: BUNDLE.platform,
  format: BUNDLE.format,
  target: BUNDLE.target,
  minify: BUNDLE.minify,
  sourcemap: BUNDLE.sourcemap,
  sourcesContent: BUNDLE.sourcesContent,
  mainFields: [...BUNDLE.mainFields],
  external: [...BUNDLE.external],
  banner: { js: BUNDLE.banner },
  alias: { ...BUNDLE_ALIASES, [AGENT_SPECIFIER]: resolveAgentModule(agentModule) },
  logLevel: 'warning' as const,
});

/** Build options for esbuild's JS API (`esbuild.build`) for one function, used by the benchmark. */
export const esbuildBuildOptions = (fn: string, outfile: string, agentModule?: string) =>
  esbuildEntryBuildOptions(functionEntry(fn), outfile, agentModule);
