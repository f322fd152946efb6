/**
 * What one normal-flow Synapse task costs, on each side: hub A (the requester) delegates an `echo` task
 * to hub B (the executor, the demo agent) through A's requester API (`POST /synapse/tasks`), and the
 * task goes through to completed at both, every message between them signed and carried by each hub's
 * delivery pipeline (docs/synapse-protocol.md).
 *
 * Design. Each hub is `npm start`'s (startLocalHub with the very functions/*.ts handlers, its own
 * DynamoDB Local and stream, local SQS and event bus), each in a process of its own, the two on
 * 127.0.0.1 and configured as each other's peer (SYNAPSE_PEERS, SYNAPSE_AGENT_ID, PUSH_URL_ALLOWLIST,
 * as test/e2e/synapse-two-hubs.test.ts does). Not two hubs in one process: the handlers build their
 * AWS clients once per process from the environment (shared/composition-roots/core.ts), so a second hub would reuse
 * the first one's DynamoDB Local and SQS. Each child meters its own hub from inside
 * (test/bench/fixtures/synapse-hub.ts: DynamoDB units from ReturnConsumedCapacity on the handlers'
 * client, every SQS request of the handlers and of the event sources, each handler's invocations, the
 * Synapse messages it received and answered, the lifecycle events) and hands the figures to this
 * process over IPC; nothing of the bench's own is counted (it reads its queues with a client of its
 * own, and learns of completions from the hubs' buses, not by polling their APIs).
 *
 * Per task, sequentially: delegate, then wait until both hubs are idle (relay caught up, no
 * invocation in flight, no message visible, in flight or delayed on any queue, nothing new for two
 * looks in a row), then take both hubs' meters. So whatever the task's changes queue, delayed
 * messages included, is in its figures: the acknowledgements, an order wait (a message to the peer
 * put back until the one before it is delivered), and the heartbeat watches and B's p2p:heartbeats
 * when a relay sees the task executing (an echo run takes milliseconds: B's relay usually gets the
 * claim together with the completion, and nothing is armed). For such messages to come due in
 * seconds, not minutes, both hubs run with HEARTBEAT_INTERVAL_SECONDS=1 (30 by default): a run this
 * short arms the same messages at either interval, only due sooner, and makes no liveness write.
 * The sweeper (once a minute whatever the traffic) is not run.
 *
 * Counting. DynamoDB: requests, read and write units, by operation. SQS as it bills: each request is
 * one (plus one per further 64 KB of payload; none here comes near), a batch of up to 10 messages is
 * one request; counted are the handlers' sends and the event sources' receives that brought messages
 * and their batched deletes (what Lambda's pollers do on AWS); the receives that brought nothing (the
 * idle long polls, and the local poller's top-up receive after its first message) are apart, not per
 * task: on AWS they are the pollers' cost per queue and second. Lambda: invocations per function;
 * durations are the local handlers' wall time (DynamoDB Local, the peer's answer for a delivery, both
 * hubs and their JVMs on the same cores), so the GB-s price is an estimate and is shown apart from
 * the requests'. API Gateway: each invocation of an API function (the delegation at A, each
 * Synapse message at its receiver).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { FUNCTION_MEMORY_MB, type FunctionId } from '../../infra/functions.ts';
import { freePort } from '../../local/dynamodb-local.ts';
import { SYNAPSE_CALLBACK_PATH, SYNAPSE_TASKS_PATH } from '../../shared/contracts/routes.ts';
import type { HubConfig, HubUsage } from './fixtures/synapse-hub.ts';
import { PRICES } from './prices.ts';

const root = join(import.meta.dirname, '..', '..');
const HUB_SCRIPT = join(import.meta.dirname, 'fixtures', 'synapse-hub.ts');
/** The key both hubs sign with (a bench's, nothing else's). */
const KEY = { id: 'bench-1', secret: 'the-synapse-bench-key-shared-by-a-and-b' };
const HEARTBEAT_INTERVAL_SECONDS = 1;

/** One side's figures, per task (means over `tasks`) unless said otherwise. */
export interface SynapseSide {
  role: 'requester' | 'executor';
  hub: string;
  tasks: number;
  wru: number;
  rru: number;
  dynamoRequests: number;
  dynamoRoundTrips: number;
  dynamoByOperation: Record<string, number>;
  /** Conditional writes refused (their units are in wru). */
  failedConditions: number;
  /** Requests the hub sent without ReturnConsumedCapacity (the bench asked for it, so their units count). */
  capacityAsked: Record<string, number>;
  /** SQS requests as billed, batched as the hub's real path makes them. */
  sqsRequests: number;
  sqsByOperation: Record<string, number>;
  /** Messages sent, by queue and kind. */
  sqsMessages: number;
  sqsSent: Record<string, number>;
  /** Of them, sent with a delay (watches, the peer heartbeat, order waits, retries). */
  sqsDelayed: number;
  /** The same with every message sent, received and deleted in a request of its own. */
  sqsRequestsUnbatched: number;
  /** Empty receives of the idle pollers during the whole measurement (not per task). */
  emptyReceivesTotal: number;
  invocations: Partial<Record<FunctionId, number>>;
  /** Mean handler wall time per invocation, ms. */
  durationMs: Partial<Record<FunctionId, number>>;
  /** Billed GB-s per task (each invocation rounded up to the ms, at the function's memory). */
  lambdaGbSeconds: number;
  apiRequests: number;
  lifecycleEvents: number;
  eventsByType: Record<string, number>;
  /** Synapse messages this hub received at /synapse/callback, by type. */
  received: Record<string, number>;
  /** Its synchronous answers to them, by type and HTTP status. */
  answered: Record<string, number>;
  /** Requester API requests. */
  tasksApi: Record<string, number>;
  /**
   * Per task, by function (`poller`: the event sources' receives and deletes): DynamoDB requests by
   * operation and units (refused conditional writes only in the totals), SQS requests by operation.
   */
  byFunction: Record<
    string,
    {
      dynamo: Record<string, number>;
      units: Record<string, number>;
      wru: number;
      rru: number;
      sqs: Record<string, number>;
    }
  >;
  /** Per-task minimum and maximum, to show what varies from task to task. */
  spread: Record<'wru' | 'rru' | 'dynamoRequests' | 'sqsRequests' | 'invocations', [number, number]>;
}

export interface SynapseDollars {
  dynamodb: number;
  lambdaRequests: number;
  /** From local durations: an estimate. */
  lambdaDuration: number;
  apiGateway: number;
  sqs: number;
  eventBridge: number;
  total: number;
}

export interface SynapseResult {
  tasks: number;
  warmup: number;
  /** What was delegated (type echo; the demo agent echoes the text). */
  text: string;
  heartbeatIntervalSeconds: number;
  /** Tasks whose completion both hubs' buses showed. */
  completedAtBoth: number;
  requester: SynapseSide;
  executor: SynapseSide;
  /** The messages each way, per task. */
  messages: { requesterToExecutor: Record<string, number>; executorToRequester: Record<string, number> };
  /** $ per million Synapse tasks. */
  costPerMillion: { requester: SynapseDollars; executor: SynapseDollars; both: SynapseDollars };
  /** Messages left on the dead-letter queues at the end (0 in a normal flow). */
  deadLetters: { requester: Record<string, number>; executor: Record<string, number> };
  /** Warnings and errors the hubs logged during the run (their first lines). */
  warnings: string[];
}

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Probe {
  ticks: number;
  inFlight: number;
  queued: number;
}

/** A hub in its own process, answering over IPC. */
class HubProcess {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Record<string, unknown>) => void>();
  private output = '';
  readonly warnings: string[] = [];
  readonly ready: Promise<{ url: string }>;
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    config: HubConfig,
  ) {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', HUB_SCRIPT], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '', SYNAPSE_BENCH_HUB: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    const keep = (d: Buffer) => {
      const text = d.toString();
      this.output = (this.output + text).slice(-8000);
      for (const line of text.split('\n'))
        if (/"level":"(WARN|ERROR)"|\bthrew\b|did not stop|failed/.test(line) && this.warnings.length < 10)
          this.warnings.push(`${name}: ${line.slice(0, 300)}`);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} not ready in 90 s:\n${this.output}`)), 90_000);
      child.on('message', (m: Record<string, unknown>) => {
        if (m.ready) {
          clearTimeout(timer);
          resolve(m as unknown as { url: string });
        } else this.pending.get(m.id as number)?.(m);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}):\n${this.output}`));
        for (const done of this.pending.values()) done({ error: `${name} exited (${code})` });
      });
    });
    // a rejection nobody awaits yet (the hub died before the bench asked) must not crash the bench
    this.ready.catch(() => undefined);
  }

  private readonly child: ChildProcess;

  private async call<T>(cmd: string, key: string): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.pending.set(id, resolve));
    this.child.send({ id, cmd });
    const m = await answer;
    this.pending.delete(id);
    if (m.error) throw new Error(`${this.name} ${cmd}: ${String(m.error)}\n${this.output}`);
    return m[key] as T;
  }

  snapshot = () => this.call<HubUsage>('snapshot', 'usage');
  probe = () => this.call<Probe>('probe', 'probe');
  deadLetters = () => this.call<Record<string, number>>('dlq', 'dlq');

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      await Promise.race([this.call('stop', 'stopped'), sleep(15_000)]);
    } catch {}
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await Promise.race([this.exited, sleep(10_000)]);
  }
}

/** Waits until both hubs are idle and nothing moved for two looks in a row (what one side does can wake the other). */
const settle = async (hubs: HubProcess[], timeoutMs = 60_000) => {
  const until = Date.now() + timeoutMs;
  let last = '';
  let still = 0;
  for (;;) {
    const probes = await Promise.all(hubs.map((h) => h.probe()));
    const idle = probes.every((p) => p.inFlight === 0 && p.queued === 0);
    const ticks = probes.map((p) => p.ticks).join('/');
    if (idle && ticks === last) {
      if (++still >= 2) return;
    } else still = 0;
    last = ticks;
    if (Date.now() > until)
      throw new Error(`the hubs did not settle in ${timeoutMs} ms: ${JSON.stringify(probes)}`);
    await sleep(200);
  }
};

const sumInto = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};
const perTask = (totals: Record<string, number>, n: number) =>
  Object.fromEntries(
    Object.entries(totals)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, round(v / n)]),
  );
const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
const invocationsOf = (u: HubUsage) => Object.values(u.invocations).reduce((a, f) => a + (f?.count ?? 0), 0);

const sideOf = (
  role: SynapseSide['role'],
  hub: string,
  usages: HubUsage[],
  emptyReceives: number,
): SynapseSide => {
  const n = usages.length;
  const dynamoByOperation: Record<string, number> = {};
  const capacityAsked: Record<string, number> = {};
  const sqsByOperation: Record<string, number> = {};
  const sqsSent: Record<string, number> = {};
  const eventsByType: Record<string, number> = {};
  const received: Record<string, number> = {};
  const answered: Record<string, number> = {};
  const tasksApi: Record<string, number> = {};
  const fns = new Map<FunctionId, { count: number; ms: number; billedMs: number }>();
  const byFn: SynapseSide['byFunction'] = {};
  let wru = 0;
  let rru = 0;
  let requests = 0;
  let roundTrips = 0;
  let failed = 0;
  let sqsBilled = 0;
  let delayed = 0;
  let api = 0;
  for (const u of usages) {
    wru += u.dynamo.writeUnits;
    rru += u.dynamo.readUnits;
    requests += u.dynamo.requests;
    roundTrips += u.dynamo.roundTrips;
    failed += u.dynamo.failedConditions;
    sumInto(dynamoByOperation, u.dynamo.byOperation);
    sumInto(capacityAsked, u.capacityAsked);
    sumInto(sqsByOperation, u.sqs.byOperation);
    sumInto(sqsSent, u.sqs.sent);
    sqsBilled += u.sqs.billed;
    delayed += u.sqs.delayed;
    sumInto(eventsByType, u.events);
    sumInto(received, u.received);
    sumInto(answered, u.answered);
    sumInto(tasksApi, u.tasksApi);
    api += u.apiRequests;
    for (const [fn, d] of Object.entries(u.byFunction)) {
      const into = byFn[fn] ?? { dynamo: {}, units: {}, wru: 0, rru: 0, sqs: {} };
      byFn[fn] = into;
      sumInto(into.dynamo, d.dynamo);
      sumInto(into.units, d.units);
      sumInto(into.sqs, d.sqs);
      into.wru += d.wru;
      into.rru += d.rru;
    }
    for (const [fn, f] of Object.entries(u.invocations) as Array<
      [FunctionId, HubUsage['invocations'][FunctionId]]
    >) {
      if (!f) continue;
      const into = fns.get(fn) ?? { count: 0, ms: 0, billedMs: 0 };
      into.count += f.count;
      into.ms += f.ms;
      into.billedMs += f.billedMs;
      fns.set(fn, into);
    }
  }
  let gbSeconds = 0;
  const invocations: SynapseSide['invocations'] = {};
  const durationMs: SynapseSide['durationMs'] = {};
  for (const [fn, f] of [...fns].sort(([a], [b]) => a.localeCompare(b))) {
    gbSeconds += (f.billedMs / 1000) * (FUNCTION_MEMORY_MB[fn] / 1024);
    invocations[fn] = round(f.count / n);
    durationMs[fn] = round(f.ms / f.count, 1);
  }
  const spreadOf = (f: (u: HubUsage) => number): [number, number] => {
    const xs = usages.map(f);
    return [round(Math.min(...xs)), round(Math.max(...xs))];
  };
  const messages = total(sqsSent);
  return {
    role,
    hub,
    tasks: n,
    wru: round(wru / n),
    rru: round(rru / n),
    dynamoRequests: round(requests / n),
    dynamoRoundTrips: round(roundTrips / n),
    dynamoByOperation: perTask(dynamoByOperation, n),
    failedConditions: round(failed / n),
    capacityAsked: perTask(capacityAsked, n),
    sqsRequests: round(sqsBilled / n),
    sqsByOperation: perTask(sqsByOperation, n),
    sqsMessages: round(messages / n),
    sqsSent: perTask(sqsSent, n),
    sqsDelayed: round(delayed / n),
    sqsRequestsUnbatched: round((3 * messages) / n),
    emptyReceivesTotal: emptyReceives,
    invocations,
    durationMs,
    lambdaGbSeconds: round(gbSeconds / n, 6),
    apiRequests: round(api / n),
    lifecycleEvents: round(total(eventsByType) / n),
    eventsByType: perTask(eventsByType, n),
    received: perTask(received, n),
    answered: perTask(answered, n),
    tasksApi: perTask(tasksApi, n),
    byFunction: Object.fromEntries(
      Object.entries(byFn)
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([fn, d]) => [
          fn,
          {
            dynamo: perTask(d.dynamo, n),
            units: perTask(d.units, n),
            wru: round(d.wru / n),
            rru: round(d.rru / n),
            sqs: perTask(d.sqs, n),
          },
        ]),
    ),
    spread: {
      wru: spreadOf((u) => u.dynamo.writeUnits),
      rru: spreadOf((u) => u.dynamo.readUnits),
      dynamoRequests: spreadOf((u) => u.dynamo.requests),
      sqsRequests: spreadOf((u) => u.sqs.billed),
      invocations: spreadOf(invocationsOf),
    },
  };
};

/** $ per million tasks of one side. */
export const synapseDollars = (s: SynapseSide): SynapseDollars => {
  const m = 1e6;
  const d = {
    dynamodb: m * (s.wru * PRICES.dynamodb.perWriteUnit + s.rru * PRICES.dynamodb.perReadUnit),
    lambdaRequests: m * total(s.invocations as Record<string, number>) * PRICES.lambda.perRequest,
    lambdaDuration: m * s.lambdaGbSeconds * PRICES.lambda.perGbSecond,
    apiGateway: m * s.apiRequests * PRICES.apiGateway.perRestRequest,
    sqs: m * s.sqsRequests * PRICES.sqs.perRequest,
    eventBridge: m * s.lifecycleEvents * PRICES.eventBridge.perEvent,
  };
  const r = Object.fromEntries(Object.entries(d).map(([k, v]) => [k, round(v, 2)])) as Omit<
    SynapseDollars,
    'total'
  >;
  return { ...r, total: round(total(d), 2) };
};

const addDollars = (a: SynapseDollars, b: SynapseDollars): SynapseDollars =>
  Object.fromEntries(
    Object.keys(a).map((k) => [k, round(a[k as keyof SynapseDollars] + b[k as keyof SynapseDollars], 2)]),
  ) as unknown as SynapseDollars;

export const benchSynapse = async (
  options: { tasks?: number; warmup?: number } = {},
): Promise<SynapseResult> => {
  const tasks = options.tasks ?? 20;
  const warmup = options.warmup ?? 3;
  const [portA, portB] = [await freePort(), await freePort()];
  const urlA = `http://127.0.0.1:${portA}`;
  const urlB = `http://127.0.0.1:${portB}`;
  const common = {
    PUSH_URL_ALLOWLIST: '127.0.0.1',
    HEARTBEAT_INTERVAL_SECONDS: String(HEARTBEAT_INTERVAL_SECONDS),
  };
  const b = new HubProcess('hub B (executor)', {
    name: 'hub-b',
    port: portB,
    env: {
      ...common,
      SYNAPSE_AGENT_ID: 'hub-b',
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: 'hub-a', tenant: 'partners', endpoint: `${urlA}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
      ]),
    },
  });
  const a = new HubProcess('hub A (requester)', {
    name: 'hub-a',
    port: portA,
    env: {
      ...common,
      SYNAPSE_AGENT_ID: 'hub-a',
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: 'hub-b', tenant: 'default', endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
      ]),
    },
  });
  const hubs = [a, b];
  const text = 'echo across hubs, for the bench';
  try {
    await Promise.all([a.ready, b.ready]);
    const delegate = async () => {
      const res = await fetch(`${urlA}${SYNAPSE_TASKS_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ peer: 'hub-b', type: 'echo', text }),
      });
      const body = (await res.json()) as { task?: { id: string } };
      if (res.status !== 201 || !body.task)
        throw new Error(`delegation refused: ${res.status} ${JSON.stringify(body)}`);
      return body.task.id;
    };

    // warm up (JIT, connections, the peers and keys each hub reads once), uncounted
    for (let i = 0; i < warmup; i++) {
      await delegate();
      await settle(hubs);
    }
    await Promise.all(hubs.map((h) => h.snapshot()));

    const usagesA: HubUsage[] = [];
    const usagesB: HubUsage[] = [];
    let completedAtBoth = 0;
    for (let i = 0; i < tasks; i++) {
      const id = await delegate();
      await settle(hubs);
      const [ua, ub] = await Promise.all([a.snapshot(), b.snapshot()]);
      if (ua.completed.length !== 1 || ua.completed[0] !== id)
        throw new Error(`task ${id}: hub A saw completed ${JSON.stringify(ua.completed)}`);
      if (ub.completed.length !== 1)
        throw new Error(`task ${id}: hub B saw completed ${JSON.stringify(ub.completed)}`);
      completedAtBoth++;
      usagesA.push(ua);
      usagesB.push(ub);
    }
    const emptyA = usagesA.reduce((s, u) => s + u.sqs.emptyReceives, 0);
    const emptyB = usagesB.reduce((s, u) => s + u.sqs.emptyReceives, 0);
    const requester = sideOf('requester', 'hub A', usagesA, emptyA);
    const executor = sideOf('executor', 'hub B', usagesB, emptyB);
    const [dlqA, dlqB] = await Promise.all([a.deadLetters(), b.deadLetters()]);
    const costA = synapseDollars(requester);
    const costB = synapseDollars(executor);
    return {
      tasks,
      warmup,
      text,
      heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS,
      completedAtBoth,
      requester,
      executor,
      messages: { requesterToExecutor: executor.received, executorToRequester: requester.received },
      costPerMillion: { requester: costA, executor: costB, both: addDollars(costA, costB) },
      deadLetters: { requester: dlqA, executor: dlqB },
      warnings: [...a.warnings, ...b.warnings],
    };
  } finally {
    await Promise.all(hubs.map((h) => h.stop()));
  }
};

const ops = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '—';

/** The figures as console tables. */
export const printSynapse = (s: SynapseResult) => {
  const sides = [s.requester, s.executor];
  console.log(
    `\nSynapse: one normal-flow task (echo) delegated A → B, per task, on each side (${s.tasks} tasks, ${s.completedAtBoth} completed at both)`,
  );
  console.table(
    Object.fromEntries(
      sides.map((x) => [
        `${x.role} (${x.hub})`,
        {
          WRU: x.wru,
          RRU: x.rru,
          'DynamoDB requests': x.dynamoRequests,
          'SQS requests': x.sqsRequests,
          'SQS messages': x.sqsMessages,
          'Lambda invocations': round(total(x.invocations as Record<string, number>)),
          'API requests': x.apiRequests,
          'lifecycle events': x.lifecycleEvents,
          'GB-s': x.lambdaGbSeconds,
        },
      ]),
    ),
  );
  for (const x of sides) {
    console.log(`${x.role} (${x.hub}):`);
    console.log(`  DynamoDB by operation: ${ops(x.dynamoByOperation)}`);
    console.log(`  SQS by operation: ${ops(x.sqsByOperation)}; messages sent: ${ops(x.sqsSent)}`);
    console.log(
      `  Lambda: ${ops(x.invocations as Record<string, number>)}; mean ms: ${ops(x.durationMs as Record<string, number>)}`,
    );
    for (const [fn, d] of Object.entries(x.byFunction))
      console.log(
        `    ${fn}: DynamoDB ${
          Object.entries(d.dynamo)
            .map(([k, v]) => `${k} ${v} (${d.units[k] ?? 0} u)`)
            .join(', ') || '—'
        }; SQS ${ops(d.sqs)}`,
      );
    console.log(`  Synapse messages received: ${ops(x.received)}; answered: ${ops(x.answered)}`);
    console.log(
      `  spread (min–max per task): ${Object.entries(x.spread)
        .map(([k, [lo, hi]]) => `${k} ${lo}–${hi}`)
        .join(', ')}`,
    );
    if (Object.keys(x.capacityAsked).length)
      console.log(`  sent without ReturnConsumedCapacity (asked for by the bench): ${ops(x.capacityAsked)}`);
  }
  console.log('$ per million Synapse tasks');
  console.table(s.costPerMillion);
  if (s.warnings.length) console.log(`hub warnings:\n  ${s.warnings.join('\n  ')}`);
};

// `npx tsx test/bench/synapse.ts [tasks]` prints the figures
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchSynapse(process.argv[2] ? { tasks: Number(process.argv[2]) } : {});
  printSynapse(result);
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
