/**
 * The chaos run (docs/reliability.md#the-chaos-run): two local hubs with the seeded fault layer on (FAULTS, local/faults/),
 * a mixed workload against them, then the faults off, a drain, and the invariants.
 *
 *   npm run chaos -- --seed N --rate R [--tasks T] [--kinds K,…] [--concurrency C] [--drain-seconds S] [--log-level L]
 *
 * --seed: the run's seed (hub A's faults; hub B's are derived from it; the workload's choices too);
 * --rate: the fault rate, `5%` or `0.05` (FAULTS=seed:rate); --kinds: only these fault kinds (FAULT_KINDS,
 * each optionally `kind=rate`; every kind by default); --tasks: how many tasks (1000);
 * --concurrency: flows in flight (32); --log-level: the hubs' (CRITICAL; ERROR or WARN to see why a seed failed); --drain-seconds: how long the drain may take before what is left
 * is called stuck (600: at 20% the deliveries' retries take minutes to settle). One DynamoDB Local, two hubs as child processes (test/chaos/hub-child.ts), each
 * logging to .artifacts/chaos/<seed>-hub-<a|b>.log. It prints the fault counts, then one line
 * `CHAOS seed=… rate=… tasks=… faults=… lost=… duplicated=… stuck=… unexpected5xx=…`, and exits 1 when
 * an invariant fails, naming the task, the hub and the seed (test/chaos/check.ts says what each checks).
 * In that line a Synapse requester that ended otherwise than its executor counts as lost (it never took the
 * executor's outcome) unless their final messages crossed (check.ts: noted), and a partition that fails its audit (two terminal events, events after the
 * terminal one) as duplicated; each failure has its own FAIL line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type DynamoLocal, freePort, startDynamoLocal } from '../../local/dynamodb-local.ts';
import { FAULT_KINDS, type FaultKind, parseFaultSpec } from '../../shared/config/faults.ts';
import { SYNAPSE_CALLBACK_PATH } from '../../shared/contracts/routes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { check, drain, type Failure, HubReader, whyOf } from './check.ts';
import { MAX_SENDS, Observed } from './client.ts';
import { type ChaosHub, startChaosHub } from './hubs.ts';
import { plan, runWorkload } from './workload.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = join(ROOT, '.artifacts', 'chaos');
const AGENT = fileURLToPath(new URL('../local/fixtures/idempotent-demo-agent.ts', import.meta.url));
const KEY = { id: 'chaos-1', secret: 'the-secret-hub-a-and-hub-b-share-in-chaos' };

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    rate: { type: 'string', default: '5%' },
    kinds: { type: 'string', default: '' },
    tasks: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '32' },
    'drain-seconds': { type: 'string', default: '600' },
    'log-level': { type: 'string', default: 'CRITICAL' },
  },
});
const seed = Number(values.seed);
const tasks = Number(values.tasks);
const concurrency = Number(values.concurrency);
const drainSeconds = Number(values['drain-seconds']);
/** FAULTS of a hub: every kind unless --kinds names some (shared/config/faults.ts). */
const faultsOf = (hubSeed: number) => `${hubSeed}:${values.rate}${values.kinds ? `:${values.kinds}` : ''}`;
const specA = parseFaultSpec(faultsOf(seed));
if (!Number.isSafeInteger(seed) || seed < 0 || !specA || !(tasks >= 1) || !(concurrency >= 1)) {
  console.error(
    'usage: npm run chaos -- --seed N --rate R [--tasks T] [--concurrency C] [--drain-seconds S]',
  );
  process.exit(2);
}
/** Hub B's seed: another from the same N, so its faults differ from A's. */
const seedB = (seed * 2_654_435_761 + 97) % 1_000_000_007;

const say = (text: string) => console.log(`[chaos ${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
const started = Date.now();

let dynamo: DynamoLocal | undefined;
let receiver: WebhookReceiver | undefined;
const hubs: ChaosHub[] = [];
const readers: HubReader[] = [];

const cleanup = async () => {
  for (const r of readers) r.close();
  await Promise.all(hubs.map((h) => h.stop().catch(() => h.kill())));
  await receiver?.close();
  await dynamo?.stop();
};

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`chaos: ${signal}, stopping the hubs`);
    for (const h of hubs) h.kill();
    void dynamo?.stop().finally(() => process.exit(130));
  });

const main = async (): Promise<number> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  say(`seed ${seed} (hub B ${seedB}), rate ${values.rate}, ${tasks} tasks, ${concurrency} in flight`);
  [dynamo, receiver] = await Promise.all([
    startDynamoLocal({ tuning: 'throughput' }),
    startWebhookReceiver(),
  ]);
  const [portA, portB] = [await freePort(), await freePort()];
  const callback = (port: number) => `http://127.0.0.1:${port}${SYNAPSE_CALLBACK_PATH}`;
  const common = {
    PUSH_URL_ALLOWLIST: '127.0.0.1',
    DELIVERY_BASE_DELAY_SECONDS: '0.1',
    DELIVERY_JITTER: '0',
    HEARTBEAT_MISSED_LIMIT: '2',
    POWERTOOLS_LOG_LEVEL: values['log-level'].toUpperCase(),
    SYNAPSE_QUIET_EVENTS: '1',
  };
  const logFile = (name: string) => {
    const file = join(ARTIFACTS, `${seed}-hub-${name}.log`);
    writeFileSync(file, '');
    return file;
  };
  const start = {
    dynamoEndpoint: dynamo.endpoint,
    agentModule: AGENT,
    // the work of a consumer that died comes back within seconds, not the queue's minutes
    visibilityTimeoutCapSeconds: 3,
    sweepIntervalMs: 1000,
  };
  // each pushed once started, so a failed start of the other still stops it
  const running = (h: ChaosHub) => {
    hubs.push(h);
    return h;
  };
  const [hubA, hubB] = await Promise.all([
    startChaosHub('A', {
      ...start,
      port: portA,
      logFile: logFile('a'),
      env: {
        ...common,
        FAULTS: faultsOf(seed),
        SYNAPSE_AGENT_ID: 'hub-a',
        SYNAPSE_PEERS: JSON.stringify([
          { peerId: 'hub-b', tenant: 'default', endpoint: callback(portB), keys: [KEY] },
        ]),
        // the bridge, as in test/e2e/synapse-two-hubs.test.ts: these skills of A are carried out by B
        SYNAPSE_REMOTE_SKILLS: JSON.stringify({
          echo: 'hub-b',
          slow: 'hub-b',
          approve: { peer: 'hub-b', type: 'approve' },
        }),
        // A's own runs beat every 2 s; B's runs for A are watched through B's heartbeats (every 1 s) with
        // room for a late one
        HEARTBEAT_INTERVAL_SECONDS: '2',
      },
    }).then(running),
    startChaosHub('B', {
      ...start,
      port: portB,
      logFile: logFile('b'),
      env: {
        ...common,
        FAULTS: faultsOf(seedB),
        SYNAPSE_AGENT_ID: 'hub-b',
        SYNAPSE_PEERS: JSON.stringify([
          { peerId: 'hub-a', tenant: 'partners', endpoint: callback(portA), keys: [KEY] },
        ]),
        HEARTBEAT_INTERVAL_SECONDS: '1',
      },
    }).then(running),
  ]);
  readers.push(new HubReader('A', hubA), new HubReader('B', hubB));
  say(`hubs ready: A ${hubA.url}, B ${hubB.url}`);

  const observed = new Observed();
  const planned = plan(seed, tasks);
  const workStart = Date.now();
  const outcomes = await runWorkload(
    { urls: { A: hubA.url, B: hubB.url }, hookUrl: (p) => receiver!.url(p), observed },
    planned,
    concurrency,
    (done) => {
      if (done % 100 === 0 || done === tasks) say(`${done}/${tasks} flows done`);
    },
  );
  say(`workload done in ${((Date.now() - workStart) / 1000).toFixed(1)}s; faults off, draining`);

  await Promise.all(hubs.map((h) => h.command('faults-off')));
  const drained = await drain(readers, drainSeconds * 1000, say);
  say(`${drained.drained ? 'drained' : 'not drained'} in ${(drained.ms / 1000).toFixed(1)}s; checking`);

  const counts = await Promise.all(hubs.map((h) => h.command('counts')));
  const byKind = Object.fromEntries(
    (Object.keys(FAULT_KINDS) as FaultKind[]).map((k) => [k, counts.reduce((s, c) => s + (c[k] ?? 0), 0)]),
  ) as Record<FaultKind, number>;
  const faults = Object.values(byKind).reduce((s, n) => s + n, 0);

  const report = await check({
    readers: { A: readers[0]!, B: readers[1]! },
    outcomes,
    receiver,
    observed,
  });
  const leftOver = await Promise.all(readers.map(async (r) => [r.name, await r.queued(true)] as const));
  console.log(
    `dead-letter queues and relay failures: ${leftOver
      .map(
        ([name, q]) =>
          `${name} ${Object.entries(q)
            .map(([k, n]) => `${k}=${n}`)
            .join(' ')}`,
      )
      .join('; ')}`,
  );
  // what is in the delivery DLQs, and why (the check reads them; each is explained by a note or a failure)
  for (const r of readers)
    for (const m of (await r.deadLetters()).slice(0, 20))
      console.log(
        `in ${r.name}'s delivery DLQ: task ${m.taskId} v${m.version} ${m.redrive}.${m.attempt}${m.heartbeat ? ' (heartbeat)' : ''} to ${m.configId}: ${whyOf(m)}`,
      );
  const count = (c: Failure['category']) => report.failures.filter((f) => f.category === c).length;

  console.log(
    `statuses: ${[...observed.statuses]
      .sort()
      .map(([s, n]) => `${s}=${n}`)
      .join(' ')}; retries on 503: ${observed.retries}; gave up after ${MAX_SENDS} sends: ${observed.gaveUp}`,
  );
  for (const r of observed.refused) console.log(`refused: ${r.status} for ${r.what}: ${r.body}`);
  for (const [kind, states] of report.outcomes)
    console.log(`outcome ${kind}: ${[...states].map(([s, n]) => `${s}=${n}`).join(' ')}`);
  const noteKinds = new Map<string, number>();
  for (const n of report.notes) {
    const kind = noteKindOf(n);
    noteKinds.set(kind, (noteKinds.get(kind) ?? 0) + 1);
  }
  if (report.notes.length > 0) console.log(`notes: ${[...noteKinds].map(([k, n]) => `${k}=${n}`).join(' ')}`);
  const notesShown = report.notes.slice(0, 40);
  for (const n of notesShown) console.log(`note: ${n}`);
  if (report.notes.length > notesShown.length)
    console.log(`note: … and ${report.notes.length - notesShown.length} more`);
  for (const f of report.failures)
    console.log(
      `FAIL ${f.category}: ${f.taskId ? `task ${f.taskId} ` : ''}${f.hub ? `at hub ${f.hub} ` : ''}(seed ${seed}): ${f.what}`,
    );
  if (report.failures.length > 0) console.log(`logs: ${hubA.logFile}, ${hubB.logFile}`);
  console.log(
    `faults: ${Object.entries(byKind)
      .map(([k, n]) => `${k}=${n}`)
      .join(' ')}`,
  );
  console.log(
    `CHAOS seed=${seed} rate=${values.rate} tasks=${tasks} faults=${faults} ` +
      `lost=${count('lost') + count('mismatch')} duplicated=${count('duplicated') + count('audit')} ` +
      `stuck=${count('stuck')} unexpected5xx=${count('unexpected5xx')}`,
  );
  return report.failures.length > 0 ? 1 : 0;
};

/** What a note of check.ts is about, for the count by kind. */
const noteKindOf = (note: string): string => {
  if (note.startsWith('crossed:')) return 'crossed';
  if (note.startsWith('gave up:')) return 'gave-up';
  if (note.startsWith('dead-lettered:')) return 'pair-dead-lettered';
  if (/final push (dead-lettered|is in the DLQ)/.test(note)) return 'push-dead-lettered';
  if (note.includes('is in the DLQ')) return 'claimed-attempt-in-dlq';
  if (note.includes('no task id')) return 'no-task';
  return 'other-outcome';
};

let code = 1;
try {
  code = await main();
} catch (e) {
  console.error('chaos: the run failed:', e);
} finally {
  await cleanup();
}
process.exit(code);
