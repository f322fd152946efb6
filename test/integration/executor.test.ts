import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { demoAgent } from '../../agents/demo/index.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { type AgentHandler, complete } from '../../shared/agent/api.ts';
import { type RunResult, TaskExecutor } from '../../shared/app/executor.ts';
import type { ExecutorQueue, ExecutorRun } from '../../shared/app/ports.ts';
import { TaskEngine } from '../../shared/app/task-engine.ts';
import { TaskService } from '../../shared/app/task-service.ts';
import { InvalidTransitionError, ValidationError } from '../../shared/domain/errors.ts';
import type { Message } from '../../shared/domain/task.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

let table: TestTable;
let engine: TaskEngine;
const caller = { tenant: 'acme', owner: 'bob' };
const user = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ text }],
  ...extra,
});

/** Stands in for SQS here (this file tests the claim and the agent flows, not the queue). */
class RecordingQueue implements ExecutorQueue {
  runs: ExecutorRun[] = [];
  async enqueue(run: ExecutorRun) {
    this.runs.push(run);
  }
  take(): ExecutorRun {
    const run = this.runs.shift();
    assert.ok(run, 'a run was enqueued');
    return run;
  }
}

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
});
after(async () => table.drop());

describe('executor claim', () => {
  it('runs the agent once when the same executor message is delivered twice', async () => {
    let executions = 0;
    const counting: AgentHandler = {
      describe: () => demoAgent.describe(),
      async execute() {
        executions++;
        await new Promise((r) => setTimeout(r, 50));
        return complete('done');
      },
    };
    const executor = new TaskExecutor(engine, counting);
    for (let i = 0; i < 10; i++) {
      const queue = new RecordingQueue();
      const service = new TaskService(engine, queue);
      const { head } = await service.submit(caller, user(`job ${i}`));
      const run = queue.take();
      const results = await Promise.all([executor.run(run), executor.run(run), executor.run(run)]);
      assert.equal(results.filter((r) => r === 'completed').length, 1, results.join());
      assert.equal(await executor.run(run), 'skipped', 'a late redelivery is dropped');
      assert.equal((await engine.store.getHead(head))?.state, 'completed');
    }
    assert.equal(executions, 10);
  });
});

describe('demo agent through the task service', () => {
  const queue = new RecordingQueue();
  let service: TaskService;
  let executor: TaskExecutor;
  const runNext = (): Promise<RunResult> => executor.run(queue.take());
  const state = async (taskId: string) =>
    (await engine.store.getHead({ tenant: caller.tenant, taskId }))?.state;

  before(() => {
    service = new TaskService(engine, queue);
    executor = new TaskExecutor(engine, demoAgent);
  });

  it('echo: completes with the text as an artifact', async () => {
    const { head } = await service.submit(caller, user('hello there'));
    assert.equal(await runNext(), 'completed');
    const view = await service.read(caller, head.taskId, { includeArtifacts: true });
    assert.equal(view.head.state, 'completed');
    assert.deepEqual(view.artifacts[0]?.parts, [{ text: 'hello there', mediaType: 'text/plain' }]);
    assert.equal(view.history[0]?.parts[0]?.text, 'hello there');
  });

  it('slow N: reports progress and honours cancel', async () => {
    const { head } = await service.submit(caller, user('slow 3'));
    const running = runNext();
    for (let i = 0; i < 100 && (await engine.store.getHead(head))?.progress === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await state(head.taskId), 'executing');
    const canceled = await service.cancel(caller, head.taskId);
    assert.equal(canceled.head.state, 'cancelled');
    assert.equal(await running, 'stopped');
    const events = await engine.store.events(head, 0);
    assert.equal(events.at(-1)?.type, 'cancel', 'nothing was recorded after the cancel');
    // canceling again returns the canceled task
    assert.equal((await service.cancel(caller, head.taskId)).head.state, 'cancelled');
  });

  it('slow without N: validation asks for the missing field, then runs', async () => {
    const { head } = await service.submit(caller, user('slow'));
    assert.equal(await runNext(), 'waiting');
    assert.equal(await state(head.taskId), 'info_needed');
    await service.continueTask(caller, head.taskId, user('1'));
    assert.equal(await runNext(), 'completed');
    const view = await service.read(caller, head.taskId, {});
    assert.equal(view.head.state, 'completed');
    assert.equal(view.head.progress, 100);
  });

  it('ask: input required, then completes with the answer on the same task', async () => {
    const { head } = await service.submit(caller, user('ask'));
    assert.equal(await runNext(), 'waiting');
    const waiting = await service.read(caller, head.taskId, {});
    assert.equal(waiting.head.state, 'info_needed');
    assert.equal(waiting.head.statusMessage?.parts[0]?.text, 'What is your answer?');
    await service.continueTask(caller, head.taskId, user('42'));
    assert.equal(await runNext(), 'completed');
    const done = await service.read(caller, head.taskId, {});
    assert.equal(done.head.statusMessage?.parts[0]?.text, 'You answered: 42');
    assert.deepEqual(
      done.history.map((m) => m.role),
      ['user', 'agent', 'user', 'agent'],
    );
  });

  it('approve: waits for a human; approve completes, reject rejects', async () => {
    const approved = await service.submit(caller, user('approve'));
    assert.equal(await runNext(), 'waiting');
    assert.equal(await state(approved.head.taskId), 'need_human');
    await service.continueTask(caller, approved.head.taskId, user('approve looks fine'));
    assert.equal(await runNext(), 'completed');
    const view = await service.read(caller, approved.head.taskId, {});
    assert.equal(view.head.state, 'completed');
    assert.equal(view.head.statusMessage?.parts[0]?.text, 'Approved: looks fine');

    const rejected = await service.submit(caller, user('approve'));
    await runNext();
    await service.continueTask(caller, rejected.head.taskId, {
      messageId: crypto.randomUUID(),
      role: 'user',
      parts: [{ data: { decision: 'reject', notes: 'too risky' } }],
    });
    await runNext();
    assert.equal(await state(rejected.head.taskId), 'rejected');
  });

  it('a message that is not a decision is refused and changes nothing', async () => {
    const { head } = await service.submit(caller, user('approve'));
    await runNext();
    const before = await engine.store.getHead(head);
    await assert.rejects(service.continueTask(caller, head.taskId, user('maybe later')), ValidationError);
    assert.deepEqual(await engine.store.getHead(head), before);
    assert.equal(queue.runs.length, 0);
  });

  it('fail and reject', async () => {
    const failed = await service.submit(caller, user('fail'));
    assert.equal(await runNext(), 'completed');
    assert.equal(await state(failed.head.taskId), 'failed');
    const rejected = await service.submit(caller, user('reject'));
    assert.equal(await runNext(), 'finished');
    assert.equal(await state(rejected.head.taskId), 'rejected');
  });

  it('a message to a finished or working task is refused; another caller sees nothing', async () => {
    const { head } = await service.submit(caller, user('hi'));
    await assert.rejects(service.continueTask(caller, head.taskId, user('more')), InvalidTransitionError);
    await runNext();
    await assert.rejects(
      service.continueTask(caller, head.taskId, user('more')),
      (e: unknown) =>
        e instanceof InvalidTransitionError && /finished task accepts no messages/.test(e.message),
    );
    await assert.rejects(service.read({ tenant: 'acme', owner: 'eve' }, head.taskId, {}), /Task not found/);
    await assert.rejects(service.cancel({ tenant: 'acme', owner: 'eve' }, head.taskId), /Task not found/);
  });

  it('a duplicate submission returns the same task; it re-enqueues only while the task waits for the executor', async () => {
    const message = user('same');
    const first = await service.submit(caller, message);
    queue.take();
    // the first enqueue may have been lost after the write committed: the retry hands the task over again
    const second = await service.submit(caller, message);
    assert.equal(second.head.taskId, first.head.taskId);
    assert.equal(second.duplicate, true);
    assert.equal(queue.runs.length, 1);
    assert.equal(await runNext(), 'completed');
    const third = await service.submit(caller, message);
    assert.equal(third.head.taskId, first.head.taskId);
    assert.equal(queue.runs.length, 0, 'a finished task is not handed over again');
  });

  it('the same messageId with other content is refused, not treated as a duplicate', async () => {
    const message = user('first content');
    await service.submit(caller, message);
    queue.take();
    await assert.rejects(
      service.submit(caller, { ...message, parts: [{ text: 'other content' }] }),
      (e: unknown) => e instanceof ValidationError && /already used for a different message/.test(e.message),
    );
  });

  it('a continuation retried after its first delivery moved the task on is a duplicate, not an error', async () => {
    const { head } = await service.submit(caller, user('ask'));
    await runNext();
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
    const events = await engine.store.events(head, 0);
    assert.equal(events.filter((e) => e.type === 'info_provided').length, 1);
    while (queue.runs.length) await runNext();
    assert.equal(await state(head.taskId), 'completed');
  });
});

describe('agent output the hub cannot record', () => {
  const run = async (agent: AgentHandler) => {
    const queue = new RecordingQueue();
    const service = new TaskService(engine, queue);
    const { head } = await service.submit(caller, user('go'));
    const result = await new TaskExecutor(engine, agent).run(queue.take());
    return { result, view: await service.read(caller, head.taskId, { includeArtifacts: true }) };
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
    const { result, view } = await run(
      agentReturning(async () => complete('done', [{ parts: [{ text: 'x'.repeat(70 * 1024) }] }])),
    );
    assert.equal(result, 'completed');
    assert.equal(view.head.state, 'failed');
    const events = await engine.store.events(view.head, 0);
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
    const events = await engine.store.events(view.head, 0);
    assert.equal(events.at(-1)?.reason?.code, 'execution_failed');
    assert.ok((events.at(-1)?.reason?.message.length ?? 0) <= 2000);
  });
});

describe('validation the hub cannot record', () => {
  const submitAndRun = async (agent: AgentHandler) => {
    const queue = new RecordingQueue();
    const service = new TaskService(engine, queue);
    const { head } = await service.submit(caller, user('go'));
    await new TaskExecutor(engine, agent).run(queue.take());
    const events = await engine.store.events(head, 0);
    return { state: (await engine.store.getHead(head))?.state, last: events.at(-1) };
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
    const queue = new RecordingQueue();
    const service = new TaskService(engine, queue);
    const emoji = await service.submit(caller, user('go'));
    await new TaskExecutor(engine, { ...base, execute: async () => complete(`${'a'.repeat(1998)}😀😀`) }).run(
      queue.take(),
    );
    const text = (await engine.store.getHead(emoji.head))?.statusMessage?.parts[0]?.text ?? '';
    assert.ok(text.endsWith('…'));
    assert.ok(!/[\ud800-\udbff]…$/.test(text), 'no lone high surrogate before the ellipsis');
    const controls = await service.submit(caller, user('go'));
    await new TaskExecutor(engine, { ...base, execute: async () => complete('\u0001'.repeat(2000)) }).run(
      queue.take(),
    );
    assert.equal((await engine.store.getHead(controls.head))?.state, 'completed');
  });
});

describe('retried continuations', () => {
  it('re-enqueue the run, survive the task moving on, and refuse other content under the same id', async () => {
    const queue = new RecordingQueue();
    const service = new TaskService(engine, queue);
    const executor = new TaskExecutor(engine, demoAgent);
    const { head } = await service.submit(caller, user('ask'));
    await executor.run(queue.take());
    const answer = user('42');
    await service.continueTask(caller, head.taskId, answer);
    queue.runs.length = 0; // as if the enqueue after the write had been lost
    const retry = await service.continueTask(caller, head.taskId, answer);
    assert.equal(retry.duplicate, true);
    assert.equal(queue.runs.length, 1, 'the retry hands the task to the executor again');
    await assert.rejects(
      service.continueTask(caller, head.taskId, { ...answer, parts: [{ text: '43' }] }),
      (e: unknown) => e instanceof ValidationError && /different message/.test(e.message),
    );
    await executor.run(queue.take());
    assert.equal((await engine.store.getHead(head))?.state, 'completed');
    const late = await service.continueTask(caller, head.taskId, answer);
    assert.equal(late.duplicate, true, 'a retry after completion is still the same message');
    assert.equal(queue.runs.length, 0);
  });

  it('an answer retried after the task moved on to a human decision is a duplicate, not a bad decision', async () => {
    const asksThenApproves: AgentHandler = {
      describe: () => demoAgent.describe(),
      execute: async (ctx) =>
        ctx.resumption?.kind === 'info'
          ? { kind: 'human_decision', question: 'ok?' }
          : { kind: 'input_required', question: 'number?' },
    };
    const queue = new RecordingQueue();
    const service = new TaskService(engine, queue);
    const executor = new TaskExecutor(engine, asksThenApproves);
    const { head } = await service.submit(caller, user('go'));
    await executor.run(queue.take());
    const answer = user('500');
    await service.continueTask(caller, head.taskId, answer);
    await executor.run(queue.take());
    assert.equal((await engine.store.getHead(head))?.state, 'need_human');
    const retry = await service.continueTask(caller, head.taskId, answer);
    assert.equal(retry.duplicate, true);
  });
});
