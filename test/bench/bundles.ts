/**
 * Lambda bundle sizes and import (cold-start module load) times, against a
 * bundled baseline.
 *
 * - Every function entry in `functions/` is bundled with esbuild using the very
 *   options the CDK stack uses (`infra/bundling.ts`).
 * - The baseline is what a conventional A2A server loads, `@a2a-js/sdk/server` +
 *   `express`, bundled with the SAME options (a tiny entry written to a temp dir).
 *   The same two packages imported unbundled from node_modules are reported too,
 *   for reference only.
 * - Imports are interleaved: each round imports every bundle once, each in a
 *   fresh `node` process, in an order that rotates from round to round, so drift
 *   on a shared machine hits all of them alike. One warm-up round is discarded.
 *   Bundles are imported with the functions' NODE_OPTIONS and a Lambda-like
 *   environment (as deployed); the unbundled reference without NODE_OPTIONS.
 * - Reported per function: median import ms, bytes, gzip bytes, and
 *   ratio = median(function) / median(bundled baseline); `maxImportRatio` is the
 *   largest function ratio.
 *
 * Not a test: nothing asserts a time. Run alone: `npx tsx test/bench/bundles.ts`
 * (`--runs N`, `--analyze` to list the heaviest packages of each bundle from
 * esbuild's metafile).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE,
  esbuildBuildOptions,
  esbuildEntryBuildOptions,
  functionEntryIds,
  PROJECT_ROOT,
} from '../../infra/bundling.ts';
import { FUNCTION_IDS } from '../../infra/functions.ts';

export interface ColdStartFunction {
  fn: string;
  /** Size of index.mjs (bytes). */
  bytes: number;
  /** Its gzip size. */
  gzipBytes: number;
  /** Size of the source map next to it (0 without one). */
  mapBytes: number;
  /** Median time to `await import(bundle)` in a fresh node, with the functions' NODE_OPTIONS. */
  importMs: number;
  /** importMs / baselineBundledMs (medians of the same interleaved run). */
  ratio: number;
  /** False for an entry in functions/ that FUNCTION_IDS (the deployed list) does not name yet. */
  deployed: boolean;
  /** With `analyze`: the packages contributing most output bytes (from esbuild's metafile). */
  heaviest?: { name: string; bytes: number }[];
}

export interface ColdStartResult {
  /** Measured rounds (each imports every bundle once); medians over them. */
  runs: number;
  node: string;
  /** NODE_OPTIONS the bundles were imported with (the functions' as deployed). */
  nodeOptions: string;
  /** What the baseline imports. */
  baseline: string;
  /** Median import ms of the baseline bundled with the functions' esbuild options. */
  baselineBundledMs: number;
  baselineBundledBytes: number;
  baselineBundledGzipBytes: number;
  /** Median import ms of the same packages unbundled from node_modules (reference only). */
  baselineUnbundledMs: number;
  functions: ColdStartFunction[];
  /** The largest function ratio: every function loads within this multiple of the bundled baseline. */
  maxImportRatio: number;
}

export interface MeasureOptions {
  /** Measured rounds; the median is reported (default 15; the bench runs 41). */
  runs?: number;
  /** Agent module bundled for `#agent` (default the demo agent). */
  agentModule?: string;
  /** Functions to bundle (default every entry in functions/). */
  functions?: readonly string[];
  /** Report the heaviest packages of each bundle. */
  analyze?: boolean;
}

/** The functions' NODE_OPTIONS as deployed by default (none: see SOURCE_MAP_NODE_OPTIONS). */
const DEPLOYED_NODE_OPTIONS: string | undefined = undefined;

const BASELINE_SPECIFIERS = ['@a2a-js/sdk/server', 'express'] as const;

/** The baseline entry: both packages used trivially, so nothing is tree-shaken away. */
const BASELINE_ENTRY = `import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';

export const app = express();
export const taskStore = new InMemoryTaskStore();
export const RequestHandler = DefaultRequestHandler;
`;

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round1 = (n: number): number => Math.round(n * 10) / 10;
const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Environment like a deployed function's (dummy values; importing must not touch the network). */
const lambdaEnv = (fn: string, nodeOptions: string | undefined): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS; // e.g. tsx's loader from the parent
  for (const key of Object.keys(env))
    if (key.startsWith('AWS_') || key.startsWith('POWERTOOLS_')) delete env[key];
  return {
    ...env,
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    AWS_LAMBDA_FUNCTION_NAME: `synapse-bench-${fn}`,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SESSION_TOKEN: 'bench',
    TABLE_NAME: 'bench-table',
    EXECUTOR_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench',
    EVENT_BUS_NAME: 'bench-bus',
    PUBLIC_URL: 'https://bench.example.com',
    POWERTOOLS_SERVICE_NAME: 'synapse',
    POWERTOOLS_METRICS_NAMESPACE: 'Synapse',
    LOG_LEVEL: 'SILENT',
  };
};

const MARK = '@@import-ms=';

/** Milliseconds to import `urls` in a fresh node process. */
const importOnce = (urls: readonly string[], env: NodeJS.ProcessEnv): number => {
  const script = [
    'const t = performance.now();',
    `for (const u of ${JSON.stringify(urls)}) await import(u);`,
    `process.stdout.write('\\n${MARK}' + String(performance.now() - t) + '\\n');`,
  ].join('\n');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const line = out.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`no timing in the output of ${urls.join(', ')}: ${out.slice(0, 500)}`);
  return Number(line.slice(MARK.length));
};

/** File URL of a package specifier as the project resolves it (ESM `import` condition). */
const resolveFromProject = (specifier: string): string => {
  try {
    // this file lives in the project, so it resolves like the project does
    return import.meta.resolve(specifier);
  } catch {
    return pathToFileURL(createRequire(join(PROJECT_ROOT, 'package.json')).resolve(specifier)).href;
  }
};

/** `node_modules/@scope/name/...` → `@scope/name`; project files by their folder. */
const packageOf = (input: string): string => {
  const i = input.lastIndexOf('node_modules/');
  if (i < 0) return input.split('/').slice(0, 2).join('/');
  const parts = input.slice(i + 'node_modules/'.length).split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? input);
};

/** Output bytes per package, largest first. */
export const heaviestPackages = (metafile: Metafile, top = 12): { name: string; bytes: number }[] => {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
};

interface Built {
  id: string;
  url: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  heaviest: { name: string; bytes: number }[];
}

type BuildOptions = ReturnType<typeof esbuildEntryBuildOptions>;

const bundle = async (id: string, outDir: string, options: BuildOptions): Promise<Built> => {
  mkdirSync(outDir, { recursive: true });
  const result = await build({ ...options, metafile: true });
  const outfile = options.outfile;
  const code = readFileSync(outfile);
  let mapBytes = 0;
  try {
    mapBytes = statSync(`${outfile}.map`).size;
  } catch {
    // no map next to the bundle
  }
  return {
    id,
    url: pathToFileURL(outfile).href,
    bytes: code.length,
    gzipBytes: gzipSync(code).length,
    mapBytes,
    heaviest: heaviestPackages(result.metafile),
  };
};

const BASELINE_BUNDLED = 'baseline (bundled)';
const BASELINE_UNBUNDLED = 'baseline (unbundled)';

/** Bundles every function and the baseline, and measures their imports interleaved. */
export async function measureColdStart(options: MeasureOptions = {}): Promise<ColdStartResult> {
  const runs = options.runs ?? 15;
  const fns = options.functions ?? functionEntryIds();
  const dir = mkdtempSync(join(tmpdir(), 'synapse-bundles-'));
  try {
    const baselineDir = join(dir, 'baseline');
    mkdirSync(baselineDir, { recursive: true });
    const baselineEntry = join(baselineDir, 'entry.ts');
    writeFileSync(baselineEntry, BASELINE_ENTRY);
    const baseline = await bundle(BASELINE_BUNDLED, baselineDir, {
      ...esbuildEntryBuildOptions(baselineEntry, join(baselineDir, BUNDLE.outFile), options.agentModule),
      // the entry lives in a temp dir: resolve its packages from the project
      nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    } as BuildOptions);
    const built: Built[] = [];
    for (const fn of fns) {
      const outDir = join(dir, fn);
      built.push(
        await bundle(fn, outDir, esbuildBuildOptions(fn, join(outDir, BUNDLE.outFile), options.agentModule)),
      );
    }

    type Target = { id: string; urls: string[]; env: NodeJS.ProcessEnv };
    const targets: Target[] = [
      { id: BASELINE_BUNDLED, urls: [baseline.url], env: lambdaEnv('baseline', DEPLOYED_NODE_OPTIONS) },
      {
        id: BASELINE_UNBUNDLED,
        urls: BASELINE_SPECIFIERS.map(resolveFromProject),
        env: lambdaEnv('baseline', undefined),
      },
      ...built.map((b) => ({ id: b.id, urls: [b.url], env: lambdaEnv(b.id, DEPLOYED_NODE_OPTIONS) })),
    ];
    const times = new Map<string, number[]>(targets.map((t) => [t.id, []]));
    // round 0 warms the file cache and is discarded; then `runs` rounds in rotating order
    for (let r = 0; r <= runs; r++) {
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(r + k) % targets.length]!;
        const ms = importOnce(target.urls, target.env);
        if (r > 0) times.get(target.id)!.push(ms);
      }
    }
    const medianOf = (id: string) => median(times.get(id)!);
    const baselineBundledMs = medianOf(BASELINE_BUNDLED);
    const functions: ColdStartFunction[] = built.map((b) => ({
      fn: b.id,
      bytes: b.bytes,
      gzipBytes: b.gzipBytes,
      mapBytes: b.mapBytes,
      importMs: round1(medianOf(b.id)),
      ratio: round2(medianOf(b.id) / baselineBundledMs),
      deployed: (FUNCTION_IDS as readonly string[]).includes(b.id),
      ...(options.analyze ? { heaviest: b.heaviest } : {}),
    }));
    return {
      runs,
      node: process.version,
      nodeOptions: DEPLOYED_NODE_OPTIONS ?? '',
      baseline: BASELINE_SPECIFIERS.join(' + '),
      baselineBundledMs: round1(baselineBundledMs),
      baselineBundledBytes: baseline.bytes,
      baselineBundledGzipBytes: baseline.gzipBytes,
      baselineUnbundledMs: round1(medianOf(BASELINE_UNBUNDLED)),
      functions,
      maxImportRatio: Math.max(...functions.map((f) => f.ratio)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One row per function, then the two baselines: the table the standalone run prints. */
export const coldStartRows = (r: ColdStartResult) => [
  ...r.functions.map((f) => ({
    fn: f.deployed ? f.fn : `${f.fn} (not in FUNCTION_IDS)`,
    KB: round1(f.bytes / 1024),
    'gzip KB': round1(f.gzipBytes / 1024),
    'map KB': round1(f.mapBytes / 1024),
    importMs: f.importMs,
    ratio: f.ratio,
  })),
  {
    fn: BASELINE_BUNDLED,
    KB: round1(r.baselineBundledBytes / 1024),
    'gzip KB': round1(r.baselineBundledGzipBytes / 1024),
    'map KB': '',
    importMs: r.baselineBundledMs,
    ratio: 1,
  },
  { fn: BASELINE_UNBUNDLED, KB: '', 'gzip KB': '', 'map KB': '', importMs: r.baselineUnbundledMs, ratio: '' },
];

/**
 * The previous shape (one row per function plus a baseline row), kept for callers
 * that have not moved to `measureColdStart`.
 */
export async function measureBundles(options: MeasureOptions = {}) {
  return coldStartRows(await measureColdStart(options));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const runsArg = args.indexOf('--runs');
  const runs = runsArg >= 0 ? Number(args[runsArg + 1]) : undefined;
  const analyze = args.includes('--analyze');
  const result = await measureColdStart({ ...(runs ? { runs } : {}), analyze });
  console.log(
    `Lambda bundles (esbuild ${BUNDLE.format}, ${BUNDLE.target}, minified, AWS SDK bundled) vs ${result.baseline}`,
  );
  console.log(
    `${result.runs} interleaved rounds, medians; NODE_OPTIONS=${result.nodeOptions || '(none)'} as deployed; ` +
      'ratio = importMs / bundled baseline importMs',
  );
  console.table(coldStartRows(result));
  console.log(`maxImportRatio: ${result.maxImportRatio}`);
  if (analyze) {
    for (const f of result.functions) {
      console.log(`\n${f.fn}: heaviest packages (KB in output)`);
      console.table((f.heaviest ?? []).map((h) => ({ package: h.name, KB: round1(h.bytes / 1024) })));
    }
  }
}
