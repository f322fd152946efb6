/**
 * The `synapse` command line's start-up, as a person feels it: wall time of `synapse --version` and of
 * `synapse card get` against the local hub (issue 21: ≤ 150 ms and ≤ 300 ms p50), each a fresh `node`
 * process running the bundle the package ships (cli/build.ts). Interleaved with a bare `node -e 0`, so the
 * machine's own process start-up of the same moment is beside them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli } from '../../cli/build.ts';
import { startLocalHub } from '../../local/hub.ts';
import { percentile } from './latency.ts';

export interface CommandTiming {
  p50Ms: number;
  p99Ms: number;
}

export interface CliBenchResult {
  runs: number;
  /** Bytes every command but --version parses, and of the whole bundle with its chunks. */
  entryBytes: number;
  totalBytes: number;
  bareNode: CommandTiming;
  version: CommandTiming;
  cardGet: CommandTiming;
}

/** Wall ms of `node …args`, spawned without blocking: the hub answering `card get` runs in this process. */
const timed = (args: string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });

const timingOf = (values: number[]): CommandTiming => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (n: number | null) => Math.round((n ?? 0) * 10) / 10;
  return { p50Ms: round(percentile(sorted, 0.5)), p99Ms: round(percentile(sorted, 0.99)) };
};

export async function benchCli(runs = 30): Promise<CliBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'synapse-cli-bench-'));
  const hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000, log: () => {} });
  try {
    const bundle = await buildCli(dir);
    const samples = { bareNode: [] as number[], version: [] as number[], cardGet: [] as number[] };
    // one unmeasured round warms the file cache and the hub's card handler
    for (let i = 0; i <= runs; i++) {
      const round = {
        bareNode: await timed(['-e', '0']),
        version: await timed([bundle.bin, '--version']),
        cardGet: await timed([bundle.bin, 'card', 'get', '-a', hub.url]),
      };
      if (i > 0) for (const k of Object.keys(round) as (keyof typeof round)[]) samples[k].push(round[k]);
    }
    return {
      runs,
      entryBytes: bundle.entryBytes,
      totalBytes: bundle.totalBytes,
      bareNode: timingOf(samples.bareNode),
      version: timingOf(samples.version),
      cardGet: timingOf(samples.cardGet),
    };
  } finally {
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const printCli = (r: CliBenchResult) => {
  console.log(
    `\nsynapse CLI (${r.runs} runs, ${(r.entryBytes / 1024).toFixed(0)} KB parsed per command, all chunks ${(r.totalBytes / 1024).toFixed(0)} KB)`,
  );
  console.table({
    'node -e 0': r.bareNode,
    'synapse --version': r.version,
    'synapse card get (local hub)': r.cardGet,
  });
};
