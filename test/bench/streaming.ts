/**
 * What SSE streaming costs and how fast it delivers, on the hub's real path:
 * the local hub of `npm start` (the very jsonrpc and rest handlers, response
 * streaming through the local gateway, DynamoDB Local) with a meter on the
 * handlers' one DynamoDB client, the client every stream's poller reads through.
 *
 * - Idle: a task that nothing happens to (the executor is a no-op, so it stays
 *   SUBMITTED), one JSON-RPC SubscribeToTask; after its snapshot, one minute
 *   of reads and the heartbeat comments seen.
 * - Per event: a second such task followed by a JSON-RPC and a REST
 *   subscriber, driven from here by an engine of our own (its own client, not
 *   metered): confirm + start, status updates with an agent message at random
 *   gaps, complete. The reads while it runs, per streamed event and
 *   subscriber, and each event's delay from the apply returning to its frame
 *   arriving, per transport.
 *
 * Runs in a child process of its own (`benchStreaming`): the handler modules
 * and their DynamoDB client are cached per process, and the cost section loads
 * the jsonrpc handler without the Lambda streaming stand-in (buffered) and
 * points that client at its own hub, gone by the time this runs.
 * Standalone: `npx tsx test/bench/streaming.ts` prints the result as JSON.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { DynamoUsage } from '../../shared/adapters/dynamodb/usage.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { JSONRPC_PATH, REST_PATH } from '../../shared/contracts/routes.ts';
import type { Message } from '../../shared/domain/task.ts';

export interface TransportDelivery {
  transport: 'JSON-RPC SubscribeToTask' | 'REST GET tasks/{id}:subscribe';
  /** Events received after the snapshot. */
  received: number;
  /** Exactly the streamed events, in version order, none twice, each with its message. */
  complete: boolean;
  duplicates: number;
  missing: number;
  /** Frames whose status message was not the one applied at that version. */
  wrongContent: number;
  /** Apply resolved (in the driver) → frame read (by the subscriber), ms. */
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface StreamingResult {
  idle: {
    seconds: number;
    /** Read units consumed by the stream's polls in that time (after its snapshot). */
    rru: number;
    readsPerMinute: number;
    roundTripsPerMinute: number;
    byOperation: Record<string, number>;
    /** `:` comments the client saw in that time. */
    heartbeats: number;
  };
  perEvent: {
    /** Events the streams show (start, the status updates, complete); `confirm` is not shown. */
    events: number;
    statusUpdates: number;
    subscribers: number;
    /** Seed of the gaps between events (fixed, so runs compare). */
    seed: number;
    maxGapMs: number;
    driveSeconds: number;
    rru: number;
    reads: number;
    byOperation: Record<string, number>;
    rruPerEventPerSubscriber: number;
    transports: TransportDelivery[];
  };
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Nearest-rank percentile of sorted values (as latency.ts). */
const percentile = (sorted: number[], q: number): number | null =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : null;

/** mulberry32: a small seeded generator, so every run drives the same gaps. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

interface Frame {
  id?: number;
  comment?: boolean;
  /** The StreamResponse (unwrapped from its JSON-RPC response on that binding). */
  result?: Record<string, unknown>;
  at: number;
}

/** An open SSE stream: its frames as they arrive (stamped when read), until it ends or is aborted. */
interface Subscriber {
  frames: Frame[];
  /** Resolves with the first event frame (the snapshot). */
  first: Promise<Frame>;
  ended: Promise<void>;
  abort(): void;
}

const subscribe = async (url: string, init: RequestInit): Promise<Subscriber> => {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  if (!res.ok || !res.headers.get('content-type')?.startsWith('text/event-stream'))
    throw new Error(`${url}: ${res.status} ${res.headers.get('content-type')}: ${await res.text()}`);
  const frames: Frame[] = [];
  let gotFirst: (f: Frame) => void = () => {};
  let failFirst: (e: unknown) => void = () => {};
  const first = new Promise<Frame>((resolve, reject) => {
    gotFirst = resolve;
    failFirst = reject;
  });
  const ended = (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const at = performance.now();
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Frame = { at };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = true;
            else if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
            else if (line.startsWith('data: ')) {
              const data = JSON.parse(line.slice(6)) as Record<string, unknown>;
              if ('error' in data) throw new Error(`${url}: error in the stream: ${line}`);
              frame.result = (data.jsonrpc ? data.result : data) as Record<string, unknown>;
            }
          }
          frames.push(frame);
          if (frame.result) gotFirst(frame);
        }
      }
      failFirst(new Error(`${url}: the stream ended without an event`));
    } catch (e) {
      failFirst(e);
      if (!controller.signal.aborted) throw e;
    }
  })();
  ended.catch(() => {}); // awaited by the caller; not an unhandled rejection meanwhile
  return { frames, first, ended, abort: () => controller.abort() };
};

const A2A = { 'content-type': 'application/json', 'A2A-Version': '1.0' };

const createIdleTask = async (hub: LocalHub): Promise<string> => {
  const res = await fetch(`${hub.url}${JSONRPC_PATH}`, {
    method: 'POST',
    headers: A2A,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
        configuration: { returnImmediately: true },
      },
    }),
  });
  const body = (await res.json()) as { result?: { task?: { id: string } }; error?: unknown };
  if (!body.result?.task) throw new Error(`SendMessage: ${JSON.stringify(body)}`);
  return body.result.task.id;
};

const rpcSubscribe = (hub: LocalHub, taskId: string) =>
  subscribe(`${hub.url}${JSONRPC_PATH}`, {
    method: 'POST',
    headers: { ...A2A, accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
  });

const restSubscribe = (hub: LocalHub, taskId: string) =>
  subscribe(`${hub.url}${REST_PATH}/tasks/${encodeURIComponent(taskId)}:subscribe`, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'A2A-Version': '1.0' },
  });

const textOf = (result: Record<string, unknown> | undefined): string | undefined => {
  const update = result?.statusUpdate as
    | { status?: { message?: { parts?: Array<{ text?: string }> } } }
    | undefined;
  return update?.status?.message?.parts?.[0]?.text;
};

const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});

/** What one subscriber got against what was applied: order, completeness, content, delays. */
const delivery = (
  transport: TransportDelivery['transport'],
  sub: Subscriber,
  applied: Map<number, { text: string | undefined; at: number }>,
): TransportDelivery => {
  const [snapshot, ...events] = sub.frames.filter((f) => f.result);
  const ids = events.map((f) => f.id ?? -1);
  const expected = [...applied.keys()].filter((v) => v > (snapshot?.id ?? 0));
  const seen = new Set<number>();
  let duplicates = 0;
  let wrongContent = 0;
  const delays: number[] = [];
  for (const f of events) {
    const id = f.id ?? -1;
    if (seen.has(id)) duplicates++;
    seen.add(id);
    const sent = applied.get(id);
    if (!sent || textOf(f.result) !== sent.text) wrongContent++;
    if (sent) delays.push(f.at - sent.at);
  }
  delays.sort((a, b) => a - b);
  const ms = (q: number) => {
    const p = percentile(delays, q);
    return p === null ? null : round(p, 1);
  };
  return {
    transport,
    received: events.length,
    complete:
      ids.length === expected.length && ids.every((id, i) => id === expected[i]) && wrongContent === 0,
    duplicates,
    missing: expected.filter((v) => !seen.has(v)).length,
    wrongContent,
    p50Ms: ms(0.5),
    p95Ms: ms(0.95),
    p99Ms: ms(0.99),
    maxMs: ms(1),
  };
};

/** Measures in this process (a fresh one: see the file's comment). */
export const measureStreaming = async (
  options: { idleMs?: number; statusUpdates?: number; maxGapMs?: number; seed?: number } = {},
): Promise<StreamingResult> => {
  const idleMs = options.idleMs ?? 60_000;
  const statusUpdates = options.statusUpdates ?? 100;
  const maxGapMs = options.maxGapMs ?? 1_200;
  const seed = options.seed ?? 20_240_601;
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // the hub's own handlers (jsonrpc and rest streaming as under npm start), but a no-op executor:
  // tasks stay SUBMITTED, so nothing but the bench moves them
  const hub = await startLocalHub({
    port: 0,
    handlers: { executor: async () => ({ batchItemFailures: [] }) },
    sweepIntervalMs: 3_600_000,
    log: () => {},
  });
  const subs: Subscriber[] = [];
  const driverClient = new DynamoDBClient({
    endpoint: hub.dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    // every stream's poller reads through the handlers' one client (shared/composition-roots/core.ts), built lazily
    // from the environment the hub has set
    const wiring = await import('../../shared/composition-roots/core.ts');
    const usage = new DynamoUsage().attach(wiring.dynamoClient());
    // an anonymous A2A caller is this one (dev mode, shared/adapters/lambda/auth-context.ts): the driver's engine writes its tasks
    const { devPrincipal } = await import('../../shared/adapters/lambda/auth-context.ts');
    const { tenant, owner } = devPrincipal();
    const caller = { tenant, owner };

    // --- idle
    const idleTask = await createIdleTask(hub);
    await hub.relayCaughtUp(); // the relay's enqueue of the (no-op) run is behind us
    const idle = await rpcSubscribe(hub, idleTask);
    subs.push(idle);
    await idle.first;
    usage.reset();
    const idleStart = performance.now();
    await sleep(idleMs);
    const idleUsage = usage.reset();
    const idleEnd = performance.now();
    idle.abort();
    const perMinute = (n: number) => round((n * 60_000) / (idleEnd - idleStart), 1);
    const heartbeats = idle.frames.filter((f) => f.comment && f.at >= idleStart && f.at <= idleEnd).length;

    // --- per event: two subscribers on a second task, driven from here
    const taskId = await createIdleTask(hub);
    await hub.relayCaughtUp();
    const rpcSub = await rpcSubscribe(hub, taskId);
    const restSub = await restSubscribe(hub, taskId);
    subs.push(rpcSub, restSub);
    await Promise.all([rpcSub.first, restSub.first]);

    const engine = new TaskEngine(new DynamoTaskStore(driverClient, { tableName: hub.tableName }));
    const store = engine.store;
    let record = await store.get({ tenant: caller.tenant, taskId });
    if (!record) throw new Error(`task ${taskId} not found as ${caller.tenant}/${caller.owner}`);
    /** Version → the message it carries and when its apply resolved (only events a stream shows). */
    const applied = new Map<number, { text: string | undefined; at: number }>();
    const apply = async (drafts: unknown[], shown: boolean, text?: string) => {
      const result = await engine.apply(record!.head, drafts, { seen: record! });
      const at = performance.now();
      record = result.record;
      if (shown) applied.set(result.head.version, { text, at });
    };
    const gap = seeded(seed);
    usage.reset();
    const driveStart = performance.now();
    await apply([{ type: 'confirm' }], false); // SUBMITTED → SUBMITTED: not streamed
    await apply([{ type: 'start' }], true); // → WORKING
    for (let i = 1; i <= statusUpdates; i++) {
      await sleep(gap() * maxGapMs);
      const text = `update ${i}/${statusUpdates}`;
      await apply([{ type: 'status_update', message: agent(text) }], true, text);
    }
    await sleep(gap() * maxGapMs);
    await apply([{ type: 'complete', message: agent('done') }], true, 'done');
    // the streams end on the terminal status update; their reads until then are the drive's
    const ended = await Promise.race([
      Promise.all([rpcSub.ended, restSub.ended]).then(() => true),
      sleep(30_000).then(() => false),
    ]);
    const driveUsage = usage.reset();
    const driveSeconds = round((performance.now() - driveStart) / 1000, 1);
    if (!ended) throw new Error('the subscribers did not end within 30 s of the completion');

    const events = applied.size;
    const subscribers = 2;
    return {
      idle: {
        seconds: round((idleEnd - idleStart) / 1000, 1),
        rru: idleUsage.readUnits,
        readsPerMinute: perMinute(idleUsage.requests),
        roundTripsPerMinute: perMinute(idleUsage.roundTrips),
        byOperation: idleUsage.byOperation,
        heartbeats,
      },
      perEvent: {
        events,
        statusUpdates,
        subscribers,
        seed,
        maxGapMs,
        driveSeconds,
        rru: driveUsage.readUnits,
        reads: driveUsage.requests,
        byOperation: driveUsage.byOperation,
        rruPerEventPerSubscriber: round(driveUsage.readUnits / (events * subscribers)),
        transports: [
          delivery('JSON-RPC SubscribeToTask', rpcSub, applied),
          delivery('REST GET tasks/{id}:subscribe', restSub, applied),
        ],
      },
    };
  } finally {
    for (const s of subs) s.abort();
    driverClient.destroy();
    await hub.stop();
  }
};

const root = join(import.meta.dirname, '..', '..');

/** Measures in a child process of its own (see the file's comment); its progress goes to our stderr. */
export const benchStreaming = async (): Promise<StreamingResult> => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'streaming.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', (c) => resolve(c));
    child.once('error', () => resolve(null));
  });
  // the result is the last line; a handler's log line may come before it
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{'))
    throw new Error(`the streaming bench failed (exit ${code}):\n${out}`);
  return JSON.parse(line) as StreamingResult;
};

/** The figures as console tables. */
export const printStreaming = (s: StreamingResult) => {
  console.log('\nStreaming: an idle SubscribeToTask, the minute after its snapshot');
  const { byOperation, ...idle } = s.idle;
  console.table([{ ...idle, operations: Object.keys(byOperation).join(', ') }]);
  const e = s.perEvent;
  console.log(
    `Streaming: ${e.events} events (${e.statusUpdates} status updates at gaps of 0–${e.maxGapMs} ms) to ` +
      `${e.subscribers} subscribers in ${e.driveSeconds} s: ${e.rru} RRU in ${e.reads} reads, ` +
      `${e.rruPerEventPerSubscriber} RRU per event per subscriber`,
  );
  console.table(e.transports);
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const result = await measureStreaming();
    console.log(JSON.stringify(result));
    process.exit(0);
  } catch (e) {
    console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  }
}
