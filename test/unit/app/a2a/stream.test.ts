/**
 * The stream poller (shared/app/a2a/stream.ts) on a virtual clock: order, no gap and no duplicate
 * across a resume from any version, the end on terminal and interrupted states, heartbeats, the budget
 * close, and the idle backoff (the polls counted).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type FollowOptions,
  firstWrite,
  follow,
  STREAM_TIMING,
  type StreamEnd,
  type StreamItem,
} from '../../../../shared/app/a2a/stream.ts';
import { agentMessage, artifact } from '../../protocol/a2a/fixtures.ts';
import { CALLER, type ScriptedEvent, scriptedTask, type VirtualClock, virtualClock } from './stream-fakes.ts';

const progress = (at: number, n: number): ScriptedEvent => ({
  at,
  type: 'status_update',
  to: 'executing',
  progress: n * 20,
  message: agentMessage({ messageId: `p${n}`, parts: [{ text: `${n}/5 s` }] }),
});

/** `slow 5`, with an artifact in two chunks and the completion. */
const SLOW: ScriptedEvent[] = [
  progress(1000, 1),
  progress(2000, 2),
  { at: 2500, type: 'artifact', to: 'executing', artifact: { artifact: artifact(), append: false } },
  progress(3000, 3),
  {
    at: 3000,
    type: 'artifact',
    to: 'executing',
    artifact: { artifact: artifact({ parts: [{ text: '!' }] }), append: true, lastChunk: true },
  },
  progress(4000, 4),
  progress(5000, 5),
  { at: 5000, type: 'complete', to: 'completed', message: agentMessage({ messageId: 'done' }) },
];

const options = (clock: VirtualClock, extra: Partial<FollowOptions> = {}): FollowOptions => ({
  clock,
  timing: STREAM_TIMING,
  deadline: clock.now() + 280_000,
  lastWrite: clock.now(),
  ...extra,
});

const drain = async (items: AsyncGenerator<StreamItem, StreamEnd>) => {
  const out: StreamItem[] = [];
  for (;;) {
    const next = await items.next();
    if (next.done) return { items: out, end: next.value };
    out.push(next.value);
  }
};

const ids = (items: StreamItem[]) => items.flatMap((i) => (i.type === 'event' ? [i.id] : []));

describe('stream poller: order and resumption', () => {
  it('sends every shown event after the start, in version order, and ends on the terminal one', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, SLOW);
    const start = (await task.find(CALLER, 't1'))!;
    const { items, end } = await drain(follow(task, CALLER, start, 1, options(clock)));
    assert.equal(end, 'final');
    assert.deepEqual(ids(items), [2, 3, 4, 5, 6, 7, 8, 9]);
    const kinds = items.map((i) => (i.type === 'event' ? i.event.kind : i.type));
    assert.deepEqual(kinds, [
      'status-update',
      'status-update',
      'artifact-update',
      'status-update',
      'artifact-update',
      'status-update',
      'status-update',
      'status-update',
    ]);
    const last = items.at(-1);
    assert.ok(last?.type === 'event' && last.event.kind === 'status-update');
    assert.equal(last.event.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(last.event.final, true);
    // no event was read twice: each events() read starts where the previous one stopped
    assert.deepEqual(task.reads, [...new Set(task.reads)]);
  });

  it('a resume after any version sends exactly the events after it: no gap, no duplicate', async () => {
    const clock = virtualClock();
    const whole = scriptedTask(clock, SLOW);
    clock.advance(10_000);
    const done = (await whole.find(CALLER, 't1'))!;
    const all = ids((await drain(follow(whole, CALLER, done, 0, options(clock)))).items);
    assert.deepEqual(all, [1, 2, 3, 4, 5, 6, 7, 8, 9], 'from 0: the created event too');
    for (let k = 0; k <= 9; k++) {
      // resumed while the task is still running at various points, and after it finished
      for (const elapsed of [0, 2200, 10_000]) {
        const c = virtualClock();
        const task = scriptedTask(c, SLOW);
        c.advance(elapsed);
        const record = (await task.find(CALLER, 't1'))!;
        if (record.head.version < k) continue;
        const resumed = ids((await drain(follow(task, CALLER, record, k, options(c)))).items);
        assert.deepEqual(
          resumed,
          all.filter((v) => v > k),
          `resume after ${k} at ${elapsed} ms`,
        );
      }
    }
  });

  it('ends after the status update of an interrupted state, even when the resumption follows at once', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [
      { at: 500, type: 'need_info', to: 'info_needed', message: agentMessage() },
      { at: 500, type: 'info_provided', to: 'info_provided' },
      { at: 500, type: 'resume', to: 'executing' },
      { at: 900, type: 'complete', to: 'completed' },
    ]);
    const start = (await task.find(CALLER, 't1'))!;
    const { items, end } = await drain(follow(task, CALLER, start, 1, options(clock)));
    assert.equal(end, 'final');
    assert.deepEqual(ids(items), [2]);
    const only = items[0];
    assert.ok(only?.type === 'event' && only.event.kind === 'status-update');
    assert.equal(only.event.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(only.event.final, true);
    // resuming after it goes on with the resumption (WORKING), then the completion
    const resumed = await drain(follow(task, CALLER, (await task.find(CALLER, 't1'))!, 2, options(clock)));
    assert.deepEqual(ids(resumed.items), [3, 5], 'resume (WORKING → WORKING) shows nothing');
  });

  it('a SubscribeToTask stream (endsAt terminal) goes through an interrupted state to the terminal one', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [
      { at: 500, type: 'need_info', to: 'info_needed', message: agentMessage() },
      { at: 3000, type: 'info_provided', to: 'info_provided' },
      { at: 3000, type: 'resume', to: 'executing' },
      { at: 3400, type: 'complete', to: 'completed' },
    ]);
    const start = (await task.find(CALLER, 't1'))!;
    const { items, end } = await drain(
      follow(task, CALLER, start, 1, options(clock, { endsAt: (s) => s === 'completed' })),
    );
    assert.equal(end, 'final');
    assert.deepEqual(ids(items), [2, 3, 5], 'the question, the answer (WORKING), the completion');
    const states = items.flatMap((i) =>
      i.type === 'event' && i.event.kind === 'status-update' ? [[i.event.status.state, i.event.final]] : [],
    );
    assert.deepEqual(states, [
      ['TASK_STATE_INPUT_REQUIRED', false],
      ['TASK_STATE_WORKING', false],
      ['TASK_STATE_COMPLETED', true],
    ]);
    // with no answer, it waits on until its budget ends, at a resumable position
    const c = virtualClock();
    const waiting = scriptedTask(c, [{ at: 500, type: 'need_info', to: 'info_needed' }]);
    const open = await drain(
      follow(waiting, CALLER, (await waiting.find(CALLER, 't1'))!, 1, {
        ...options(c, { endsAt: (s) => s === 'completed' }),
        deadline: c.now() + 5_000,
      }),
    );
    assert.equal(open.end, 'budget');
    assert.deepEqual(ids(open.items), [2]);
  });

  it('a resumed stream of a task that settled, with nothing after the position, ends at once', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [{ at: 0, type: 'need_info', to: 'info_needed' }]);
    const record = (await task.find(CALLER, 't1'))!;
    const { items, end } = await drain(follow(task, CALLER, record, 2, options(clock)));
    assert.equal(end, 'final');
    assert.deepEqual(items, []);
    assert.equal(task.polls.length, 1, 'no poll after the first read');
  });
});

describe('stream poller: time', () => {
  it('polls with a backoff while idle: 100 ms doubling to 1 s, 62 reads in an idle minute', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, []);
    const start = (await task.find(CALLER, 't1'))!;
    task.polls.length = 0;
    const { items, end } = await drain(
      follow(task, CALLER, start, 1, options(clock, { deadline: clock.now() + 60_000 })),
    );
    assert.equal(end, 'budget');
    assert.deepEqual(task.polls.slice(0, 6), [100, 300, 700, 1500, 2500, 3500]);
    const gaps = task.polls.slice(1).map((t, i) => t - task.polls[i]!);
    assert.ok(
      gaps.slice(4).every((g) => g === 1000),
      `capped at 1 s: ${gaps.join(',')}`,
    );
    assert.equal(task.polls.length, 62, 'heartbeat wake-ups poll nothing');
    assert.equal(task.reads.length, 0, 'the events are never read while the version does not move');
    assert.equal(
      items.filter((i) => i.type === 'heartbeat').length,
      3,
      'at 15, 30 and 45 s; the close is at 60 s',
    );
  });

  it('news resets the backoff', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [progress(5050, 1), progress(20_000, 2)]);
    const start = (await task.find(CALLER, 't1'))!;
    task.polls.length = 0;
    await drain(follow(task, CALLER, start, 1, options(clock, { deadline: clock.now() + 7_000 })));
    const afterNews = task.polls.filter((t) => t > 5050);
    assert.equal(afterNews[0], 5500, 'the event is seen at the next 1 s poll');
    assert.deepEqual(
      afterNews.slice(1, 4).map((t) => t - afterNews[0]!),
      [100, 300, 700],
    );
  });

  it('writes a comment after each 15 s of silence, counted from the last write', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [progress(20_000, 1), progress(50_000, 2)]);
    const start = (await task.find(CALLER, 't1'))!;
    const t0 = clock.now();
    const seen: { type: string; at: number }[] = [];
    for await (const item of follow(task, CALLER, start, 1, options(clock, { deadline: t0 + 70_000 }))) {
      seen.push({ type: item.type, at: clock.now() - t0 });
    }
    const beats = seen.filter((s) => s.type === 'heartbeat').map((s) => s.at);
    const events = seen.filter((s) => s.type === 'event').map((s) => s.at);
    assert.equal(events.length, 2);
    // 15 s after the start, then 15 s after each event (seen at its next poll), and before the close
    assert.deepEqual(beats, [15_000, events[0]! + 15_000, events[1]! + 15_000]);
    for (let i = 1; i < seen.length; i++) {
      assert.ok(seen[i]!.at - seen[i - 1]!.at <= 15_000, 'never 15 s without a write');
    }
  });

  it('closes at its budget at a resumable position: a resume from the last id gets the rest', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, SLOW);
    const start = (await task.find(CALLER, 't1'))!;
    const first = await drain(
      follow(task, CALLER, start, 1, options(clock, { deadline: clock.now() + 2_600 })),
    );
    assert.equal(first.end, 'budget');
    const sent = ids(first.items);
    assert.deepEqual(sent, [2, 3, 4], 'what was committed by 2.6 s');
    const last = sent.at(-1)!;
    const rest = await drain(follow(task, CALLER, (await task.find(CALLER, 't1'))!, last, options(clock)));
    assert.equal(rest.end, 'final');
    assert.deepEqual([...sent, ...ids(rest.items)], [2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('stops at once when its consumer aborts, and a check can end it with an error', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, SLOW);
    const start = (await task.find(CALLER, 't1'))!;
    const abort = new AbortController();
    const items = follow(task, CALLER, start, 1, options(clock, { signal: abort.signal }));
    const first = await items.next();
    assert.equal(first.done, false);
    abort.abort();
    const polls = task.polls.length;
    assert.deepEqual(await items.next(), { done: true, value: 'aborted' });
    assert.equal(task.polls.length, polls, 'no read after the abort');

    let failed = false;
    const checked = follow(task, CALLER, start, 1, {
      ...options(clock),
      check: () => {
        if (failed) throw new Error('the run failed');
      },
    });
    await checked.next();
    failed = true;
    await assert.rejects(checked.next(), /the run failed/);
  });
});

describe('first write of a send', () => {
  it('returns the first record past the version before, polling with the backoff', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, [{ at: 650, type: 'status_update', to: 'executing' }]);
    const never = new Promise<void>(() => {});
    const record = await firstWrite(task, CALLER, 't1', 1, never, { clock, timing: STREAM_TIMING });
    assert.equal(record?.head.version, 2);
    assert.deepEqual(task.polls, [100, 300, 700]);
  });

  it('returns undefined as soon as the send settles first (a reply, an error, a finished run)', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, []);
    for (const sending of [Promise.resolve('reply'), Promise.reject(new Error('refused'))]) {
      sending.catch(() => {});
      const record = await firstWrite(task, CALLER, 't1', 1, sending, { clock, timing: STREAM_TIMING });
      assert.equal(record, undefined);
    }
    assert.deepEqual(task.polls, [], 'nothing read');
    const missing = await firstWrite(task, CALLER, 'other', 0, new Promise(() => {}), {
      clock,
      timing: STREAM_TIMING,
      signal: AbortSignal.abort(),
    });
    assert.equal(missing, undefined, 'an aborted wait gives up');
  });
});
