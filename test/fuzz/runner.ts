/**
 * Runs the fuzz cases against a local hub, one request at a time, and checks
 * three properties for every one:
 *   (a) no 5xx, no crash (nor a polluted prototype) of the in-process hub;
 *   (b) the answer is the protocol's (oracle.ts);
 *   (c) a refused request wrote nothing: the table's stream shows no record
 *       between the request and its answer (nor right after it).
 *
 * The main pass records every answer (fast-check with a property that never
 * fails, so all runs happen and every outcome is counted). Then each kind of
 * failure found is replayed from its run (fast-check's seed + path) with a
 * property that fails on that kind only, so fast-check shrinks it to a small
 * request that still fails the same way.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { type FuzzCase, fuzzCase } from './arbitraries.ts';
import { type HttpClient, type HttpOutcome, httpClient } from './client.ts';
import { clip, describeBody, type Resolver, serializeBody, type TaskRef } from './json.ts';
import { judge, type SentRequest, type Verdict, type Violation, type ViolationKind } from './oracle.ts';
import { type WriteRecord, type WriteWatcher, watchWrites } from './writes.ts';

export const RPC_PATH = '/a2a/jsonrpc';

export interface FuzzOptions {
  runs: number;
  seed: number;
  /** Progress and the report go here (default: nothing). */
  log?: (line: string) => void;
  /** Time for shrinking all failures, and for one failure. */
  shrinkBudgetMs?: number;
  shrinkPerFailureMs?: number;
  /** Shrunk counterexamples per kind of violation (each from another family). */
  examplesPerKind?: number;
  /** An already running hub (tests); a new one is started (and stopped) otherwise. */
  hub?: LocalHub;
}

export interface Example {
  family: string;
  note: string;
  run: number;
  shrunk: boolean;
  shrinks: number;
  /** false: the replay did not fail again (the failure depends on what ran before it). */
  reproduced: boolean;
  request: string;
  answer: string;
  violation: Violation;
}

export interface FailureKind {
  /** The violation kind, with the HTTP status for 5xx (`http-5xx:500`). */
  label: string;
  property: 'a' | 'b' | 'c';
  requests: number;
  families: Map<string, number>;
  examples: Example[];
}

export interface FuzzResult {
  runs: number;
  seed: number;
  ms: number;
  /** `HTTP status × JSON-RPC code` → requests. */
  outcomes: Map<string, number>;
  /** family → requests. */
  families: Map<string, number>;
  /** family → outcome → requests. */
  familyOutcomes: Map<string, Map<string, number>>;
  /** Requests with at least one violation of (a), (b), (c). */
  failing: { a: number; b: number; c: number };
  failures: FailureKind[];
  /** Requests that went over the body limit outside the oversize family (should be 0). */
  overLimit: number;
  /** The largest and the slowest answer. */
  largest: { bytes: number; run: number; family: string };
  slowest: { ms: number; run: number; family: string };
  report: string;
}

const PROPERTY: Record<ViolationKind, 'a' | 'b' | 'c'> = {
  'no-answer': 'a',
  'http-5xx': 'a',
  crash: 'a',
  'prototype-pollution': 'a',
  'response-over-lambda-limit': 'a',
  'not-json-rpc': 'b',
  'bad-envelope': 'b',
  'code-not-allowed': 'b',
  'id-not-echoed': 'b',
  'error-data-shape': 'b',
  'http-status': 'b',
  'oversize-not-refused': 'b',
  'valid-refused': 'b',
  'invalid-accepted': 'b',
  'unexpected-code': 'b',
  'result-shape': 'b',
  'write-on-refusal': 'c',
};

const ORDER = Object.keys(PROPERTY) as ViolationKind[];

export const labelOf = (v: Violation): string => {
  if (v.kind !== 'http-5xx') return v.kind;
  const status = /^HTTP (\d+)/.exec(v.detail)?.[1];
  return `http-5xx:${status ?? '?'}`;
};

interface Task {
  id: string;
  contextId: string;
  state: string;
  /** Made by `ask`: any answer continues it. */
  askTask: boolean;
}

interface Execution {
  sent: SentRequest;
  verdict: Verdict;
  answer: HttpOutcome;
  writes: WriteRecord[];
}

const ACTIVE = new Set(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'submitted', 'working']);
const V03_TO_V1: Record<string, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const PROTOTYPES: Array<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];
const prototypeNames = () => PROTOTYPES.map(([, p]) => new Set(Reflect.ownKeys(p)));

/** The hub, the stream watcher and what the run has learnt (its tasks), around one request at a time. */
class Session {
  readonly tasks: Task[] = [];
  private readonly client: HttpClient;
  private readonly baseline = prototypeNames();
  private readonly errors: string[] = [];
  private readonly onError = (e: unknown) => {
    this.errors.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  };

  constructor(
    readonly hub: LocalHub,
    private readonly watcher: WriteWatcher,
  ) {
    this.client = httpClient(hub.url);
    process.on('uncaughtException', this.onError);
    process.on('unhandledRejection', this.onError);
  }

  close() {
    process.off('uncaughtException', this.onError);
    process.off('unhandledRejection', this.onError);
    this.client.close();
    this.watcher.close();
  }

  /** Writes since the last drain (late writes of the previous request). */
  drain() {
    return this.watcher.drain();
  }

  private resolver() {
    const used: { missing: boolean; taskId?: string } = { missing: false };
    const resolver: Resolver = {
      task: (ref: TaskRef) => {
        const pool = ref.waiting
          ? this.tasks.filter((t) => t.askTask && t.state === 'TASK_STATE_INPUT_REQUIRED')
          : this.tasks;
        const task = pool.length ? pool[ref.slot % pool.length] : undefined;
        if (!task) {
          used.missing = true;
          return `no-such-task-${randomUUID()}`;
        }
        if (ref.field === 'id') used.taskId = task.id;
        return ref.field === 'id' ? task.id : task.contextId;
      },
      fresh: (prefix: string) => `${prefix}-${randomUUID()}`,
    };
    return { resolver, used };
  }

  /** Sends one case and judges the answer; `thorough` also waits for writes that come after the answer. */
  async execute(c: FuzzCase, thorough: boolean): Promise<Execution> {
    const { resolver, used } = this.resolver();
    const body = serializeBody(c.body, resolver);
    const headers: Record<string, string | string[]> = {};
    if (c.contentType !== null) headers['content-type'] = c.contentType;
    if (c.version !== null)
      headers['a2a-version'] = typeof c.version === 'string' ? c.version : [...c.version];
    Object.assign(headers, c.extraHeaders ?? {});
    const sent: SentRequest = { headers, body };
    this.errors.length = 0;

    const answer = await this.client.post(RPC_PATH, headers, body);
    const expect = used.missing && c.expectWithoutTask ? c.expectWithoutTask : c.expect;
    const verdict = judge({ sent, answer, expect, ...(used.taskId ? { taskId: used.taskId } : {}) });

    for (const e of this.errors.splice(0)) verdict.violations.push({ kind: 'crash', detail: e });
    const polluted = this.pollution();
    if (polluted) verdict.violations.push({ kind: 'prototype-pollution', detail: polluted });
    if (!answer.ok) await this.waitForHub();

    if (!verdict.refused) await this.learn(sent, verdict.response);
    let writes = await this.watcher.drain();
    if (verdict.refused && thorough) {
      // what a refused request might still have set going (a queued run, a relayed change)
      await this.hub.relayCaughtUp();
      await new Promise((r) => setTimeout(r, 100));
      writes = [...writes, ...(await this.watcher.drain())];
    }
    if (verdict.refused && writes.length > 0)
      verdict.violations.push(writeViolation(writes, 'while answering'));
    return { sent, verdict, answer, writes };
  }

  /** A new key on a builtin prototype (removed again so one pollution is reported once). */
  private pollution(): string | undefined {
    const now = prototypeNames();
    const added: string[] = [];
    now.forEach((names, i) => {
      const [label, proto] = PROTOTYPES[i]!;
      for (const key of names) {
        if (this.baseline[i]!.has(key)) continue;
        added.push(`${label}.${String(key)}`);
        Reflect.deleteProperty(proto, key);
      }
    });
    return added.length ? `added ${added.join(', ')}` : undefined;
  }

  private async waitForHub() {
    // a failed connection: make sure the next request does not fail for the same reason
    await new Promise((r) => setTimeout(r, 200));
  }

  /** Records the tasks a success reports and waits until each is settled (no run still writing). */
  private async learn(sent: SentRequest, response: Record<string, unknown> | undefined) {
    let request: unknown;
    try {
      request = JSON.parse(sent.body.toString('utf8').replace(/^\ufeff/, ''));
    } catch {
      return;
    }
    if (!isObject(request) || !isObject(response)) return;
    const result = response.result;
    const method = request.method;
    const task =
      isObject(result) && isObject(result.task)
        ? result.task
        : isObject(result) && result.kind === 'task'
          ? result
          : undefined;
    if (!task || typeof task.id !== 'string' || !isObject(task.status)) return;
    let state = String(task.status.state);
    if (ACTIVE.has(state)) state = await this.settle(task.id);
    state = V03_TO_V1[state] ?? state;
    const known = this.tasks.find((t) => t.id === task.id);
    if (known) known.state = state;
    else if (method === 'SendMessage' || method === 'message/send') {
      const params = isObject(request.params) ? request.params : {};
      const message = isObject(params.message) ? params.message : {};
      const first =
        Array.isArray(message.parts) && isObject(message.parts[0]) ? message.parts[0].text : undefined;
      this.tasks.push({
        id: task.id,
        contextId: String(task.contextId ?? ''),
        state,
        askTask: typeof first === 'string' && /^\s*ask\s*$/i.test(first),
      });
    }
  }

  /** Polls the task until it is no longer submitted or working (its run has written its last change). */
  private async settle(taskId: string): Promise<string> {
    const until = Date.now() + 30_000;
    for (;;) {
      const answer = await this.client.post(
        RPC_PATH,
        { 'content-type': 'application/json', 'a2a-version': '1.0' },
        Buffer.from(
          JSON.stringify({ jsonrpc: '2.0', id: 'settle', method: 'GetTask', params: { id: taskId } }),
        ),
      );
      let state = 'unknown';
      if (answer.ok) {
        try {
          state = String(
            (JSON.parse(answer.answer.body.toString('utf8')) as { result?: { status?: { state?: string } } })
              .result?.status?.state,
          );
        } catch {
          // not settled then
        }
      }
      if (!ACTIVE.has(state) || Date.now() > until) return state;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

const writeViolation = (writes: readonly WriteRecord[], when: string): Violation => ({
  kind: 'write-on-refusal',
  detail: `${writes.length} write(s) ${when}: ${writes
    .slice(0, 5)
    .map((w) => `${w.eventName} ${clip(w.pk, 60)} ${w.sk}`)
    .join('; ')}${writes.length > 5 ? '; …' : ''}`,
});

// ---- reports ------------------------------------------------------------------------------------

const isUtf8 = (b: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};

/** A request as a reader can retype it: method line, headers, body (or a description of a huge one). */
export function showRequest(c: FuzzCase, sent: SentRequest): string {
  const headers = Object.entries(sent.headers)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${clip(JSON.stringify(x), 80)}`))
    .join(' | ');
  const bytes = sent.body;
  let body: string;
  if (bytes.length <= 700 && isUtf8(bytes)) body = bytes.toString('utf8');
  else if (bytes.length <= 300) body = `(hex) ${bytes.toString('hex')}`;
  else body = `(${bytes.length} bytes) ${describeBody(c.body, 500)}`;
  return `POST ${RPC_PATH} [${headers || 'no headers'}]\n      ${body}`;
}

const showAnswer = (e: Execution): string => {
  if (!e.answer.ok) return `no answer: ${e.answer.error}`;
  return `HTTP ${e.answer.answer.status} ${clip(e.answer.answer.body.toString('utf8'), 500)}`;
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

function formatReport(r: Omit<FuzzResult, 'report'>): string {
  const lines: string[] = [];
  lines.push(`Synapse JSON-RPC fuzz: ${r.runs} requests, seed ${r.seed}, ${(r.ms / 1000).toFixed(1)} s`);
  lines.push('', 'Outcomes (HTTP status × JSON-RPC code):');
  for (const [k, n] of [...r.outcomes].sort((a, b) => b[1] - a[1])) lines.push(`  ${pad(k, 22)} ${n}`);
  lines.push('', 'Requests by family:');
  const fams = [...r.families].sort((a, b) => a[0].localeCompare(b[0]));
  for (const [k, n] of fams) {
    const top = [...(r.familyOutcomes.get(k) ?? new Map<string, number>())]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([o, m]) => `${o.replace(/^200 /, '')} ${m}`)
      .join(', ');
    lines.push(`  ${pad(k, 40)} ${pad(String(n), 5)} ${top}`);
  }
  lines.push(
    '',
    `Failing requests: (a) 5xx/crash ${r.failing.a}, (b) protocol violations ${r.failing.b}, (c) unexpected writes ${r.failing.c}`,
  );
  if (r.overLimit)
    lines.push(`(${r.overLimit} requests outside the oversize family went over the body limit)`);
  if (r.failures.length === 0) lines.push('All three properties held.');
  for (const f of r.failures) {
    const fams = [...f.families]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    lines.push('', `[${f.property}] ${f.label}: ${f.requests} request(s) — ${fams}`);
    for (const ex of f.examples) {
      const how = ex.shrunk
        ? `shrunk in ${ex.shrinks} step(s)`
        : ex.reproduced
          ? 'not shrunk (no time left)'
          : 'as first seen (did not fail again on replay)';
      lines.push(`  - ${ex.family} (${clip(ex.note, 100)}), run ${ex.run}, ${how}`);
      lines.push(`      ${ex.request}`);
      lines.push(`      → ${ex.answer}`);
      lines.push(`      ${clip(ex.violation.detail, 400)}`);
    }
  }
  lines.push(
    '',
    `Replay: npm run fuzz -- --seed ${r.seed} --runs ${r.runs}   (one run, shrunk: --replay <run>)`,
  );
  return lines.join('\n');
}

// ---- the run ------------------------------------------------------------------------------------

interface Seen {
  run: number;
  family: string;
  note: string;
  request: string;
  answer: string;
  violation: Violation;
}

export async function startFuzzHub(): Promise<LocalHub> {
  return startLocalHub({
    port: 0,
    // nothing may write to the table but the requests: no sweep, no task expiring during the run
    sweepIntervalMs: 24 * 3600 * 1000,
    env: {
      TASK_TIMEOUT_SECONDS: String(24 * 3600),
      // thousands of requests: the handlers' errors only (unless the caller asks for more)
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'ERROR',
    },
    log: () => {},
  });
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const hub = options.hub ?? (await startFuzzHub());
  const session = new Session(hub, await watchWrites(hub.dynamoEndpoint, hub.tableName));
  await session.drain();
  const outcomes = new Map<string, number>();
  const families = new Map<string, number>();
  const familyOutcomes = new Map<string, Map<string, number>>();
  const seen = new Map<string, Seen[]>(); // label|family → first few
  const byLabel = new Map<string, { requests: number; families: Map<string, number> }>();
  const failing = { a: new Set<number>(), b: new Set<number>(), c: new Set<number>() };
  const inc = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
  let overLimit = 0;
  const largest = { bytes: 0, run: -1, family: '' };
  const slowest = { ms: 0, run: -1, family: '' };
  let previous: { run: number; c: FuzzCase; refused: boolean; e: Execution } | undefined;

  const note = (run: number, c: FuzzCase, e: Execution, v: Violation) => {
    const label = labelOf(v);
    failing[PROPERTY[v.kind]].add(run);
    const entry = byLabel.get(label) ?? { requests: 0, families: new Map() };
    entry.requests++;
    inc(entry.families, c.family);
    byLabel.set(label, entry);
    const key = `${label}|${c.family}`;
    const list = seen.get(key) ?? [];
    if (list.length < 3)
      list.push({
        run,
        family: c.family,
        note: c.note,
        request: showRequest(c, e.sent),
        answer: showAnswer(e),
        violation: v,
      });
    seen.set(key, list);
  };

  try {
    let run = 0;
    const mainPass = fc.asyncProperty(fuzzCase, async (c) => {
      const index = run++;
      // writes that came after the previous answer are that request's
      const late = await session.drain();
      if (previous?.refused && late.length > 0)
        note(previous.run, previous.c, previous.e, writeViolation(late, 'after the answer'));
      const e = await session.execute(c, false);
      inc(outcomes, e.verdict.outcome);
      inc(families, c.family);
      if (!familyOutcomes.has(c.family)) familyOutcomes.set(c.family, new Map());
      inc(familyOutcomes.get(c.family)!, e.verdict.outcome);
      if (c.family !== 'oversize' && e.sent.body.length > 1024 * 1024) overLimit++;
      if (e.answer.ok && e.answer.answer.body.length > largest.bytes)
        Object.assign(largest, { bytes: e.answer.answer.body.length, run: index, family: c.family });
      const ms = e.answer.ok ? e.answer.answer.ms : e.answer.ms;
      if (ms > slowest.ms) Object.assign(slowest, { ms, run: index, family: c.family });
      for (const v of dedupe(e.verdict.violations)) note(index, c, e, v);
      previous = { run: index, c, refused: e.verdict.refused, e };
      if ((index + 1) % 1000 === 0)
        log(
          `  ${index + 1}/${options.runs} requests, ${((Date.now() - started) / 1000).toFixed(0)} s, failing (a) ${failing.a.size} (b) ${failing.b.size} (c) ${failing.c.size}`,
        );
      return true;
    });
    await fc.check(mainPass, { seed: options.seed, numRuns: options.runs });
    const late = await session.drain();
    if (previous?.refused && late.length > 0)
      note(previous.run, previous.c, previous.e, writeViolation(late, 'after the answer'));

    // shrink a few of each kind, most serious kinds first, within the time budget
    const failures: FailureKind[] = [];
    const budgetEnd = Date.now() + (options.shrinkBudgetMs ?? 120_000);
    const labels = [...byLabel.keys()].sort(
      (x, y) =>
        ORDER.indexOf(x.split(':')[0] as ViolationKind) - ORDER.indexOf(y.split(':')[0] as ViolationKind),
    );
    if (labels.length) log(`  shrinking ${labels.length} kind(s) of failure…`);
    for (const label of labels) {
      const entry = byLabel.get(label)!;
      const kind = label.split(':')[0] as ViolationKind;
      const failure: FailureKind = {
        label,
        property: PROPERTY[kind],
        requests: entry.requests,
        families: entry.families,
        examples: [],
      };
      const firsts = [...seen.entries()].filter(([k]) => k.startsWith(`${label}|`)).map(([, v]) => v[0]!);
      firsts.sort((x, y) => (entry.families.get(y.family) ?? 0) - (entry.families.get(x.family) ?? 0));
      for (const first of firsts.slice(0, options.examplesPerKind ?? 3)) {
        const left = budgetEnd - Date.now();
        failure.examples.push(
          left > 1_000
            ? await shrink(
                session,
                options.seed,
                first,
                label,
                Math.min(left, options.shrinkPerFailureMs ?? 20_000),
              )
            : { ...first, shrunk: false, shrinks: 0, reproduced: true },
        );
      }
      failures.push(failure);
    }
    const result = {
      runs: options.runs,
      seed: options.seed,
      ms: Date.now() - started,
      outcomes,
      families,
      familyOutcomes,
      failing: { a: failing.a.size, b: failing.b.size, c: failing.c.size },
      failures,
      overLimit,
      largest,
      slowest,
    };
    return { ...result, report: formatReport(result) };
  } finally {
    session.close();
    if (!options.hub) await hub.stop();
  }
}

/** One violation per label per request. */
const dedupe = (vs: readonly Violation[]) => {
  const out = new Map<string, Violation>();
  for (const v of vs) if (!out.has(labelOf(v))) out.set(labelOf(v), v);
  return [...out.values()];
};

/** Replays run `first.run` and shrinks it, keeping the family and the kind of violation. */
async function shrink(
  session: Session,
  seed: number,
  first: Seen,
  label: string,
  ms: number,
): Promise<Example> {
  let last: { c: FuzzCase; e: Execution; v: Violation } | undefined;
  let firstRun = true;
  let reproduced = false;
  const property = fc.asyncProperty(fuzzCase, async (c) => {
    await session.drain();
    const e = await session.execute(c, true);
    const v = c.family === first.family ? e.verdict.violations.find((x) => labelOf(x) === label) : undefined;
    if (firstRun) reproduced = v !== undefined;
    firstRun = false;
    if (v) last = { c, e, v };
    return v === undefined;
  });
  const details = await fc.check(property, {
    seed,
    path: String(first.run),
    numRuns: first.run + 1,
    interruptAfterTimeLimit: ms,
    markInterruptAsFailure: false,
  });
  if (!reproduced || !last) return { ...first, shrunk: false, shrinks: 0, reproduced: false };
  const { c, e, v } = last;
  return {
    family: c.family,
    note: c.note,
    run: first.run,
    shrunk: details.numShrinks > 0,
    shrinks: details.numShrinks,
    reproduced: true,
    request: showRequest(c, e.sent),
    answer: showAnswer(e),
    violation: v,
  };
}

/** Replays one run of a seed and shrinks whatever it violates (the CLI's --replay). */
export async function replayRun(seed: number, run: number, log: (line: string) => void, hub?: LocalHub) {
  const own = hub ?? (await startFuzzHub());
  const session = new Session(own, await watchWrites(own.dynamoEndpoint, own.tableName));
  try {
    await session.drain();
    let target: FuzzCase | undefined;
    await fc.check(
      fc.asyncProperty(fuzzCase, async (c) => {
        target ??= c;
        return true;
      }),
      { seed, path: String(run), numRuns: 1 },
    );
    if (!target) throw new Error(`no run ${run}`);
    const e = await session.execute(target, true);
    log(
      `run ${run}: ${target.family} (${target.note})\n  ${showRequest(target, e.sent)}\n  → ${showAnswer(e)}`,
    );
    if (e.verdict.violations.length === 0) return log('  no violation');
    for (const v of dedupe(e.verdict.violations)) {
      const ex = await shrink(
        session,
        seed,
        { run, family: target.family, note: target.note, request: '', answer: '', violation: v },
        labelOf(v),
        60_000,
      );
      log(
        `\n${labelOf(v)}: ${v.detail}\n  shrunk in ${ex.shrinks} step(s):\n  ${ex.request}\n  → ${ex.answer}\n  ${ex.violation.detail}`,
      );
    }
  } finally {
    session.close();
    if (!hub) await own.stop();
  }
}
