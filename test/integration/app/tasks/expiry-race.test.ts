/**
 * A task that completes in the same instant it expires, or in the same instant its heartbeat watch
 * finds it lost, ends in exactly one terminal state (DynamoDB Local): the sweep (or the watch) and the
 * agent's outcome are started together on a claimed task that is both due and silent, many times over.
 * Whoever wins, the store holds one terminal event, the one its winner was told it wrote, and nothing
 * after it; the loser is refused (or, for the watch, stops), never overwrites.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { HeartbeatWatcher, watchOf } from '../../../../shared/app/heartbeat/heartbeat.ts';
import { sweepExpiredTasks } from '../../../../shared/app/tasks/expiry.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { ConflictError, InvalidTransitionError } from '../../../../shared/domain/errors.ts';
import { isTerminal } from '../../../../shared/domain/states.ts';
import type { TaskRecord } from '../../../../shared/ports/task-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

const TRIALS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The sweep and the watch read before they write; the outcome is started after a random part of that
 * time (measured on the previous trial), so their writes land in the same instant, either first.
 */
const staggered = () => {
  let readMs = 10;
  return {
    delay: () => sleep(Math.random() * readMs * 1.5),
    measure: async <T>(p: Promise<T>) => {
      const started = performance.now();
      const value = await p;
      readMs = Math.max(1, (performance.now() - started) * 0.7);
      return value;
    },
  };
};
let table: TestTable;
let engine: TaskEngine;
const tenant = 'race';

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
});
after(async () => table.drop());

/** A claimed task already past its deadline (and, seen from a clock a minute ahead, silent past its limit). */
const claimedAndDue = async (trial: number): Promise<TaskRecord> => {
  const { record } = await engine.create({
    tenant,
    owner: 'o',
    message: { messageId: crypto.randomUUID(), role: 'user', parts: [{ text: `race ${trial}` }] },
    deadlineAt: new Date(Date.now() - 1000).toISOString(),
  });
  return (await engine.apply(record.head, [{ type: 'confirm' }, { type: 'start' }], { seen: record })).record;
};

/** The agent's outcome, as the executor records it (artifact + complete, fenced by its claim). */
const outcome = (claimed: TaskRecord) =>
  engine.apply(
    claimed.head,
    [
      { type: 'artifact', artifact: { artifact: { artifactId: 'a', parts: [{ text: 'r' }] } } },
      { type: 'complete' },
    ],
    { seen: claimed, guard: (r) => r.head.leaseUntil === claimed.head.leaseUntil },
  );

const settled = async <T>(p: Promise<T>) => {
  try {
    return { ok: true as const, value: await p };
  } catch (e) {
    if (e instanceof InvalidTransitionError || e instanceof ConflictError)
      return { ok: false as const, error: e };
    throw e;
  }
};

const checkOneEnding = async (
  claimed: TaskRecord,
  completedWon: boolean,
  otherWon: boolean,
  other: string,
) => {
  assert.equal(Number(completedWon) + Number(otherWon), 1, `exactly one writer ended the task (${other})`);
  const final = await engine.store.get(claimed.head);
  assert.ok(final);
  const events = await engine.store.events(final, 0);
  const terminal = events.filter((e) => isTerminal(e.to) && !isTerminal(e.from ?? 'pending'));
  assert.equal(terminal.length, 1, `one terminal event: ${events.map((e) => e.type).join(',')}`);
  assert.equal(terminal[0]!.version, final.head.version, 'nothing after it');
  assert.equal(terminal[0]!.type, completedWon ? 'complete' : other);
  assert.equal(final.head.state, completedWon ? 'completed' : 'failed');
  assert.deepEqual(
    events.map((e) => e.version),
    events.map((_, i) => i + 1),
    'no version missing or repeated',
  );
  return completedWon ? 'complete' : other;
};

describe('a completion in the same instant as the end of a task', () => {
  it('completes or expires, never both (the sweep against the outcome)', async () => {
    const wins = new Map<string, number>();
    const stagger = staggered();
    for (let trial = 0; trial < TRIALS; trial++) {
      const claimed = await claimedAndDue(trial);
      const [sweep, done] = await Promise.all([
        stagger.measure(sweepExpiredTasks(engine)),
        stagger.delay().then(() => settled(outcome(claimed))),
      ]);
      const winner = await checkOneEnding(claimed, done.ok, sweep.expired === 1, 'timeout');
      if (!done.ok) assert.ok(done.error instanceof InvalidTransitionError, 'the outcome was refused');
      else assert.equal(sweep.skipped + sweep.expired, sweep.due, 'the sweep skipped the completed task');
      wins.set(winner, (wins.get(winner) ?? 0) + 1);
    }
    // both orders happened: the race was run, not one side always first
    assert.ok((wins.get('complete') ?? 0) > 0 && (wins.get('timeout') ?? 0) > 0, JSON.stringify([...wins]));
  });

  it('completes or is lost, never both (the heartbeat watch against the outcome)', async () => {
    // the watch sees the run a minute later than it is: silent past its 2 s limit
    const watcher = new HeartbeatWatcher(
      engine,
      { arm: async () => assert.fail('a watch of a lost or completed run re-arms nothing') },
      { intervalSeconds: 1, missedLimit: 2, maxReruns: 3 },
      { idempotent: false, clock: { now: () => new Date(Date.now() + 60_000) } },
    );
    const wins = new Map<string, number>();
    const stagger = staggered();
    for (let trial = 0; trial < TRIALS; trial++) {
      const claimed = await claimedAndDue(trial);
      const [watched, done] = await Promise.all([
        stagger.measure(watcher.check(watchOf(claimed.head)!)),
        stagger.delay().then(() => settled(outcome(claimed))),
      ]);
      assert.ok(['failed', 'stopped'].includes(watched.result), watched.result);
      const winner = await checkOneEnding(claimed, done.ok, watched.result === 'failed', 'heartbeat_lost');
      wins.set(winner, (wins.get(winner) ?? 0) + 1);
    }
    assert.ok(
      (wins.get('complete') ?? 0) > 0 && (wins.get('heartbeat_lost') ?? 0) > 0,
      JSON.stringify([...wins]),
    );
    // these tasks are past their deadline too: the sweep finds none of them live
    assert.equal((await sweepExpiredTasks(engine)).expired, 0);
  });
});
