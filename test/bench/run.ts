/**
 * `npm run bench`: measures, prints the figures and the goals, writes
 * `.bench/results.json`, and (when every section ran) regenerates
 * docs/benchmarks.md from those very results. Not a test: nothing here
 * asserts a time. `npm run bench -- cost store` runs some sections only
 * (results.json then holds just those, and the docs are left alone).
 *
 * Sections: cost, store, registry, scale, races, crash, heartbeats, deliveries, synapse, auth,
 * streaming, latency, coldstart, startup, cli, hostile, inspector. The timing sections run last and alone, so nothing of the bench's
 * own competes with them for the two cores (streaming times deliveries too,
 * but they are bounded by its poll interval, not by the cores).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { startDynamoLocal } from '../../local/dynamodb-local.ts';
import { createTestTable } from '../support/dynamo.ts';
import { benchAuthIsolated, printAuth } from './auth.ts';
import { coldStartRows, measureColdStart } from './bundles.ts';
import { benchCli, printCli } from './cli.ts';
import { benchCost } from './cost.ts';
import { benchCrash, benchCrashRunning } from './crash.ts';
import { benchDeliveries } from './deliveries.ts';
import { goalsOf } from './goals.ts';
import { benchHeartbeat } from './heartbeat.ts';
import { benchHostile, printHostile } from './hostile.ts';
import { benchInspectorIsolated, printInspector } from './inspector.ts';
import { benchLatency, printLatency } from './latency.ts';
import { benchRaces } from './races.ts';
import { benchRegistry, printRegistry } from './registry.ts';
import { renderBenchmarks } from './report.ts';
import type { BenchResults } from './results.ts';
import { benchScale } from './scale.ts';
import { benchStartup } from './startup.ts';
import { benchStore } from './store.ts';
import { benchStreaming, printStreaming } from './streaming.ts';
import { benchSynapse, printSynapse } from './synapse.ts';

const SECTIONS = [
  'cost',
  'store',
  'registry',
  'scale',
  'races',
  'crash',
  'heartbeats',
  'deliveries',
  'synapse',
  'auth',
  'streaming',
  'latency',
  'coldstart',
  'startup',
  'cli',
  'hostile',
  'inspector',
] as const;
const root = join(import.meta.dirname, '..', '..');
/** Interleaved import rounds of the cold-start section (each imports every bundle and the baseline once). */
const COLD_START_RUNS = 41;
const asked = process.argv.slice(2);
for (const s of asked) {
  if (!(SECTIONS as readonly string[]).includes(s)) {
    console.error(`unknown section ${s}; sections: ${SECTIONS.join(', ')}`);
    process.exit(2);
  }
}
const sections = asked.length ? SECTIONS.filter((s) => asked.includes(s)) : [...SECTIONS];
const want = (name: (typeof SECTIONS)[number]) => sections.includes(name);

process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const results: BenchResults = {
  date: new Date().toISOString(),
  node: process.version,
  machine: { cpus: cpus().length, model: cpus()[0]?.model.trim() ?? 'unknown' },
  sections,
};
const step = (name: string) => console.error(`bench: ${name}…`);

if (want('cost')) {
  step('cost of a task on the hub');
  const c = await benchCost();
  Object.assign(results, {
    simpleTask: c.simpleTask,
    executorTask: c.executorTask,
    costPerMillionTasks: c.costPerMillionTasks,
    costPerMillionExecutorTasks: c.costPerMillionExecutorTasks,
    getTask: c.getTask,
    retriedSend: c.retriedSend,
    prices: c.prices,
  });
  console.log('\nPer task, on the hub of npm start');
  console.table([c.simpleTask, c.executorTask].map(({ invocations, durationMs, ...rest }) => rest));
  console.log('$ per million tasks');
  console.table({ simple: c.costPerMillionTasks, executor: c.costPerMillionExecutorTasks });
}

if (want('store')) {
  step('store operations');
  const table = await createTestTable();
  try {
    results.store = await benchStore(table);
  } finally {
    await table.drop();
  }
  console.log('\nStore: a transition, a cancel and a read by history length');
  console.table(results.store.transitionByHistory);
  console.table(results.store.cancelByHistory);
  console.table(results.store.readLastTenByHistory);
  console.log('Status-filtered ListTasks page by other tasks held');
  console.table(results.store.filteredListPage);
}

if (want('registry')) {
  step('agent registry (search and browse at 100, 1,000 and 10,000 agents; publishing; precision; probing)');
  results.registry = await benchRegistry({ log: (line) => console.error(line) });
  printRegistry(results.registry);
}

if (want('scale')) {
  step('scale (100, 10,000 and 100,000 tasks of one owner)');
  // a DynamoDB Local of its own, stopped after: 100,000 tasks would leave the shared JVM's heap full
  // and every later section slow
  const dynamo = await startDynamoLocal();
  const table = await createTestTable(dynamo.endpoint);
  try {
    results.scale = await benchScale(table);
  } finally {
    await table.drop();
    await dynamo.stop();
  }
  console.log('\nListTasks by tasks held (pageSize 50)');
  console.table(results.scale.listTasks);
  console.table([results.scale.shardMerge]);
  console.table(results.scale.sweep);
  console.table([results.scale.longTask]);
  console.log('load seconds', results.scale.loadSeconds);
}

if (want('races')) {
  step('races (1,000 trials of 20 writers)');
  const table = await createTestTable();
  try {
    results.races = await benchRaces(table);
  } finally {
    await table.drop();
  }
  console.log('\nRaces');
  console.table([results.races]);
}

if (want('crash')) {
  step('crash and restart');
  results.crash = await benchCrash();
  console.log('\nCrash and restart');
  console.table([results.crash]);
}

if (want('heartbeats')) {
  step('heartbeats (running tasks at a scaled-down interval; a SIGKILL with 10 tasks running)');
  results.heartbeats = await benchHeartbeat();
  console.log('\nHeartbeats, per running task-minute at the 30 s default');
  console.table([results.heartbeats]);
  results.crashRunning = await benchCrashRunning();
  console.log('Crash while running');
  console.table([{ ...results.crashRunning, endings: JSON.stringify(results.crashRunning.endings) }]);
}

if (want('deliveries')) {
  step('push deliveries (delivered at once, then retried once)');
  results.deliveries = await benchDeliveries();
  console.log('\nPush deliveries: per notification and per retry');
  console.table({ delivered: results.deliveries.perDelivered, retry: results.deliveries.perRetry });
}

if (want('synapse')) {
  step('a Synapse task between two hubs (requester and executor, each npm start in its own process)');
  results.synapse = await benchSynapse({ tasks: 20 });
  printSynapse(results.synapse);
}

if (want('auth')) {
  step('authentication (the authorizer per verdict, a request through the gateway with and without it)');
  results.auth = await benchAuthIsolated();
  printAuth(results.auth);
}

if (want('streaming')) {
  step('SSE streaming (an idle minute, then 100 events to two subscribers)');
  results.streaming = await benchStreaming();
  printStreaming(results.streaming);
}

if (want('latency')) {
  step('latency, hub vs @a2a-js/sdk');
  results.latency = await benchLatency({ rounds: 4, roundMs: 3000, warmupRequests: 500, log: false });
  printLatency(results.latency);
}

if (want('coldstart')) {
  step('cold start');
  // 41 rounds, not 15: with 15 the same code measured a worst ratio anywhere from 0.85 to 1.08 from one run to
  // the next on these shared machines; with 41 the medians move far less
  results.coldStart = await measureColdStart({ runs: COLD_START_RUNS });
  console.log('\nCold start (import of each bundle vs the SDK server bundled alike)');
  console.table(coldStartRows(results.coldStart));
}

if (want('startup')) {
  step('npm start to ready');
  results.startup = await benchStartup();
}

if (want('cli')) {
  step('the synapse command line: --version and card get, each a fresh process');
  results.cli = await benchCli();
  printCli(results.cli);
}

if (want('hostile')) {
  step('the request parser on the worst 1 MiB requests');
  results.hostile = benchHostile();
  printHostile(results.hostile);
}

if (want('inspector')) {
  step('the inspector in chromium: first paint, weight, a task of 10,000 events scrolled');
  results.inspector = await benchInspectorIsolated();
  printInspector(results.inspector);
}

results.goals = goalsOf(results);
console.log('\nGoals');
console.table(results.goals);

const dir = join(root, '.bench');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${join(dir, 'results.json')}`);
if (sections.length === SECTIONS.length) {
  writeFileSync(join(root, 'docs', 'benchmarks.md'), renderBenchmarks(results));
  console.log(`wrote ${join(root, 'docs', 'benchmarks.md')}`);
} else {
  console.log('docs/benchmarks.md not rewritten: only a full run writes it');
}
process.exit(0);
