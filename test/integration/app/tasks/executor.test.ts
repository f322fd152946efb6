/**
 * The executor and the task service on DynamoDB Local, with every executor run taken from the real
 * outbox: the table's stream, relayed by `relayChanges` (test/support/outbox.ts). The claim under
 * duplicate deliveries, every path of the demo agent, retried submissions and continuations, output
 * the hub cannot record, lease watches of runs that died, and inline (blocking) runs.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { demoAgent } from '../../../../agents/demo/index.ts';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { type AgentHandler, complete } from '../../../../shared/agent/api.ts';
import { DetailType } from '../../../../shared/app/delivery/relay.ts';
import { TaskExecutor } from '../../../../shared/app/tasks/executor.ts';
import { randomIds, TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../../../shared/app/tasks/task-service.ts';
import { InvalidTransitionError, ValidationError } from '../../../../shared/domain/errors.ts';
import type { Message } from '../../../../shared/domain/task.ts';
import type { TaskRef } from '../../../../shared/ports/task-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';
import { type Outbox, startOutbox } from '../../../support/outbox.ts';

let table: TestTable;
let engine: TaskEngine;
let outbox: Outbox;
const caller = { tenant: 'acme', owner: 'bob' };
const user = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ text }],
  ...extra,
});
const headOf = async (ref: TaskRef) => (await engine.store.get(ref))?.head;
const stateOf = async (ref: TaskRef) => (await headOf(ref))?.state;
const eventsOf = async (ref: TaskRef) => {
  const record = await engine.store.get(ref);
  assert.ok(record, `task ${ref.taskId} exists`);
  return engine.store.events(record, 0);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
  outbox = await startOutbox(table);
});
after(async () => {
  await outbox.stop();
  await table.drop();
});
// every run the relay enqueued was one a test expected (and took)
afterEach(async () => assert.deepEqual(await outbox.drain(), [], 'no run left over'));

describe('executor claim', () => {
  it('runs the agent once when the same executor message is delivered twice', async () => {
    let executions = 0;
    const counting: AgentHandler = {
      describe: () => demoAgent.describe(),
      async execute() {
        executions++;
        await sleep(50);
        return complete('done');
      },
    };
    const executor = new TaskExecutor(engine, counting);
    const service = new TaskService(engine);
    for (let i = 0; i < 10; i++) {
      const { head } = await service.submit(caller, user(`job ${i}`));
      const run = await outbox.take(head);
      assert.deepEqual(run, { tenant: caller.tenant, taskId: head.taskId, version: 1 });
      const outcomes = await Promise.all([executor.run(run), executor.run(run), executor.run(run)]);
      const results = outcomes.map((o) => o.result);
      assert.equal(results.filter((r) => r === 'completed').length, 1, results.join());
      assert.equal((await executor.run(run)).result, 'skipped', 'a late redelivery is dropped');
      assert.equal(await stateOf(head), 'completed');
      assert.deepEqual(await outbox.pending(head), [], 'finishing the task asks for no further run');
    }
    assert.equal(executions, 10);
  });
});

describe('demo agent through the task service', () => {
  let service: TaskService;
  let executor: TaskExecutor;
  const runNext = async (ref: TaskRef) => (await executor.run(await outbox.take(ref))).result;

  before(() => {
    service = new TaskService(engine);
    executor = new TaskExecutor(engine, demoAgent);
  });

  it('echo: completes with the text as an artifact; the relay publishes each state change', async () => {
    const { head } = await service.submit(caller, user('hello there'));
    assert.equal(head.state, 'pending', 'the submission only records the task');
    assert.equal(await runNext(head), 'completed');
    const view = await service.read(caller, head.taskId, { includeArtifacts: true });
    assert.equal(view.head.state, 'completed');
    assert.deepEqual(view.artifacts[0]?.parts, [{ text: 'hello there', mediaType: 'text/plain' }]);
    assert.equal(view.history[0]?.parts[0]?.text, 'hello there');
    const events = await outbox.events(head);
    assert.deepEqual(
      events.map((e) => [e.detailType, e.detail.state]),
      [
        [DetailType.Created, 'pending'],
        [DetailType.StateChanged, 'executing'],
        [DetailType.Completed, 'completed'],
      ],
    );
  });

  it('slow N: reports progress and honours cancel', async () => {
    const { head } = await service.submit(caller, user('slow 3'));
    const running = runNext(head);
    for (let i = 0; i < 100 && (await headOf(head))?.progress === undefined; i++) await sleep(50);
    assert.equal(await stateOf(head), 'executing');
    const canceled = await service.cancel(caller, head.taskId);
    assert.equal(canceled.head.state, 'cancelled');
    assert.equal(await running, 'stopped');
    const events = await eventsOf(head);
    assert.equal(events.at(-1)?.type, 'cancel', 'nothing was recorded after the cancel');
    // canceling again returns the canceled task
    assert.equal((await service.cancel(caller, head.taskId)).head.state, 'cancelled');
    assert.equal((await outbox.events(head)).at(-1)?.detailType, DetailType.Canceled);
  });

  it('slow without N: validation asks for the missing field, then runs', async () => {
    const { head } = await service.submit(caller, user('slow'));
    assert.equal(await runNext(head), 'waiting');
    assert.equal(await stateOf(head), 'info_needed');
    assert.deepEqual(await outbox.pending(head), [], 'a question asks for no run');
    await service.continueTask(caller, head.taskId, user('1'));
    assert.equal(await runNext(head), 'completed');
    const view = await service.read(caller, head.taskId, {});
    assert.equal(view.head.state, 'completed');
    assert.equal(view.head.progress, 100);
  });

  it('ask: input required, then completes with the answer on the same task', async () => {
    const { head } = await service.submit(caller, user('ask'));
    assert.equal(await runNext(head), 'waiting');
    const waiting = await service.read(caller, head.taskId, {});
    assert.equal(waiting.head.state, 'info_needed');
    assert.equal(waiting.head.statusMessage?.parts[0]?.text, 'What is your answer?');
    await service.continueTask(caller, head.taskId, user('42'));
    assert.equal(await runNext(head), 'completed');
    const done = await service.read(caller, head.taskId, {});
    assert.equal(done.head.statusMessage?.parts[0]?.text, 'You answered: 42');
    assert.deepEqual(
      done.history.map((m) => m.role),
      ['user', 'agent', 'user', 'agent'],
    );
  });

  it('approve: waits for a human; approve completes, reject rejects', async () => {
    const approved = await service.submit(caller, user('approve'));
    assert.equal(await runNext(approved.head), 'waiting');
    assert.equal(await stateOf(approved.head), 'need_human');
    await service.continueTask(caller, approved.head.taskId, user('approve looks fine'));
    assert.equal(await runNext(approved.head), 'completed');
    const view = await service.read(caller, approved.head.taskId, {});
    assert.equal(view.head.state, 'completed');
    assert.equal(view.head.statusMessage?.parts[0]?.text, 'Approved: looks fine');

    const rejected = await service.submit(caller, user('approve'));
    assert.equal(await runNext(rejected.head), 'waiting');
    await service.continueTask(caller, rejected.head.taskId, {
      messageId: crypto.randomUUID(),
      role: 'user',
      parts: [{ data: { decision: 'reject', notes: 'too risky' } }],
    });
    assert.equal(await runNext(rejected.head), 'completed');
    assert.equal(await stateOf(rejected.head), 'rejected');
  });

  it('a message that is not a decision is refused, changes nothing and enqueues nothing', async () => {
    const { head } = await service.submit(caller, user('approve'));
    assert.equal(await runNext(head), 'waiting');
    const before = await headOf(head);
    assert.equal(before?.state, 'need_human');
    await assert.rejects(service.continueTask(caller, head.taskId, user('maybe later')), ValidationError);
    assert.deepEqual(await headOf(head), before);
    assert.deepEqual(await outbox.pending(head), []);
  });

  it('fail and reject', async () => {
    const failed = await service.submit(caller, user('fail'));
    assert.equal(await runNext(failed.head), 'completed');
    assert.equal(await stateOf(failed.head), 'failed');
    const rejected = await service.submit(caller, user('reject'));
    assert.equal(await runNext(rejected.head), 'finished');
    assert.equal(await stateOf(rejected.head), 'rejected');
    assert.equal((await outbox.events(rejected.head)).at(-1)?.detailType, DetailType.Rejected);
  });

  it('a message to a finished or working task is refused; another caller sees nothing', async () => {
    const { head } = await service.submit(caller, user('hi'));
    await assert.rejects(service.continueTask(caller, head.taskId, user('more')), InvalidTransitionError);
    assert.equal(await runNext(head), 'completed');
    await assert.rejects(
      service.continueTask(caller, head.taskId, user('more')),
      (e: unknown) =>
        e instanceof InvalidTransitionError && /finished task accepts no messages/.test(e.message),
    );
    await assert.rejects(service.read({ tenant: 'acme', owner: 'eve' }, head.taskId, {}), /Task not found/);
    await assert.rejects(service.cancel({ tenant: 'acme', owner: 'eve' }, head.taskId), /Task not found/);
  });

  it('a duplicate submission returns the same task and writes nothing, so it gets no second run', async () => {
    const message = user('same');
    const first = await service.submit(caller, message);
    const second = await service.submit(caller, message);
    assert.equal(second.head.taskId, first.head.taskId);
    assert.equal(second.duplicate, true);
    assert.equal(second.head.version, first.head.version);
    assert.equal((await outbox.pending(first.head)).length, 1, 'the one committed create, relayed once');
    assert.equal(await runNext(first.head), 'completed');
    const third = await service.submit(caller, message);
    assert.equal(third.head.taskId, first.head.taskId);
    assert.equal(third.duplicate, true);
    assert.equal(third.head.state, 'completed');
    assert.deepEqual(await outbox.pending(first.head), [], 'a finished task is not handed over again');
    assert.equal((await eventsOf(first.head)).filter((e) => e.type === 'created').length, 1);
  });

  it('the same messageId with other content is a new message: a different task, with its own run', async () => {
    const message = user('first content');
    const first = await service.submit(caller, message);
    const other = await service.submit(caller, { ...message, parts: [{ text: 'other content' }] });
    assert.notEqual(other.head.taskId, first.head.taskId);
    assert.equal(other.duplicate, false);
    assert.equal(await runNext(first.head), 'completed');
    assert.equal(await runNext(other.head), 'completed');
    const echoed = async (taskId: string) =>
      (await service.read(caller, taskId, { includeArtifacts: true })).artifacts[0]?.parts[0]?.text;
    assert.equal(await echoed(first.head.taskId), 'first content');
    assert.equal(await echoed(other.head.taskId), 'other content');
  });

  it('a continuation retried while its first delivery is applied is a duplicate, not an error', async () => {
    const { head } = await service.submit(caller, user('ask'));
    assert.equal(await runNext(head), 'waiting');
    const answer = user('7');
    const results = await Promise.allSettled([
      service.continueTask(caller, head.taskId, answer),
      service.continueTask(caller, head.taskId, answer),
      service.continueTask(caller, head.taskId, answer),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled' && !r.value.duplicate).length, 1);
    const events = await eventsOf(head);
    assert.equal(events.filter((e) => e.type === 'info_provided').length, 1);
    assert.equal((await outbox.pending(head)).length, 1, 'one answer written, one run');
    assert.equal(await runNext(head), 'completed');
    assert.equal(await stateOf(head), 'completed');
  });
});

describe('agent output the hub cannot record', () => {
  const run = async (agent: AgentHandler) => {
    const service = new TaskService(engine);
    const { head } = await service.submit(caller, user('go'));
    const outcome = await new TaskExecutor(engine, agent).run(await outbox.take(head));
    return { outcome, view: await service.read(caller, head.taskId, { includeArtifacts: true }) };
  };
  const agentReturning = (execute: AgentHandler['execute']): AgentHandler => ({
    describe: () => demoAgent.describe(),
    execute,
  });

  it('clips a long status text instead of failing', async () => {
    const { view } = await run(agentReturning(async () => complete('é'.repeat(9000))));
    assert.equal(view.head.state, 'completed');
    const text = view.head.statusMessage?.parts[0]?.text ?? '';
    assert.equal(text.length, 2000);
    assert.ok(text.endsWith('…'));
  });

  it('fails the task (not stuck executing) when an artifact is too large to store', async () => {
    const { outcome, view } = await run(
      agentReturning(async () => complete('done', [{ parts: [{ text: 'x'.repeat(70 * 1024) }] }])),
    );
    assert.equal(outcome.result, 'completed');
    assert.equal(outcome.record?.head.state, 'failed', 'the outcome carries the task as the run left it');
    assert.equal(view.head.state, 'failed');
    const events = await eventsOf(view.head);
    assert.equal(events.at(-1)?.reason?.code, 'invalid_agent_output');
    assert.match(events.at(-1)?.reason?.message ?? '', /65536 bytes/);
  });

  it('fails the task with a clipped reason when the agent throws a huge error', async () => {
    const { view } = await run(
      agentReturning(async () => {
        throw new Error('boom '.repeat(2000));
      }),
    );
    assert.equal(view.head.state, 'failed');
    const events = await eventsOf(view.head);
    assert.equal(events.at(-1)?.reason?.code, 'execution_failed');
    assert.ok((events.at(-1)?.reason?.message.length ?? 0) <= 2000);
  });
});

describe('validation the hub cannot record', () => {
  const service = () => new TaskService(engine);
  const submitAndRun = async (agent: AgentHandler) => {
    const { head } = await service().submit(caller, user('go'));
    await new TaskExecutor(engine, agent).run(await outbox.take(head));
    const events = await eventsOf(head);
    return { state: await stateOf(head), last: events.at(-1) };
  };
  const base = { describe: () => demoAgent.describe(), execute: async () => complete() };

  it('a validate() that throws fails the task instead of leaving it pending', async () => {
    const { state, last } = await submitAndRun({
      ...base,
      validate: () => {
        throw new Error('no validator today');
      },
    });
    assert.equal(state, 'failed');
    assert.equal(last?.reason?.code, 'execution_failed');
  });

  it('a rejection the store refuses (reason code too long) fails the task as invalid agent output', async () => {
    const { state, last } = await submitAndRun({
      ...base,
      validate: () => ({ decision: 'reject', code: 'c'.repeat(200), message: 'no' }),
    });
    assert.equal(state, 'failed');
    assert.equal(last?.reason?.code, 'invalid_agent_output');
  });

  it('clipping never leaves half a surrogate pair, and escapes are counted', async () => {
    const emoji = await service().submit(caller, user('go'));
    await new TaskExecutor(engine, { ...base, execute: async () => complete(`${'a'.repeat(1998)}😀😀`) }).run(
      await outbox.take(emoji.head),
    );
    // a status message this long is stored apart from the task item: read it through the view
    const view = await service().read(caller, emoji.head.taskId, {});
    const text = view.head.statusMessage?.parts[0]?.text ?? '';
    assert.equal(view.head.state, 'completed');
    assert.ok(text.endsWith('…'));
    assert.ok(!/[\ud800-\udbff]…$/.test(text), 'no lone high surrogate before the ellipsis');
    const controls = await service().submit(caller, user('go'));
    await new TaskExecutor(engine, { ...base, execute: async () => complete('\u0001'.repeat(2000)) }).run(
      await outbox.take(controls.head),
    );
    assert.equal(await stateOf(controls.head), 'completed');
  });
});

describe('retried continuations', () => {
  it('write nothing and get no second run, survive the task moving on; other content is a new message', async () => {
    const service = new TaskService(engine);
    const executor = new TaskExecutor(engine, demoAgent);
    const { head } = await service.submit(caller, user('ask'));
    assert.equal((await executor.run(await outbox.take(head))).result, 'waiting');
    const answer = user('42');
    const applied = await service.continueTask(caller, head.taskId, answer);
    assert.equal(applied.duplicate, false);
    const retry = await service.continueTask(caller, head.taskId, answer);
    assert.equal(retry.duplicate, true);
    assert.equal(retry.head.version, applied.head.version, 'the retry wrote nothing');
    assert.equal(
      (await outbox.pending(head)).length,
      1,
      'the answer was relayed once; the retry adds no run',
    );
    // the same id with other content is another message, and the task no longer waits for one
    await assert.rejects(
      service.continueTask(caller, head.taskId, { ...answer, parts: [{ text: '43' }] }),
      (e: unknown) => e instanceof InvalidTransitionError && /not waiting for input/.test(e.message),
    );
    assert.equal((await executor.run(await outbox.take(head))).result, 'completed');
    assert.equal(await stateOf(head), 'completed');
    const late = await service.continueTask(caller, head.taskId, answer);
    assert.equal(late.duplicate, true, 'a retry after completion is still the same message');
    assert.equal(late.head.state, 'completed');
    assert.deepEqual(await outbox.pending(head), []);
    const done = await service.read(caller, head.taskId, {});
    assert.equal(done.head.statusMessage?.parts[0]?.text, 'You answered: 42');
  });

  it('an answer retried after the task moved on to a human decision is a duplicate, not a bad decision', async () => {
    const asksThenApproves: AgentHandler = {
      describe: () => demoAgent.describe(),
      execute: async (ctx) =>
        ctx.resumption?.kind === 'info'
          ? { kind: 'human_decision', question: 'ok?' }
          : { kind: 'input_required', question: 'number?' },
    };
    const service = new TaskService(engine);
    const executor = new TaskExecutor(engine, asksThenApproves);
    const { head } = await service.submit(caller, user('go'));
    assert.equal((await executor.run(await outbox.take(head))).result, 'waiting');
    const answer = user('500');
    await service.continueTask(caller, head.taskId, answer);
    assert.equal((await executor.run(await outbox.take(head))).result, 'waiting');
    const before = await headOf(head);
    assert.equal(before?.state, 'need_human');
    const retry = await service.continueTask(caller, head.taskId, answer);
    assert.equal(retry.duplicate, true);
    assert.deepEqual(await headOf(head), before, 'the retry changed nothing');
    assert.deepEqual(await outbox.pending(head), []);
  });
});

describe('lease watch', () => {
  it('a claimed task whose run died gets a lease watch; once the lease passed, the watch fails it as executor_lost', async () => {
    const leased = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }), {
      leaseSeconds: 1,
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let resume!: () => void;
    const gate = new Promise<void>((resolve) => {
      resume = resolve;
    });
    // claims the task, then hangs as a run would whose Lambda died
    const stalling: AgentHandler = {
      describe: () => demoAgent.describe(),
      async execute() {
        started();
        await gate;
        return complete('too late');
      },
    };
    const { head } = await new TaskService(leased).submit(caller, user('work'));
    const dying = new TaskExecutor(leased, stalling).run(await outbox.take(head));
    await running;

    const claimed = await headOf(head);
    assert.equal(claimed?.state, 'executing');
    assert.ok(claimed?.leaseUntil, 'the claim holds a lease');
    const watch = await outbox.takeWatch(head);
    assert.deepEqual(watch.run, {
      tenant: caller.tenant,
      taskId: head.taskId,
      version: claimed.version,
      watch: 'lease',
    });
    assert.ok(
      watch.delaySeconds !== undefined && watch.delaySeconds <= 1,
      `due when the 1 s lease ends (${watch.delaySeconds})`,
    );
    assert.deepEqual(await outbox.pending(head), [], 'an executing task asks for no run');

    // delivered before the lease ends (as seen by a clock half a second before it), the watch looks again later
    const leaseEnd = Date.parse(claimed.leaseUntil);
    const early = new TaskExecutor(leased, stalling, randomIds, { now: () => new Date(leaseEnd - 500) });
    assert.deepEqual(await early.run(watch.run), { result: 'recheck', recheckInSeconds: 1 });
    assert.equal(await stateOf(head), 'executing');

    await sleep(Math.max(0, leaseEnd - Date.now() + 25));
    const watcher = new TaskExecutor(leased, stalling);
    const lost = await watcher.run(watch.run);
    assert.equal(lost.result, 'lost');
    assert.equal(lost.record?.head.state, 'failed');
    const last = (await eventsOf(head)).at(-1);
    assert.equal(last?.type, 'heartbeat_lost');
    assert.equal(last?.reason?.code, 'executor_lost');
    assert.match(
      (await headOf(head))?.statusMessage?.parts[0]?.text ?? '',
      /lease expired/,
      'shown as the status',
    );
    const published = (await outbox.events(head)).at(-1);
    assert.equal(published?.detailType, DetailType.Failed);
    assert.equal((published?.detail.reason as { code?: string } | undefined)?.code, 'executor_lost');
    assert.deepEqual(await outbox.pending(head), [], 'a failed task asks for no run');
    assert.deepEqual(await outbox.watches(head), [], 'and no further watch');
    assert.equal((await watcher.run(watch.run)).result, 'skipped', 'a redelivered watch does nothing');

    // should the stalled run come back after all, it records nothing
    const failed = await headOf(head);
    resume();
    assert.equal((await dying).result, 'stopped');
    assert.deepEqual(await headOf(head), failed);
  });
});

describe('inline runs', () => {
  it('a blocking send runs the agent within the request; the relay enqueues no run for it', async () => {
    const service = new TaskService(engine, new TaskExecutor(engine, demoAgent));
    const inline = { runInlineUntil: Date.now() + 5000 };
    const { head, duplicate } = await service.submit(caller, user('inline hello'), undefined, inline);
    assert.equal(duplicate, false);
    assert.equal(head.state, 'completed', 'completed in the request itself');
    const view = await service.read(caller, head.taskId, { includeArtifacts: true });
    assert.deepEqual(view.artifacts[0]?.parts, [{ text: 'inline hello', mediaType: 'text/plain' }]);
    assert.deepEqual(await outbox.pending(head), []);
    assert.deepEqual(
      (await outbox.events(head)).map((e) => [e.detailType, e.detail.state]),
      [
        [DetailType.Created, 'executing'],
        [DetailType.Completed, 'completed'],
      ],
      'created already claimed, in one write',
    );
  });

  it('an inline answer resumes the task within the request too', async () => {
    const service = new TaskService(engine, new TaskExecutor(engine, demoAgent));
    const asked = await service.submit(caller, user('ask'), undefined, { runInlineUntil: Date.now() + 5000 });
    assert.equal(asked.head.state, 'info_needed');
    const answered = await service.continueTask(caller, asked.head.taskId, user('9'), undefined, {
      runInlineUntil: Date.now() + 5000,
    });
    assert.equal(answered.head.state, 'completed');
    assert.equal(answered.head.statusMessage?.parts[0]?.text, 'You answered: 9');
    assert.deepEqual(await outbox.pending(asked.head), []);
  });
});

describe('message replies (no task)', () => {
  const inlineService = () => new TaskService(engine, new TaskExecutor(engine, demoAgent));
  const blocking = () => ({ runInlineUntil: Date.now() + 5000 });

  it('ping is answered with a message: no task is made, a retry gets the same reply', async () => {
    const service = inlineService();
    const listed = async () => {
      let count = 0;
      let pageToken = '';
      do {
        const page = await service.list(caller, { pageSize: 100, ...(pageToken ? { pageToken } : {}) });
        count += page.tasks.length;
        pageToken = page.nextPageToken;
      } while (pageToken);
      return count;
    };
    const before = await listed();
    const ping = user('ping', { contextId: 'ctx-ping' });
    const first = await service.send(caller, ping, 'ctx-ping', blocking());
    assert.ok('reply' in first, 'a reply, not a task');
    assert.equal(first.duplicate, false);
    assert.equal(first.reply.role, 'agent');
    assert.equal(first.reply.contextId, 'ctx-ping');
    assert.equal(first.reply.taskId, undefined);
    assert.deepEqual(first.reply.parts, [{ text: 'pong', mediaType: 'text/plain' }]);
    const again = await service.send(caller, ping, 'ctx-ping', blocking());
    assert.ok('reply' in again);
    assert.equal(again.duplicate, true);
    assert.equal(again.reply.messageId, first.reply.messageId, 'the reply stored the first time');
    assert.equal(await listed(), before, 'no task listed');
    const key = engine.taskIdFor({ tenant: caller.tenant, dedupScope: caller.owner, message: ping });
    await assert.rejects(service.read(caller, key, {}), /Task not found/, 'the key holds no task');
    // the relay sees the reply's write and makes nothing of it
    assert.deepEqual(await outbox.pending({ taskId: key }), []);
  });

  it('a message keeps what it got first: a reply stays a reply, a task stays a task', async () => {
    let answer = true;
    const moody: AgentHandler = {
      describe: () => demoAgent.describe(),
      respond: () => (answer ? { text: 'quick answer', metadata: { mood: 'quick' } } : undefined),
      execute: async () => complete('done'),
    };
    const service = new TaskService(engine, new TaskExecutor(engine, moody));
    const replied = user('first');
    const r1 = await service.send(caller, replied, undefined, blocking());
    assert.ok('reply' in r1);
    assert.deepEqual(r1.reply.metadata, { mood: 'quick' });
    answer = false;
    const r2 = await service.send(caller, replied, undefined, blocking());
    assert.ok(
      'reply' in r2,
      'a retry of a replied message is the reply, though the agent would make a task now',
    );
    assert.equal(r2.reply.messageId, r1.reply.messageId);

    const tasked = user('second');
    const t1 = await service.send(caller, tasked, undefined, blocking());
    assert.ok('record' in t1);
    assert.equal(t1.head.state, 'completed');
    answer = true;
    const t2 = await service.send(caller, tasked, undefined, blocking());
    assert.ok(
      'record' in t2,
      'a retry of a message that made a task is the task, though the agent would reply now',
    );
    assert.equal(t2.head.taskId, t1.head.taskId);
    assert.equal(t2.duplicate, true);
  });

  it('a respond() that throws makes a task instead', async () => {
    const broken: AgentHandler = {
      describe: () => demoAgent.describe(),
      respond: () => {
        throw new Error('no replies today');
      },
      execute: async () => complete('done as a task'),
    };
    const sent = await new TaskService(engine, new TaskExecutor(engine, broken)).send(
      caller,
      user('hi'),
      undefined,
      blocking(),
    );
    assert.ok('record' in sent);
    assert.equal(sent.head.state, 'completed');
  });
});

describe('what an agent can say', () => {
  it('parts: a status update without text, file and data parts, metadata on the artifact, the message and the task', async () => {
    const service = new TaskService(engine, new TaskExecutor(engine, demoAgent));
    const sent = await service.send(caller, user('parts'), undefined, { runInlineUntil: Date.now() + 5000 });
    assert.ok('record' in sent);
    const view = await service.read(caller, sent.head.taskId, { includeArtifacts: true });
    assert.equal(view.head.state, 'completed');
    assert.deepEqual(view.head.metadata, { demo: 'parts' });
    assert.deepEqual(view.head.statusMessage?.metadata, { demo: 'parts' });
    assert.deepEqual(view.head.statusMessage?.parts[1], {
      data: { parts: 4 },
      mediaType: 'application/json',
    });
    const [artifact] = view.artifacts;
    assert.deepEqual(artifact?.metadata, { kind: 'demo' });
    assert.deepEqual(artifact?.parts.slice(1), [
      { raw: Buffer.from('hello, file').toString('base64'), mediaType: 'text/plain', filename: 'hello.txt' },
      { url: 'https://example.com/report.pdf', mediaType: 'application/pdf', filename: 'report.pdf' },
      { data: { answer: 42, list: [1, 2, 3] }, mediaType: 'application/json' },
    ]);
    const events = await eventsOf(sent.head);
    const statusUpdate = events.find((e) => e.type === 'status_update');
    assert.ok(statusUpdate, 'the status update was recorded');
    assert.equal(statusUpdate.message, undefined, 'without a message');
  });

  it('task metadata beyond 4 KiB is refused: the task fails as invalid agent output', async () => {
    const greedy: AgentHandler = {
      describe: () => demoAgent.describe(),
      execute: async () => ({ ...complete('done'), taskMetadata: { blob: 'x'.repeat(5000) } }),
    };
    const sent = await new TaskService(engine, new TaskExecutor(engine, greedy)).send(
      caller,
      user('go'),
      undefined,
      { runInlineUntil: Date.now() + 5000 },
    );
    assert.ok('record' in sent);
    assert.equal(sent.head.state, 'failed');
    assert.equal((await eventsOf(sent.head)).at(-1)?.reason?.code, 'invalid_agent_output');
  });

  it('a validation that rejects can give details with its reason', async () => {
    const picky: AgentHandler = {
      describe: () => demoAgent.describe(),
      validate: () => ({
        decision: 'reject',
        code: 'capability_lacking',
        message: 'no',
        details: { hint: 'ask bob' },
      }),
      execute: async () => complete(),
    };
    const sent = await new TaskService(engine, new TaskExecutor(engine, picky)).send(
      caller,
      user('x'),
      undefined,
      {
        runInlineUntil: Date.now() + 5000,
      },
    );
    assert.ok('record' in sent);
    assert.equal(sent.head.state, 'rejected');
    assert.deepEqual((await eventsOf(sent.head)).at(-1)?.reason, {
      code: 'capability_lacking',
      message: 'no',
      details: { hint: 'ask bob' },
    });
  });
});

describe('cancel racing an answer', () => {
  it('the canceled task it returns holds everything written before the cancel', async () => {
    const service = new TaskService(engine);
    const executor = new TaskExecutor(engine, demoAgent);
    for (let trial = 0; trial < 20; trial++) {
      const { head } = await service.submit(caller, user('ask'));
      await executor.run(await outbox.take(head));
      const answer = user(`answer ${trial}`);
      const [canceled, answered] = await Promise.allSettled([
        service.cancel(caller, head.taskId, { includeArtifacts: true }),
        service.continueTask(caller, head.taskId, answer),
      ]);
      assert.equal(canceled.status, 'fulfilled');
      const view = (canceled as PromiseFulfilledResult<Awaited<ReturnType<TaskService['cancel']>>>).value;
      assert.equal(view.head.state, 'cancelled');
      const stored = await eventsOf(head);
      const cancelAt = stored.findIndex((e) => e.type === 'cancel');
      const answerAt = stored.findIndex((e) => e.type === 'info_provided');
      if (answered.status === 'fulfilled' && answerAt >= 0 && answerAt < cancelAt) {
        assert.ok(
          view.history.some((m) => m.messageId === answer.messageId),
          `trial ${trial}: the answer applied before the cancel is in the history the cancel returned`,
        );
      }
      assert.deepEqual(
        view.history.map((m) => m.messageId),
        stored
          .filter((e) => e.message && e.version <= stored[cancelAt]!.version)
          .map((e) => e.message!.messageId),
        `trial ${trial}: the history is the task's as the cancel wrote it`,
      );
      // the answer may have asked for a run before the cancel landed; take it if so
      await outbox.drain();
    }
  });
});
