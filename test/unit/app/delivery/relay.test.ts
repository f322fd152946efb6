/**
 * The outbox relay's decisions, on task changes as the stream reports them
 * (fake queue and bus: this is about what follows which change).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DetailType, MAX_DELAY_SECONDS, relayChanges } from '../../../../shared/app/delivery/relay.ts';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { EventType, TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import type { ExecutorRun } from '../../../../shared/ports/executor-queue.ts';
import type { LifecycleEvent } from '../../../../shared/ports/lifecycle-publisher.ts';
import type { TaskChange } from '../../../../shared/ports/task-changes.ts';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const clock = { now: () => new Date(NOW) };
const head = (
  taskId: string,
  state: SynapseState,
  version: number,
  over: Partial<TaskHead> = {},
): TaskHead => ({
  taskId,
  tenant: 't',
  owner: 'o',
  contextId: 'c',
  state,
  version,
  role: 'executor',
  protocol: 'a2a',
  createdAt: new Date(NOW).toISOString(),
  statusAt: new Date(NOW).toISOString(),
  deadlineAt: new Date(NOW + 3_600_000).toISOString(),
  ...over,
});
const ev = (
  taskId: string,
  version: number,
  type: EventType,
  from: SynapseState | null,
  to: SynapseState,
): TaskEvent => ({
  taskId,
  tenant: 't',
  version,
  type,
  from,
  to,
  at: new Date(NOW).toISOString(),
});
let seq = 0;
const change = (
  before: TaskHead | undefined,
  after: TaskHead | undefined,
  events: TaskEvent[],
): TaskChange => ({
  sequence: String(++seq),
  ...(before ? { before } : {}),
  ...(after ? { after: { head: after, recent: events } } : {}),
  events,
});

const relay = async (changes: TaskChange[]) => {
  const runs: Array<{ run: ExecutorRun; delay: number }> = [];
  const events: LifecycleEvent[] = [];
  const result = await relayChanges(changes, {
    executor: { enqueue: async (rs, delay = 0) => void runs.push(...rs.map((run) => ({ run, delay }))) },
    lifecycle: { publish: async (es) => void events.push(...es) },
    clock,
  });
  return { runs, events, result };
};

describe('relay', () => {
  it('a new submission gets one run and a Task Created event', async () => {
    const { runs, events } = await relay([
      change(undefined, head('a', 'pending', 1), [ev('a', 1, 'created', null, 'pending')]),
    ]);
    assert.deepEqual(runs, [{ run: { tenant: 't', taskId: 'a', version: 1 }, delay: 0 }]);
    assert.deepEqual(
      events.map((e) => [e.detailType, e.id, e.detail.a2aState]),
      [[DetailType.Created, 'a:1', 'TASK_STATE_SUBMITTED']],
    );
  });

  it('a claim gets a lease watch due when the lease ends (at most 15 minutes ahead)', async () => {
    const claimed = (lease: number) =>
      change(
        head('b', 'pending', 1),
        head('b', 'executing', 3, { leaseUntil: new Date(NOW + lease).toISOString() }),
        [ev('b', 2, 'confirm', 'pending', 'confirmed'), ev('b', 3, 'start', 'confirmed', 'executing')],
      );
    const short = await relay([claimed(30_000)]);
    assert.deepEqual(short.runs, [
      { run: { tenant: 't', taskId: 'b', version: 3, watch: 'lease' }, delay: 30 },
    ]);
    assert.deepEqual(
      short.events.map((e) => e.detailType),
      [DetailType.StateChanged],
    );
    const long = await relay([claimed(960_000)]);
    assert.equal(long.runs[0]?.delay, MAX_DELAY_SECONDS);
  });

  it('coalesces a batch per task: a task created claimed and finished in one batch needs no watch', async () => {
    const executing = head('c', 'executing', 3, { leaseUntil: new Date(NOW + 30_000).toISOString() });
    const { runs, events } = await relay([
      change(undefined, executing, [
        ev('c', 1, 'created', null, 'pending'),
        ev('c', 2, 'confirm', 'pending', 'confirmed'),
        ev('c', 3, 'start', 'confirmed', 'executing'),
      ]),
      change(executing, head('c', 'completed', 5), [
        ev('c', 4, 'artifact', 'executing', 'executing'),
        ev('c', 5, 'complete', 'executing', 'completed'),
      ]),
    ]);
    assert.deepEqual(runs, []);
    assert.deepEqual(
      events.map((e) => [e.detailType, e.id]),
      [
        [DetailType.Created, 'c:1'],
        [DetailType.Completed, 'c:5'],
      ],
    );
  });

  it('an answer or a hand-back gets a run; a question, an artifact or progress gets none', async () => {
    const { runs, events } = await relay([
      change(head('d', 'info_needed', 4), head('d', 'info_provided', 5), [
        ev('d', 5, 'info_provided', 'info_needed', 'info_provided'),
      ]),
      change(head('e', 'executing', 3), head('e', 'confirmed', 4), [
        ev('e', 4, 'release', 'executing', 'confirmed'),
      ]),
      change(head('f', 'executing', 3), head('f', 'info_needed', 4), [
        ev('f', 4, 'need_info', 'executing', 'info_needed'),
      ]),
      change(head('g', 'executing', 3), head('g', 'executing', 4), [
        ev('g', 4, 'artifact', 'executing', 'executing'),
      ]),
      change(head('h', 'executing', 3), head('h', 'executing', 4), [
        ev('h', 4, 'status_update', 'executing', 'executing'),
      ]),
    ]);
    assert.deepEqual(
      runs.map((r) => r.run.taskId),
      ['d', 'e'],
    );
    assert.deepEqual(
      events.map((e) => [e.detail.taskId, e.detailType]),
      [
        ['d', DetailType.StateChanged],
        ['e', DetailType.StateChanged],
        ['f', DetailType.StateChanged],
      ],
    );
  });

  it('names each ending, with the reason', async () => {
    const ended = (id: string, type: EventType, to: SynapseState) =>
      change(head(id, 'executing', 3), head(id, to, 4), [
        {
          ...ev(id, 4, type, 'executing', to),
          ...(type === 'timeout' ? { reason: { code: 'execution_timeout', message: 'late' } } : {}),
        },
      ]);
    const { events, runs } = await relay([
      ended('i', 'complete', 'completed'),
      ended('j', 'fail', 'failed'),
      ended('k', 'timeout', 'failed'),
      ended('l', 'cancel', 'cancelled'),
      ended('m', 'reject', 'rejected'),
    ]);
    assert.deepEqual(runs, []);
    assert.deepEqual(
      events.map((e) => e.detailType),
      [DetailType.Completed, DetailType.Failed, DetailType.Expired, DetailType.Canceled, DetailType.Rejected],
    );
    assert.deepEqual(events[2]?.detail.reason, { code: 'execution_timeout', message: 'late' });
    assert.equal(events[0]?.detail.previousA2aState, 'TASK_STATE_WORKING');
  });

  it('a task created already finished gets its ending too; one created claimed only its creation', async () => {
    const rejectedAtOnce = change(undefined, head('r1', 'rejected', 2), [
      ev('r1', 1, 'created', null, 'pending'),
      {
        ...ev('r1', 2, 'reject', 'pending', 'rejected'),
        reason: { code: 'capability_lacking', message: 'no' },
      },
    ]);
    const claimedAtOnce = change(
      undefined,
      head('r2', 'executing', 3, { leaseUntil: new Date(NOW + 30_000).toISOString() }),
      [
        ev('r2', 1, 'created', null, 'pending'),
        ev('r2', 2, 'confirm', 'pending', 'confirmed'),
        ev('r2', 3, 'start', 'confirmed', 'executing'),
      ],
    );
    const { events } = await relay([rejectedAtOnce, claimedAtOnce]);
    assert.deepEqual(
      events.map((e) => [e.detailType, e.id]),
      [
        [DetailType.Created, 'r1:1'],
        [DetailType.Rejected, 'r1:2'],
        [DetailType.Created, 'r2:1'],
      ],
    );
    assert.equal(events[0]?.detail.state, 'rejected', 'the creation tells the state the change left');
    assert.equal(events[1]?.detail.previousState, 'pending');
    assert.deepEqual(events[1]?.detail.reason, { code: 'capability_lacking', message: 'no' });
    assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'ids are unique');
  });

  it('a deletion (TTL) relays nothing', async () => {
    const { runs, events, result } = await relay([change(head('n', 'completed', 5), undefined, [])]);
    assert.deepEqual([runs, events], [[], []]);
    assert.equal(result.changes, 1);
  });

  it('fails the whole batch when the queue or the bus fails, so it is retried', async () => {
    await assert.rejects(
      relayChanges([change(undefined, head('o', 'pending', 1), [ev('o', 1, 'created', null, 'pending')])], {
        executor: { enqueue: async () => Promise.reject(new Error('SQS down')) },
        lifecycle: { publish: async () => {} },
        clock,
      }),
      /SQS down/,
    );
  });
});
