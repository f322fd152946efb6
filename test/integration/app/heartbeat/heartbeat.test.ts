/**
 * Heartbeats on DynamoDB Local, with every run and watch taken from the real outbox (the table's stream
 * relayed by `relayChanges` with a heartbeat queue): a lost run fails its task saying why, an idempotent
 * agent's lost run is run again and completes (the lost run, should it come back, writes nothing), a
 * watch fires at most once after its task ended, liveness writes keep a silent run alive past the
 * limit (no new version, 1 WRU each), and per-task deadlines expire. Intervals are scaled down to 1 s.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { type AgentHandler, complete } from '../../../../shared/agent/api.ts';
import { DetailType } from '../../../../shared/app/delivery/relay.ts';
import { HeartbeatWatcher, type WatchOutcome } from '../../../../shared/app/heartbeat/heartbeat.ts';
import { deadlineRulesOf } from '../../../../shared/app/tasks/deadlines.ts';
import { TaskExecutor } from '../../../../shared/app/tasks/executor.ts';
import { sweepExpiredTasks } from '../../../../shared/app/tasks/expiry.ts';
import { randomIds, TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../../../shared/app/tasks/task-service.ts';
import type { HeartbeatRules } from '../../../../shared/domain/heartbeat.ts';
import type { Message } from '../../../../shared/domain/task.ts';
import type { HeartbeatWatch } from '../../../../shared/ports/heartbeat-queue.ts';
import type { TaskRef } from '../../../../shared/ports/task-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';
import { type Outbox, startOutbox } from '../../../support/outbox.ts';

const RULES: HeartbeatRules = { intervalSeconds: 1, missedLimit: 2, maxReruns: 3 };
let table: TestTable;
let store: DynamoTaskStore;
let engine: TaskEngine;
let outbox: Outbox;
const caller = { tenant: 'beat', owner: 'ann' };
const user = (text: string, metadata?: Record<string, unknown>): Message => ({
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ text }],
  ...(metadata ? { metadata } : {}),
});
const headOf = async (ref: TaskRef) => (await store.get(ref))?.head;
const eventsOf = async (ref: TaskRef) => {
  const record = await store.get(ref);
  assert.ok(record, `task ${ref.taskId} exists`);
  return store.events(record, 0);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The run's claim is written (a run is started, not awaited). */
const claimedBy = async (ref: TaskRef) => {
  for (let i = 0; i < 200 && (await headOf(ref))?.state !== 'executing'; i++) await sleep(10);
  assert.equal((await headOf(ref))?.state, 'executing', 'claimed');
};
const describeAgent = () => ({ name: 't', description: 't', version: '1', skills: [] });

/** An agent that stays silent until released: a run whose Lambda died, when no liveness is written. */
const gatedAgent = (idempotent: boolean) => {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let runs = 0;
  const agent: AgentHandler = {
    describe: describeAgent,
    idempotent,
    async execute() {
      runs++;
      // the first run hangs; any run after it completes at once
      if (runs === 1) await gate;
      return complete(`run ${runs}`);
    },
  };
  return { agent, open: () => open(), runs: () => runs };
};

/** A watcher whose re-arms are recorded rather than delayed. */
const watcherOf = (idempotent: boolean) => {
  const armed: Array<{ watch: HeartbeatWatch; delaySeconds: number }> = [];
  const watcher = new HeartbeatWatcher(
    engine,
    { arm: async (ws, delaySeconds) => void armed.push(...ws.map((watch) => ({ watch, delaySeconds }))) },
    RULES,
    { idempotent },
  );
  return { watcher, armed };
};

/** Delivers a watch the way the queue would: after each delay, until it stops or resolves the run. */
const follow = async (
  watcher: HeartbeatWatcher,
  armed: Array<{ watch: HeartbeatWatch; delaySeconds: number }>,
  first: { watch: HeartbeatWatch; delaySeconds: number },
  budgetMs = 20_000,
): Promise<{ outcome: WatchOutcome; firings: number }> => {
  const until = Date.now() + budgetMs;
  let next = first;
  for (let firings = 1; ; firings++) {
    await sleep(next.delaySeconds * 1000);
    const outcome = await watcher.check(next.watch);
    if (outcome.result !== 'rearmed') return { outcome, firings };
    assert.ok(Date.now() < until, 'the watch keeps coming back');
    next = armed.shift()!;
    assert.equal(next.delaySeconds, outcome.delaySeconds);
  }
};

before(async () => {
  table = await createTestTable();
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
  outbox = await startOutbox(table, { heartbeats: RULES });
});
after(async () => {
  await outbox.stop();
  await table.drop();
});
afterEach(async () => assert.deepEqual(await outbox.drain(), [], 'no run left over'));

describe('heartbeat loss', () => {
  it('a run that went silent is lost after 2 missed intervals: the task fails saying why', async () => {
    const { agent, open } = gatedAgent(false);
    const { head } = await new TaskService(engine).submit(caller, user('work'));
    // no liveness writes: the run is as good as dead
    const dying = new TaskExecutor(engine, agent).run(await outbox.take(head));
    await claimedBy(head);
    const first = await outbox.takeHeartbeat(head);
    const claimed = await headOf(head);
    assert.deepEqual(first.watch, {
      tenant: caller.tenant,
      taskId: head.taskId,
      version: claimed!.version,
      claim: claimed!.leaseUntil,
    });
    assert.ok(
      first.delaySeconds >= 1 && first.delaySeconds <= 3,
      `due at the limit (${first.delaySeconds} s)`,
    );
    assert.deepEqual(await outbox.watches(head), [], 'no lease watch besides it');

    const { watcher, armed } = watcherOf(false);
    const { outcome } = await follow(watcher, armed, first);
    assert.equal(outcome.result, 'failed');
    const failed = await headOf(head);
    assert.equal(failed?.state, 'failed');
    const last = (await eventsOf(head)).at(-1);
    assert.equal(last?.type, 'heartbeat_lost');
    assert.equal(last?.reason?.code, 'heartbeat_lost');
    assert.equal(last?.reason?.details?.limitSeconds, 2);
    assert.match(failed?.statusMessage?.parts[0]?.text ?? '', /No heartbeat from the run for \d+ s/);
    const published = (await outbox.events(head)).at(-1);
    assert.equal(published?.detailType, DetailType.Failed);
    assert.deepEqual(await outbox.heartbeats(head), [], 'the loss arms no further watch');
    assert.equal((await watcher.check(first.watch)).result, 'stopped', 'a redelivered watch does nothing');

    // the lost run comes back after all: it writes nothing
    open();
    assert.equal((await dying).result, 'stopped');
    assert.deepEqual(await headOf(head), failed);
  });

  it("an idempotent agent's lost run is run again, and the rerun completes; the lost run writes nothing", async () => {
    const { agent, open, runs } = gatedAgent(true);
    const executor = new TaskExecutor(engine, agent);
    const { head } = await new TaskService(engine).submit(caller, user('work'));
    const dying = executor.run(await outbox.take(head));
    await claimedBy(head);
    const first = await outbox.takeHeartbeat(head);
    const firstClaim = (await headOf(head))!.leaseUntil;

    const { watcher, armed } = watcherOf(true);
    const { outcome } = await follow(watcher, armed, first);
    assert.equal(outcome.result, 'rerun');
    const released = await headOf(head);
    assert.equal(released?.state, 'confirmed', 'handed back to the executor');
    assert.equal(released?.reruns, 1);
    assert.equal(released?.leaseUntil, undefined);
    assert.match(released?.statusMessage?.parts[0]?.text ?? '', /running it again \(1 of 3\)/);
    const release = (await eventsOf(head)).at(-1);
    assert.deepEqual([release?.type, release?.reason?.code], ['release', 'heartbeat_lost']);

    // the release asks for a run, as any task waiting for the executor does; the rerun completes
    const rerun = await executor.run(await outbox.take(head));
    assert.equal(rerun.result, 'completed');
    assert.equal(runs(), 2);
    assert.equal((await headOf(head))?.state, 'completed');
    // its claim got a watch of its own, which finds the task done, unless the relay saw the claim and
    // the completion in one batch (a fast rerun on a loaded machine): then none was needed. The first
    // claim's watch stops too
    for (const second of await outbox.heartbeats(head)) {
      assert.notEqual(second.watch.claim, firstClaim);
      assert.equal((await watcher.check(second.watch)).result, 'stopped');
    }
    assert.equal((await watcher.check(first.watch)).result, 'stopped');

    // the lost run finishes late: fenced by its claim, its outcome is not recorded
    const done = await headOf(head);
    open();
    assert.equal((await dying).result, 'stopped');
    assert.deepEqual(await headOf(head), done);
    assert.equal((await eventsOf(head)).filter((e) => e.type === 'complete').length, 1);
    assert.deepEqual(armed, [], 'no watch re-armed itself after the task ended');
  });

  it('a watch fires at most once after its task ended, and arms nothing more', async () => {
    const { agent, open } = gatedAgent(false);
    const { head } = await new TaskService(engine).submit(caller, user('work'));
    const running = new TaskExecutor(engine, agent).run(await outbox.take(head));
    await claimedBy(head);
    const first = await outbox.takeHeartbeat(head);
    open();
    assert.equal((await running).result, 'completed');
    const { watcher, armed } = watcherOf(false);
    const { outcome, firings } = await follow(watcher, armed, { ...first, delaySeconds: 0 });
    assert.deepEqual([outcome.result, firings], ['stopped', 1]);
    assert.deepEqual(armed, []);
    assert.deepEqual(await outbox.heartbeats(head), []);
  });
});

describe('liveness writes', () => {
  it('keep a silent run alive past 2 intervals: no new version, one write unit each, the watch follows', async () => {
    let finish!: () => void;
    const released = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const silent: AgentHandler = {
      describe: describeAgent,
      async execute() {
        await released;
        return complete('done');
      },
    };
    const executor = new TaskExecutor(engine, silent, randomIds, undefined, {
      heartbeat: { writer: store, intervalSeconds: RULES.intervalSeconds },
    });
    const { head } = await new TaskService(engine).submit(caller, user('long'));
    const run = executor.run(await outbox.take(head));
    await claimedBy(head);
    const first = await outbox.takeHeartbeat(head);
    const claimed = await headOf(head);

    const { watcher, armed } = watcherOf(false);
    // the watch comes due again and again while the agent says nothing for over 3 limits
    const following = follow(watcher, armed, first);
    table.usage.reset();
    await sleep(RULES.intervalSeconds * RULES.missedLimit * 3000 + 500);
    const usage = table.usage.reset();
    const beating = await headOf(head);
    assert.equal(beating?.state, 'executing');
    assert.equal(beating?.version, claimed?.version, 'a liveness write records no event');
    assert.ok(beating?.heartbeatAt && beating.heartbeatAt > claimed!.statusAt, 'heartbeatAt moved on');
    const beats = usage.byOperation.PutItem ?? 0;
    assert.ok(beats >= 5, `a beat about every interval (${beats} in 6.5 s)`);
    // the watch's reads are in there too (1 RRU each); the writes are the beats alone
    assert.equal(usage.writeUnits, beats, `1 WRU per liveness write (${JSON.stringify(usage)})`);

    finish();
    assert.equal((await run).result, 'completed');
    const { outcome, firings } = await following;
    assert.equal(outcome.result, 'stopped', 'never lost');
    assert.ok(firings >= 3, `the watch came back while the run lasted (${firings} firings)`);
    assert.deepEqual(
      (await eventsOf(head)).map((e) => e.type),
      ['created', 'confirm', 'start', 'complete'],
    );
  });

  it('a task done within one interval makes no liveness write', async () => {
    const quick: AgentHandler = { describe: describeAgent, execute: async () => complete('done') };
    const executor = new TaskExecutor(engine, quick, randomIds, undefined, {
      heartbeat: { writer: store, intervalSeconds: RULES.intervalSeconds },
    });
    const { head } = await new TaskService(engine).submit(caller, user('quick'));
    const run = await outbox.take(head);
    table.usage.reset();
    assert.equal((await executor.run(run)).result, 'completed');
    await sleep(RULES.intervalSeconds * 1000 + 300);
    // the read, the claim and the outcome: nothing after
    assert.deepEqual(table.usage.reset().byOperation, { GetItem: 1, PutItem: 2 });
    assert.equal((await headOf(head))?.heartbeatAt, undefined);
    await outbox.heartbeats(head);
  });

  it('a silent run whose task was canceled stops at its next liveness write', async () => {
    let aborted = false;
    const silent: AgentHandler = {
      describe: describeAgent,
      execute: (ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve(complete('stopped'));
          });
        }),
    };
    const executor = new TaskExecutor(engine, silent, randomIds, undefined, {
      heartbeat: { writer: store, intervalSeconds: RULES.intervalSeconds },
    });
    const service = new TaskService(engine);
    const { head } = await service.submit(caller, user('cancel me'));
    const run = executor.run(await outbox.take(head));
    await claimedBy(head);
    await outbox.takeHeartbeat(head);
    await service.cancel(caller, head.taskId);
    assert.equal((await run).result, 'stopped');
    assert.ok(aborted, "the agent's signal was aborted");
    assert.equal((await headOf(head))?.state, 'cancelled');
  });
});

describe('deadlines', () => {
  it("a per-task deadline from the request's metadata expires the task; the hub default applies otherwise", async () => {
    const service = new TaskService(engine);
    const short = (await service.submit(caller, user('quick please', { 'synapse.deadlineSeconds': 1 }))).head;
    const plain = (await service.submit(caller, user('no hurry'))).head;
    assert.equal(Date.parse(short.deadlineAt) - Date.parse(short.createdAt), 1000);
    // the hub default is counted from the service's own clock reading, a moment before the creation
    assert.ok(Math.abs(Date.parse(plain.deadlineAt) - Date.parse(plain.createdAt) - 3_600_000) < 1000);
    await outbox.drain();
    await sleep(1100);
    const swept = await sweepExpiredTasks(engine);
    assert.ok(swept.expired >= 1);
    assert.equal((await headOf(short))?.state, 'failed');
    assert.equal((await eventsOf(short)).at(-1)?.reason?.code, 'execution_timeout');
    assert.equal((await headOf(plain))?.state, 'pending');
    await service.cancel(caller, plain.taskId);
  });

  it("the skill's deadline, then the agent's, when the request names none; an out-of-range request is refused", async () => {
    const agent: AgentHandler = {
      describe: () => ({
        ...describeAgent(),
        deadlineSeconds: 120,
        skills: [{ id: 'quick', name: 'q', description: 'q', tags: [], deadlineSeconds: 5 }],
      }),
      skillOf: ({ text }) => (text.startsWith('quick') ? 'quick' : undefined),
      execute: async () => complete(),
    };
    const service = new TaskService(engine.with({ deadlines: deadlineRulesOf(agent, 600) }));
    const seconds = (h: { deadlineAt: string; createdAt: string }) =>
      (Date.parse(h.deadlineAt) - Date.parse(h.createdAt)) / 1000;
    assert.equal(seconds((await service.submit(caller, user('quick job'))).head), 5);
    assert.equal(seconds((await service.submit(caller, user('job', { 'synapse.skill': 'quick' }))).head), 5);
    assert.equal(seconds((await service.submit(caller, user('long job'))).head), 120);
    assert.equal(
      seconds((await service.submit(caller, user('x', { 'synapse.deadlineSeconds': 600 }))).head),
      600,
    );
    await assert.rejects(
      service.submit(caller, user('y', { 'synapse.deadlineSeconds': 601 })),
      /from 1 to 600/,
    );
    for (const run of await outbox.drain()) await service.cancel(caller, run.taskId);
  });
});
