/**
 * Lambda bundle sizes and import (cold-start module load) times.
 *
 * Each function entry is bundled with esbuild using the very options the CDK
 * stack uses (`infra/bundling.ts`), gzipped to measure, and imported in a fresh
 * `node` process (median of several runs) with the functions' NODE_OPTIONS, and
 * once more without them (source-map support costs import time). The baseline
 * is what a conventional A2A server loads: `@a2a-js/sdk/server` + `express`
 * (express is not installed here: then the SDK alone, noted in the result).
 *
 * Not a test: nothing asserts a time. Run alone: `npx tsx test/bench/bundles.ts`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import {
  BUNDLE,
  esbuildBuildOptions,
  FUNCTION_IDS,
  functionEntry,
  PROJECT_ROOT,
  RUNTIME_NODE_OPTIONS,
} from '../../infra/bundling.ts';

export interface BundleMeasure {
  fn: string;
  /** Size of index.mjs (bytes). */
  bytes: number;
  /** Its gzip size. */
  gzipBytes: number;
  /** Median time to `await import(bundle)` in a fresh node, with the functions' NODE_OPTIONS. */
  importMs: number;
  /** The same without NODE_OPTIONS (no source-map support). */
  importMsNoSourceMaps: number;
  /** importMs / the baseline's importMs. */
  ratio: number;
  note?: string;
}

export interface MeasureOptions {
  /** Imports per bundle; the median is reported (default 5). */
  runs?: number;
  /** Agent module bundled for `#agent` (default the demo agent). */
  agentModule?: string;
}

const BASELINE_SPECIFIERS = ['@a2a-js/sdk/server', 'express'] as const;

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round = (n: number): number => Math.round(n * 10) / 10;

/** Environment like a function's (dummy values; importing must not touch the network). */
const childEnv = (nodeOptions: string | undefined): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS; // e.g. tsx's loader from the parent
  return {
    ...env,
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'bench',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'bench',
    TABLE_NAME: 'bench-table',
    EXECUTOR_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench',
    PUBLIC_URL: 'https://bench.example.com',
    POWERTOOLS_METRICS_DISABLED: 'true',
    LOG_LEVEL: 'SILENT',
  };
};

/** Milliseconds to import all `urls` in a fresh node process (median of `runs`). */
const importTime = (urls: string[], runs: number, nodeOptions: string | undefined): number => {
  const script = [
    'const t = performance.now();',
    `for (const u of ${JSON.stringify(urls)}) await import(u);`,
    'process.stdout.write(String(performance.now() - t));',
  ].join('\n');
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: PROJECT_ROOT,
      env: childEnv(nodeOptions),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    times.push(Number(out.trim().split('\n').at(-1)));
  }
  return median(times);
};

/** File URL of a package specifier as the project resolves it (ESM `import` condition), or undefined. */
const resolveFromProject = (specifier: string): string | undefined => {
  try {
    // this file lives in the project, so it resolves like the project does
    return import.meta.resolve(specifier);
  } catch {
    try {
      return pathToFileURL(createRequire(join(PROJECT_ROOT, 'package.json')).resolve(specifier)).href;
    } catch {
      return undefined;
    }
  }
};

export async function measureBundles(options: MeasureOptions = {}): Promise<BundleMeasure[]> {
  const runs = options.runs ?? 5;
  const dir = mkdtempSync(join(tmpdir(), 'synapse-bundles-'));
  try {
    const baselineUrls = BASELINE_SPECIFIERS.map((s) => [s, resolveFromProject(s)] as const);
    const missing = baselineUrls.filter(([, url]) => !url).map(([s]) => s);
    const baselineImport = importTime(
      baselineUrls.flatMap(([, url]) => (url ? [url] : [])),
      runs,
      undefined,
    );
    const baseline: BundleMeasure = {
      fn: `baseline: ${baselineUrls
        .filter(([, url]) => url)
        .map(([s]) => s)
        .join(' + ')}`,
      bytes: 0,
      gzipBytes: 0,
      importMs: round(baselineImport),
      importMsNoSourceMaps: round(baselineImport),
      ratio: 1,
      note: `unbundled from node_modules${missing.length ? `; not installed, not measured: ${missing.join(', ')}` : ''}`,
    };

    const results: BundleMeasure[] = [];
    for (const fn of FUNCTION_IDS) {
      if (!existsSync(functionEntry(fn))) {
        results.push({
          fn,
          bytes: 0,
          gzipBytes: 0,
          importMs: Number.NaN,
          importMsNoSourceMaps: Number.NaN,
          ratio: Number.NaN,
          note: 'entry file missing',
        });
        continue;
      }
      const outDir = join(dir, fn);
      mkdirSync(outDir, { recursive: true });
      const outfile = join(outDir, BUNDLE.outFile);
      await build(esbuildBuildOptions(fn, outfile, options.agentModule));
      const code = readFileSync(outfile);
      const url = pathToFileURL(outfile).href;
      const importMs = importTime([url], runs, RUNTIME_NODE_OPTIONS);
      results.push({
        fn,
        bytes: statSync(outfile).size,
        gzipBytes: gzipSync(code).length,
        importMs: round(importMs),
        importMsNoSourceMaps: round(importTime([url], runs, undefined)),
        ratio: Number((importMs / baselineImport).toFixed(2)),
      });
    }
    return [...results, baseline];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await measureBundles();
  console.log(`Lambda bundles (esbuild ${BUNDLE.format}, ${BUNDLE.target}, minified, AWS SDK bundled)`);
  console.log(`importMs: NODE_OPTIONS=${RUNTIME_NODE_OPTIONS}, as deployed; ratio = importMs / baseline`);
  console.table(
    rows.map((r) => ({
      fn: r.fn,
      KB: r.bytes ? round(r.bytes / 1024) : '',
      'gzip KB': r.gzipBytes ? round(r.gzipBytes / 1024) : '',
      importMs: r.importMs,
      'importMs (no source maps)': r.importMsNoSourceMaps,
      ratio: r.ratio,
      note: r.note ?? '',
    })),
  );
}
