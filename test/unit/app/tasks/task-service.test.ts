/**
 * The task service (shared/app/tasks/task-service.ts) on the in-memory ports: what a requester's messages
 * make (a task, or a reply), continuations that answer a question or a human decision (and only those),
 * retries recognised, inline push configs kept beside the task, cancel, reads and listings scoped to the
 * caller, and blocking sends run inline by the executor.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryPushConfigStore } from '../../../../shared/adapters/memory/push-config-store.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import { type AgentHandler, askForInput, askHuman, complete } from '../../../../shared/agent/api.ts';
import { TaskExecutor } from '../../../../shared/app/tasks/executor.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { decisionOf, type RemoteExecution, TaskService } from '../../../../shared/app/tasks/task-service.ts';
import {
  GenerationMismatchError,
  InvalidTransitionError,
  TaskNotCancelableError,
  TaskNotFoundError,
  ValidationError,
} from '../../../../shared/domain/errors.ts';
import type { Message } from '../../../../shared/domain/task.ts';
import type { TaskRef } from '../../../../shared/ports/task-store.ts';

const caller = { tenant: 'acme', owner: 'bob' };
const stranger = { tenant: 'acme', owner: 'mallory' };
const user = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ text }],
  ...extra,
});

const setup = (options: { agent?: AgentHandler; pushConfigs?: boolean; remote?: RemoteExecution } = {}) => {
  const store = new InMemoryTaskStore();
  const engine = new TaskEngine(store);
  const configs = new InMemoryPushConfigStore();
  const runner = options.agent ? new TaskExecutor(engine, options.agent) : undefined;
  const service = new TaskService(
    engine,
    runner,
    600,
    options.pushConfigs === false ? undefined : configs,
    options.remote,
  );
  const eventTypes = async (ref: TaskRef) =>
    (await store.events((await store.get(ref))!, 0)).map((e) => e.type);
  return { store, engine, configs, service, eventTypes };
};

/** A task of the caller's waiting for its requester (`info_needed` or `need_human`). */
const waiting = async (engine: TaskEngine, service: TaskService, question: 'need_info' | 'need_human') => {
  const { head } = await service.submit(caller, user('work'));
  await engine.apply(head, [
    { type: 'confirm' },
    { type: 'start' },
    { type: question, message: { messageId: crypto.randomUUID(), role: 'agent', parts: [{ text: '?' }] } },
  ]);
  return head;
};

describe('submitting a message', () => {
  it('makes a pending task of the caller’s, its deadline the service’s timeout; a retry gets the same task', async () => {
    const { service, store } = setup();
    const message = user('hello');
    const before = Date.now();
    const first = await service.submit(caller, message, 'ctx-1');
    assert.deepEqual(
      [first.head.owner, first.head.tenant, first.head.contextId, first.head.state, first.duplicate],
      ['bob', 'acme', 'ctx-1', 'pending', false],
    );
    const deadline = Date.parse(first.head.deadlineAt);
    assert.ok(deadline >= before + 600_000 && deadline <= Date.now() + 600_000);
    const again = await service.submit(caller, message, 'ctx-1');
    assert.deepEqual([again.duplicate, again.head.taskId], [true, first.head.taskId]);
    assert.equal(store.size, 1);
    const fromOther = await service.submit(stranger, message, 'ctx-1');
    assert.notEqual(fromOther.head.taskId, first.head.taskId, 'the same message from another sender');
  });

  it('keeps an inline push config beside the task, listed by the same write; a retry leaves it as registered', async () => {
    const { service, configs, eventTypes } = setup();
    const message = user('notify me');
    const { head } = await service.submit(caller, message, undefined, {
      pushConfig: { config: { url: 'https://hooks.example/a', token: 't1' }, version: '1.0' },
    });
    assert.deepEqual(head.pushConfigIds, [head.taskId], 'its id is the task’s');
    assert.deepEqual(await eventTypes(head), ['created', 'push_config']);
    const [kept] = await configs.get('acme', head.taskId, [head.taskId]);
    assert.deepEqual([kept?.url, kept?.token, kept?.version], ['https://hooks.example/a', 't1', '1.0']);
    await service.submit(caller, message, undefined, {
      pushConfig: { config: { url: 'https://hooks.example/changed', token: 't2' }, version: '1.0' },
    });
    assert.equal((await configs.get('acme', head.taskId, [head.taskId]))[0]?.url, 'https://hooks.example/a');
    const { service: without } = setup({ pushConfigs: false });
    await assert.rejects(
      without.submit(caller, user('x'), undefined, {
        pushConfig: { config: { url: 'https://h.example/' }, version: '1.0' },
      }),
      ValidationError,
    );
  });

  it('a message the agent answers with a message makes no task; a retry gets the reply kept first', async () => {
    let replies = 0;
    const agent: AgentHandler = {
      describe: () => ({ name: 'a', description: 'a', version: '1', skills: [] }) as never,
      respond: (m) => (m.text === 'ping' ? `pong ${++replies}` : undefined),
      execute: async () => complete('done'),
    };
    const { service, store } = setup({ agent });
    const ping = user('ping');
    const first = await service.send(caller, ping);
    assert.ok('reply' in first);
    assert.deepEqual([first.reply.parts[0]?.text, first.duplicate], ['pong 1', false]);
    const again = await service.send(caller, ping);
    assert.ok('reply' in again);
    assert.deepEqual([again.reply.parts[0]?.text, again.duplicate], ['pong 1', true]);
    assert.equal(store.size, 0);
    const task = await service.send(caller, user('work'));
    assert.ok('head' in task && task.head.state === 'pending');
  });

  it('a message for a remote skill is delegated, not run here', async () => {
    const delegated: Message[] = [];
    const { engine, service } = setup({
      remote: {
        route: async (_caller, m) =>
          m.parts[0]?.text === 'far' ? { peer: 'agent-b', type: 'summarize', via: 'static' } : undefined,
        requester: {
          delegate: async (who, input) => {
            if (input.message) delegated.push(input.message);
            const created = await engine.create({
              tenant: who.tenant,
              owner: who.owner,
              role: 'requester',
              initialState: 'idle',
              message: input.message,
            });
            return { record: created.record, duplicate: false };
          },
        },
      } as RemoteExecution,
    });
    const sent = await service.send(caller, user('far'));
    assert.ok('head' in sent && sent.head.role === 'requester');
    assert.equal(delegated.length, 1);
    const near = await service.send(caller, user('near'));
    assert.ok('head' in near && near.head.role === 'executor');
  });
});

describe('continuing a task', () => {
  it('an answer to a question is recorded as info_provided; its retry is a duplicate that writes nothing', async () => {
    const { engine, service, eventTypes } = setup();
    const head = await waiting(engine, service, 'need_info');
    const answer = user('42');
    const first = await service.continueTask(caller, head.taskId, answer);
    assert.deepEqual([first.head.state, first.duplicate], ['info_provided', false]);
    const again = await service.continueTask(caller, head.taskId, answer);
    assert.deepEqual([again.head.version, again.duplicate], [first.head.version, true]);
    assert.deepEqual((await eventTypes(head)).slice(-1), ['info_provided']);
  });

  it('a decision is read from the message: approve (with notes) or reject; anything else is refused', async () => {
    const { engine, service, store } = setup();
    const approved = await waiting(engine, service, 'need_human');
    await assert.rejects(service.continueTask(caller, approved.taskId, user('maybe')), ValidationError);
    const { head } = await service.continueTask(caller, approved.taskId, user('approve ship it'));
    assert.equal(head.state, 'human_approved');
    const [decision] = await store.events((await store.get(head))!, head.version - 1);
    // who decided is the caller's principal (the audit), recorded with the notes
    assert.deepEqual(decision?.data, { principal: caller.owner, notes: 'ship it' });
    const rejected = await waiting(engine, service, 'need_human');
    const data = user('x');
    data.parts = [{ data: { decision: 'reject', notes: 'no' } }];
    const refused = await service.continueTask(caller, rejected.taskId, data);
    assert.equal(refused.head.state, 'human_rejected');
    const [rejection] = await store.events((await store.get(refused.head))!, refused.head.version - 1);
    assert.deepEqual(rejection?.data, { principal: caller.owner, notes: 'no' });
    assert.deepEqual(decisionOf(user('yes')), { approved: true });
  });

  it('refuses a message to a task that waits for none, to a finished task, or in another context', async () => {
    const { engine, service } = setup();
    const { head } = await service.submit(caller, user('work'), 'ctx');
    await assert.rejects(service.continueTask(caller, head.taskId, user('hi')), InvalidTransitionError);
    const asking = await waiting(engine, service, 'need_info');
    await assert.rejects(
      service.continueTask(caller, asking.taskId, user('hi'), 'other-ctx'),
      ValidationError,
    );
    await assert.rejects(
      service.continueTask(caller, asking.taskId, user('approve'), undefined, { answers: 'decision' }),
      InvalidTransitionError,
    );
    await engine.apply(head, { type: 'cancel' });
    await assert.rejects(
      service.continueTask(caller, head.taskId, user('hi')),
      (e: unknown) => e instanceof InvalidTransitionError && /finished task/.test(e.message),
    );
  });

  it('ifGenerationMatch: another version refuses the message before anything is written, its push config included', async () => {
    const { engine, service, configs } = setup();
    const head = await waiting(engine, service, 'need_info');
    await assert.rejects(
      service.continueTask(caller, head.taskId, user('42'), undefined, {
        ifGenerationMatch: head.version,
        pushConfig: { config: { id: 'late', url: 'https://h.example/' }, version: '1.0' },
      }),
      GenerationMismatchError,
    );
    assert.deepEqual(await configs.get('acme', head.taskId, ['late']), []);
    const now = (await engine.store.get(head))!.head.version;
    const applied = await service.continueTask(caller, head.taskId, user('42'), undefined, {
      ifGenerationMatch: now,
    });
    assert.equal(applied.head.state, 'info_provided');
  });
});

describe('cancel, reads and listings', () => {
  it('cancel returns the whole task canceled; again, the same; a finished task is not cancelable', async () => {
    const { engine, service } = setup();
    const { head } = await service.submit(caller, user('stop me'));
    const view = await service.cancel(caller, head.taskId);
    assert.equal(view.head.state, 'cancelled');
    assert.deepEqual(
      view.history.map((m) => m.parts[0]?.text),
      ['stop me'],
    );
    assert.equal((await service.cancel(caller, head.taskId)).head.state, 'cancelled');
    const { head: done } = await service.submit(caller, user('done'));
    await engine.apply(done, [{ type: 'confirm' }, { type: 'start' }, { type: 'complete' }]);
    await assert.rejects(service.cancel(caller, done.taskId), TaskNotCancelableError);
  });

  it('another caller’s task, a missing one and an impossible id are all not found', async () => {
    const { service } = setup();
    const { head } = await service.submit(caller, user('mine'));
    for (const [who, id] of [
      [stranger, head.taskId],
      [{ tenant: 'other', owner: 'bob' }, head.taskId],
      [caller, 'missing'],
      [caller, 'x'.repeat(300)],
      [caller, ''],
    ] as const) {
      await assert.rejects(service.read(who, id, {}), TaskNotFoundError);
      await assert.rejects(service.cancel(who, id), TaskNotFoundError);
    }
  });

  it('lists only the caller’s tasks; a context id that could be no id is refused', async () => {
    const { service } = setup();
    await service.submit(caller, user('one'), 'ctx');
    await service.submit(caller, user('two'), 'ctx');
    await service.submit(stranger, user('theirs'), 'ctx');
    const page = await service.list(caller, { pageSize: 10 });
    assert.deepEqual(
      page.tasks.map((t) => t.owner),
      ['bob', 'bob'],
    );
    assert.equal((await service.list(caller, { contextId: 'ctx', pageSize: 10 })).totalSize, 2);
    assert.throws(() => service.list(caller, { contextId: '', pageSize: 10 }), ValidationError);
  });

  it('waitUntilSettled returns once the task waits for its requester', async () => {
    const { engine, service } = setup();
    const { head } = await service.submit(caller, user('work'));
    setTimeout(
      () =>
        void engine.apply(head, [
          { type: 'confirm' },
          { type: 'start' },
          { type: 'need_info', message: { messageId: 'q', role: 'agent', parts: [{ text: '?' }] } },
        ]),
      30,
    );
    const settled = await service.waitUntilSettled(caller, head.taskId, 5_000);
    assert.equal(settled.head.state, 'info_needed');
    const late = await service.waitUntilSettled(
      caller,
      (await service.submit(caller, user('slow'))).head.taskId,
      30,
    );
    assert.equal(late.head.state, 'pending', 'the budget ran out');
  });
});

describe('blocking sends run inline', () => {
  it('a new task is created claimed and run within the request; an answer resumes it within the request too', async () => {
    const seen: string[] = [];
    const agent: AgentHandler = {
      describe: () => ({}) as never,
      execute: async (ctx) => {
        seen.push(ctx.resumption ? `resumed: ${ctx.resumption.text}` : `run: ${ctx.task.text}`);
        return ctx.resumption ? complete(`thanks for ${ctx.resumption.text}`) : askForInput('which one?');
      },
    };
    const { service, eventTypes } = setup({ agent });
    const submitted = await service.submit(caller, user('pick'), undefined, {
      runInlineUntil: Date.now() + 5_000,
    });
    assert.equal(submitted.head.state, 'info_needed');
    assert.deepEqual(await eventTypes(submitted.head), ['created', 'confirm', 'start', 'need_info']);
    const answered = await service.continueTask(caller, submitted.head.taskId, user('red'), undefined, {
      runInlineUntil: Date.now() + 5_000,
    });
    assert.equal(answered.head.state, 'completed');
    assert.deepEqual(seen, ['run: pick', 'resumed: red']);
    assert.deepEqual((await eventTypes(submitted.head)).slice(4), ['info_provided', 'resume', 'complete']);
  });

  it('a decision resumes the agent with it; without a runner the task waits for the executor', async () => {
    const agent: AgentHandler = {
      describe: () => ({}) as never,
      execute: async (ctx) =>
        ctx.resumption?.kind === 'human_decision'
          ? complete(ctx.resumption.approved ? `approved: ${ctx.resumption.notes}` : 'rejected')
          : askHuman('ok?'),
    };
    const { service } = setup({ agent });
    const { head } = await service.submit(caller, user('deploy'), undefined, {
      runInlineUntil: Date.now() + 5_000,
    });
    assert.equal(head.state, 'need_human');
    const decided = await service.continueTask(caller, head.taskId, user('approve friday'), undefined, {
      runInlineUntil: Date.now() + 5_000,
    });
    assert.equal(decided.head.state, 'completed');
    assert.equal(decided.head.statusMessage?.parts[0]?.text, 'approved: friday');
    const queued = await service.submit(caller, user('later'));
    assert.equal(queued.head.state, 'pending', 'no inline run asked for');
  });
});
