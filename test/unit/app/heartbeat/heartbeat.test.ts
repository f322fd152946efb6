/**
 * Heartbeat rules (pure), the relay's heartbeat watches (fake queues: what follows which change), the
 * rules from the environment, and the deadline rules.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relayChanges } from '../../../../shared/app/delivery/relay.ts';
import { watchDelaySeconds } from '../../../../shared/app/heartbeat/heartbeat.ts';
import {
  DEFAULT_MAX_REQUEST_DEADLINE_SECONDS,
  deadlineRulesOf,
  deadlineSecondsFor,
} from '../../../../shared/app/tasks/deadlines.ts';
import { heartbeatRulesFrom } from '../../../../shared/config/heartbeat.ts';
import { ValidationError } from '../../../../shared/domain/errors.ts';
import {
  DEFAULT_HEARTBEAT_RULES,
  isRerunRelease,
  judgeHeartbeat,
  lastSignOfLife,
} from '../../../../shared/domain/heartbeat.ts';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { Message, TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import type { ExecutorRun } from '../../../../shared/ports/executor-queue.ts';
import type { HeartbeatWatch } from '../../../../shared/ports/heartbeat-queue.ts';
import type { TaskChange } from '../../../../shared/ports/task-changes.ts';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const LEASE = iso(NOW + 960_000);
const rules = { intervalSeconds: 30, missedLimit: 2, maxReruns: 3 };

const head = (state: SynapseState, over: Partial<TaskHead> = {}): TaskHead => ({
  taskId: 'a',
  tenant: 't',
  owner: 'o',
  contextId: 'c',
  state,
  version: 3,
  role: 'executor',
  protocol: 'a2a',
  createdAt: iso(NOW),
  statusAt: iso(NOW),
  deadlineAt: iso(NOW + 3_600_000),
  ...over,
});

const judge = (over: Partial<Parameters<typeof judgeHeartbeat>[0]> = {}) =>
  judgeHeartbeat({
    head: head('executing', { leaseUntil: LEASE }),
    lastEventAt: iso(NOW),
    claim: LEASE,
    nowMs: NOW,
    rules,
    idempotent: false,
    ...over,
  });

describe('heartbeat rules', () => {
  it('defaults: a beat every 30 s, lost after 2 missed, 3 reruns', () => {
    assert.deepEqual(DEFAULT_HEARTBEAT_RULES, { intervalSeconds: 30, missedLimit: 2, maxReruns: 3 });
  });

  it('a sign of life is the later of the liveness write and the last event', () => {
    assert.equal(lastSignOfLife({ heartbeatAt: iso(NOW + 5) }, iso(NOW)), NOW + 5);
    assert.equal(lastSignOfLife({ heartbeatAt: iso(NOW) }, iso(NOW + 7)), NOW + 7);
    assert.equal(lastSignOfLife({}, iso(NOW + 9)), NOW + 9);
  });

  it('a task that left executing, or runs under another claim, stops the watch', () => {
    for (const state of ['completed', 'failed', 'confirmed', 'need_human', 'cancelled'] as const)
      assert.deepEqual(judge({ head: head(state) }), { kind: 'stop', why: 'not_executing' });
    assert.deepEqual(judge({ claim: iso(NOW - 1) }), { kind: 'stop', why: 'other_claim' });
  });

  it('alive: the watch comes back when the run would be due to be lost (limit after the last sign of life)', () => {
    assert.deepEqual(judge(), { kind: 'alive', checkAgainInSeconds: 61 });
    assert.deepEqual(judge({ nowMs: NOW + 45_000 }), { kind: 'alive', checkAgainInSeconds: 16 });
    // a liveness write after the last event moves it on
    assert.deepEqual(
      judge({
        head: head('executing', { leaseUntil: LEASE, heartbeatAt: iso(NOW + 30_000) }),
        nowMs: NOW + 59_000,
      }),
      { kind: 'alive', checkAgainInSeconds: 32 },
    );
    // exactly at the limit is not past it
    assert.equal(judge({ nowMs: NOW + 60_000 }).kind, 'alive');
    // never sooner than a second, never past the lease's end
    const lease = iso(NOW + 10_000);
    assert.deepEqual(judge({ head: head('executing', { leaseUntil: lease }), claim: lease }), {
      kind: 'alive',
      checkAgainInSeconds: 10,
    });
  });

  it('lost: silent past interval x missed limit, or still executing past the lease', () => {
    assert.deepEqual(judge({ nowMs: NOW + 60_001 }), {
      kind: 'lost',
      cause: 'silent',
      silentSeconds: 60,
      action: 'fail',
    });
    assert.deepEqual(judge({ nowMs: NOW + 960_000, lastEventAt: iso(NOW + 950_000) }), {
      kind: 'lost',
      cause: 'lease',
      silentSeconds: 10,
      action: 'fail',
    });
  });

  it('an idempotent agent is run again, up to maxReruns times; then the task fails', () => {
    const late = NOW + 61_000;
    assert.equal(judge({ nowMs: late, idempotent: true }).kind === 'lost' && 'rerun', 'rerun');
    for (const reruns of [0, 1, 2]) {
      const v = judge({
        nowMs: late,
        idempotent: true,
        head: head('executing', { leaseUntil: LEASE, reruns }),
      });
      assert.equal(v.kind === 'lost' ? v.action : v.kind, 'rerun', `after ${reruns} reruns`);
    }
    const v = judge({
      nowMs: late,
      idempotent: true,
      head: head('executing', { leaseUntil: LEASE, reruns: 3 }),
    });
    assert.equal(v.kind === 'lost' ? v.action : v.kind, 'fail');
  });

  it('a release counts as a rerun only with a lost-run reason', () => {
    assert.equal(isRerunRelease({ type: 'release' }), false, 'an inline run handing its task back');
    assert.equal(isRerunRelease({ type: 'release', reason: { code: 'heartbeat_lost' } }), true);
    assert.equal(isRerunRelease({ type: 'release', reason: { code: 'executor_lost' } }), true);
    assert.equal(isRerunRelease({ type: 'fail', reason: { code: 'heartbeat_lost' } }), false);
  });

  it('from the environment, validated', () => {
    assert.deepEqual(heartbeatRulesFrom({}), DEFAULT_HEARTBEAT_RULES);
    assert.deepEqual(
      heartbeatRulesFrom({
        HEARTBEAT_INTERVAL_SECONDS: '2',
        HEARTBEAT_MISSED_LIMIT: '3',
        HEARTBEAT_MAX_RERUNS: '0',
      }),
      { intervalSeconds: 2, missedLimit: 3, maxReruns: 0 },
    );
    assert.throws(
      () => heartbeatRulesFrom({ HEARTBEAT_INTERVAL_SECONDS: '0' }),
      /HEARTBEAT_INTERVAL_SECONDS/,
    );
    assert.throws(() => heartbeatRulesFrom({ HEARTBEAT_MISSED_LIMIT: '1.5' }), /HEARTBEAT_MISSED_LIMIT/);
    assert.throws(() => heartbeatRulesFrom({ HEARTBEAT_INTERVAL_SECONDS: '600' }), /at most 900/);
  });

  it("a new watch is due when the claim's run would be lost; at once for a run silent past it", () => {
    const claimed = { head: head('executing', { leaseUntil: LEASE }), recent: [event(3, 'start', NOW)] };
    assert.equal(watchDelaySeconds(claimed, rules, NOW), 61);
    assert.equal(watchDelaySeconds(claimed, rules, NOW + 120_000), 0);
  });
});

const event = (
  version: number,
  type: TaskEvent['type'],
  at: number,
  to: SynapseState = 'executing',
): TaskEvent => ({
  taskId: 'a',
  tenant: 't',
  version,
  type,
  from: 'confirmed',
  to,
  at: iso(at),
});

describe('relay: heartbeat watches', () => {
  const relay = async (changes: TaskChange[]) => {
    const runs: Array<{ run: ExecutorRun; delay: number }> = [];
    const watches: Array<{ watch: HeartbeatWatch; delay: number }> = [];
    const result = await relayChanges(changes, {
      executor: { enqueue: async (rs, delay = 0) => void runs.push(...rs.map((run) => ({ run, delay }))) },
      lifecycle: { publish: async () => {} },
      heartbeats: {
        queue: { arm: async (ws, delay) => void watches.push(...ws.map((watch) => ({ watch, delay }))) },
        rules,
      },
      clock: { now: () => new Date(NOW) },
    });
    return { runs, watches, result };
  };

  it('a claim gets a heartbeat watch (and no lease watch), due when its run would be lost', async () => {
    const claimed = head('executing', { leaseUntil: LEASE });
    const { runs, watches } = await relay([
      {
        sequence: '1',
        before: head('confirmed', { version: 2 }),
        after: { head: claimed, recent: [event(3, 'start', NOW)] },
        events: [event(3, 'start', NOW)],
      },
    ]);
    assert.deepEqual(runs, []);
    assert.deepEqual(watches, [{ watch: { tenant: 't', taskId: 'a', version: 3, claim: LEASE }, delay: 61 }]);
  });

  it('a claim and its outcome in one batch need no watch', async () => {
    const done = head('completed', { version: 4 });
    const { watches } = await relay([
      {
        sequence: '1',
        before: head('confirmed', { version: 2 }),
        after: { head: head('executing', { leaseUntil: LEASE }), recent: [event(3, 'start', NOW)] },
        events: [event(3, 'start', NOW)],
      },
      {
        sequence: '2',
        before: head('executing', { leaseUntil: LEASE }),
        after: { head: done, recent: [event(4, 'complete', NOW, 'completed')] },
        events: [event(4, 'complete', NOW, 'completed')],
      },
    ]);
    assert.deepEqual(watches, []);
  });

  it('a change with no events (a liveness write, were it relayed) derives nothing', async () => {
    const running = head('executing', { leaseUntil: LEASE });
    const { runs, watches, result } = await relay([
      {
        sequence: '1',
        before: running,
        after: { head: { ...running, heartbeatAt: iso(NOW) }, recent: [event(3, 'start', NOW)] },
        events: [],
      },
    ]);
    assert.deepEqual([runs, watches], [[], []]);
    assert.deepEqual(result, { changes: 1, runs: 0, watches: 0, events: 0, deliveries: 0 });
  });
});

describe('deadline rules', () => {
  const message = (metadata?: Record<string, unknown>, text = 'work'): Message => ({
    messageId: 'm',
    role: 'user',
    parts: [{ text }],
    ...(metadata ? { metadata } : {}),
  });
  const agent = {
    describe: () => ({
      name: 'a',
      description: 'd',
      version: '1',
      deadlineSeconds: 600,
      skills: [
        { id: 'quick', name: 'q', description: 'q', tags: [], deadlineSeconds: 30 },
        { id: 'plain', name: 'p', description: 'p', tags: [] },
      ],
    }),
    skillOf: ({ text }: { text: string }) => (text.startsWith('quick') ? 'quick' : undefined),
  };

  it("the request's own, then the skill's, then the agent's, else the caller's default", () => {
    const rules = deadlineRulesOf(agent);
    assert.equal(rules.maxRequestSeconds, DEFAULT_MAX_REQUEST_DEADLINE_SECONDS);
    assert.equal(deadlineSecondsFor(rules, message({ 'synapse.deadlineSeconds': 5 }, 'quick')), 5);
    assert.equal(deadlineSecondsFor(rules, message({ 'synapse.skill': 'quick' })), 30);
    assert.equal(deadlineSecondsFor(rules, message(undefined, 'quick job')), 30, 'skillOf');
    assert.equal(deadlineSecondsFor(rules, message({ 'synapse.skill': 'plain' }, 'quick')), 600);
    assert.equal(deadlineSecondsFor(rules, message()), 600);
    assert.equal(deadlineSecondsFor({ maxRequestSeconds: 100 }, message()), undefined);
    assert.equal(deadlineSecondsFor({ maxRequestSeconds: 100 }, undefined), undefined);
  });

  it('a requested deadline outside 1..max, or not an integer, is refused naming the field', () => {
    for (const bad of [0, -1, 1.5, '60', 101, null]) {
      assert.throws(
        () => deadlineSecondsFor({ maxRequestSeconds: 100 }, message({ 'synapse.deadlineSeconds': bad })),
        (e: unknown) =>
          e instanceof ValidationError && e.field === 'message.metadata.synapse.deadlineSeconds',
        String(bad),
      );
    }
  });

  it("an agent's malformed declaration is a configuration error", () => {
    const broken = { describe: () => ({ ...agent.describe(), deadlineSeconds: -5 }) };
    assert.throws(() => deadlineRulesOf(broken), /deadlineSeconds/);
  });
});
