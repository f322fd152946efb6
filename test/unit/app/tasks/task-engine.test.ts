/**
 * The task engine (shared/app/tasks/task-engine.ts) on the in-memory task store: creates idempotent by the
 * message, transitions decided by the domain and written whole, a lost race re-decided on the task that won
 * (never overwritten), retried requester messages applied once, the version and guard checks, time that
 * never goes backwards, and replies kept under a message's key. The store's own contract is
 * test/contract/task-store.ts; DynamoDB-specific behaviour stays in test/integration/adapters/dynamodb.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, sequentialIds } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import {
  DEFAULT_LEASE_SECONDS,
  derivedTaskId,
  type EngineObserver,
  RECENT_MESSAGE_KEYS,
  TaskEngine,
} from '../../../../shared/app/tasks/task-engine.ts';
import {
  ConflictError,
  GenerationMismatchError,
  InvalidTransitionError,
  TaskNotFoundError,
  ValidationError,
} from '../../../../shared/domain/errors.ts';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { EventDraft, Message, TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import { StaleTaskError, type TaskRecord, type TaskRef } from '../../../../shared/ports/task-store.ts';

const tenant = 'acme';
const owner = 'alice';
const user = (text: string, messageId: string = crypto.randomUUID()): Message => ({
  messageId,
  role: 'user',
  parts: [{ text }],
});
const agent = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});

/** The in-memory store, with a writer that may slip in just before a commit, and its reads counted. */
class RacingStore extends InMemoryTaskStore {
  gets = 0;
  commits = 0;
  /** Runs once, just before the next commit (that commit then decides on what it read before). */
  beforeCommit: (() => Promise<unknown>) | undefined;

  override async get(ref: TaskRef): Promise<TaskRecord | undefined> {
    this.gets++;
    return super.get(ref);
  }

  override async commit(
    seen: TaskRecord,
    next: TaskHead,
    events: TaskEvent[],
    allowedFrom: readonly SynapseState[],
  ): Promise<TaskRecord> {
    this.commits++;
    const interject = this.beforeCommit;
    this.beforeCommit = undefined;
    if (interject) await interject();
    return super.commit(seen, next, events, allowedFrom);
  }
}

const recordingObserver = () => {
  const seen = { created: [] as string[], transitioned: [] as string[], conflicts: 0 };
  const observer: EngineObserver = {
    created: (head) => void seen.created.push(head.taskId),
    transitioned: (event) => void seen.transitioned.push(event.type),
    conflictLost: () => void seen.conflicts++,
  };
  return { seen, observer };
};

const setup = (options: ConstructorParameters<typeof TaskEngine>[1] = {}) => {
  const store = new RacingStore();
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const { seen, observer } = recordingObserver();
  const engine = new TaskEngine(store, { clock, ids: sequentialIds(), observer, ...options });
  return { store, clock, seen, engine };
};

const eventsOf = async (engine: TaskEngine, ref: TaskRef) => {
  const record = await engine.store.get(ref);
  assert.ok(record);
  return engine.store.events(record, 0);
};

describe('creating a task', () => {
  it('writes it pending at version 1, its first message in the created event, its deadline an hour on', async () => {
    const { engine, seen } = setup();
    const created = await engine.create({ tenant, owner, message: user('hello') });
    assert.equal(created.duplicate, false);
    assert.deepEqual(
      [created.head.taskId, created.head.contextId, created.head.state, created.head.version],
      ['task-1', 'context-1', 'pending', 1],
    );
    assert.equal(created.head.createdAt, '2026-03-01T10:00:00.000Z');
    assert.equal(created.head.deadlineAt, '2026-03-01T11:00:00.000Z');
    const [first] = await eventsOf(engine, created.head);
    assert.deepEqual(
      [first?.type, first?.from, first?.to, first?.message?.taskId, first?.message?.contextId],
      ['created', null, 'pending', 'task-1', 'context-1'],
    );
    assert.deepEqual(seen.created, ['task-1']);
  });

  it('a message created twice under a dedup scope is one task: the retry gets it back, as it is now', async () => {
    const { engine, seen } = setup();
    const message = user('once', 'm-1');
    const first = await engine.create({ tenant, owner, message, dedupScope: owner });
    assert.equal(first.head.taskId, derivedTaskId(tenant, owner, message));
    await engine.apply(first.head, { type: 'cancel' });
    const again = await engine.create({ tenant, owner, message, dedupScope: owner });
    assert.equal(again.duplicate, true);
    assert.equal(again.head.taskId, first.head.taskId);
    assert.equal(again.head.state, 'cancelled', 'the task as it is, not made again');
    assert.deepEqual(seen.created, [first.head.taskId], 'created once');
    const other = await engine.create({ tenant, owner: 'bob', message, dedupScope: 'bob' });
    assert.notEqual(other.head.taskId, first.head.taskId, 'another sender, another task');
  });

  it('applies the events it is given right after `created`, in the same write, with their lease', async () => {
    const { engine, store, clock } = setup({ leaseSeconds: 120 });
    const then: EventDraft[] = [{ type: 'confirm' }, { type: 'start' }];
    const { head, record } = await engine.create({
      tenant,
      owner,
      message: user('run now'),
      then,
    });
    assert.deepEqual([head.state, head.version], ['executing', 3]);
    assert.equal(head.leaseUntil, new Date(clock.now().getTime() + 120_000).toISOString());
    assert.equal(store.commits, 0, 'one write: the create');
    assert.deepEqual(
      record.recent.map((e) => e.type),
      ['created', 'confirm', 'start'],
    );
  });

  it('refuses what cannot make a task, and writes nothing', async () => {
    const { engine, store } = setup();
    await assert.rejects(engine.create({ tenant: 'bad#tenant', owner, message: user('x') }), ValidationError);
    await assert.rejects(
      engine.create({ tenant, owner, message: { messageId: 'm', role: 'user', parts: [] } }),
      ValidationError,
    );
    await assert.rejects(
      engine.create({ tenant, owner, initialState: 'executing' as 'pending', message: user('x') }),
      ValidationError,
    );
    const then: EventDraft[] = [{ type: 'complete' }];
    await assert.rejects(
      engine.create({ tenant, owner, message: user('x'), then }),
      InvalidTransitionError,
      'a pending task cannot complete',
    );
    assert.equal(store.size, 0);
  });
});

describe('applying events', () => {
  it('a sequence is decided whole and written in one commit; a claim sets the lease, leaving executing ends it', async () => {
    const { engine, store, clock, seen } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    const claimed = await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    assert.equal(store.commits, 1);
    assert.deepEqual(
      claimed.events.map((e) => [e.version, e.type, e.from, e.to]),
      [
        [2, 'confirm', 'pending', 'confirmed'],
        [3, 'start', 'confirmed', 'executing'],
      ],
    );
    assert.equal(
      claimed.head.leaseUntil,
      new Date(clock.now().getTime() + DEFAULT_LEASE_SECONDS * 1000).toISOString(),
    );
    const done = await engine.apply(head, { type: 'complete', message: agent('done') });
    assert.equal(done.head.leaseUntil, undefined);
    assert.equal(done.head.statusMessage?.parts[0]?.text, 'done');
    assert.deepEqual(seen.transitioned, ['confirm', 'start', 'complete']);
  });

  it('a refused event in a sequence refuses all of it: nothing is written', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await assert.rejects(
      engine.apply(head, [{ type: 'confirm' }, { type: 'complete' }]),
      InvalidTransitionError,
    );
    assert.deepEqual(
      (await eventsOf(engine, head)).map((e) => e.type),
      ['created'],
    );
    await assert.rejects(engine.apply(head, []), ValidationError);
    await assert.rejects(engine.apply(head, { type: 'teleport' }), ValidationError);
  });

  it('a status update without a message clears the status message; progress alone keeps it', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    const said = await engine.apply(head, { type: 'status_update', message: agent('working') });
    assert.equal(said.head.statusVersion, 4);
    const progressed = await engine.apply(head, { type: 'status_update', progress: 30 });
    assert.equal(progressed.head.statusMessage?.parts[0]?.text, 'working');
    assert.equal(progressed.head.progress, 30);
    const bare = await engine.apply(head, { type: 'status_update' });
    assert.equal(bare.head.statusMessage, undefined);
    assert.equal(bare.head.statusVersion, undefined);
  });

  it('push_config events keep the task’s list of configs, oldest first, each once', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await engine.apply(head, [
      { type: 'push_config', data: { set: 'a' } },
      { type: 'push_config', data: { set: 'b' } },
      { type: 'push_config', data: { set: 'a' } },
    ]);
    const after = await engine.apply(head, { type: 'push_config', data: { deleted: 'b' } });
    assert.deepEqual(after.head.pushConfigIds, ['a']);
  });

  it('a task that is not there, or is another tenant’s, is not found', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('mine') });
    await assert.rejects(
      engine.apply({ tenant: 'other', taskId: head.taskId }, { type: 'cancel' }),
      TaskNotFoundError,
    );
    await assert.rejects(engine.apply({ tenant, taskId: 'nope' }, { type: 'cancel' }), TaskNotFoundError);
  });

  it('event times never go backwards, whatever the clock says', async () => {
    const { engine, clock } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    clock.advance(-60_000);
    const { events } = await engine.apply(head, { type: 'confirm' });
    assert.equal(events[0]?.at, head.statusAt);
    clock.advance(120_000);
    const later = await engine.apply(head, { type: 'start' });
    assert.equal(later.events[0]?.at, '2026-03-01T10:01:00.000Z');
  });
});

describe('a lost race', () => {
  it('is re-decided on the task that won, without another read, and both writes are kept', async () => {
    const { engine, store, seen } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    const claimed = (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
    store.beforeCommit = () => engine.apply(head, { type: 'status_update', progress: 10 }, { seen: claimed });
    store.gets = 0;
    const mine = await engine.apply(
      head,
      { type: 'artifact', artifact: { artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } },
      { seen: claimed },
    );
    assert.equal(store.gets, 0, 'the winner came back with the refusal');
    assert.deepEqual(
      mine.events.map((e) => [e.version, e.type]),
      [[5, 'artifact']],
    );
    assert.equal(seen.conflicts, 1);
    assert.deepEqual(
      (await eventsOf(engine, head)).map((e) => e.type),
      ['created', 'confirm', 'start', 'status_update', 'artifact'],
    );
    assert.equal((await store.get(head))?.head.progress, 10, 'the winner’s progress is kept');
  });

  it('is refused when the winner’s task no longer allows it: a cancel that won ends a completion', async () => {
    const { engine, store } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    const claimed = (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
    store.beforeCommit = () => engine.apply(head, { type: 'cancel' }, { seen: claimed });
    await assert.rejects(engine.apply(head, { type: 'complete' }, { seen: claimed }), InvalidTransitionError);
    const stored = await store.get(head);
    assert.equal(stored?.head.state, 'cancelled');
    assert.equal(stored?.head.version, 4);
  });

  it('gives up with ConflictError after maxAttempts lost writes; a winner that is gone is not found', async () => {
    class AlwaysStale extends InMemoryTaskStore {
      commits = 0;
      gone = false;
      override async commit(seen: TaskRecord): Promise<TaskRecord> {
        this.commits++;
        throw new StaleTaskError(this.gone ? undefined : seen);
      }
      override async get(ref: TaskRef): Promise<TaskRecord | undefined> {
        return this.gone ? undefined : super.get(ref);
      }
    }
    const store = new AlwaysStale();
    const { seen, observer } = recordingObserver();
    const engine = new TaskEngine(store, { maxAttempts: 3, observer });
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await assert.rejects(
      engine.apply(head, { type: 'confirm' }),
      (e: unknown) => e instanceof ConflictError && e.attempts === 3,
    );
    assert.equal(store.commits, 3);
    assert.equal(seen.conflicts, 3);
    // a refusal without the winner (the task is gone) reads the task again: not found
    store.gone = true;
    const record = await new InMemoryTaskStore().create(head, []);
    await assert.rejects(engine.apply(head, { type: 'confirm' }, { seen: record.record }), TaskNotFoundError);
  });
});

describe('retried requester messages', () => {
  it('apply once per sender, even after the task moved on; the window keeps the latest few', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('ask') });
    await engine.apply(head, { type: 'need_info', message: agent('how many?') });
    const answer = user('5');
    const first = await engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner });
    await engine.apply(head, { type: 'resume' });
    const again = await engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner });
    assert.deepEqual([first.duplicate, again.duplicate, again.events], [false, true, []]);
    assert.equal(again.head.version, 4);
    // another sender's identical message is another message (and here refused: the task is executing)
    await assert.rejects(
      engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: 'bob' }),
      InvalidTransitionError,
    );
    const keys = (await engine.store.get(head))?.head.recentMessageKeys ?? [];
    assert.equal(keys.length, 1);
    assert.ok(RECENT_MESSAGE_KEYS >= 1);
  });

  it('a dedup key recognises a peer’s report whatever it says', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    const first = await engine.apply(head, { type: 'status_update', progress: 1 }, { dedupKey: 'report-1' });
    const again = await engine.apply(head, { type: 'status_update', progress: 2 }, { dedupKey: 'report-1' });
    assert.deepEqual([first.duplicate, again.duplicate], [false, true]);
    assert.equal((await engine.store.get(head))?.head.progress, 1);
  });
});

describe('checks on the task decided on', () => {
  it('expectVersion: another version refuses the apply with GenerationMismatchError, nothing written', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await assert.rejects(
      engine.apply(head, { type: 'confirm' }, { expectVersion: 2 }),
      (e: unknown) => e instanceof GenerationMismatchError,
    );
    assert.equal((await engine.store.get(head))?.head.version, 1);
    const applied = await engine.apply(head, { type: 'confirm' }, { expectVersion: 1 });
    assert.equal(applied.head.version, 2);
  });

  it('expectVersion is checked again on the task of a lost race', async () => {
    const { engine, store } = setup();
    const { head, record } = await engine.create({ tenant, owner, message: user('go') });
    store.beforeCommit = () =>
      engine.apply(head, { type: 'push_config', data: { set: 'x' } }, { seen: record });
    await assert.rejects(
      engine.apply(head, { type: 'confirm' }, { seen: record, expectVersion: 1 }),
      GenerationMismatchError,
    );
    assert.equal((await store.get(head))?.head.state, 'pending');
  });

  it('a guard that fails refuses the apply with InvalidTransitionError, nothing written', async () => {
    const { engine } = setup();
    const { head } = await engine.create({ tenant, owner, message: user('go') });
    await assert.rejects(
      engine.apply(head, { type: 'confirm' }, { guard: (r) => r.head.state === 'executing' }),
      (e: unknown) => e instanceof InvalidTransitionError && /moved on/.test(e.message),
    );
    assert.equal((await engine.store.get(head))?.head.version, 1);
  });
});

describe('replies', () => {
  it('are kept under the key the message’s task would have had: a retry gets the first, a task wins', async () => {
    const { engine } = setup();
    const request = user('ping', 'm-ping');
    const reply = { ...agent('pong'), contextId: 'c' };
    const kept = await engine.keepReply({ tenant, dedupScope: owner, request, reply });
    assert.ok('reply' in kept && kept.created);
    assert.equal(kept.reply.key, derivedTaskId(tenant, owner, request));
    const again = await engine.keepReply({ tenant, dedupScope: owner, request, reply: agent('other') });
    assert.ok('reply' in again && !again.created);
    assert.equal(again.reply.message.parts[0]?.text, 'pong');
    const asked = user('do it', 'm-task');
    const { head } = await engine.create({ tenant, owner, message: asked, dedupScope: owner });
    const late = await engine.keepReply({ tenant, dedupScope: owner, request: asked, reply });
    assert.ok('task' in late);
    assert.equal(late.task.head.taskId, head.taskId);
    await assert.rejects(
      engine.keepReply({ tenant, dedupScope: owner, request, reply: user('not an agent') }),
      ValidationError,
    );
  });
});
