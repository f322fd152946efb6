/**
 * The TaskStore port's contract (shared/ports/task-store.ts), and the LivenessWriter's a task store also
 * is: one suite, run against the in-memory twin in the unit suite (test/unit/adapters/memory/task-store.test.ts)
 * and against DynamoTaskStore on DynamoDB Local in the integration suite
 * (test/integration/adapters/dynamodb/task-store.test.ts), which keeps what only DynamoDB has: item layout
 * and sizes, conditions' exact form, detached payloads and spilled history, capacity units and requests.
 *
 * The store is written to directly (create, commit, putReply, beat) and through the engine, which is how
 * the hub writes to it: a create idempotent by its task id, a commit conditional on the version and the
 * allowed states it was decided on (StaleTaskError with the task as it is), replies under a message's key,
 * reads of a record as of its version, listings by owner and by context with pages, filters and totals,
 * the due deadlines, tenants kept apart. Every test works in its own tasks (and owners, where it lists),
 * so the suite may share one store.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { RECENT_MESSAGE_KEYS, TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import {
  InvalidTransitionError,
  TaskNotCancelableError,
  TaskNotFoundError,
  ValidationError,
} from '../../shared/domain/errors.ts';
import type { Message, TaskEvent, TaskHead } from '../../shared/domain/task.ts';
import type { LivenessWriter } from '../../shared/ports/liveness-writer.ts';
import {
  type ListTasksQuery,
  MessageAnsweredError,
  StaleTaskError,
  type StoredReply,
  type TaskRecord,
  type TaskStore,
} from '../../shared/ports/task-store.ts';
import { raceOnce } from '../support/race.ts';

export interface TaskStoreHarness {
  /** The store under test (called once, before the suite's tests; it may be shared with other tests). */
  make(): (TaskStore & LivenessWriter) | Promise<TaskStore & LivenessWriter>;
}

const tenant = 'acme';
const owner = 'alice';

const userMessage = (text: string, messageId: string = crypto.randomUUID()): Message => ({
  messageId,
  role: 'user',
  parts: [{ text }],
});
const agentMessage = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'agent',
  parts: [{ text }],
});
const later = (iso: string, ms = 1000): string => new Date(Date.parse(iso) + ms).toISOString();

export const taskStoreContract = (name: string, harness: TaskStoreHarness): void => {
  describe(`TaskStore contract: ${name}`, () => {
    let store: TaskStore & LivenessWriter;
    let engine: TaskEngine;

    before(async () => {
      store = await harness.make();
      engine = new TaskEngine(store);
    });

    const allEvents = async (head: Pick<TaskHead, 'tenant' | 'taskId'>) => {
      const record = await store.get(head);
      assert.ok(record);
      return store.events(record, 0);
    };

    const executingTask = async (who = owner): Promise<TaskRecord> => {
      const { head } = await engine.create({ tenant, owner: who, message: userMessage('work') });
      return (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
    };

    /** The confirm of a pending task as the engine would decide it: the next head and its event. */
    const confirmOf = (record: TaskRecord): { next: TaskHead; event: TaskEvent } => {
      const at = later(record.head.statusAt);
      const version = record.head.version + 1;
      return {
        next: { ...record.head, state: 'confirmed', version, statusAt: at },
        event: {
          taskId: record.head.taskId,
          tenant: record.head.tenant,
          version,
          type: 'confirm',
          from: record.head.state,
          to: 'confirmed',
          at,
        },
      };
    };

    describe('create, commit and get', () => {
      it('a create writes the task and hands it back; get reads it; an id never created reads as nothing', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('new') });
        const created = await store.get(head);
        assert.ok(created);
        assert.deepEqual(created.head, head);
        assert.deepEqual(
          created.recent.map((e) => [e.version, e.type, e.to]),
          [[1, 'created', 'pending']],
        );
        assert.equal(created.recent[0]?.message?.parts[0]?.text, 'new');
        assert.equal(await store.get({ tenant, taskId: crypto.randomUUID() }), undefined);
      });

      it('a create under an id that exists writes nothing and hands back the task as it is', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('first') });
        const moved = (await engine.apply(record.head, { type: 'cancel' })).record;
        const again = await store.create({ ...record.head, owner: 'mallory', metadata: { x: 1 } }, [
          { ...record.recent[0]!, message: userMessage('second') },
        ]);
        assert.equal(again.created, false);
        assert.deepEqual(again.record.head, moved.head, 'the task as it is now, not as the retry says');
        assert.deepEqual((await store.get(record.head))?.head, moved.head);
        assert.deepEqual(
          (await allEvents(record.head)).map((e) => [e.type, e.message?.parts[0]?.text]),
          [
            ['created', 'first'],
            ['cancel', undefined],
          ],
        );
      });

      it('a commit appends its events and sets the head, on the version and the state it was decided on', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('go') });
        const { next, event } = confirmOf(record);
        const written = await store.commit(record, next, [event], ['pending']);
        assert.deepEqual(written.head, next);
        assert.equal(written.recent.at(-1)?.version, 2, 'the record ends at its version');
        const read = await store.get(record.head);
        assert.deepEqual(read?.head, next);
        assert.deepEqual(
          (await allEvents(record.head)).map((e) => [e.version, e.type, e.from, e.to]),
          [
            [1, 'created', null, 'pending'],
            [2, 'confirm', 'pending', 'confirmed'],
          ],
        );
      });

      it('a commit on a version that moved on throws StaleTaskError with the task as it is, and writes nothing', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('race') });
        const { next, event } = confirmOf(record);
        await store.commit(record, next, [event], ['pending']);
        const lost = await store
          .commit(record, { ...next, progress: 7 }, [{ ...event, progress: 7 }], ['pending'])
          .then(
            () => assert.fail('the second commit on version 1 must lose'),
            (e: unknown) => e,
          );
        assert.ok(lost instanceof StaleTaskError);
        assert.deepEqual(lost.current?.head, next, 'the winner');
        const read = await store.get(record.head);
        assert.equal(read?.head.progress, undefined);
        assert.equal((await allEvents(record.head)).length, 2);
      });

      it('a commit from a state the events do not allow throws StaleTaskError with the task as it is', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('wrong state') });
        const { next, event } = confirmOf(record);
        const refused = await store.commit(record, next, [event], ['executing', 'confirmed']).then(
          () => assert.fail('pending is not allowed'),
          (e: unknown) => e,
        );
        assert.ok(refused instanceof StaleTaskError);
        assert.deepEqual(refused.current?.head, record.head);
        assert.deepEqual((await store.get(record.head))?.head, record.head, 'nothing written');
      });

      it('a commit of a task that is not there (or is another tenant’s) throws StaleTaskError with no task', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('mine') });
        const { next, event } = confirmOf(record);
        const ghost = { ...record, head: { ...record.head, taskId: crypto.randomUUID() } };
        await assert.rejects(
          store.commit(
            ghost,
            { ...next, taskId: ghost.head.taskId },
            [{ ...event, taskId: ghost.head.taskId }],
            ['pending'],
          ),
          (e: unknown) => e instanceof StaleTaskError && e.current === undefined,
        );
        const other = { ...record, head: { ...record.head, tenant: 'other' } };
        await assert.rejects(
          store.commit(other, { ...next, tenant: 'other' }, [{ ...event, tenant: 'other' }], ['pending']),
          (e: unknown) => e instanceof StaleTaskError && e.current === undefined,
        );
        assert.equal(await store.get({ tenant: 'other', taskId: record.head.taskId }), undefined);
        assert.deepEqual((await store.get(record.head))?.head, record.head);
      });

      it('a record handed out is the caller’s: changing it changes nothing stored', async () => {
        const { record } = await engine.create({ tenant, owner, message: userMessage('mine alone') });
        record.head.state = 'completed';
        record.recent[0]!.message!.parts[0]!.text = 'changed';
        const read = await store.get(record.head);
        assert.equal(read?.head.state, 'pending');
        read!.recent.length = 0;
        const view = await store.view((await store.get(record.head))!, {});
        assert.deepEqual(
          view.history.map((m) => m.parts[0]?.text),
          ['mine alone'],
        );
      });

      it('view and events read a record as of its version: a record read before later writes shows what it held', async () => {
        const first = await executingTask();
        const latest = (
          await engine.apply(
            first.head,
            { type: 'status_update', message: agentMessage('later') },
            { seen: first },
          )
        ).record;
        assert.deepEqual(
          (await store.view(first, {})).history.map((m) => m.parts[0]?.text),
          ['work'],
        );
        assert.deepEqual(
          (await store.events(first, 0)).map((e) => e.version),
          [1, 2, 3],
        );
        assert.deepEqual(
          (await store.view(latest, {})).history.map((m) => m.parts[0]?.text),
          ['work', 'later'],
        );
        assert.deepEqual(
          (await store.view(latest, { historyLength: 1 })).history.map((m) => m.parts[0]?.text),
          ['later'],
        );
        assert.deepEqual((await store.view(latest, { historyLength: 0 })).history, []);
        assert.deepEqual((await store.view(latest, {})).artifacts, [], 'artifacts only when asked for');
        assert.deepEqual(
          (await store.events(latest, 1, 2)).map((e) => [e.version, e.type]),
          [
            [2, 'confirm'],
            [3, 'start'],
          ],
        );
        assert.deepEqual(await store.events(latest, 4), []);
      });
    });

    describe('create, transitions and reads', () => {
      it('a transition shows in the head, the view and the events, in order', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('hello') });
        assert.equal(head.state, 'pending');
        assert.equal(head.version, 1);
        await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
        await engine.apply(head, { type: 'status_update', progress: 50, message: agentMessage('half way') });
        const record = await store.get(head);
        assert.ok(record);
        const view = await store.view(record, { includeArtifacts: true });
        assert.equal(view.head.state, 'executing');
        assert.equal(view.head.progress, 50);
        assert.equal(view.head.statusMessage?.parts[0]?.text, 'half way');
        assert.deepEqual(
          view.history.map((m) => m.parts[0]?.text),
          ['hello', 'half way'],
        );
        assert.deepEqual(
          (await allEvents(head)).map((e) => [e.version, e.type, e.from, e.to]),
          [
            [1, 'created', null, 'pending'],
            [2, 'confirm', 'pending', 'confirmed'],
            [3, 'start', 'confirmed', 'executing'],
            [4, 'status_update', 'executing', 'executing'],
          ],
        );
      });

      it('a finished task reads back with its artifacts and final state', async () => {
        const record = await executingTask();
        await engine.apply(record.head, [
          { type: 'artifact', artifact: { artifact: { artifactId: 'a', parts: [{ text: 'out' }] } } },
          { type: 'complete', message: agentMessage('done') },
        ]);
        const read = await store.get(record.head);
        assert.ok(read);
        const view = await store.view(read, { includeArtifacts: true, historyLength: 100 });
        assert.deepEqual(view.artifacts, [{ artifactId: 'a', parts: [{ text: 'out' }] }]);
        assert.equal(view.head.state, 'completed');
        assert.deepEqual(
          view.history.map((m) => m.parts[0]?.text),
          ['work', 'done'],
        );
      });

      it('hides a task from another tenant', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('secret') });
        assert.equal(await store.get({ tenant: 'other', taskId: head.taskId }), undefined);
        await assert.rejects(
          engine.apply({ tenant: 'other', taskId: head.taskId }, { type: 'cancel' }),
          TaskNotFoundError,
        );
      });

      it('reduces artifact chunks: append adds parts, a new chunk without append replaces', async () => {
        const { head } = await executingTask();
        const chunk = (artifactId: string, text: string, append?: boolean) => ({
          type: 'artifact' as const,
          artifact: {
            artifact: { artifactId, parts: [{ text }] },
            ...(append !== undefined ? { append } : {}),
          },
        });
        await engine.apply(head, chunk('a', 'one'));
        await engine.apply(head, chunk('b', 'other'));
        await engine.apply(head, chunk('a', 'two', true));
        await engine.apply(head, chunk('b', 'replaced'));
        const view = await store.view((await store.get(head))!, { includeArtifacts: true, historyLength: 0 });
        assert.deepEqual(view.artifacts, [
          { artifactId: 'a', parts: [{ text: 'one' }, { text: 'two' }] },
          { artifactId: 'b', parts: [{ text: 'replaced' }] },
        ]);
        assert.deepEqual(view.history, []);
      });
    });

    describe('values kept exactly as given', () => {
      it('stores any JSON value in data parts and metadata: beyond DynamoDB numbers, empty and __proto__ keys, deep nesting', async () => {
        let deep: unknown = { end: true };
        for (let i = 0; i < 40; i++) deep = { level: deep }; // DynamoDB maps stop at 32 levels
        const tricky = JSON.parse(
          '{"huge":1e300,"tiny":1e-200,"unsafe":9007199254740993,"negZero":-0,"":"empty key","__proto__":{"p":1},"constructor":"c","text":"\\u0000\\ud83d\\ude00"}',
        ) as Record<string, unknown>;
        tricky.deep = deep;
        const message: Message = {
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [
            { data: tricky, metadata: tricky },
            { text: 'x'.repeat(400), metadata: tricky },
          ],
          metadata: tricky,
        };
        const { head } = await engine.create({ tenant, owner, message, metadata: { ...tricky, deep: 1 } });
        const claimed = (await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }])).record;
        await engine.apply(
          head,
          {
            type: 'artifact',
            artifact: { artifact: { artifactId: 'a', parts: [{ data: tricky }], metadata: tricky } },
          },
          { seen: claimed },
        );
        const record = await store.get(head);
        assert.ok(record);
        const view = await store.view(record, { includeArtifacts: true });
        const same = (a: unknown, b: unknown) => assert.equal(JSON.stringify(a), JSON.stringify(b));
        same(view.history[0]?.parts, message.parts);
        same(view.history[0]?.metadata, tricky);
        same(view.artifacts[0]?.parts[0]?.data, tricky);
        same(view.artifacts[0]?.metadata, tricky);
        same(view.head.metadata, { ...tricky, deep: 1 });
        assert.ok(
          Object.hasOwn(view.history[0]!.metadata!, '__proto__'),
          'the __proto__ key is a key, not a prototype',
        );
        assert.equal(Object.getPrototypeOf(view.history[0]!.metadata), Object.prototype);
      });

      it('refuses what JSON cannot carry, naming where, and writes nothing', async () => {
        const before = (await store.list({ tenant, owner: 'json-refused', pageSize: 10 })).totalSize;
        const attempt = (data: unknown) =>
          engine.create({
            tenant,
            owner: 'json-refused',
            message: { messageId: crypto.randomUUID(), role: 'user', parts: [{ data }] },
          });
        await assert.rejects(
          attempt({ a: Number.POSITIVE_INFINITY }),
          (e: unknown) => e instanceof ValidationError && /a: a number must be finite/.test(e.message),
        );
        let deep: unknown = 1;
        for (let i = 0; i < 100; i++) deep = [deep];
        await assert.rejects(
          attempt(deep),
          (e: unknown) => e instanceof ValidationError && /nested deeper than 64/.test(e.message),
        );
        await assert.rejects(
          attempt({ when: new Date() }),
          (e: unknown) => e instanceof ValidationError && /not a plain JSON object/.test(e.message),
        );
        assert.equal((await store.list({ tenant, owner: 'json-refused', pageSize: 10 })).totalSize, before);
      });
    });

    describe('refusals', () => {
      it('refuses transitions the table does not allow, a sequence whole, and terminal tasks never change', async () => {
        const { head } = await executingTask();
        await assert.rejects(engine.apply(head, { type: 'confirm' }), InvalidTransitionError);
        // the second event of the sequence is refused: nothing of it is written
        await assert.rejects(
          engine.apply(head, [{ type: 'status_update', progress: 5 }, { type: 'confirm' }]),
          InvalidTransitionError,
        );
        assert.equal((await store.get(head))?.head.progress, undefined);
        await engine.apply(head, { type: 'complete' });
        await assert.rejects(engine.apply(head, { type: 'cancel' }), TaskNotCancelableError);
        await assert.rejects(
          engine.apply(head, { type: 'status_update', progress: 1 }),
          InvalidTransitionError,
        );
        const stored = await store.get(head);
        assert.equal(stored?.head.state, 'completed');
        assert.equal(stored?.head.version, 4);
        assert.equal((await allEvents(head)).length, 4);
      });
    });

    describe('races', () => {
      const TRIALS = 60;
      const WRITERS = 20;

      it(`${WRITERS} concurrent writers x ${TRIALS} trials: one terminal state wins, no event lost or duplicated`, async () => {
        let gaveUp = 0;
        for (let trial = 0; trial < TRIALS; trial++) {
          const r = await raceOnce(engine, store, tenant, owner, WRITERS, trial);
          assert.deepEqual(r.unexpected, [], `trial ${trial}: only refusals and conflicts`);
          assert.equal(r.terminalWins, 1, `trial ${trial}: exactly one terminal write wins`);
          assert.equal(r.terminalOverwritten, false, `trial ${trial}: the stored state is the winner's`);
          assert.equal(r.missingVersions, 0, `trial ${trial}: versions are contiguous`);
          assert.equal(r.lostEvents, 0, `trial ${trial}: every winning write is stored as written, once`);
          assert.equal(r.strayEvents, 0, `trial ${trial}: only winning writes left events`);
          assert.equal(
            r.changedAfterTerminal,
            false,
            `trial ${trial}: nothing changed after the terminal event`,
          );
          assert.equal(r.won + r.refused + r.gaveUp, WRITERS);
          gaveUp += r.gaveUp;
        }
        assert.ok(gaveUp < TRIALS * WRITERS * 0.05, `gave up ${gaveUp} times`);
      });
    });

    describe('duplicates', () => {
      it('a retried create returns the same task, unchanged', async () => {
        const message = userMessage('once', `m-${crypto.randomUUID()}`);
        const first = await engine.create({ tenant, owner, message, dedupScope: owner });
        const again = await engine.create({ tenant, owner, message, dedupScope: owner });
        assert.equal(first.duplicate, false);
        assert.equal(again.duplicate, true);
        assert.equal(again.head.taskId, first.head.taskId);
        assert.equal(again.head.version, 1);
        assert.deepEqual(again.record.head, first.head);
      });

      it('concurrent creates of one message make one task; another sender or other content is another task', async () => {
        const message = userMessage('once', `m-${crypto.randomUUID()}`);
        const sender = `dup-${crypto.randomUUID()}`;
        const results = await Promise.all(
          Array.from({ length: 10 }, () =>
            engine.create({ tenant, owner: sender, message, dedupScope: sender }),
          ),
        );
        assert.equal(new Set(results.map((r) => r.head.taskId)).size, 1);
        assert.equal(results.filter((r) => !r.duplicate).length, 1);
        assert.equal((await store.list({ tenant, owner: sender, pageSize: 50 })).totalSize, 1);
        const other = await engine.create({ tenant, owner: sender, message, dedupScope: 'someone-else' });
        assert.equal(other.duplicate, false);
        // changed on purpose (issue 7/8): the same id with other content is a new message, so a new task
        const changed = await engine.create({
          tenant,
          owner: sender,
          message: { ...message, parts: [{ text: 'other content' }] },
          dedupScope: sender,
        });
        assert.equal(changed.duplicate, false);
        assert.notEqual(changed.head.taskId, results[0]!.head.taskId);
      });

      it('message ids of any length and script make valid task ids', async () => {
        const message = userMessage('long id', '消'.repeat(256));
        const first = await engine.create({ tenant, owner, message, dedupScope: '送'.repeat(256) });
        assert.match(
          first.head.taskId,
          /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
        const again = await engine.create({ tenant, owner, message, dedupScope: '送'.repeat(256) });
        assert.equal(again.duplicate, true);
        assert.equal(again.head.taskId, first.head.taskId);
      });

      it('a retried continuation applies once, even after the task moved on', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('slow') });
        await engine.apply(head, { type: 'need_info', message: agentMessage('how long?') });
        const answer = userMessage('5');
        const first = await engine.apply(
          head,
          { type: 'info_provided', message: answer },
          { dedupScope: owner },
        );
        await engine.apply(head, { type: 'resume' });
        const again = await engine.apply(
          head,
          { type: 'info_provided', message: answer },
          { dedupScope: owner },
        );
        assert.equal(first.duplicate, false);
        assert.equal(again.duplicate, true);
        assert.deepEqual(again.events, []);
        assert.equal((await store.get(head))?.head.version, 4);
      });

      it('concurrent duplicate continuations: one applies, the others are answered as duplicates', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('ask') });
        await engine.apply(head, { type: 'need_info', message: agentMessage('question?') });
        const answer = userMessage('42');
        const results = await Promise.all(
          Array.from({ length: 8 }, () =>
            engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner }),
          ),
        );
        assert.equal(results.filter((r) => !r.duplicate).length, 1);
        assert.equal((await allEvents(head)).filter((e) => e.type === 'info_provided').length, 1);
      });

      it(`recognises a retry among the task's ${RECENT_MESSAGE_KEYS} latest requester messages`, async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('ask') });
        const answers: Message[] = [];
        for (let i = 0; i <= RECENT_MESSAGE_KEYS; i++) {
          await engine.apply(
            head,
            i === 0
              ? { type: 'need_info', message: agentMessage('q') }
              : [{ type: 'resume' }, { type: 'need_info', message: agentMessage('q') }],
          );
          const answer = userMessage(`a${i}`);
          answers.push(answer);
          await engine.apply(head, { type: 'info_provided', message: answer }, { dedupScope: owner });
        }
        const keys = (await store.get(head))?.head.recentMessageKeys ?? [];
        assert.equal(keys.length, RECENT_MESSAGE_KEYS, 'the window is bounded');
        const latest = await engine.apply(
          head,
          { type: 'info_provided', message: answers.at(-1)! },
          { dedupScope: owner },
        );
        assert.equal(latest.duplicate, true);
      });
    });

    describe('large payloads and long histories', () => {
      it('a large status message reads back whole: in the record written, a fresh read, the history and a list', async () => {
        const who = `large-${crypto.randomUUID()}`;
        const { head } = await executingTask(who);
        const text = 'y'.repeat(6000);
        const { record } = await engine.apply(head, { type: 'status_update', message: agentMessage(text) });
        const textOf = (m: Message | undefined) => m?.parts[0]?.text;
        assert.ok(textOf(record.head.statusMessage) === text, 'the record written holds it');
        const view = await store.view((await store.get(head))!, { historyLength: 1 });
        assert.ok(textOf(view.head.statusMessage) === text, 'a fresh read resolves it');
        assert.ok(textOf(view.history[0]) === text, 'and so does the history');
        const listed = await store.list({ tenant, owner: who, states: ['executing'], pageSize: 100 });
        assert.ok(
          textOf(listed.tasks.find((t) => t.taskId === head.taskId)?.statusMessage) === text,
          'a list shows it',
        );
      });

      it('a long history reads back whole: the last N messages, every event, the events after a version', async () => {
        let long = await executingTask();
        for (let i = 0; i < 147; i++)
          long = (
            await engine.apply(
              long.head,
              { type: 'status_update', message: agentMessage(`step ${i}`) },
              { seen: long },
            )
          ).record;
        assert.equal(long.head.version, 150);
        const view = await store.view((await store.get(long.head))!, { historyLength: 5 });
        assert.deepEqual(
          view.history.map((m) => m.parts[0]?.text),
          ['step 142', 'step 143', 'step 144', 'step 145', 'step 146'],
        );
        const events = await store.events((await store.get(long.head))!, 0);
        assert.deepEqual(
          events.map((e) => e.version),
          Array.from({ length: 150 }, (_, i) => i + 1),
        );
        const after = await store.events((await store.get(long.head))!, 100, 3);
        assert.deepEqual(
          after.map((e) => [e.version, e.message?.parts[0]?.text]),
          [
            [101, 'step 97'],
            [102, 'step 98'],
            [103, 'step 99'],
          ],
        );
        const whole = await store.view((await store.get(long.head))!, {});
        assert.equal(whole.history.length, 148, 'the request and every status message');
        assert.equal(whole.history[0]?.parts[0]?.text, 'work');
      });

      it('large artifact chunks appended over many writes reduce to one artifact, in order', async () => {
        let record = await executingTask();
        const big = 'z'.repeat(3000);
        for (let i = 0; i < 12; i++) {
          record = (
            await engine.apply(
              record.head,
              {
                type: 'artifact',
                artifact: {
                  artifact: { artifactId: 'doc', parts: [{ text: i % 2 ? big : `part ${i}` }] },
                  append: i > 0,
                },
              },
              { seen: record },
            )
          ).record;
        }
        const view = await store.view((await store.get(record.head))!, {
          includeArtifacts: true,
          historyLength: 0,
        });
        assert.equal(view.artifacts.length, 1);
        assert.equal(view.artifacts[0]?.parts.length, 12);
        assert.deepEqual(
          view.artifacts[0]?.parts.map((p) => (p.text === big ? 'big' : p.text)),
          Array.from({ length: 12 }, (_, i) => (i % 2 ? 'big' : `part ${i}`)),
        );
      });
    });

    describe('replies', () => {
      const replyTo = (key: string, text: string): StoredReply => ({
        tenant,
        key,
        message: { ...agentMessage(text), contextId: 'ctx' },
        createdAt: new Date().toISOString(),
      });

      it('putReply keeps a reply under its key: a retry gets the first one, and the key reads as no task', async () => {
        const key = crypto.randomUUID();
        const first = replyTo(key, 'the answer');
        assert.deepEqual(await store.putReply(first), { reply: first, created: true });
        const again = await store.putReply(replyTo(key, 'another answer'));
        assert.ok('reply' in again);
        assert.equal(again.created, false);
        assert.deepEqual(again.reply, first);
        assert.equal(await store.get({ tenant, taskId: key }), undefined, 'a reply is no task');
      });

      it('a create under the key of a reply is refused with that reply (MessageAnsweredError)', async () => {
        const key = crypto.randomUUID();
        const reply = replyTo(key, 'answered');
        await store.putReply(reply);
        await assert.rejects(
          engine.create({ tenant, owner, message: userMessage('too late') }, key),
          (e: unknown) => e instanceof MessageAnsweredError && e.reply.message.parts[0]?.text === 'answered',
        );
        assert.equal(await store.get({ tenant, taskId: key }), undefined);
        // another tenant's key is another key
        const other = await engine.create({ tenant: 'other', owner, message: userMessage('mine') }, key);
        assert.equal(other.duplicate, false);
      });

      it('putReply under the key of a task answers with the task, and writes nothing', async () => {
        const { head } = await engine.create({ tenant, owner, message: userMessage('made a task') });
        const outcome = await store.putReply(replyTo(head.taskId, 'too late'));
        assert.ok('task' in outcome);
        assert.deepEqual(outcome.task.head, head);
        assert.deepEqual((await store.get(head))?.head, head);
      });
    });

    describe('deadlines', () => {
      it('dueDeadlines lists the live tasks whose deadline has come, of every tenant; no finished or later one', async () => {
        const message = () => userMessage('deadline');
        const due = await engine.create({
          tenant,
          owner,
          message: message(),
          deadlineAt: '2000-01-01T00:00:00.000Z',
        });
        const dueElsewhere = await engine.create({
          tenant: 'other',
          owner,
          message: message(),
          deadlineAt: '2000-06-01T00:00:00.000Z',
        });
        const running = await engine.create({
          tenant,
          owner,
          message: message(),
          deadlineAt: '2000-12-31T00:00:00.000Z',
        });
        await engine.apply(running.head, [{ type: 'confirm' }, { type: 'start' }]);
        const finished = await engine.create({
          tenant,
          owner,
          message: message(),
          deadlineAt: '2000-01-01T00:00:00.000Z',
        });
        await engine.apply(finished.head, { type: 'cancel' });
        const later = await engine.create({
          tenant,
          owner,
          message: message(),
          deadlineAt: '2001-01-02T00:00:00.000Z',
        });
        const refs = await store.dueDeadlines('2001-01-01T00:00:00.000Z', 100);
        const ids = refs.map((r) => `${r.tenant}/${r.taskId}`);
        for (const t of [due, dueElsewhere, running])
          assert.ok(ids.includes(`${t.head.tenant}/${t.head.taskId}`));
        assert.ok(
          !ids.includes(`${tenant}/${finished.head.taskId}`),
          'a finished task has no deadline to keep',
        );
        assert.ok(!ids.includes(`${tenant}/${later.head.taskId}`), 'not yet');
        assert.equal(new Set(ids).size, ids.length, 'each once');
        const atDeadline = await store.dueDeadlines('2000-01-01T00:00:00.000Z', 100);
        assert.ok(
          atDeadline.some((r) => r.taskId === due.head.taskId),
          'a deadline is due at its very time',
        );
      });
    });

    describe('liveness writes', () => {
      it('beat moves heartbeatAt on a task still at the version and state it saw, and records no event', async () => {
        const record = await executingTask();
        const at = later(record.head.statusAt, 30_000);
        assert.deepEqual(await store.beat(record, at), { written: true });
        const read = await store.get(record.head);
        assert.equal(read?.head.heartbeatAt, at);
        assert.equal(read?.head.version, record.head.version);
        assert.equal((await allEvents(record.head)).length, 3);
        // a write decided on the record read before the beat still lands (the beat moved no version)
        await engine.apply(record.head, { type: 'status_update', progress: 5 }, { seen: record });
      });

      it('beat is refused with the task as it is once another write moved it on; a missing task is refused bare', async () => {
        const record = await executingTask();
        await engine.apply(record.head, { type: 'status_update', progress: 10 }, { seen: record });
        const refused = await store.beat(record, later(record.head.statusAt));
        assert.equal(refused.written, false);
        assert.equal(!refused.written && refused.current?.head.version, 4);
        assert.equal((await store.get(record.head))?.head.heartbeatAt, undefined);
        const gone = { ...record, head: { ...record.head, taskId: crypto.randomUUID() } };
        assert.deepEqual(await store.beat(gone, later(record.head.statusAt)), { written: false });
      });

      it('beat is refused when the state moved on at the same version it saw', async () => {
        const record = await executingTask();
        const seenAsOther = { ...record, head: { ...record.head, state: 'need_human' as const } };
        const refused = await store.beat(seenAsOther, later(record.head.statusAt));
        assert.equal(refused.written, false);
        assert.equal(!refused.written && refused.current?.head.state, 'executing');
      });
    });

    describe('listing', () => {
      it('lists by owner newest status first across states, with filters, pages and totals', async () => {
        const lister = `list-${crypto.randomUUID()}`;
        const contextId = crypto.randomUUID();
        const created: TaskHead[] = [];
        for (let i = 0; i < 7; i++) {
          const { head } = await engine.create({
            tenant,
            owner: lister,
            message: userMessage(`t${i}`),
            ...(i < 4 ? { contextId } : {}),
          });
          created.push(head);
          await new Promise((r) => setTimeout(r, 3));
        }
        await engine.apply(created[1]!, { type: 'cancel' });
        // a status time of its own (DynamoDB's round trips took longer than a millisecond anyway)
        await new Promise((r) => setTimeout(r, 3));
        await engine.apply(created[3]!, [{ type: 'confirm' }, { type: 'start' }]);

        const all = await store.list({ tenant, owner: lister, pageSize: 3 });
        assert.equal(all.totalSize, 4, 'before the last page, totalSize is a lower bound: these 3 and more');
        assert.equal(all.tasks.length, 3);
        assert.deepEqual(
          all.tasks.slice(0, 2).map((t) => t.taskId),
          [created[3]!.taskId, created[1]!.taskId],
          'the latest status changes come first, whatever their state',
        );
        const seen = [...all.tasks];
        let token = all.nextPageToken;
        let lastTotal = all.totalSize;
        while (token) {
          const page = await store.list({ tenant, owner: lister, pageSize: 3, pageToken: token });
          seen.push(...page.tasks);
          token = page.nextPageToken;
          lastTotal = page.totalSize;
        }
        assert.equal(seen.length, 7);
        assert.equal(lastTotal, 7, 'the last page counts them all');
        assert.equal(new Set(seen.map((h) => h.taskId)).size, 7);
        const times = seen.map((t) => t.statusAt);
        assert.deepEqual(times, [...times].sort().reverse(), 'pages continue in order');

        const canceled = await store.list({ tenant, owner: lister, states: ['cancelled'], pageSize: 10 });
        assert.deepEqual(
          canceled.tasks.map((h) => h.taskId),
          [created[1]!.taskId],
        );
        assert.equal(canceled.totalSize, 1);

        const recent = await store.list({
          tenant,
          owner: lister,
          statusAfter: created[5]!.statusAt,
          pageSize: 10,
        });
        assert.deepEqual(
          new Set(recent.tasks.map((h) => h.taskId)),
          new Set([created[1]!.taskId, created[3]!.taskId, created[5]!.taskId, created[6]!.taskId]),
        );

        const inContext = await store.list({ tenant, owner: lister, contextId, pageSize: 10 });
        assert.equal(inContext.totalSize, 4);
        assert.equal(inContext.nextPageToken, '');
        assert.ok(inContext.tasks.every((h) => h.contextId === contextId));
        const workingInContext = await store.list({
          tenant,
          owner: lister,
          contextId,
          states: ['executing'],
          pageSize: 10,
        });
        assert.deepEqual(
          workingInContext.tasks.map((t) => t.taskId),
          [created[3]!.taskId],
        );

        const stranger = await store.list({ tenant, owner: 'mallory', contextId, pageSize: 10 });
        assert.equal(stranger.totalSize, 0);
        assert.equal(stranger.tasks.length, 0);
      });

      it('pages through a context in creation order, newest first, none lost or repeated', async () => {
        const lister = `ctx-${crypto.randomUUID()}`;
        const contextId = crypto.randomUUID();
        const ids: string[] = [];
        for (let i = 0; i < 9; i++) {
          ids.push(
            (await engine.create({ tenant, owner: lister, contextId, message: userMessage(`c${i}`) })).head
              .taskId,
          );
          await new Promise((r) => setTimeout(r, 2));
        }
        const seen: string[] = [];
        let token = '';
        let total = 0;
        do {
          const page = await store.list({
            tenant,
            owner: lister,
            contextId,
            pageSize: 2,
            ...(token ? { pageToken: token } : {}),
          });
          seen.push(...page.tasks.map((t) => t.taskId));
          token = page.nextPageToken;
          total = page.totalSize;
        } while (token);
        assert.deepEqual(seen, [...ids].reverse());
        assert.equal(total, 9);
      });

      it('refuses a page token it did not issue', async () => {
        const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        const forged = b64({ pk: 'T#x', ca: 'z', cp: 'other#bob#c' });
        await assert.rejects(store.list({ tenant, owner, pageSize: 5, pageToken: forged }), ValidationError);
        await assert.rejects(
          store.list({ tenant, owner, contextId: 'c', pageSize: 5, pageToken: forged }),
          ValidationError,
        );
        await assert.rejects(store.list({ tenant, owner, pageSize: 5, pageToken: '%%%' }), ValidationError);
        // a position without the binding (the earlier format), or bound to something else
        const at = `2026-01-01T00:00:00.000Z#${crypto.randomUUID()}`;
        for (const token of [
          b64({ at, n: 1 }),
          b64({ at, n: 1, q: '000000000000' }),
          b64({ at, n: 1, q: 7 }),
        ])
          await assert.rejects(store.list({ tenant, owner, pageSize: 5, pageToken: token }), ValidationError);
      });

      it('a listing with versions shows each task at its version, by owner and in a context', async () => {
        const lister = `versions-${crypto.randomUUID()}`;
        const contextId = crypto.randomUUID();
        const fresh = await engine.create({ tenant, owner: lister, contextId, message: userMessage('v1') });
        const moved = await engine.create({ tenant, owner: lister, contextId, message: userMessage('v3') });
        await engine.apply(moved.head, [{ type: 'confirm' }, { type: 'start' }]);
        const versions = (tasks: { taskId: string; version?: number }[]) =>
          Object.fromEntries(tasks.map((t) => [t.taskId, t.version]));
        const expected = { [fresh.head.taskId]: 1, [moved.head.taskId]: 3 };
        assert.deepEqual(
          versions((await store.list({ tenant, owner: lister, pageSize: 10, withVersions: true })).tasks),
          expected,
        );
        assert.deepEqual(
          versions(
            (await store.list({ tenant, owner: lister, contextId, pageSize: 10, withVersions: true })).tasks,
          ),
          expected,
        );
        const executing = await store.list({
          tenant,
          owner: lister,
          states: ['executing'],
          pageSize: 10,
          withVersions: true,
        });
        assert.deepEqual(versions(executing.tasks), { [moved.head.taskId]: 3 });
      });

      it('a listed task shows its status: state, status time, message, progress and metadata', async () => {
        const lister = `summary-${crypto.randomUUID()}`;
        const { head } = await engine.create({
          tenant,
          owner: lister,
          message: userMessage('s'),
          metadata: { k: 'v' },
        });
        const { head: now } = await engine.apply(head, [
          { type: 'confirm' },
          { type: 'start' },
          { type: 'status_update', progress: 40, message: agentMessage('busy') },
        ]);
        for (const query of [{}, { contextId: head.contextId }, { withVersions: true }]) {
          const [listed] = (await store.list({ tenant, owner: lister, pageSize: 10, ...query })).tasks;
          assert.ok(listed, JSON.stringify(query));
          assert.deepEqual(
            [
              listed.taskId,
              listed.tenant,
              listed.owner,
              listed.contextId,
              listed.state,
              listed.createdAt,
              listed.statusAt,
            ],
            [head.taskId, tenant, lister, head.contextId, 'executing', head.createdAt, now.statusAt],
          );
          assert.equal(listed.progress, 40);
          assert.equal(listed.statusMessage?.parts[0]?.text, 'busy');
          assert.equal(listed.statusVersion, now.statusVersion);
          assert.deepEqual(listed.metadata, { k: 'v' });
        }
      });
    });

    describe('tenant isolation', () => {
      // B's name starts with A's: its tasks are still B's alone
      const A = tenant;
      const B = `${tenant}.rival`;

      it('tasks of two tenants under the same task id coexist, and each tenant reads only its own', async () => {
        const who = `twins-${crypto.randomUUID()}`;
        const taskId = crypto.randomUUID();
        const a = await engine.create({ tenant: A, owner: who, message: userMessage('for A') }, taskId);
        const b = await engine.create({ tenant: B, owner: who, message: userMessage('for B') }, taskId);
        assert.deepEqual(
          [a.duplicate, b.duplicate],
          [false, false],
          'two tasks, neither a duplicate of the other',
        );
        assert.equal(a.head.taskId, b.head.taskId);
        await engine.apply({ tenant: B, taskId }, { type: 'cancel' });

        const readA = await store.get({ tenant: A, taskId });
        const readB = await store.get({ tenant: B, taskId });
        assert.ok(readA && readB);
        assert.deepEqual(
          [readA.head.tenant, readA.head.state],
          [A, 'pending'],
          "B's cancel left A's task alone",
        );
        assert.deepEqual([readB.head.tenant, readB.head.state], [B, 'cancelled']);
        const text = async (r: TaskRecord) => (await store.view(r, {})).history.map((m) => m.parts[0]?.text);
        assert.deepEqual(await text(readA), ['for A']);
        assert.deepEqual(await text(readB), ['for B']);
        assert.deepEqual(
          (await allEvents({ tenant: A, taskId })).map((e) => [e.tenant, e.type]),
          [[A, 'created']],
        );
        const listed = async (t: string) =>
          (await store.list({ tenant: t, owner: who, pageSize: 10 })).tasks.map((s) => [s.tenant, s.state]);
        assert.deepEqual(await listed(A), [[A, 'pending']]);
        assert.deepEqual(await listed(B), [[B, 'cancelled']]);
      });

      it('a page token is bound to the caller and the query it was issued for', async () => {
        const alice = `alice-${crypto.randomUUID()}`;
        const bob = `bob-${crypto.randomUUID()}`;
        const contextId = crypto.randomUUID();
        for (const [t, o] of [
          [A, alice],
          [A, bob],
          [B, alice],
        ] as const)
          for (let i = 0; i < 3; i++)
            await engine.create({ tenant: t, owner: o, contextId, message: userMessage(`${t} ${o} ${i}`) });
        const refused = async (query: ListTasksQuery) =>
          assert.rejects(
            store.list(query),
            (e: unknown) =>
              e instanceof ValidationError &&
              e.field === 'pageToken' &&
              e.message === 'pageToken is not a token this server issued for this query',
          );

        for (const byContext of [false, true]) {
          const issued = { tenant: A, owner: alice, pageSize: 1, ...(byContext ? { contextId } : {}) };
          const pageToken = (await store.list(issued)).nextPageToken;
          assert.ok(pageToken);
          // the caller and query it was issued for go on (with another page size too)
          assert.equal((await store.list({ ...issued, pageToken })).tasks.length, 1);
          assert.equal((await store.list({ ...issued, pageSize: 5, pageToken })).tasks.length, 2);
          // another owner of the same tenant, the same owner name in another tenant: refused
          await refused({ ...issued, owner: bob, pageToken });
          await refused({ ...issued, tenant: B, pageToken });
          // the same caller with other filters: refused
          await refused({ ...issued, states: ['pending'], pageToken });
          await refused({ ...issued, statusAfter: '2020-01-01T00:00:00.000Z', pageToken });
          if (byContext) {
            const { contextId: _c, ...withoutContext } = issued;
            await refused({ ...withoutContext, pageToken });
            await refused({ ...issued, contextId: crypto.randomUUID(), pageToken });
          } else await refused({ ...issued, contextId, pageToken });
        }
        // the binding is of the filters' meaning, not their order
        const filtered = { tenant: A, owner: alice, pageSize: 1, states: ['pending', 'executing'] as const };
        const pageToken = (await store.list({ ...filtered, states: [...filtered.states] })).nextPageToken;
        assert.ok(pageToken);
        assert.equal(
          (await store.list({ ...filtered, states: ['executing', 'pending', 'pending'], pageToken })).tasks
            .length,
          1,
        );
      });
    });
  });
};
