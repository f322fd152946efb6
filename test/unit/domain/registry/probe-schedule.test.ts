/**
 * The probe schedule: over the ticks of one period every agent is due exactly once, at a delay inside
 * its tick, at the same offset each period (so P apart), and 10,000 agents spread evenly over it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  DEFAULT_PROBE_PERIOD_SECONDS,
  type DueProbe,
  defaultTickSeconds,
  dueThisTick,
  MAX_TICK_SECONDS,
  type ProbeSchedule,
  scheduleProblem,
  tickIndexOf,
} from '../../../../shared/domain/registry/probe-schedule.ts';

const idsOf = (n: number): string[] => Array.from({ length: n }, (_, i) => `rec-${i}`);

/** Every probe of `ticks` ticks from tick `first`, at its time in seconds since the epoch. */
const probesOver = (ids: string[], schedule: ProbeSchedule, first: number, ticks: number) => {
  const probes: (DueProbe & { at: number; tickIndex: number })[] = [];
  for (let tickIndex = first; tickIndex < first + ticks; tickIndex++)
    for (const due of dueThisTick(ids, { ...schedule, tickIndex }))
      probes.push({ ...due, tickIndex, at: tickIndex * schedule.tickSeconds + due.delaySeconds });
  return probes;
};

const SCHEDULES: ProbeSchedule[] = [
  { periodSeconds: 3600, tickSeconds: 900 },
  { periodSeconds: 86_400, tickSeconds: 900 },
  { periodSeconds: 600, tickSeconds: 60 },
  { periodSeconds: 60, tickSeconds: 60 },
  { periodSeconds: 6, tickSeconds: 2 },
];

describe('dueThisTick', () => {
  it('due every agent exactly once over the ticks of any one period', () => {
    const ids = idsOf(2000);
    for (const schedule of SCHEDULES) {
      const ticks = schedule.periodSeconds / schedule.tickSeconds;
      // a period starting at an arbitrary tick, not at a multiple of the period
      const probes = probesOver(ids, schedule, 1_987_654 + 3, ticks);
      assert.equal(probes.length, ids.length, JSON.stringify(schedule));
      assert.deepEqual(new Set(probes.map((p) => p.id)), new Set(ids));
    }
  });

  it('gives every delay as a whole number of seconds in [0, tickSeconds)', () => {
    const ids = [...idsOf(3000), ...Array.from({ length: 1000 }, () => randomUUID())];
    for (const schedule of SCHEDULES) {
      for (const p of probesOver(ids, schedule, 0, schedule.periodSeconds / schedule.tickSeconds)) {
        assert.ok(Number.isInteger(p.delaySeconds), `${p.delaySeconds}`);
        assert.ok(p.delaySeconds >= 0 && p.delaySeconds < schedule.tickSeconds, `${p.delaySeconds}`);
      }
    }
  });

  it('probes each agent exactly one period after its last probe', () => {
    const ids = idsOf(500);
    for (const schedule of SCHEDULES) {
      const ticks = schedule.periodSeconds / schedule.tickSeconds;
      const times = new Map<string, number[]>();
      for (const p of probesOver(ids, schedule, 1000, 3 * ticks))
        times.set(p.id, [...(times.get(p.id) ?? []), p.at]);
      for (const id of ids) {
        const at = times.get(id)!;
        assert.equal(at.length, 3, `${id} ${JSON.stringify(schedule)}`);
        assert.deepEqual(
          [at[1]! - at[0]!, at[2]! - at[1]!],
          [schedule.periodSeconds, schedule.periodSeconds],
        );
      }
    }
  });

  it('spreads 10,000 agents: every minute of an hourly period within ±20% of the mean, every tick within ±5%', () => {
    const ids = idsOf(10_000);
    const schedule = { periodSeconds: 3600, tickSeconds: 900 };
    const probes = probesOver(ids, schedule, 0, 4);
    const perMinute = new Array<number>(60).fill(0);
    const perTick = new Array<number>(4).fill(0);
    for (const p of probes) {
      perMinute[Math.floor(p.at / 60)]! += 1;
      perTick[p.tickIndex]! += 1;
    }
    const minuteMean = ids.length / 60;
    for (const [minute, count] of perMinute.entries())
      assert.ok(Math.abs(count - minuteMean) <= 0.2 * minuteMean, `minute ${minute}: ${count} probes`);
    for (const count of perTick) assert.ok(Math.abs(count - 2500) <= 125, `a tick of ${count} probes`);
  });

  it('is stable: the same agents at the same delays on every call, from ids or entries', () => {
    const ids = idsOf(300);
    const schedule = { periodSeconds: 3600, tickSeconds: 900, tickIndex: 42 };
    const once = dueThisTick(ids, schedule);
    assert.ok(once.length > 0);
    assert.deepEqual(dueThisTick(ids, schedule), once);
    assert.deepEqual(
      dueThisTick(
        ids.map((id) => ({ id, name: 'ignored' })),
        schedule,
      ),
      once,
    );
    // the tick one period later holds the same agents at the same delays
    assert.deepEqual(dueThisTick(ids, { ...schedule, tickIndex: 46 }), once);
  });

  it('refuses a schedule whose tick does not divide the period, or is above 900 s, naming the field', () => {
    assert.throws(
      () => dueThisTick(['a'], { periodSeconds: 3600, tickSeconds: 700, tickIndex: 0 }),
      /tickSeconds \(700\) must divide periodSeconds \(3600\)/,
    );
    assert.throws(
      () => dueThisTick(['a'], { periodSeconds: 3600, tickSeconds: 1200, tickIndex: 0 }),
      /tickSeconds must be a whole number from 1 to 900/,
    );
    assert.throws(
      () => dueThisTick(['a'], { periodSeconds: 0, tickSeconds: 1, tickIndex: 0 }),
      /periodSeconds must be a whole number/,
    );
    assert.throws(
      () => dueThisTick(['a'], { periodSeconds: 60, tickSeconds: 60, tickIndex: 1.5 }),
      /tickIndex must be a whole number/,
    );
    assert.equal(scheduleProblem({ periodSeconds: 3600, tickSeconds: 900 }), undefined);
  });
});

describe('tickIndexOf', () => {
  const boundary = Date.parse('2026-03-01T12:15:00.000Z');

  it('is the tick since the epoch', () => {
    assert.equal(tickIndexOf(new Date(boundary), 900), boundary / 1000 / 900);
    assert.equal(tickIndexOf(boundary + 900_000, 900), boundary / 1000 / 900 + 1);
  });

  it('counts an event a little late or early as its own tick', () => {
    const index = tickIndexOf(boundary, 900);
    for (const skewMs of [-30_000, -1, 1, 45_000, 400_000])
      assert.equal(tickIndexOf(boundary + skewMs, 900), index, `skew ${skewMs} ms`);
  });

  it('refuses a bad time or tick', () => {
    assert.throws(() => tickIndexOf(new Date(Number.NaN), 900), /time must be a valid time/);
    assert.throws(() => tickIndexOf(boundary, 0), /tickSeconds must be a whole number/);
  });
});

describe('defaultTickSeconds', () => {
  it('is the largest divisor of the period up to 900 s', () => {
    assert.equal(defaultTickSeconds(DEFAULT_PROBE_PERIOD_SECONDS), MAX_TICK_SECONDS);
    assert.equal(defaultTickSeconds(86_400), 900);
    assert.equal(defaultTickSeconds(1000), 500);
    assert.equal(defaultTickSeconds(60), 60);
    assert.equal(defaultTickSeconds(7), 7);
    assert.equal(defaultTickSeconds(1), 1);
    for (const period of [1, 7, 60, 1000, 3600, 86_400, 1801])
      assert.equal(
        scheduleProblem({ periodSeconds: period, tickSeconds: defaultTickSeconds(period) }),
        undefined,
      );
  });
});
