import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { scheduledEvent, startSchedule } from '../../local/scheduler.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('fires an EventBridge ScheduledEvent at the fixed rate until stopped', async () => {
  const calls: { event: ScheduledEvent; context: Context; at: number }[] = [];
  const started = Date.now();
  const schedule = startSchedule({
    functionName: 'sweeper',
    intervalMs: 100,
    handler: async (event, context) => {
      calls.push({ event, context, at: Date.now() });
    },
  });
  await sleep(800);
  await schedule.stop();
  const elapsed = Date.now() - started;
  const count = calls.length;
  // timers only fire late on a loaded machine, never early: at most one run per interval
  assert.ok(count >= 2 && count <= Math.floor(elapsed / 100), `${count} calls in ${elapsed} ms at 100 ms`);
  assert.ok(calls[0]!.at - started >= 90, 'the first run comes one interval after start');
  const { event, context } = calls[0]!;
  assert.equal(event.source, 'aws.events');
  assert.equal(event['detail-type'], 'Scheduled Event');
  assert.equal(event.region, 'us-east-1');
  assert.deepEqual(event.detail, {});
  assert.deepEqual(event.resources, ['arn:aws:events:us-east-1:123456789012:rule/sweeper-schedule']);
  assert.match(event.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.notEqual(calls[0]!.event.id, calls[1]!.event.id);
  assert.equal(context.functionName, 'sweeper');
  await sleep(250);
  assert.equal(calls.length, count, 'no run after stop()');
});

test('a slow run is never overlapped: ticks during it are skipped', async () => {
  let running = 0;
  let peak = 0;
  let runs = 0;
  const schedule = startSchedule({
    functionName: 'sweeper',
    intervalMs: 50,
    handler: async () => {
      running++;
      runs++;
      peak = Math.max(peak, running);
      await sleep(180);
      running--;
    },
  });
  await sleep(600);
  await schedule.stop();
  assert.equal(peak, 1);
  // 600 ms of 180 ms runs: never more than 4, whatever the load
  assert.ok(runs >= 1 && runs <= 4, `${runs} runs`);
});

test('stop() waits for the run in progress; a throwing run is logged and the schedule goes on', async () => {
  const logged: string[] = [];
  let calls = 0;
  let finished = false;
  const schedule = startSchedule({
    functionName: 'sweeper',
    intervalMs: 60,
    log: (m) => logged.push(m),
    handler: async () => {
      calls++;
      if (calls === 1) throw new Error('sweep failed');
      await sleep(200);
      finished = true;
    },
  });
  // the first run throws at ~60 ms, the second starts at ~120 ms
  while (calls < 2) await sleep(5);
  await schedule.stop();
  assert.equal(calls, 2);
  assert.equal(finished, true);
  assert.ok(logged.some((m) => m.includes('sweeper (scheduled) threw')));
});

test('fire() runs the handler now and resolves when it is done', async () => {
  let calls = 0;
  const schedule = startSchedule({
    functionName: 'sweeper',
    intervalMs: 60_000,
    handler: async () => {
      await sleep(30);
      calls++;
    },
  });
  try {
    await schedule.fire();
    assert.equal(calls, 1);
  } finally {
    await schedule.stop();
  }
});

test('scheduledEvent uses whole seconds, as EventBridge does', () => {
  const event = scheduledEvent('r', new Date('2026-11-30T10:20:30.456Z'));
  assert.equal(event.time, '2026-11-30T10:20:30Z');
  assert.equal(event.version, '0');
  assert.equal(event.account, '123456789012');
});
