/**
 * The agent registry's figures (docs/registry.md, docs/scaling.md#the-agent-registry): what search and
 * browse cost and how fast they answer at 100, 1,000 and 10,000 approved agents, what publishing and
 * approving write, search precision, and what a health probe costs per agent-month.
 *
 * Design. Three hubs of `npm start` (startLocalHub: the local gateway invoking functions/registry.ts on
 * DynamoDB Local), each in a process of its own (fixtures/registry-hub.ts: the registry's client and
 * catalog are built once per process, as in a Lambda container), metering the registry's DynamoDB client
 * from inside. Each hub's table is seeded with its agents directly through DynamoRegistryStore (record,
 * version and catalog entry of each, approved and public, in the transaction the service writes), from
 * the labelled fixture cards (test/fixtures/registry/cards.json) renamed with a suffix per copy. Their
 * changes are stamped 7 s apart in the past, as a registry that grew over hours: the feed re-reads what
 * changed within FEED_MARGIN_MS (5 s) of its cursor, so here the last entry only.
 *
 * - Cold: a catalog loaded from scratch in the hub's process (what a new container does): its read
 *   units, round trips, time and the heap it holds; then the hub's first request, through HTTP, which
 *   loads the container's own catalog.
 * - Warm, per request: a request after the refresh interval (1 s by default) has passed, so it reads the
 *   feed once — the most a warm request reads; the requests of the latency rounds, most of which read
 *   nothing, give the mean at that rate.
 * - Latency: `POST /registry/search` (the fixture's queries in turn) and `GET /registry/agents`, one at a
 *   time through HTTP from this process, interleaved round by round over the three hubs after a warm-up,
 *   so the machine's noise falls on all three alike.
 * - Publishing (on the smallest hub, through HTTP): a first publication, its approval, a second version
 *   and its approval, of several cards.
 * - Probing: the calls a probe makes on the store (the live version's digest, the last report, the
 *   report written) around a real probe (shared/app/registry/probe.ts) of the hub's own agent, metered on
 *   a client of this process, through the probe function's use case (shared/app/registry/prober.ts); SQS
 *   and Lambda are modelled with the arithmetic of docs/registry.md#cost and the measured units.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { itemSize, writeUnits } from '../../shared/adapters/dynamodb/item-size.ts';
import { registryPk } from '../../shared/adapters/dynamodb/keys.ts';
import { DynamoRegistryStore } from '../../shared/adapters/dynamodb/registry-store.ts';
import { DynamoUsage, type UsageTotals } from '../../shared/adapters/dynamodb/usage.ts';
import { guardedHttpClientFromEnv } from '../../shared/adapters/http/guarded-client.ts';
import { InMemoryProbeQueue } from '../../shared/adapters/memory/probe-queue.ts';
import { Catalog, CatalogEntries, DEFAULT_CATALOG_REFRESH_MS } from '../../shared/app/registry/catalog.ts';
import { RegistryProber } from '../../shared/app/registry/prober.ts';
import { DEFAULT_PROBE_TIMEOUT_MS } from '../../shared/config/registry-probe.ts';
import { AI_CATALOG_PATH, REGISTRY_PATH } from '../../shared/contracts/routes.ts';
import { cardDigest } from '../../shared/domain/registry/health.ts';
import {
  DEFAULT_PROBE_PERIOD_SECONDS,
  defaultTickSeconds,
} from '../../shared/domain/registry/probe-schedule.ts';
import type { CatalogEntry, RegistryCard } from '../../shared/domain/registry/record.ts';
import { systemClock } from '../../shared/ports/clock.ts';
import type { StoredRecord, StoredVersion } from '../../shared/ports/registry-store.ts';
import { normaliseCard } from '../../shared/protocol/a2a/card-normalise.ts';
import type { CatalogLoad, RegistryHubUsage } from './fixtures/registry-hub.ts';
import { PRICES } from './prices.ts';
import { measurePrecision } from './registry-precision.ts';

const root = join(import.meta.dirname, '..', '..');
const HUB_SCRIPT = join(import.meta.dirname, 'fixtures', 'registry-hub.ts');
export const REGISTRY_SIZES = [100, 1_000, 10_000] as const;
/** Between two seeded agents' changes: more than the feed's margin, so a warm read re-reads one entry. */
const SEED_SPACING_MS = 7_000;
const SEED_CONCURRENCY = 16;
/** The probe function's memory (docs/registry.md#cost). */
const PROBE_MEMORY_MB = 256;
/** An agent's answer over the internet, as docs/registry.md#cost assumes. */
const ASSUMED_PROBE_MS = 300;
/** Lambda's synchronous response payload limit (API Gateway's proxy integration returns the same). */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

export interface RequestCost {
  rru: number;
  roundTrips: number;
  requests: number;
}

export interface LatencyFigures {
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface RegistrySize {
  agents: number;
  seedSeconds: number;
  /** A catalog loaded from scratch in the hub's process, as a new container loads it. */
  coldLoad: CatalogLoad & { heapBytesPer1000: number };
  /** The hub's first request (a search): it loads the container's catalog. */
  coldRequest: RequestCost & { ms: number };
  /** A warm request that reads the feed once (the refresh interval had passed): the most one reads. */
  warm: { search: RequestCost; browse: RequestCost };
  /** Over the latency rounds: feed reads per request and read units per request at that request rate. */
  amortised: { requests: number; feedQueriesPerRequest: number; rruPerRequest: number };
  /**
   * `search` cycles through the fixture's queries, so most are asked again (served from the ranking the
   * index keeps until the catalog changes); `newSearch` asks each text once (see {@link askedOnce}), so
   * every one is ranked afresh.
   */
  latency: { search: LatencyFigures; newSearch: LatencyFigures; browse: LatencyFigures };
  /** The public AI Catalog (at most AI_CATALOG_MAX_ENTRIES entries). */
  aiCatalog: { entries: number; bytes: number };
}

export interface WriteCost {
  wru: number;
  rru: number;
  roundTrips: number;
}

export interface ProbeCost {
  /** A probe of a steady agent: its verdict unchanged (the two conditional health updates refused). */
  steady: WriteCost & { failedConditions: number };
  /** A probe whose verdict changed (health written on the record and the catalog entry). */
  changed: WriteCost;
  /** What the probed agent answered, and the probe's measured duration (a local agent). */
  status: string;
  measuredMs: number;
  assumedMs: number;
  /** The catalog read each tick makes, per agent (a cold load at the largest size / its agents). */
  catalogRruPerAgentPerTick: number;
  ticksPerPeriod: number;
  /** Modelled: a tenth of a SendMessageBatch, a receive, a delete, and the ticks' own three requests shared. */
  sqsRequestsPerProbe: number;
  lambdaGbSecondsPerProbe: number;
  probesPerMonth: number;
  dollarsPerAgentMonth: {
    dynamodb: number;
    sqs: number;
    lambdaRequests: number;
    lambdaDuration: number;
    total: number;
  };
}

export interface RegistryBenchResult {
  refreshMs: number;
  rounds: number;
  requestsPerRound: number;
  sizes: RegistrySize[];
  /** Largest size / smallest size. */
  ratios: {
    searchRru: number;
    searchRoundTrips: number;
    browseRru: number;
    browseRoundTrips: number;
    searchP50: number;
    searchP99: number;
    newSearchP50: number;
    newSearchP99: number;
    browseP50: number;
    browseP99: number;
  };
  publishing: {
    cards: number;
    firstVersion: WriteCost;
    laterVersion: WriteCost;
    approval: WriteCost;
    laterApproval: WriteCost;
    /** The most any one publication (first or later) wrote. */
    maxVersionWru: number;
  };
  precision: { queries: number; top1: number; top3: number };
  probing: ProbeCost;
  warnings: string[];
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : 0;
const latencyOf = (values: number[], errors: number): LatencyFigures => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    requests: values.length + errors,
    errors,
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    meanMs: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), 2),
  };
};
const costOf = (t: UsageTotals, per = 1): RequestCost => ({
  rru: round(t.readUnits / per),
  roundTrips: round(t.roundTrips / per),
  requests: round(t.requests / per),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A hub in its own process, answering over IPC. */
class RegistryHub {
  private nextId = 1;
  private readonly pending = new Map<number, (m: Record<string, unknown>) => void>();
  private output = '';
  private readonly child: ChildProcess;
  readonly ready: Promise<{ url: string; tableName: string; dynamoEndpoint: string }>;
  private readonly exited: Promise<void>;

  constructor(readonly name: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', HUB_SCRIPT], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-8000);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} not ready in 120 s:\n${this.output}`)),
        120_000,
      );
      this.child.on('message', (m: Record<string, unknown>) => {
        if (m.ready) {
          clearTimeout(timer);
          resolve(m as unknown as { url: string; tableName: string; dynamoEndpoint: string });
        } else this.pending.get(m.id as number)?.(m);
      });
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}):\n${this.output}`));
        for (const done of this.pending.values()) done({ error: `${name} exited (${code})` });
      });
    });
    this.ready.catch(() => undefined);
  }

  private async call<T>(cmd: string, key: string): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.pending.set(id, resolve));
    this.child.send({ id, cmd });
    const m = await answer;
    this.pending.delete(id);
    if (m.error) throw new Error(`${this.name} ${cmd}: ${String(m.error)}\n${this.output}`);
    return m[key] as T;
  }

  snapshot = () => this.call<RegistryHubUsage>('snapshot', 'usage');
  catalogLoad = () => this.call<CatalogLoad>('catalogLoad', 'load');

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    try {
      await Promise.race([this.call('stop', 'stopped'), sleep(30_000)]);
    } catch {
      // exited meanwhile
    }
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

interface FixtureCard {
  id: string;
  card: RegistryCard;
}
const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'registry', name), 'utf8')) as T;

const localDynamo = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  });

/** Agent `i` of a seeded registry: a fixture card renamed by its copy, approved and public, in one of 20 tenants. */
const seededAgent = (cards: FixtureCard[], i: number, at: string) => {
  const from = cards[i % cards.length]!;
  const copy = Math.floor(i / cards.length);
  const card: RegistryCard = { ...from.card, name: copy ? `${from.card.name} ${copy}` : from.card.name };
  const tenant = `t${i % 20}`;
  const id = `agent-${String(i).padStart(5, '0')}`;
  const identifier = `urn:air:bench.example:${tenant}:${from.id}-${copy}`;
  const verification = { status: 'unsigned' } as const;
  const record: StoredRecord = {
    tenant,
    id,
    identifier,
    owner: 'publisher',
    name: card.name,
    visibility: 'public',
    state: 'APPROVED',
    latestVersion: 1,
    liveVersion: 1,
    health: 'healthy',
    reviews: [{ version: 1, decision: 'approved', by: 'reviewer', at }],
    createdAt: at,
    updatedAt: at,
    revision: 2,
  };
  const version: StoredVersion = {
    tenant,
    recordId: id,
    version: 1,
    card,
    shape: '1.0',
    digest: cardDigest(card),
    source: { kind: 'inline' },
    verification,
    publishedAt: at,
    publishedBy: 'publisher',
  };
  const entry: CatalogEntry = {
    id,
    identifier,
    tenant,
    owner: 'publisher',
    visibility: 'public',
    state: 'APPROVED',
    version: 1,
    card,
    verification,
    health: 'healthy',
    updatedAt: at,
  };
  return { record, version, entry };
};

/** Writes `agents` agents onto the hub's table through DynamoRegistryStore, 16 at a time; seconds taken. */
const seed = async (endpoint: string, tableName: string, agents: number): Promise<number> => {
  const cards = fixture<FixtureCard[]>('cards.json');
  const client = localDynamo(endpoint);
  const store = new DynamoRegistryStore(client, tableName);
  const started = performance.now();
  // the newest a minute ago, each 7 s older than the next
  const base = Date.now() - 60_000 - agents * SEED_SPACING_MS;
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: SEED_CONCURRENCY }, async () => {
        for (let i = next++; i < agents; i = next++) {
          const at = new Date(base + i * SEED_SPACING_MS).toISOString();
          await store.write(seededAgent(cards, i, at));
        }
      }),
    );
  } finally {
    client.destroy();
  }
  return round((performance.now() - started) / 1000, 1);
};

/**
 * Query `n` of the fixture's (cycling) in capitals, the case of its first letters varied by `n` (so no
 * text the fixture holds, nor one asked before): the index reads it as the same
 * words (terms are lower-cased), so the ranking costs what the query's costs, but the ranking kept per
 * query text does not answer it — each text is asked once (2^letters variants before one repeats).
 */
export const askedOnce = (queries: readonly string[], n: number): string => {
  const text = queries[n % queries.length]!;
  let bits = Math.floor(n / queries.length) + 1;
  let out = '';
  for (const ch of text) {
    if (/[a-z]/i.test(ch)) {
      out += bits & 1 ? ch.toLowerCase() : ch.toUpperCase();
      bits = Math.floor(bits / 2);
    } else out += ch;
  }
  return out;
};

const json = { 'content-type': 'application/json' };

/** One request, timed; throws on an answer that is not 2xx (the figures would not be the registry's). */
const timedRequest = async (url: string, init?: RequestInit): Promise<{ ms: number; body: string }> => {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${res.status} ${body.slice(0, 300)}`);
  return { ms, body };
};

const searchOf = (hubUrl: string, text: string) => () =>
  timedRequest(`${hubUrl}${REGISTRY_PATH}/search`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ query: { text } }),
  });
const browseOf = (hubUrl: string) => () => timedRequest(`${hubUrl}${REGISTRY_PATH}/agents`);

const post = async (url: string, body: unknown): Promise<Record<string, unknown>> =>
  JSON.parse(
    (await timedRequest(url, { method: 'POST', headers: json, body: JSON.stringify(body) })).body,
  ) as Record<string, unknown>;

const writeCostOf = (totals: UsageTotals[]): WriteCost => ({
  wru: round(totals.reduce((a, t) => a + t.writeUnits, 0) / totals.length),
  rru: round(totals.reduce((a, t) => a + t.readUnits, 0) / totals.length),
  roundTrips: round(totals.reduce((a, t) => a + t.roundTrips, 0) / totals.length),
});

/** Publishing through the hub's HTTP API: first versions, approvals, later versions, approvals. */
const benchPublishing = async (hub: RegistryHub, url: string, cards: number) => {
  const fixtures = fixture<FixtureCard[]>('cards.json');
  const first: UsageTotals[] = [];
  const later: UsageTotals[] = [];
  const approvals: UsageTotals[] = [];
  const laterApprovals: UsageTotals[] = [];
  const measured = async (into: UsageTotals[], run: () => Promise<unknown>) => {
    await hub.snapshot();
    await run();
    into.push((await hub.snapshot()).dynamo);
  };
  for (let k = 0; k < cards; k++) {
    const base = fixtures[(k * 7) % fixtures.length]!.card;
    const card = { ...base, name: `${base.name} published ${k}` };
    let id = '';
    await measured(first, async () => {
      const record = await post(`${url}${REGISTRY_PATH}/records`, { card, visibility: 'public' });
      id = String((record.record as { id?: string } | undefined)?.id ?? record.id);
    });
    await measured(approvals, () => post(`${url}${REGISTRY_PATH}/records/${id}:approve`, {}));
    const next = { ...card, version: '9.9.9', description: `${card.description} Now with more.` };
    await measured(later, () => post(`${url}${REGISTRY_PATH}/records/${id}/versions`, { card: next }));
    await measured(laterApprovals, () => post(`${url}${REGISTRY_PATH}/records/${id}:approve`, {}));
  }
  return {
    cards,
    firstVersion: writeCostOf(first),
    laterVersion: writeCostOf(later),
    approval: writeCostOf(approvals),
    laterApproval: writeCostOf(laterApprovals),
    maxVersionWru: Math.max(...[...first, ...later].map((t) => t.writeUnits)),
  };
};

/** A probe's store calls around a real probe of the hub's own agent, metered on a client of this process. */
const benchProbing = async (
  hubUrl: string,
  endpoint: string,
  tableName: string,
  catalogRruPerAgentPerTick: number,
  agents: number,
): Promise<ProbeCost> => {
  const client = localDynamo(endpoint);
  const usage = new DynamoUsage().attach(client);
  const store = new DynamoRegistryStore(client, tableName);
  // the items' sizes, read past the store
  const doc = DynamoDBDocumentClient.from(client);
  try {
    const served = (await (await fetch(`${hubUrl}/.well-known/agent-card.json`)).json()) as unknown;
    const read = normaliseCard(served);
    if (!read.ok) throw new Error(`the hub's card is not valid: ${read.errors.join('; ')}`);
    const at = new Date().toISOString();
    const agent = seededAgent([{ id: 'own-hub', card: read.card }], 0, at);
    const tenant = 'probed';
    const id = 'own-hub';
    const version = { ...agent.version, tenant, recordId: id, digest: cardDigest(served) };
    await store.write({
      record: {
        ...agent.record,
        tenant,
        id,
        identifier: 'urn:air:bench.example:probed:own-hub',
        health: 'unknown',
      },
      version,
      entry: {
        ...agent.entry,
        tenant,
        id,
        identifier: 'urn:air:bench.example:probed:own-hub',
        health: 'unknown',
      },
    });
    // the hub listens on 127.0.0.1 over http: the guard lets this one host through, as PUSH_URL_ALLOWLIST does
    const http = guardedHttpClientFromEnv({ PUSH_URL_ALLOWLIST: '127.0.0.1', PUSH_URL_ALLOW_HTTP: 'true' });
    // the probe function's use case, as deployed: the record, the live version and the last report read,
    // the agent probed, the report written (and the health only when it changed)
    const prober = new RegistryProber(
      store,
      new Catalog(new CatalogEntries(), store, systemClock, 0),
      new InMemoryProbeQueue(),
      http,
      {
        periodSeconds: DEFAULT_PROBE_PERIOD_SECONDS,
        tickSeconds: defaultTickSeconds(DEFAULT_PROBE_PERIOD_SECONDS),
      },
      systemClock,
      DEFAULT_PROBE_TIMEOUT_MS,
    );
    const probeOnce = async () => {
      usage.reset();
      const started = performance.now();
      const report = (await prober.probe({ tenant, id }))!;
      return { ms: performance.now() - started, usage: usage.reset(), report };
    };
    const changed = await probeOnce();
    const steadyRuns: Awaited<ReturnType<typeof probeOnce>>[] = [];
    for (let i = 0; i < 20; i++) steadyRuns.push(await probeOnce());
    // a refused conditional update is billed for the item it was checked against (the recorder, not seeing
    // that item, counts one unit): the record's and the catalog entry's sizes
    const sizeOf = async (sk: string) => {
      const out = await doc.send(
        new GetCommand({ TableName: tableName, Key: { pk: registryPk(tenant, id), sk } }),
      );
      return writeUnits(itemSize(out.Item ?? {}));
    };
    const refusedCharge = (await sizeOf('R')) + (await sizeOf('C'));
    const steadyTotals = steadyRuns.map((r) => {
      const t = r.usage;
      return {
        ...t,
        writeUnits:
          t.writeUnits - t.failedConditions + (t.failedConditions === 2 ? refusedCharge : t.failedConditions),
      };
    });
    const steady = {
      ...writeCostOf(steadyTotals),
      failedConditions: round(
        steadyRuns.reduce((a, r) => a + r.usage.failedConditions, 0) / steadyRuns.length,
      ),
    };
    const measuredMs = round(
      percentile(
        steadyRuns.map((r) => r.ms).sort((a, b) => a - b),
        0.5,
      ),
      1,
    );

    const period = DEFAULT_PROBE_PERIOD_SECONDS;
    const tick = defaultTickSeconds(period);
    const ticksPerPeriod = period / tick;
    const probesPerMonth = (730 * 3600) / period;
    // each tick: the schedule's message sent, received, deleted, shared by every agent
    const sqsRequestsPerProbe = round(0.1 + 1 + 1 + (3 * ticksPerPeriod) / agents, 4);
    const lambdaGbSecondsPerProbe =
      (PROBE_MEMORY_MB / 1024) * (Math.max(measuredMs, ASSUMED_PROBE_MS) / 1000);
    const rruPerProbe = steady.rru + ticksPerPeriod * catalogRruPerAgentPerTick;
    const m = probesPerMonth;
    const dynamodb =
      m * (steady.wru * PRICES.dynamodb.perWriteUnit + rruPerProbe * PRICES.dynamodb.perReadUnit);
    const sqs = m * sqsRequestsPerProbe * PRICES.sqs.perRequest;
    const lambdaRequests = m * PRICES.lambda.perRequest;
    const lambdaDuration = m * lambdaGbSecondsPerProbe * PRICES.lambda.perGbSecond;
    return {
      steady,
      changed: writeCostOf([changed.usage]),
      status: steadyRuns.at(-1)!.report.status,
      measuredMs,
      assumedMs: ASSUMED_PROBE_MS,
      catalogRruPerAgentPerTick: round(catalogRruPerAgentPerTick, 4),
      ticksPerPeriod,
      sqsRequestsPerProbe,
      lambdaGbSecondsPerProbe: round(lambdaGbSecondsPerProbe, 4),
      probesPerMonth,
      dollarsPerAgentMonth: {
        dynamodb: round(dynamodb, 6),
        sqs: round(sqs, 6),
        lambdaRequests: round(lambdaRequests, 6),
        lambdaDuration: round(lambdaDuration, 6),
        total: round(dynamodb + sqs + lambdaRequests + lambdaDuration, 6),
      },
    };
  } finally {
    client.destroy();
  }
};

export interface RegistryBenchOptions {
  sizes?: readonly number[];
  /** Interleaved rounds; each sends `requestsPerRound` searches and as many browses to every hub. */
  rounds?: number;
  requestsPerRound?: number;
  /** Warm requests measured per hub and kind, each after the refresh interval. */
  warmSamples?: number;
  publishedCards?: number;
  log?: (line: string) => void;
}

export const benchRegistry = async (options: RegistryBenchOptions = {}): Promise<RegistryBenchResult> => {
  const sizes = options.sizes ?? REGISTRY_SIZES;
  const rounds = options.rounds ?? 10;
  const requestsPerRound = options.requestsPerRound ?? 20;
  const warmSamples = options.warmSamples ?? 5;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const queries = fixture<{ text: string }[]>('queries.json').map((q) => q.text);
  const hubs = sizes.map((n) => new RegistryHub(`hub of ${n}`));
  const warnings: string[] = [];
  try {
    const ready = await Promise.all(hubs.map((h) => h.ready));
    const seedSeconds: number[] = [];
    for (const [i, n] of sizes.entries()) {
      seedSeconds.push(await seed(ready[i]!.dynamoEndpoint, ready[i]!.tableName, n));
      log(`registry: seeded ${n} agents in ${seedSeconds[i]} s`);
    }

    // cold: a catalog loaded from scratch, then each hub's first request
    const coldLoads: CatalogLoad[] = [];
    const coldRequests: (RequestCost & { ms: number })[] = [];
    for (const [i, hub] of hubs.entries()) {
      coldLoads.push(await hub.catalogLoad());
      await hub.snapshot();
      const { ms } = await searchOf(ready[i]!.url, queries[0]!)();
      coldRequests.push({ ...costOf((await hub.snapshot()).dynamo), ms: round(ms, 1) });
    }

    // warm-up (JIT, connections), uncounted
    for (const [i] of hubs.entries()) {
      for (let k = 0; k < 30; k++) {
        await searchOf(ready[i]!.url, queries[k % queries.length]!)();
        await browseOf(ready[i]!.url)();
      }
    }

    // latency, interleaved: each round visits every hub, in a rotating order
    const times = sizes.map(() => ({
      search: [] as number[],
      newSearch: [] as number[],
      browse: [] as number[],
    }));
    const errors = sizes.map(() => ({ search: 0, newSearch: 0, browse: 0 }));
    const kinds = ['search', 'newSearch', 'browse'] as const;
    const amortised = sizes.map(() => ({ requests: 0, feedQueries: 0, rru: 0 }));
    for (const hub of hubs) await hub.snapshot();
    let q = 0;
    let fresh = 0;
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < hubs.length; j++) {
        const i = (r + j) % hubs.length;
        for (let m = 0; m < kinds.length; m++) {
          const kind = kinds[(r + m) % kinds.length]!;
          for (let k = 0; k < requestsPerRound; k++) {
            const run =
              kind === 'search'
                ? searchOf(ready[i]!.url, queries[q++ % queries.length]!)
                : kind === 'newSearch'
                  ? searchOf(ready[i]!.url, askedOnce(queries, fresh++))
                  : browseOf(ready[i]!.url);
            try {
              times[i]![kind].push((await run()).ms);
            } catch (e) {
              errors[i]![kind]++;
              if (warnings.length < 10) warnings.push(String(e).slice(0, 300));
            }
            amortised[i]!.requests++;
          }
        }
      }
    }
    for (const [i, hub] of hubs.entries()) {
      const u = (await hub.snapshot()).dynamo;
      amortised[i]!.feedQueries = u.byOperation.Query ?? 0;
      amortised[i]!.rru = u.readUnits;
    }
    log('registry: latency rounds done');

    // warm cost: each request after the refresh interval, so it reads the feed once
    const warm = sizes.map(() => ({ search: [] as UsageTotals[], browse: [] as UsageTotals[] }));
    for (const kind of ['search', 'browse'] as const) {
      for (let s = 0; s < warmSamples; s++) {
        await sleep(DEFAULT_CATALOG_REFRESH_MS + 100);
        for (const [i, hub] of hubs.entries()) {
          await hub.snapshot();
          await (kind === 'search' ? searchOf(ready[i]!.url, queries[s]!) : browseOf(ready[i]!.url))();
          warm[i]![kind].push((await hub.snapshot()).dynamo);
        }
      }
    }
    const meanCost = (totals: UsageTotals[]): RequestCost => {
      const sum = DynamoUsage.empty();
      for (const t of totals) {
        sum.readUnits += t.readUnits;
        sum.roundTrips += t.roundTrips;
        sum.requests += t.requests;
      }
      return costOf(sum, totals.length);
    };

    const aiCatalogs: { entries: number; bytes: number }[] = [];
    for (const r of ready) {
      const { body } = await timedRequest(`${r.url}${AI_CATALOG_PATH}`);
      aiCatalogs.push({
        entries: (JSON.parse(body) as { entries: unknown[] }).entries.length,
        bytes: Buffer.byteLength(body),
      });
    }

    const sizeFigures: RegistrySize[] = sizes.map((agents, i) => ({
      agents,
      seedSeconds: seedSeconds[i]!,
      coldLoad: {
        ...coldLoads[i]!,
        ms: round(coldLoads[i]!.ms, 1),
        heapBytesPer1000: Math.round((coldLoads[i]!.heapBytes / Math.max(1, coldLoads[i]!.entries)) * 1000),
      },
      coldRequest: coldRequests[i]!,
      warm: { search: meanCost(warm[i]!.search), browse: meanCost(warm[i]!.browse) },
      amortised: {
        requests: amortised[i]!.requests,
        feedQueriesPerRequest: round(amortised[i]!.feedQueries / Math.max(1, amortised[i]!.requests), 4),
        rruPerRequest: round(amortised[i]!.rru / Math.max(1, amortised[i]!.requests), 4),
      },
      latency: {
        search: latencyOf(times[i]!.search, errors[i]!.search),
        newSearch: latencyOf(times[i]!.newSearch, errors[i]!.newSearch),
        browse: latencyOf(times[i]!.browse, errors[i]!.browse),
      },
      aiCatalog: aiCatalogs[i]!,
    }));
    const small = sizeFigures[0]!;
    const large = sizeFigures.at(-1)!;
    const ratio = (a: number, b: number) => (b ? round(a / b, 3) : a ? Number.POSITIVE_INFINITY : 1);

    log('registry: publishing');
    const publishing = await benchPublishing(hubs[0]!, ready[0]!.url, options.publishedCards ?? 10);
    log('registry: probing');
    const probing = await benchProbing(
      ready[0]!.url,
      ready[0]!.dynamoEndpoint,
      ready[0]!.tableName,
      large.coldLoad.rru / Math.max(1, large.coldLoad.entries),
      large.agents,
    );
    const precision = measurePrecision();

    return {
      refreshMs: DEFAULT_CATALOG_REFRESH_MS,
      rounds,
      requestsPerRound,
      sizes: sizeFigures,
      ratios: {
        searchRru: ratio(large.warm.search.rru, small.warm.search.rru),
        searchRoundTrips: ratio(large.warm.search.roundTrips, small.warm.search.roundTrips),
        browseRru: ratio(large.warm.browse.rru, small.warm.browse.rru),
        browseRoundTrips: ratio(large.warm.browse.roundTrips, small.warm.browse.roundTrips),
        searchP50: ratio(large.latency.search.p50Ms, small.latency.search.p50Ms),
        searchP99: ratio(large.latency.search.p99Ms, small.latency.search.p99Ms),
        newSearchP50: ratio(large.latency.newSearch.p50Ms, small.latency.newSearch.p50Ms),
        newSearchP99: ratio(large.latency.newSearch.p99Ms, small.latency.newSearch.p99Ms),
        browseP50: ratio(large.latency.browse.p50Ms, small.latency.browse.p50Ms),
        browseP99: ratio(large.latency.browse.p99Ms, small.latency.browse.p99Ms),
      },
      publishing,
      precision: { queries: precision.queries, top1: round(precision.top1), top3: round(precision.top3) },
      probing,
      warnings,
    };
  } finally {
    await Promise.all(hubs.map((h) => h.stop()));
  }
};

/** Prints a RegistryBenchResult as tables. */
export const printRegistry = (r: RegistryBenchResult): void => {
  console.log('\nRegistry: search and browse by approved agents (warm: a request that reads the feed once)');
  console.table(
    r.sizes.map((s) => ({
      agents: s.agents,
      'search RRU/RT': `${s.warm.search.rru}/${s.warm.search.roundTrips}`,
      'browse RRU/RT': `${s.warm.browse.rru}/${s.warm.browse.roundTrips}`,
      'feed reads/request': s.amortised.feedQueriesPerRequest,
      'search p50/p99 ms': `${s.latency.search.p50Ms}/${s.latency.search.p99Ms}`,
      'new search p50/p99 ms': `${s.latency.newSearch.p50Ms}/${s.latency.newSearch.p99Ms}`,
      'browse p50/p99 ms': `${s.latency.browse.p50Ms}/${s.latency.browse.p99Ms}`,
      'cold load RRU/RT/ms': `${s.coldLoad.rru}/${s.coldLoad.roundTrips}/${s.coldLoad.ms}`,
      'KB per 1,000': Math.round(s.coldLoad.heapBytesPer1000 / 1024),
      'ai-catalog KB': Math.round(s.aiCatalog.bytes / 1024),
    })),
  );
  console.log('largest / smallest');
  console.table([r.ratios]);
  console.log('Publishing (per request, through HTTP)');
  console.table({
    'first version': r.publishing.firstVersion,
    approval: r.publishing.approval,
    'later version': r.publishing.laterVersion,
    'its approval': r.publishing.laterApproval,
  });
  console.log('Precision', r.precision);
  console.log('Probing', {
    ...r.probing,
    dollarsPerAgentMonth: JSON.stringify(r.probing.dollarsPerAgentMonth),
  });
  for (const w of r.warnings) console.log(`warning: ${w}`);
};
