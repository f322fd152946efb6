/**
 * docs/benchmarks.md, rendered from one `.bench/results.json`: every figure
 * in it comes from the same run (`npm run bench` writes both; a partial run
 * writes neither the page nor stale numbers into it).
 */

import type { AuthResult } from './auth.ts';
import type { PathCost } from './cost.ts';
import type { RegistryBenchResult } from './registry.ts';
import type { BenchResults } from './results.ts';
import type { SynapseResult, SynapseSide } from './synapse.ts';

const n = (x: number | null | undefined, digits = 2): string =>
  x === null || x === undefined ? '—' : String(Math.round(x * 10 ** digits) / 10 ** digits);
const usd = (x: number) => `$${x.toFixed(2)}`;
const table = (head: string[], rows: Array<Array<string | number>>): string =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(String).join(' | ')} |`),
  ].join('\n');

const pathRows = (paths: PathCost[]) =>
  table(
    ['per task', ...paths.map((p) => p.path)],
    [
      ['DynamoDB write units', ...paths.map((p) => n(p.wru))],
      ['DynamoDB read units', ...paths.map((p) => n(p.rru))],
      [
        'DynamoDB requests (sequential round trips)',
        ...paths.map((p) => `${n(p.dynamoRequests)} (${n(p.dynamoRoundTrips)})`),
      ],
      ['API Gateway requests', ...paths.map((p) => n(p.apiRequests))],
      [
        'SQS messages (of which lease watches)',
        ...paths.map((p) => `${n(p.sqsMessages)} (${n(p.leaseWatches)})`),
      ],
      ['lifecycle events on EventBridge', ...paths.map((p) => n(p.lifecycleEvents))],
      [
        'Lambda invocations',
        ...paths.map((p) =>
          Object.entries(p.invocations)
            .map(([fn, k]) => `${fn} ${n(k)}`)
            .join(', '),
        ),
      ],
      [
        'mean handler duration, ms',
        ...paths.map((p) =>
          Object.entries(p.durationMs)
            .map(([fn, ms]) => `${fn} ${n(ms, 1)}`)
            .join(', '),
        ),
      ],
      ['Lambda GB-s', ...paths.map((p) => n(p.lambdaGbSeconds, 5))],
    ],
  );

const listed = (r: Record<string, number>, unit = '') =>
  Object.entries(r)
    .map(([k, v]) => `${k} ${n(v)}${unit}`)
    .join(', ') || '—';

const SPREAD_LABELS: Record<string, string> = {
  wru: 'WRU',
  rru: 'RRU',
  dynamoRequests: 'DynamoDB requests',
  sqsRequests: 'SQS requests',
  invocations: 'invocations',
};

const authSection = (a: AuthResult): string => {
  const v = a.verdict;
  const c = a.costPerMillionRequests;
  const verdictRow = (what: string, f: typeof v.apiKey) =>
    `| ${what} | ${n(f.p50Ms, 2)} | ${n(f.p99Ms, 2)} | ${n(f.getItems)} | ${n(f.rru)} |`;
  const requestRow = (what: string, f: typeof a.request.noCheck) =>
    `| ${what} | ${n(f.p50Ms, 2)} | ${n(f.p99Ms, 2)} |`;
  const costRow = (what: string, d: typeof c.apiKey.uncached) =>
    `| ${what} | ${n(d.lambdaRequests, 4)} | ${n(d.lambdaDuration, 4)} | ${n(d.dynamodb, 4)} | **${n(d.total, 4)}** |`;
  return `## Authentication (\`test/bench/auth.ts\`)

The hub of \`npm start\` with the authorizer on (functions/authorizer.ts, as API Gateway invokes it), a local OIDC
issuer, one registered tenant, one API key and one JWT (ES256). ${a.rounds} verdicts of each, interleaved, the handler
called in-process (warm; a cold authorizer adds its import, see the cold-start table), its DynamoDB reads metered
on its own client:

| verdict | p50 ms | p99 ms | GetItems | RRU |
|---|---|---|---|---|
${verdictRow('API key (key record, tenant record)', v.apiKey)}
${verdictRow('JWT (signature with the cached JWKS, tenant record)', v.jwt)}

A GetTask over JSON-RPC with the API key, through three local gateways in one process, interleaved round by
round (${a.rounds} each): one whose authorizer allows without checking (everything but the verification), the hub's
(the real authorizer, no cache: every request a verdict), and one caching verdicts for ${a.cacheTtlSeconds} s as API Gateway does:

| gateway | p50 ms | p99 ms |
|---|---|---|
${requestRow('no check', a.request.noCheck)}
${requestRow('authorizer, uncached', a.request.uncached)}
${requestRow(`authorizer, cached ${a.cacheTtlSeconds} s`, a.request.cached)}

$ per million requests for the authorizer (arm64, ${a.memoryMb} MB, the local mean duration as an estimate;
API Gateway's per-request price is the same with or without it, and its authorizer cache is free). Uncached,
every request is a verdict; cached, a client sending one request a second gets one verdict per ${a.cacheTtlSeconds} s:

| credential | Lambda requests | Lambda duration | DynamoDB | total |
|---|---|---|---|---|
${costRow('API key, uncached', c.apiKey.uncached)}
${costRow('API key, cached (1 req/s)', c.apiKey.cached)}
${costRow('JWT, uncached', c.jwt.uncached)}
${costRow('JWT, cached (1 req/s)', c.jwt.cached)}

${a.failures === 0 ? 'No request was refused or failed.' : `**${a.failures} requests were refused or failed.**`}`;
};

const synapseSection = (s: SynapseResult): string => {
  const sides = [s.requester, s.executor];
  const sum = (r: Record<string, number | undefined>) =>
    Object.values(r).reduce<number>((a, b) => a + (b ?? 0), 0);
  const row = (what: string, f: (x: SynapseSide) => string) => [what, ...sides.map(f)];
  const functions = [...new Set(sides.flatMap((x) => Object.keys(x.byFunction)))].sort();
  const where = (x: SynapseSide, fn: string) => {
    const d = x.byFunction[fn];
    if (!d) return '—';
    const dynamo = Object.entries(d.dynamo).map(([k, v]) => `${k} ${n(v)} (${n(d.units[k] ?? 0)} u)`);
    const sqs = Object.entries(d.sqs).map(([k, v]) => `SQS ${k} ${n(v)}`);
    return [...dynamo, ...sqs].join('; ') || '—';
  };
  const c = s.costPerMillion;
  const waits = sides.map((x) => x.sqsSent['delivery: order wait'] ?? 0);
  const watches = sides.map(
    (x) => (x.sqsSent['heartbeat: watch'] ?? 0) + (x.sqsSent['delivery: p2p:heartbeat'] ?? 0),
  );
  const asked = sides.filter((x) => Object.keys(x.capacityAsked).length);
  const notes: string[] = [];
  if (waits.some((w) => w > 0)) {
    const times = (k: number) => `${n(k)} time${k === 1 ? '' : 's'}`;
    notes.push(`Order waits: a peer gets a task's messages in order, so a message whose predecessor to the same peer is not
delivered yet is put back for 1 s (a released delivery-log claim, one more SQS message with its receive and
delete, one more deliver invocation). Per task the requester's messages waited ${times(waits[0]!)}, the executor's
${times(waits[1]!)}${
  waits[1]! > 0
    ? ": B's confirmation and completion are committed milliseconds apart, relayed together and delivered" +
      ' concurrently (in one invocation or two: batching at the event sources depends on timing, locally' +
      " as on AWS), so the completion finds the confirmation's delivery not ended yet"
    : ''
}.`);
  }
  notes.push(
    watches.every((w) => w === 0)
      ? `No heartbeat watch and no p2p:heartbeat: B's relay got the claim together with the completion (the run takes
milliseconds), so the task was no longer executing when it looked and nothing was armed; A never saw its task
executing (the completion moved it from confirmed). A claim the relay sees on its own arms a watch and B's
first p2p:heartbeat one interval later; they would be counted here (the hubs run with
HEARTBEAT_INTERVAL_SECONDS=${s.heartbeatIntervalSeconds}, so they come due within the measurement).`
      : `Heartbeat watches and p2p:heartbeats queued, per task: ${sides.map((x, i) => `${x.role} ${n(watches[i])}`).join(', ')}.
They are armed only when a relay sees the task executing: B's relay usually gets the claim together with the
completion (the run takes milliseconds) and arms nothing; now and then it gets the claim on its own, and a watch
and B's first p2p:heartbeat follow (the high ends of the min–max above). The heartbeats B sent A:
${n(s.requester.received['p2p:heartbeat'] ?? 0)} per task (a heartbeat that comes due after the run sends nothing). The hubs run with
HEARTBEAT_INTERVAL_SECONDS=${s.heartbeatIntervalSeconds} so that these come due within the measurement; at the default 30 s a run this
short arms the same messages, due later.`,
  );
  if (asked.length)
    notes.push(
      `Sent by the hub without \`ReturnConsumedCapacity\`, per task: ${asked
        .map((x) => `${x.role} ${listed(x.capacityAsked)}`)
        .join('; ')}; the bench asked for it, so their units are counted too.`,
    );
  return `## A Synapse task, on each side (\`test/bench/synapse.ts\`)

Two hubs of \`npm start\` (the deployed handlers), each in a process of its own with its own DynamoDB Local and
stream, local SQS and event bus, peers of each other on 127.0.0.1: hub A, the requester, delegates an \`echo\`
task to hub B, the executor (demo agent), with \`POST /synapse/tasks\`; every message between them is signed and
sent by the sender's delivery pipeline. ${s.tasks} tasks one at a time (after ${s.warmup} uncounted), each from the
delegation until both hubs are idle again (no invocation in flight, every queue empty, delayed messages included);
${s.completedAtBoth} of ${s.tasks} completed at both hubs. Each hub meters itself: DynamoDB units from
\`ReturnConsumedCapacity\` on the handlers' client, every SQS request of the handlers and of the event sources
(what Lambda's pollers do on AWS), each handler's invocations, the Synapse messages it received.

${table(
  ['per task', ...sides.map((x) => `${x.role} (${x.hub})`)],
  [
    row('DynamoDB write units', (x) => n(x.wru)),
    row('DynamoDB read units', (x) => n(x.rru)),
    row('DynamoDB requests', (x) => `${n(x.dynamoRequests)} (${listed(x.dynamoByOperation)})`),
    row('SQS requests, as billed', (x) => `${n(x.sqsRequests)} (${listed(x.sqsByOperation)})`),
    row('SQS messages sent', (x) => `${n(x.sqsMessages)} (${listed(x.sqsSent)})`),
    row(
      'Lambda invocations',
      (x) => `${n(sum(x.invocations))} (${listed(x.invocations as Record<string, number>)})`,
    ),
    row('mean handler duration, ms', (x) => listed(x.durationMs as Record<string, number>)),
    row('Lambda GB-s (local durations)', (x) => n(x.lambdaGbSeconds, 5)),
    row(
      'API Gateway requests',
      (x) =>
        `${n(x.apiRequests)}${Object.keys(x.tasksApi).length ? ` (of which ${listed(x.tasksApi)})` : ''}`,
    ),
    row('lifecycle events on EventBridge', (x) => `${n(x.lifecycleEvents)} (${listed(x.eventsByType)})`),
    row('Synapse messages received', (x) => listed(x.received)),
    row('answered with', (x) => listed(x.answered)),
  ],
)}

The messages between the hubs, per task: A → B ${listed(s.messages.requesterToExecutor)}; B → A
${listed(s.messages.executorToRequester)}. From task to task (min–max): ${sides
    .map(
      (x) =>
        `${x.role} ${Object.entries(x.spread)
          .map(([k, [lo, hi]]) => `${SPREAD_LABELS[k] ?? k} ${lo === hi ? n(lo) : `${n(lo)}–${n(hi)}`}`)
          .join(', ')}`,
    )
    .join('; ')}.

Where the requests go, per task (DynamoDB: operation, item, count and units; \`poller\` is the event sources'
receives and deletes):

${table(
  ['function', ...sides.map((x) => x.role)],
  functions.map((fn) => [fn, ...sides.map((x) => where(x, fn))]),
)}

$ per million Synapse tasks at the prices of the cost section (\`test/bench/prices.ts\`). SQS: the requests
counted as SQS bills them (each request one, plus one per further 64 KB of payload; a batch of up to 10
messages is one request), batched as the hub's real path makes them; with every message sent, received and
deleted alone they would be ${sides.map((x) => `${n(x.sqsRequestsUnbatched)} (${x.role})`).join(' and ')} per
task. The empty receives of the idle pollers (${sides.map((x) => `${x.emptyReceivesTotal} at ${x.hub}`).join(', ')}
over the whole measurement, with the local poller's top-up receives) are a cost per poller and second, not per
task, and are left out. Lambda duration is priced from the local handlers' wall time (DynamoDB Local, the peer's
answer inside each delivery, both hubs on the same cores): an estimate, shown apart from the requests.

${table(
  ['$ per million tasks', 'requester (hub A)', 'executor (hub B)', 'both'],
  [
    ['DynamoDB', usd(c.requester.dynamodb), usd(c.executor.dynamodb), usd(c.both.dynamodb)],
    [
      'Lambda requests',
      usd(c.requester.lambdaRequests),
      usd(c.executor.lambdaRequests),
      usd(c.both.lambdaRequests),
    ],
    [
      'Lambda duration (estimate)',
      usd(c.requester.lambdaDuration),
      usd(c.executor.lambdaDuration),
      usd(c.both.lambdaDuration),
    ],
    ['API Gateway', usd(c.requester.apiGateway), usd(c.executor.apiGateway), usd(c.both.apiGateway)],
    ['SQS', usd(c.requester.sqs), usd(c.executor.sqs), usd(c.both.sqs)],
    ['EventBridge', usd(c.requester.eventBridge), usd(c.executor.eventBridge), usd(c.both.eventBridge)],
    [
      '**total**',
      `**${usd(c.requester.total)}**`,
      `**${usd(c.executor.total)}**`,
      `**${usd(c.both.total)}**`,
    ],
  ],
)}

${notes.join('\n\n')}`;
};

const registrySection = (g: RegistryBenchResult): string => {
  const small = g.sizes[0]!;
  const large = g.sizes.at(-1)!;
  const p = g.probing;
  const d = p.dollarsPerAgentMonth;
  return `## The agent registry (\`test/bench/registry.ts\`)

Three hubs of \`npm start\` (the local gateway invoking \`functions/registry.ts\` on DynamoDB Local), each in a
process of its own with ${g.sizes.map((s) => s.agents.toLocaleString('en-US')).join(', ')} approved public agents
seeded through \`DynamoRegistryStore\` (the fixture cards renamed per copy), the registry's DynamoDB client
metered. Warm: a request made after the catalog's refresh interval (${g.refreshMs} ms), so it reads the feed once,
the most a warm request reads; at the rate of the latency rounds below a request read the feed
${g.sizes.map((s) => n(s.amortised.feedQueriesPerRequest, 3)).join(' / ')} times on average. Latency: one request at a time
through HTTP, ${g.rounds} rounds of ${g.requestsPerRound} searches and ${g.requestsPerRound} browses per hub,
interleaved over the three hubs.

${table(
  [
    'agents',
    'search: RRU / round trips',
    'browse: RRU / round trips',
    'search p50 / p99 ms',
    'new query p50 / p99 ms',
    'browse p50 / p99 ms',
    'cold load: RRU / round trips / ms',
    'catalog heap per 1,000',
    'ai-catalog.json',
  ],
  g.sizes.map((s) => [
    s.agents.toLocaleString('en-US'),
    `${n(s.warm.search.rru)} / ${n(s.warm.search.roundTrips)}`,
    `${n(s.warm.browse.rru)} / ${n(s.warm.browse.roundTrips)}`,
    `${n(s.latency.search.p50Ms)} / ${n(s.latency.search.p99Ms)}`,
    `${n(s.latency.newSearch.p50Ms)} / ${n(s.latency.newSearch.p99Ms)}`,
    `${n(s.latency.browse.p50Ms)} / ${n(s.latency.browse.p99Ms)}`,
    `${n(s.coldLoad.rru)} / ${s.coldLoad.roundTrips} / ${n(s.coldLoad.ms, 0)}`,
    `${n(s.coldLoad.heapBytesPer1000 / 1024 / 1024, 1)} MB`,
    `${s.aiCatalog.entries} entries, ${n(s.aiCatalog.bytes / 1024, 0)} KB`,
  ]),
)}

${large.agents.toLocaleString('en-US')} vs ${small.agents} agents: warm read units ×${n(g.ratios.searchRru)} (search),
×${n(g.ratios.browseRru)} (browse), round trips ×${n(g.ratios.searchRoundTrips)} / ×${n(g.ratios.browseRoundTrips)}; p50
×${n(g.ratios.searchP50)} (search), ×${n(g.ratios.newSearchP50)} (a new query), ×${n(g.ratios.browseP50)} (browse), p99 ×${n(g.ratios.searchP99)} /
×${n(g.ratios.newSearchP99)} / ×${n(g.ratios.browseP99)}. "search" cycles through the ${g.precision.queries} labelled queries, so most are
asked again and sliced from the ranking the index keeps until the catalog changes; a "new query" is a text
not asked before (the same words in another case), ranked afresh: BM25 scores every entry that matches a
term, so its cost follows the matches.
The hub's first request loads its container's catalog: ${large.coldRequest.rru} RRU in ${large.coldRequest.roundTrips}
round trips, ${n(large.coldRequest.ms, 0)} ms at ${large.agents.toLocaleString('en-US')} agents.

Publishing through HTTP (${g.publishing.cards} cards; per request): a first version ${n(g.publishing.firstVersion.wru)} WRU,
its approval ${n(g.publishing.approval.wru)} WRU and ${n(g.publishing.approval.rru)} RRU (the record and the catalog entry,
which holds the card), a later version ${n(g.publishing.laterVersion.wru)} WRU and ${n(g.publishing.laterVersion.rru)} RRU,
its approval ${n(g.publishing.laterApproval.wru)} WRU; at most ${n(g.publishing.maxVersionWru)} WRU for one version.

Search precision over ${g.precision.queries} labelled queries (\`registry-precision.ts\`): top-1
${n(g.precision.top1 * 100, 1)}%, top-3 ${n(g.precision.top3 * 100, 1)}%.

A health probe (the store's calls around a real probe of the hub's own agent, which answered ${p.status}): a
steady agent ${n(p.steady.wru)} WRU (the report written, and the two refused conditional health updates billed at
their items' size) and ${n(p.steady.rru)} RRU in ${n(p.steady.roundTrips)} round trips; a changed verdict
${n(p.changed.wru)} WRU. Per agent-month at an hourly probe (${p.probesPerMonth} probes), with the catalog read of
each of the ${p.ticksPerPeriod} ticks an hour (${n(p.catalogRruPerAgentPerTick, 3)} RRU per agent, measured), ${n(p.sqsRequestsPerProbe)}
SQS requests per probe (modelled: a tenth of a batch send, a receive, a delete, the ticks' own shared) and
${n(p.lambdaGbSecondsPerProbe, 3)} GB-s (256 MB × ${p.assumedMs} ms assumed for an agent over the internet; the local
probe took ${n(p.measuredMs, 0)} ms): DynamoDB $${d.dynamodb.toFixed(5)}, SQS $${d.sqs.toFixed(5)}, Lambda requests
$${d.lambdaRequests.toFixed(5)} and duration $${d.lambdaDuration.toFixed(5)}: **$${d.total.toFixed(4)} per agent-month**.${
    g.warnings.length ? `\n\nWarnings: ${g.warnings.join('; ')}` : ''
  }`;
};

export const renderBenchmarks = (r: BenchResults): string => {
  const out: string[] = [];
  out.push(`# Benchmarks

Generated by \`npm run bench\` from \`.bench/results.json\` of ${r.date.slice(0, 16).replace('T', ' ')} UTC
(Node ${r.node}, ${r.machine.cpus} × ${r.machine.model}). Do not edit: run the bench again.
Nothing here is asserted by tests. The machine is shared and noisy: read times as ratios measured in the
same run (the latency and cold-start sections interleave their targets). DynamoDB capacity is what DynamoDB
Local reports with \`ReturnConsumedCapacity\` (it applies the AWS sizing rules).`);

  if (r.goals?.length) {
    out.push(`## Goals

${table(
  ['goal', 'target', 'measured', 'met'],
  r.goals.map((g) => [g.goal, g.target, g.measured, g.met ? 'yes' : '**no**']),
)}`);
  }

  if (r.simpleTask && r.executorTask && r.costPerMillionTasks && r.costPerMillionExecutorTasks && r.prices) {
    const p = r.prices;
    const c = r.costPerMillionTasks;
    const e = r.costPerMillionExecutorTasks;
    out.push(`## What a task costs (\`test/bench/cost.ts\`)

The hub of \`npm start\` (demo agent, the deployed handlers, DynamoDB Local and its stream, the relay, the
local SQS and event bus), with meters on what AWS bills. ${r.simpleTask.tasks} echo tasks per path, one at a
time (the least batching: more load means fewer relay invocations and SQS requests per task). Lease watches
are handed to the executor when sent instead of when due; client polls are not counted (a blocking send
needs none); the relay's stream reads are free on AWS.

${pathRows([r.simpleTask, r.executorTask])}

$ per million tasks at ${p.region} list prices (checked ${p.checked}; \`test/bench/prices.ts\`: DynamoDB
on-demand $${n(p.dynamodb.perWriteUnit * 1e6, 3)}/M write and $${n(p.dynamodb.perReadUnit * 1e6, 3)}/M read
units, Lambda arm64 $${p.lambda.perGbSecond}/GB-s and $${n(p.lambda.perRequest * 1e6)}/M requests at each
function's memory, API Gateway REST $${n(p.apiGateway.perRestRequest * 1e6)}/M, SQS $${n(p.sqs.perRequest * 1e6)}/M
requests with a send, a receive and a delete per message, EventBridge $${n(p.eventBridge.perEvent * 1e6)}/M events):

${table(
  ['$ per million tasks', r.simpleTask.path, r.executorTask.path],
  [
    ['DynamoDB', usd(c.dynamodb), usd(e.dynamodb)],
    ['Lambda', usd(c.lambda), usd(e.lambda)],
    ['API Gateway', usd(c.apiGateway), usd(e.apiGateway)],
    ['SQS', usd(c.sqs), usd(e.sqs)],
    ['EventBridge', usd(c.eventBridge), usd(e.eventBridge)],
    ['**total**', `**${usd(c.total)}**`, `**${usd(e.total)}**`],
  ],
)}

Storage is not in these figures: a finished small task keeps one item of about 1 KB (plus its index entries)
for its retention (30 days by default), about $0.25 per million tasks a month.`);
  }

  if (r.getTask && r.retriedSend) {
    out.push(`GetTask of a small task: ${r.getTask.roundTrips} round trip, ${n(r.getTask.rru)} RRU. The same message
sent again: +${n(r.retriedSend.extraWru)} WRU, +${n(r.retriedSend.extraRru)} RRU, ${r.retriedSend.sameTask ? 'the same task' : 'another task (!)'}
(the create is a conditional put on an id derived from the message: the refused put is the duplicate check).`);
  }

  if (r.store) {
    const s = r.store;
    out.push(`## Store operations (\`test/bench/store.ts\`)

${table(
  [
    'history (events)',
    'status update with the task in hand, mean of 40 in a row (spills included): WRU / RRU / round trips; the most one cost',
  ],
  s.transitionByHistory.map((t) => [
    t.history,
    `${n(t.wru)} / ${n(t.rru)} / ${n(t.roundTrips)}; ${n(t.maxWru)} WRU`,
  ]),
)}

${table(
  ['history (events)', 'cancel (read + write): WRU / RRU / round trips'],
  s.cancelByHistory.map((c) => [c.history, `${n(c.wru)} / ${n(c.rru)} / ${c.roundTrips}`]),
)}

${table(
  ['history (events)', 'read with the last 10 messages: RRU / requests / round trips'],
  s.readLastTenByHistory.map((r) => [r.history, `${n(r.rru)} / ${r.queries + 1} / ${r.roundTrips}`]),
)}

History 1 is a task just created (pending: it can be canceled, not updated); 3 is a claimed one.

A status update carrying a 6,000-character message: ${n(s.largeStatusUpdate.wru)} WRU (the message goes to a
body item written first; the task's item stays small). A retried create: ${n(s.retriedCreate.wru)} WRU,
${n(s.retriedCreate.rru)} RRU, ${s.retriedCreate.sameTask ? 'the same task' : 'another task (!)'}.

A status-filtered ListTasks page (pageSize 10) for an owner with 20 working tasks:

${table(
  ['tasks of other states', 'page queries (in parallel)', 'round trips', 'COUNT queries', 'RRU'],
  s.filteredListPage.map((p) => [p.otherTasks, p.pageQueries, p.roundTrips, p.countQueries, n(p.rru)]),
)}`);
  }

  if (r.registry) out.push(registrySection(r.registry));

  if (r.scale) {
    const sc = r.scale;
    const sizes = [...new Set(sc.listTasks.map((l) => l.tasks))];
    const cell = (f: string, p: string, size: number) => {
      const x = sc.listTasks.find((l) => l.filter === f && l.page === p && l.tasks === size);
      return x ? `${n(x.rru)} RRU, ${x.roundTrips} RT (${x.queries} queries, ${x.returned} tasks)` : '—';
    };
    out.push(`## Scale (\`test/bench/scale.ts\`)

One owner's tasks written straight into the table (the store's own items, batched; load time:
${Object.entries(sc.loadSeconds)
  .map(([k, v]) => `${k} tasks ${v} s`)
  .join(
    ', ',
  )}). byOwner has ${sc.ownerShards} shards per caller and A2A state, byContext ${sc.contextShards} per context;
a page reads the shards it needs in parallel, one round trip. DynamoDB Local reports no read units for an
empty query; AWS bills at least 0.5 RRU for each, so on AWS a page without a status filter (7 states × ${sc.ownerShards}
shards) costs at least ${(7 * sc.ownerShards) / 2} RRU and one with a filter at least ${sc.ownerShards / 2}.

${table(
  ['ListTasks, pageSize 50', ...sizes.map((s2) => `${s2} tasks`)],
  (['none', 'TASK_STATE_COMPLETED'] as const).flatMap((f) =>
    (['first', 'middle'] as const).map((p) => [
      `${f === 'none' ? 'no filter' : 'status COMPLETED'}, ${p} page`,
      ...sizes.map((s2) => cell(f, p, s2)),
    ]),
  ),
)}

(With 100 tasks the filtered "middle" page is the second and last one, 25 tasks.) \`totalSize\` costs nothing: the
page token carries the count of the pages before, so it is exact on the last page and a lower bound before it.

Paging through all ${sc.shardMerge.tasks} tasks (${sc.shardMerge.pages} pages of 50, merged from the shards) gives ${
      sc.shardMerge.sameOrder && sc.shardMerge.sameItems
        ? 'the same items in the same order as one unsharded index sorted by status time'
        : '**a different order or other items than an unsharded index** (!)'
    }.

The expiry sweep: ${sc.sweep.map((x) => `${x.rru} RRU in ${x.queries} queries with ${x.live} live and ${x.finished} finished tasks`).join('; ')}
(the deadline index holds live tasks only).

A task after ${sc.longTask.events} events: its item is at most ${sc.longTask.maxItemBytes} bytes (last ${sc.longTask.finalItemBytes});
its last status update cost ${sc.longTask.writeUnitsLastWrite} WRU.`);
  }

  if (r.races) {
    const x = r.races;
    out.push(`## Races (\`test/bench/races.ts\`)

${x.trials} trials of ${x.writers} concurrent writers on one claimed task (cancel, complete, fail, progress, and
an agent outcome of artifact + complete in one write), ${x.writes} writes in all: ${x.won} landed, ${x.refused}
were refused by the transition table after a lost race was re-decided, ${x.gaveUp} gave up after 25 attempts;
${x.conflictsRetried} conditional writes lost and were re-decided. Lost events ${x.lostEvents}, stray events
${x.strayEvents}, missing versions ${x.missingVersions}, terminal overwrites ${x.terminalOverwrites}, changes
after a terminal state ${x.changedAfterTerminal}, unexpected errors ${x.unexpectedErrors}.`);
  }

  if (r.crash) {
    const x = r.crash;
    out.push(`## Crash and restart (\`test/bench/crash.ts\`)

\`npm start --data-dir\` killed (SIGKILL of its process group) with ${x.queued} tasks queued, then started again
on the same data: ready ${n(x.restartToReadyMs / 1000, 1)} s after the restart, every queued task started
${n(x.restartToAllStartedMs / 1000, 1)} s after it (the restart re-derives the runs of live tasks; the relay
resumes the stream after its checkpoint).`);
  }

  if (r.crashRunning || r.heartbeats) {
    const parts: string[] = ['## Heartbeats (`test/bench/heartbeat.ts`, `test/bench/crash.ts`)'];
    if (r.heartbeats) {
      const h = r.heartbeats;
      parts.push(`${h.tasks} silent running tasks for ${h.intervals} intervals of ${h.intervalSeconds} s (scaled down; every count
scales with the intervals), on DynamoDB Local with the relay and the heartbeat queue. Per running task-minute at
the 30 s default: ${n(h.wruPerTaskMinute)} WRU (${n(h.livenessWritesPerTaskMinute)} liveness writes of ${n(h.wruPerLivenessWrite)} WRU), ${n(h.rruPerTaskMinute)} RRU
(${n(h.watchFiringsPerTaskMinute)} watch firings), ${n(h.sqsRequestsPerTaskMinute)} SQS requests at most (${n(h.sqsRequestsMeasuredPerTaskMinute)} measured, batched); runs lost: ${h.lost}.`);
    }
    if (r.crashRunning) {
      const x = r.crashRunning;
      parts.push(`\`npm start --data-dir\` killed (SIGKILL) with ${x.running} tasks running (silent agents), then started again on the
same data with a ${x.intervalSeconds} s heartbeat interval (loss after ${n(x.lossLimitMs / 1000, 1)} s): ready ${n(x.restartToReadyMs / 1000, 1)} s after the
restart, every task resolved ${n(x.restartToAllResolvedMs / 1000, 1)} s after it (${n(x.readyToAllResolvedMs / 1000, 1)} s after ready): ${Object.entries(
        x.endings,
      )
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}. Before heartbeats such tasks stayed WORKING for their 960 s lease.`);
    }
    out.push(parts.join('\n\n'));
  }

  if (r.deliveries) {
    const d = r.deliveries;
    const row = (what: string, c: typeof d.perDelivered) =>
      `| ${what} | ${n(c.wru)} | ${n(c.rru)} | ${n(c.dynamoRequests)} | ${n(c.sqsRequests)} |`;
    out.push(`## Push deliveries (\`test/bench/deliveries.ts\`)

${d.deliveries} tasks with one push config each, each with one event to deliver: the stream relayed onto the
delivery queue, the deliver handler on the local event source, a receiver on 127.0.0.1. Round one answers at
once; in round two every receiver fails once (503) first.

| per | WRU | RRU | DynamoDB requests | SQS requests (batched) |
|---|---|---|---|---|
${row('delivered notification', d.perDelivered)}
${row('retry', d.perRetry)}

Unbatched (every message sent, received and deleted alone): ${n(d.sqsRequestsUnbatched.perDelivered)} SQS requests per notification,
${n(d.sqsRequestsUnbatched.perRetry)} per retry.`);
  }

  if (r.synapse) out.push(synapseSection(r.synapse));

  if (r.auth) out.push(authSection(r.auth));

  if (r.streaming) {
    const { idle, perEvent: e } = r.streaming;
    const ops = (byOperation: Record<string, number>) =>
      Object.entries(byOperation)
        .map(([op, k]) => `${k} ${op}`)
        .join(', ') || 'none';
    out.push(`## Streaming (\`test/bench/streaming.ts\`)

The hub of \`npm start\` (its jsonrpc and rest handlers streaming through the local gateway, DynamoDB Local)
with a no-op executor, so a task moves only when the bench moves it; reads metered on the handlers' DynamoDB
client, the one every stream's poller reads through. Times are from the bench's write returning to the
subscriber reading the frame, both in the bench's process.

An idle \`SubscribeToTask\` (JSON-RPC) of a SUBMITTED task, the ${n(idle.seconds, 0)} s after its snapshot:
**${n(idle.rru)} RRU**, ${n(idle.readsPerMinute, 1)} reads and ${n(idle.roundTripsPerMinute, 1)} round trips a
minute (${ops(idle.byOperation)}), ${idle.heartbeats} keep-alive comments.

${e.events} events (start, ${e.statusUpdates} status updates each with an agent message at gaps of
0–${e.maxGapMs} ms from a fixed seed, complete) written by an engine of the bench's own (not metered) to one
task followed by a JSON-RPC and a REST subscriber, over ${n(e.driveSeconds, 1)} s: ${n(e.rru)} RRU in ${e.reads}
reads (${ops(e.byOperation)}), **${n(e.rruPerEventPerSubscriber)} RRU per event per subscriber**.${
      e.byOperation.Query
        ? '\nThe queries read history chunks: a poll that finds two or more new events after the' +
          " item's log spilled into chunks reads the older ones there (one query per chunk kind)."
        : ''
    }

${table(
  ['subscriber', 'events received', 'all, in order, none twice', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
  e.transports.map((t) => [
    t.transport,
    `${t.received} of ${e.events}`,
    t.complete && t.duplicates === 0
      ? 'yes'
      : `**no** (${t.duplicates} repeated, ${t.missing} missing, ${t.wrongContent} wrong)`,
    n(t.p50Ms, 0),
    n(t.p95Ms, 0),
    n(t.p99Ms, 0),
    n(t.maxMs, 0),
  ]),
)}

The poller reads the task item 100 ms after news, doubling the pause to once a second (docs/streaming.md): an
event's delay is where it falls in that backoff.`);
  }

  if (r.latency) {
    const l = r.latency;
    out.push(`## Latency and throughput (\`test/bench/latency.ts\`)

Blocking echo \`SendMessage\`, closed loop from a client in its own process, against the hub (\`npm start\`) and
against \`@a2a-js/sdk\` 1.3's server (\`DefaultRequestHandler\` + \`InMemoryTaskStore\` on express, an echo agent),
${l.rounds} interleaved rounds of ${l.roundMs ?? l.requestsPerRound} ${l.roundMs ? 'ms' : 'requests'} each after a
warm-up of at least ${l.warmupRequests} requests per target.

${table(
  ['target', 'concurrency', 'requests', 'errors', 'req/s', 'p50 ms', 'p99 ms'],
  l.results.map((x) => [
    x.target,
    x.concurrency,
    x.requests,
    x.errors,
    n(x.reqPerSec, 1),
    n(x.p50Ms),
    n(x.p99Ms),
  ]),
)}

${table(
  ['concurrency', 'req/s hub / sdk', 'p50 hub / sdk', 'p99 hub / sdk'],
  l.ratios.map((x) => [x.concurrency, n(x.reqPerSec, 3), n(x.p50, 1), n(x.p99, 1)]),
)}

The SDK server keeps its tasks in process memory; the hub writes each task to DynamoDB (Local, a JVM on the
same two cores) twice and relays the table's stream.${l.warnings.length ? `\n\nWarnings: ${l.warnings.join('; ')}` : ''}`);
  }

  if (r.coldStart) {
    const c = r.coldStart;
    out.push(`## Cold start (\`test/bench/bundles.ts\`)

Every function bundled with the CDK stack's esbuild options (\`infra/bundling.ts\`), imported in a fresh
\`node\` with a Lambda-like environment, ${c.runs} interleaved rounds (medians), against ${c.baseline} bundled
with the same options.

${table(
  ['function', 'KB', 'gzip KB', 'import ms', 'ratio'],
  [
    ...c.functions.map((f) => [
      f.fn,
      n(f.bytes / 1024, 1),
      n(f.gzipBytes / 1024, 1),
      n(f.importMs, 1),
      n(f.ratio),
    ]),
    [
      'baseline, bundled',
      n(c.baselineBundledBytes / 1024, 1),
      n(c.baselineBundledGzipBytes / 1024, 1),
      n(c.baselineBundledMs, 1),
      '1',
    ],
    ['baseline, unbundled (reference)', '', '', n(c.baselineUnbundledMs, 1), ''],
  ],
)}

What keeps the bundles small: zod/mini imported as a namespace (no locale but English), no X-Ray SDK, the
credential chain reduced to its environment link, source maps shipped without the sources and not loaded
unless \`-c sourceMaps=true\` (see \`infra/bundling.ts\`).`);
  }

  if (r.startup) {
    out.push(`## Local start-up

\`npm start\` to ready: ${r.startup.wallMs} ms wall (the hub reports ${r.startup.reportedMs} ms; DynamoDB Local's
JVM is most of it).`);
  }
  if (r.cli) {
    const c = r.cli;
    out.push(`## The command line

\`synapse\` as the package ships it (cli/build.ts: ${(c.entryBytes / 1024).toFixed(0)} KB that every command but \`--version\` parses, ${(c.totalBytes / 1024).toFixed(0)} KB with the chunks only
some commands load), each run a fresh \`node\` process, ${c.runs} rounds interleaved with a bare \`node -e 0\`:

${table(
  ['command', 'p50 ms', 'p99 ms'],
  [
    [
      'node -e 0 (this machine’s process start-up, same rounds)',
      n(c.bareNode.p50Ms, 1),
      n(c.bareNode.p99Ms, 1),
    ],
    ['synapse --version', n(c.version.p50Ms, 1), n(c.version.p99Ms, 1)],
    ['synapse card get -a <local hub>', n(c.cardGet.p50Ms, 1), n(c.cardGet.p99Ms, 1)],
  ],
)}`);
  }
  if (r.hostile) {
    const h = r.hostile;
    out.push(`## The worst requests (\`test/bench/hostile.ts\`)

The request parser (\`parseRequest\`, both bindings' entry point) on the worst requests of about 1 MiB that
fuzzing found, each parsed ${h.runs} times, interleaved (what each is answered: test/unit/protocol/a2a/bounds.test.ts):

${table(
  ['shape', 'bytes', 'p50 ms', 'slowest ms'],
  h.shapes.map((s) => [s.name, s.bytes, n(s.p50Ms, 1), n(s.maxMs, 1)]),
)}`);
  }
  if (r.inspector) {
    const i = r.inspector;
    const t = i.longTask;
    out.push(`<a id="the-inspector"></a>

## The inspector (\`test/bench/inspector.ts\`)

The page as \`inspector/build.ts\` builds it, served by the hub of \`npm start\`, in Debian's chromium
(headless, playwright-core). Script ${n(i.scriptGzipBytes / 1024, 1)} KB gzipped, styles ${n(i.styleGzipBytes / 1024, 1)} KB.

${table(
  ['what', 'p50 ms', 'p95 ms'],
  [
    [
      `first contentful paint of the task list (${i.loads} fresh contexts, nothing cached)`,
      n(i.firstPaint.p50Ms, 1),
      n(i.firstPaint.p95Ms, 1),
    ],
    [
      'the first task row in the page (ListTasks answered and drawn)',
      n(i.listShown.p50Ms, 1),
      n(i.listShown.p95Ms, 1),
    ],
  ],
)}

A task of ${t.events.toLocaleString('en-US')} events (each a progress report with a message): all of them loaded in
${t.loadedMs.toLocaleString('en-US')} ms (pages of 1,000 from the read API); ${t.rowsAtTop} rows in the page at the top, ${t.rowsAtEnd} at the
last event (virtualised). Scrolled from the first event to the last in ${t.scrollSteps} animation frames: frame
interval p50 ${n(t.frameP50Ms, 1)} ms, p95 ${n(t.frameP95Ms, 1)} ms, longest ${n(t.frameMaxMs, 1)} ms; ${t.longFrames} frames over 50 ms.`);
  }
  return `${out.join('\n\n')}\n`;
};
