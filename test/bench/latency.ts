/**
 * Blocking echo `SendMessage` latency and throughput: the hub (`npm start`:
 * local/main.ts on DynamoDB Local) side by side with the official
 * @a2a-js/sdk server (fixtures/sdk-echo-server.ts: DefaultRequestHandler +
 * InMemoryTaskStore on express), measured in the same run.
 *
 * Three kinds of processes: the two servers, started first and kept up for
 * the whole measurement, and a closed-loop load client
 * (fixtures/load-client.ts), one process per round. Rounds alternate hub,
 * sdk, hub, sdk… at each concurrency, after one uncounted warm-up round per
 * target; counted rounds are pooled (percentiles over all their latencies,
 * throughput = correct answers / summed round time). Every answer is checked
 * (a completed task with the echo artifact); anything else is an error,
 * counted, reported, and kept out of the figures.
 *
 * Not a test (no time is asserted). Standalone:
 *   npx tsx test/bench/latency.ts [--rounds 4] [--round-ms 3000] [--requests N] [--concurrency 1,8]
 *     [--hub-dir <another checkout>] [--json]
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { LoadResult } from './fixtures/load-client.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, 'fixtures');
const JSONRPC_PATH = '/a2a/jsonrpc';

export type LatencyTarget = 'hub' | 'sdk';

export interface LatencyOptions {
  /** Closed-loop concurrencies measured, in order (default [1, 8]). */
  concurrencies?: number[];
  /** Counted rounds per target and concurrency (default 4), after one warm-up round each. */
  rounds?: number;
  /** Length of a counted round in ms (default 3000); ignored when requestsPerRound is set. */
  roundMs?: number;
  /** Fixed number of requests per counted round instead of a duration (slow targets then take longer). */
  requestsPerRound?: number;
  /** Length of the warm-up round in ms (default roundMs / 2), or half of requestsPerRound requests. */
  warmupMs?: number;
  /**
   * Duration mode: the warm-up round goes on until at least this many requests (default 50; DynamoDB Local's
   * JVM needs that many to settle), or 60 s.
   */
  warmupRequests?: number;
  /** Per-request timeout in the load client (default 30 000 ms): a timed-out request is an error. */
  requestTimeoutMs?: number;
  /** Bound on the whole run, servers' start-up included (default 600 000 ms); exceeded = rejected. */
  overallTimeoutMs?: number;
  /** Checkout whose local/main.ts is run as the hub (default: this one), e.g. to measure another commit. */
  hubDir?: string;
  /** Progress lines (default: to stderr); false for none. */
  log?: ((line: string) => void) | false;
}

export interface LatencyFigures {
  target: LatencyTarget;
  concurrency: number;
  /** Counted requests, all rounds (errors included). */
  requests: number;
  errors: number;
  /** Correct answers per second: correct answers / summed round time. */
  reqPerSec: number;
  /** Over the pooled latencies of the correct answers (nearest rank); null when there are none. */
  p50Ms: number | null;
  p99Ms: number | null;
  meanMs: number | null;
  /** Correct answers per second in each counted round, to see the spread. */
  roundReqPerSec: number[];
  /** Only when there were errors (warm-up errors included, flagged as such). */
  errorKinds?: Record<string, number>;
  errorSamples?: string[];
}

export interface LatencyRatio {
  concurrency: number;
  /** hub / sdk; null when a figure is missing. */
  reqPerSec: number | null;
  p50: number | null;
  p99: number | null;
}

export interface LatencyResult {
  rounds: number;
  /** null in duration mode. */
  requestsPerRound: number | null;
  /** null in fixed-count mode. */
  roundMs: number | null;
  /** Warm-up round per target and concurrency (not counted): its length, and its minimum request count. */
  warmupMs: number | null;
  warmupRequests: number | null;
  requestTimeoutMs: number;
  /** Wall time of the whole run, start-up and shutdown included. */
  wallMs: number;
  results: LatencyFigures[];
  ratios: LatencyRatio[];
  /** Anything that makes the figures doubtful (errors, a server exiting early…). */
  warnings: string[];
}

/** A child process whose output is drained (a full pipe would block it) and whose tail is kept. */
interface Proc {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited: () => boolean;
}

const startProc = (name: string, args: string[], env: NodeJS.ProcessEnv, cwd = root): Proc => {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.once('error', (e) => {
      done = true;
      keep(Buffer.from(`\nspawn error: ${e.message}`));
      resolve({ code: null, signal: null });
    });
  });
  return { name, child, output: () => tail, exited, hasExited: () => done };
};

const waitForLine = async (proc: Proc, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> => {
  let seen = '';
  return await new Promise<RegExpExecArray>((resolve, reject) => {
    const finish = (fn: () => void) => {
      clearTimeout(timer);
      proc.child.stdout!.off('data', onData);
      fn();
    };
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) finish(() => resolve(m));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${proc.name} not ready in ${timeoutMs} ms:\n${proc.output()}`))),
      timeoutMs,
    );
    proc.child.stdout!.on('data', onData);
    void proc.exited.then(({ code, signal }) =>
      finish(() =>
        reject(new Error(`${proc.name} exited (${signal ?? code}) before ready:\n${proc.output()}`)),
      ),
    );
  });
};

/** SIGINT, then SIGKILL (with its children, e.g. DynamoDB Local's java) if still running after graceMs. */
const stopProc = async (proc: Proc, graceMs: number): Promise<string | undefined> => {
  if (proc.hasExited()) return undefined;
  proc.child.kill('SIGINT');
  const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
  if ((await Promise.race([proc.exited, timer])) !== 'late') return undefined;
  const pid = proc.child.pid;
  const children = pid
    ? spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .map(Number)
        .filter((n) => n > 0)
    : [];
  proc.child.kill('SIGKILL');
  for (const c of children) {
    try {
      process.kill(c, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await proc.exited;
  return `${proc.name} did not stop within ${graceMs} ms of SIGINT: killed (with ${children.length} child processes)`;
};

const freePort = async (): Promise<number> =>
  await new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });

/** One round: a load client process against url; its LoadResult. */
const runClient = async (
  url: string,
  concurrency: number,
  amount: { durationMs: number; minRequests?: number; maxMs?: number } | { requests: number },
  requestTimeoutMs: number,
  limitMs: number,
): Promise<LoadResult> => {
  const args = [
    join(fixtures, 'load-client.ts'),
    url,
    '--concurrency',
    String(concurrency),
    '--timeout-ms',
    String(requestTimeoutMs),
    ...('durationMs' in amount
      ? [
          '--duration-ms',
          String(amount.durationMs),
          ...(amount.minRequests ? ['--min-requests', String(amount.minRequests)] : []),
          ...(amount.maxMs ? ['--max-ms', String(amount.maxMs)] : []),
        ]
      : ['--requests', String(amount.requests)]),
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000);
  });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, limitMs);
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => resolve(c));
    child.once('error', (e) => {
      err += `\nspawn error: ${e.message}`;
      resolve(null);
    });
  });
  clearTimeout(timer);
  if (killed) throw new Error(`load client against ${url} killed after ${limitMs} ms (stuck?)\n${err}`);
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) {
    throw new Error(`load client against ${url} failed (exit ${code}):\n${err}${out}`);
  }
  return JSON.parse(line) as LoadResult;
};

/** Nearest-rank percentile of sorted values. */
export const percentile = (sorted: number[], q: number): number | null =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : null;

const round2 = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

const aggregate = (
  target: LatencyTarget,
  concurrency: number,
  counted: LoadResult[],
  warmups: LoadResult[],
): LatencyFigures => {
  const latencies = counted.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const ok = counted.reduce((s, r) => s + r.ok, 0);
  const seconds = counted.reduce((s, r) => s + r.elapsedMs, 0) / 1000;
  const figures: LatencyFigures = {
    target,
    concurrency,
    requests: counted.reduce((s, r) => s + r.requests, 0),
    errors: counted.reduce((s, r) => s + r.errors, 0),
    reqPerSec: round2(seconds > 0 ? ok / seconds : 0)!,
    p50Ms: round2(percentile(latencies, 0.5)),
    p99Ms: round2(percentile(latencies, 0.99)),
    meanMs: round2(latencies.length ? latencies.reduce((s, x) => s + x, 0) / latencies.length : null),
    roundReqPerSec: counted.map((r) => round2(r.elapsedMs > 0 ? (r.ok / r.elapsedMs) * 1000 : 0)!),
  };
  const kinds: Record<string, number> = {};
  const samples: string[] = [];
  for (const [results, prefix] of [
    [counted, ''],
    [warmups, 'warm-up '],
  ] as const) {
    for (const r of results) {
      for (const [k, n] of Object.entries(r.errorKinds)) kinds[prefix + k] = (kinds[prefix + k] ?? 0) + n;
      for (const s of r.errorSamples) if (samples.length < 5) samples.push(prefix + s);
      if (r.warmupErrors)
        kinds['client warm-up (not counted)'] = (kinds['client warm-up (not counted)'] ?? 0) + r.warmupErrors;
    }
  }
  if (Object.keys(kinds).length) {
    figures.errorKinds = kinds;
    figures.errorSamples = samples;
  }
  return figures;
};

/** a / b to 3 significant digits (0.0131, 88.8), null when either is missing. */
const ratio = (a: number | null | undefined, b: number | null | undefined) =>
  a === null || a === undefined || !b ? null : Number((a / b).toPrecision(3));

/**
 * Runs the comparison; resolves with JSON-serialisable figures. Rejects (after stopping both servers) when a
 * server does not start, a load client crashes or overallTimeoutMs passes; request errors are reported, not
 * thrown.
 */
export const benchLatency = async (options: LatencyOptions = {}): Promise<LatencyResult> => {
  const concurrencies = options.concurrencies ?? [1, 8];
  const rounds = options.rounds ?? 4;
  const requestsPerRound = options.requestsPerRound ?? null;
  const roundMs = requestsPerRound === null ? (options.roundMs ?? 3000) : null;
  const warmupMs = options.warmupMs ?? Math.round((roundMs ?? 0) / 2);
  const warmupRequests = options.warmupRequests ?? 50;
  const warmupMaxMs = Math.max(60_000, warmupMs);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const overallTimeoutMs = options.overallTimeoutMs ?? 600_000;
  const counts = { rounds, requestsPerRound: requestsPerRound ?? 1, roundMs: roundMs ?? 1, requestTimeoutMs };
  for (const [name, n] of [
    ...Object.entries(counts),
    ...concurrencies.map((c) => ['concurrency', c] as const),
  ]) {
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`latency bench: ${name} must be a positive integer, got ${n}`);
  }
  const log =
    options.log === false ? () => {} : (options.log ?? ((line: string) => process.stderr.write(`${line}\n`)));
  const started = performance.now();
  const deadline = started + overallTimeoutMs;
  const remaining = () => {
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`latency bench: overall timeout of ${overallTimeoutMs} ms passed`);
    return left;
  };
  const warnings: string[] = [];
  const procs: Proc[] = [];

  try {
    // both servers up first, then the interleaved measurement
    const hubPort = await freePort();
    const hubEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(hubPort), HOST: '127.0.0.1' };
    // the default hub: demo agent, data in memory
    delete hubEnv.AGENT_MODULE;
    delete hubEnv.SYNAPSE_DATA_DIR;
    const hubDir = options.hubDir ?? root;
    const hub = startProc(
      `hub (${join(hubDir, 'local', 'main.ts')})`,
      [join(hubDir, 'local', 'main.ts')],
      hubEnv,
      hubDir,
    );
    procs.push(hub);
    const sdk = startProc('sdk echo server', [join(fixtures, 'sdk-echo-server.ts')], {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
    });
    procs.push(sdk);
    const [, sdkReady] = await Promise.all([
      waitForLine(hub, /ready in [\d.]+ s/, Math.min(120_000, remaining())),
      waitForLine(sdk, /ready on (http:\/\/\S+)/, Math.min(60_000, remaining())),
    ]);
    const urls: Record<LatencyTarget, string> = {
      hub: `http://127.0.0.1:${hubPort}${JSONRPC_PATH}`,
      sdk: `${sdkReady[1]}${JSONRPC_PATH}`,
    };
    log(`latency: hub ${urls.hub}, sdk ${urls.sdk}`);

    const targets: LatencyTarget[] = ['hub', 'sdk'];
    const counted = new Map<string, LoadResult[]>();
    const warmups = new Map<string, LoadResult[]>();
    const key = (t: LatencyTarget, c: number) => `${t}/${c}`;
    const one = async (target: LatencyTarget, concurrency: number, warmup: boolean) => {
      for (const p of [hub, sdk]) {
        if (p.hasExited()) throw new Error(`${p.name} exited during the measurement:\n${p.output()}`);
      }
      const amount: Parameters<typeof runClient>[2] =
        requestsPerRound === null
          ? warmup
            ? { durationMs: warmupMs, minRequests: warmupRequests, maxMs: warmupMaxMs }
            : { durationMs: roundMs! }
          : { requests: warmup ? Math.ceil(requestsPerRound / 2) : requestsPerRound };
      // the round's own length, a request timeout for the last ones, process start-up
      const length = requestsPerRound === null ? (warmup ? warmupMaxMs : roundMs!) : 600_000;
      const limit = length + requestTimeoutMs + 30_000;
      const r = await runClient(
        urls[target],
        concurrency,
        amount,
        requestTimeoutMs,
        Math.min(limit, remaining()),
      );
      const map = warmup ? warmups : counted;
      map.set(key(target, concurrency), [...(map.get(key(target, concurrency)) ?? []), r]);
      const s = [...r.latenciesMs].sort((a, b) => a - b);
      log(
        `latency: ${warmup ? 'warm-up' : 'round  '} ${target} c=${concurrency}: ${r.ok}/${r.requests} ok, ` +
          `${((r.ok / r.elapsedMs) * 1000).toFixed(1)} req/s, p50 ${round2(percentile(s, 0.5))} ms` +
          (r.errors ? `, ${r.errors} errors (${Object.keys(r.errorKinds).join(', ')})` : ''),
      );
    };
    for (const concurrency of concurrencies) {
      for (const target of targets) await one(target, concurrency, true);
      for (let i = 0; i < rounds; i++) for (const target of targets) await one(target, concurrency, false);
    }

    for (const p of [hub, sdk]) {
      if (p.hasExited()) warnings.push(`${p.name} exited during the last round:\n${p.output()}`);
    }
    const results = concurrencies.flatMap((c) =>
      targets.map((t) => aggregate(t, c, counted.get(key(t, c)) ?? [], warmups.get(key(t, c)) ?? [])),
    );
    for (const r of results) {
      if (r.errors)
        warnings.push(`${r.target} c=${r.concurrency}: ${r.errors} of ${r.requests} requests failed`);
    }
    const ratios = concurrencies.map((c): LatencyRatio => {
      const h = results.find((r) => r.target === 'hub' && r.concurrency === c);
      const s = results.find((r) => r.target === 'sdk' && r.concurrency === c);
      return {
        concurrency: c,
        reqPerSec: ratio(h?.reqPerSec, s?.reqPerSec),
        p50: ratio(h?.p50Ms, s?.p50Ms),
        p99: ratio(h?.p99Ms, s?.p99Ms),
      };
    });
    return {
      rounds,
      requestsPerRound,
      roundMs,
      warmupMs: requestsPerRound === null ? warmupMs : null,
      warmupRequests: requestsPerRound === null ? warmupRequests : Math.ceil(requestsPerRound / 2),
      requestTimeoutMs,
      wallMs: Math.round(performance.now() - started),
      results,
      ratios,
      warnings,
    };
  } finally {
    const stopped = await Promise.all(procs.map((p) => stopProc(p, 30_000)));
    for (const s of stopped) if (s) log(`latency: ${s}`);
  }
};

/** Prints a LatencyResult as two tables (figures, hub/sdk ratios) and its warnings. */
export const printLatency = (result: LatencyResult): void => {
  const mode =
    result.requestsPerRound === null
      ? `${result.rounds} rounds of ${result.roundMs} ms`
      : `${result.rounds} rounds of ${result.requestsPerRound} requests`;
  console.log(
    `\nBlocking echo SendMessage, closed loop: hub (npm start) vs @a2a-js/sdk server (${mode} each)`,
  );
  console.table(
    result.results.map(({ target, concurrency, requests, errors, reqPerSec, p50Ms, p99Ms, meanMs }) => ({
      target,
      concurrency,
      requests,
      errors,
      reqPerSec,
      p50Ms,
      p99Ms,
      meanMs,
    })),
  );
  console.log('hub / sdk (req/s below 1 and latency above 1: the hub is slower)');
  console.table(result.ratios);
  for (const w of result.warnings) console.log(`warning: ${w}`);
  for (const r of result.results) {
    if (r.errorSamples?.length)
      console.log(`${r.target} c=${r.concurrency} errors:`, r.errorKinds, r.errorSamples);
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      'round-ms': { type: 'string' },
      requests: { type: 'string' },
      concurrency: { type: 'string' },
      'hub-dir': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const options: LatencyOptions = {};
  if (values.rounds) options.rounds = num(values.rounds)!;
  if (values['round-ms']) options.roundMs = num(values['round-ms'])!;
  if (values.requests) options.requestsPerRound = num(values.requests)!;
  if (values['hub-dir']) options.hubDir = values['hub-dir'];
  if (values.concurrency) options.concurrencies = values.concurrency.split(',').map(Number);
  try {
    const result = await benchLatency(options);
    if (values.json) console.log(JSON.stringify(result, null, 2));
    else printLatency(result);
    process.exit(0);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
