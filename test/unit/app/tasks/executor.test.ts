/**
 * The executor (shared/app/tasks/executor.ts) on the in-memory task store: a queued run validates, claims
 * (one conditional write, so a redelivered run never runs a task twice), runs the agent and records what
 * it reports; a resumed run hands the agent the requester's answer; a cancel stops the run; the lease watch
 * fails a run that died; liveness writes while the agent is silent, a refused one stopping the run; inline
 * runs hand the task back when their time is up. The same paths on DynamoDB Local and the real outbox are
 * in test/integration/app/tasks/executor.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, sequentialIds } from '../../../../shared/adapters/memory/clock.ts';
import { InMemoryTaskStore } from '../../../../shared/adapters/memory/task-store.ts';
import {
  type AgentHandler,
  askForInput,
  askHuman,
  complete,
  type ExecutionContext,
  type Outcome,
  reject,
} from '../../../../shared/agent/api.ts';
import { TaskExecutor, WRITE_ROUNDS } from '../../../../shared/app/tasks/executor.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { UnavailableError } from '../../../../shared/domain/errors.ts';
import type { EventDraft, Message } from '../../../../shared/domain/task.ts';
import type { TaskRecord, TaskRef } from '../../../../shared/ports/task-store.ts';

const tenant = 'acme';
const owner = 'bob';
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'user', parts: [{ text }] });

const agentOf = (
  execute: (ctx: ExecutionContext) => Promise<Outcome>,
  more: Partial<AgentHandler> = {},
): AgentHandler => ({ describe: () => ({}) as never, execute, ...more });

const setup = (
  agent: AgentHandler,
  options: { recentEvents?: number; leaseSeconds?: number; heartbeatSeconds?: number } = {},
) => {
  const store = new InMemoryTaskStore({ recentEvents: options.recentEvents ?? 8 });
  const clock = new ManualClock('2026-05-01T12:00:00.000Z');
  const engine = new TaskEngine(store, { clock, leaseSeconds: options.leaseSeconds ?? 60 });
  const executor = new TaskExecutor(engine, agent, sequentialIds('x-'), clock, {
    ...(options.heartbeatSeconds
      ? { heartbeat: { writer: store, intervalSeconds: options.heartbeatSeconds } }
      : {}),
  });
  const submit = async (text = 'work') => (await engine.create({ tenant, owner, message: user(text) })).head;
  const runOf = (ref: TaskRef, version = 1) => ({ tenant: ref.tenant, taskId: ref.taskId, version });
  const events = async (ref: TaskRef) => store.events((await store.get(ref))!, 0);
  const types = async (ref: TaskRef) => (await events(ref)).map((e) => e.type);
  return { store, clock, engine, executor, submit, runOf, events, types };
};

describe('a queued run', () => {
  it('validates a new task, claims it in the same write, runs the agent and records its outcome', async () => {
    const inputs: string[] = [];
    const { executor, submit, runOf, types, store } = setup(
      agentOf(async (ctx) => {
        inputs.push(ctx.task.text);
        await ctx.progress(50, 'half way');
        return complete('done', [{ artifactId: 'out', parts: [{ text: 'result' }] }]);
      }),
    );
    const head = await submit('the job');
    const outcome = await executor.run(runOf(head));
    assert.equal(outcome.result, 'completed');
    assert.deepEqual(inputs, ['the job']);
    assert.deepEqual(await types(head), [
      'created',
      'confirm',
      'start',
      'status_update',
      'artifact',
      'complete',
    ]);
    const view = await store.view((await store.get(head))!, { includeArtifacts: true });
    assert.deepEqual(view.artifacts, [{ artifactId: 'out', parts: [{ text: 'result' }] }]);
    assert.equal(view.head.statusMessage?.parts[0]?.text, 'done');
    assert.equal(view.head.statusMessage?.messageId, 'x-message-2', 'ids from the executor’s generator');
  });

  it('a validation that rejects or asks ends the run without executing', async () => {
    let executed = 0;
    const { executor, submit, runOf, store } = setup(
      agentOf(
        async () => {
          executed++;
          return complete();
        },
        {
          validate: (task) =>
            task.text === 'nope'
              ? { decision: 'reject', message: 'not mine', code: 'capability_lacking' }
              : { decision: 'need_info', question: 'how big?', missingFields: [{ field: 'size' }] },
        },
      ),
    );
    const rejected = await submit('nope');
    assert.equal((await executor.run(runOf(rejected))).result, 'finished');
    const record = await store.get(rejected);
    assert.equal(record?.head.state, 'rejected');
    assert.equal(record?.recent.at(-1)?.reason?.code, 'capability_lacking');
    const asked = await submit('vague');
    assert.equal((await executor.run(runOf(asked))).result, 'waiting');
    assert.deepEqual((await store.get(asked))?.recent.at(-1)?.data, { missingFields: [{ field: 'size' }] });
    assert.equal(executed, 0);
  });

  it('runs the agent once however often the run is delivered; a late delivery is skipped', async () => {
    let executions = 0;
    const { executor, submit, runOf } = setup(
      agentOf(async () => {
        executions++;
        await new Promise((r) => setTimeout(r, 10));
        return complete();
      }),
    );
    const head = await submit();
    const outcomes = await Promise.all([
      executor.run(runOf(head)),
      executor.run(runOf(head)),
      executor.run(runOf(head)),
    ]);
    assert.deepEqual(outcomes.map((o) => o.result).sort(), ['completed', 'skipped', 'skipped']);
    assert.equal((await executor.run(runOf(head))).result, 'skipped');
    assert.equal(executions, 1);
  });

  it('skips a task that is missing, finished, or a Synapse peer’s to work on', async () => {
    const { executor, engine, submit, runOf } = setup(agentOf(async () => assert.fail('not to be run')));
    assert.equal((await executor.run({ tenant, taskId: 'missing', version: 1 })).result, 'skipped');
    const done = await submit();
    await engine.apply(done, { type: 'cancel' });
    assert.equal((await executor.run(runOf(done))).result, 'skipped');
    const delegated = (
      await engine.create({ tenant, owner, role: 'requester', initialState: 'idle', message: user('far') })
    ).head;
    await engine.apply(delegated, { type: 'submit' });
    assert.equal((await executor.run(runOf(delegated))).result, 'skipped');
  });

  it('an agent that throws, or answers nonsense, fails the task with a reason saying which', async () => {
    const { executor, submit, runOf, store } = setup(
      agentOf(async (ctx) => {
        if (ctx.task.text === 'throw') throw new Error('boom');
        return { kind: 'dance' } as unknown as Outcome;
      }),
    );
    const threw = await submit('throw');
    await executor.run(runOf(threw));
    const failed = await store.get(threw);
    assert.deepEqual(
      [failed?.head.state, failed?.recent.at(-1)?.reason?.code, failed?.recent.at(-1)?.reason?.message],
      ['failed', 'execution_failed', 'boom'],
    );
    const nonsense = await submit('nonsense');
    await executor.run(runOf(nonsense));
    assert.equal((await store.get(nonsense))?.recent.at(-1)?.reason?.code, 'invalid_agent_output');
  });

  it('an outcome the store cannot take fails the task rather than leave it executing', async () => {
    const { executor, submit, runOf, store } = setup(
      agentOf(async () =>
        complete('done', [{ artifactId: 'big', parts: [{ text: 'x'.repeat(70 * 1024) }] }]),
      ),
    );
    const head = await submit();
    assert.equal((await executor.run(runOf(head))).result, 'completed');
    const record = await store.get(head);
    assert.equal(record?.head.state, 'failed');
    assert.equal(record?.recent.at(-1)?.reason?.code, 'invalid_agent_output');
  });
});

describe('resumed runs', () => {
  for (const recentEvents of [8, 1]) {
    it(`hand the agent the requester’s answer (its record carrying ${recentEvents} recent event(s))`, async () => {
      const resumptions: unknown[] = [];
      const { executor, engine, submit, runOf, store } = setup(
        agentOf(async (ctx) => {
          if (!ctx.resumption) return askForInput('which colour?');
          resumptions.push({ kind: ctx.resumption.kind, text: ctx.resumption.text });
          return complete(`painted ${ctx.resumption.text}`);
        }),
        { recentEvents },
      );
      const head = await submit();
      assert.equal((await executor.run(runOf(head))).result, 'waiting');
      await engine.apply(head, { type: 'info_provided', message: user('blue') });
      // a later event (a config registered) leaves the answer out of a one-event record
      await engine.apply(head, { type: 'push_config', data: { set: 'hook' } });
      const resumed = await executor.run(runOf(head, 5));
      assert.equal(resumed.result, 'completed');
      assert.deepEqual(resumptions, [{ kind: 'info', text: 'blue' }]);
      assert.equal((await store.get(head))?.head.statusMessage?.parts[0]?.text, 'painted blue');
    });
  }

  it('hand the agent a human decision with its notes', async () => {
    const decisions: unknown[] = [];
    const { executor, engine, submit, runOf } = setup(
      agentOf(async (ctx) => {
        if (ctx.resumption?.kind !== 'human_decision') return askHuman('ship?');
        decisions.push([ctx.resumption.approved, ctx.resumption.notes]);
        return ctx.resumption.approved ? complete('shipped') : reject('not shipped');
      }),
    );
    const head = await submit();
    await executor.run(runOf(head));
    await engine.apply(head, {
      type: 'human_approve',
      message: user('approve'),
      data: { notes: 'on friday' },
    });
    assert.equal((await executor.run(runOf(head))).result, 'completed');
    assert.deepEqual(decisions, [[true, 'on friday']]);
  });

  it('a task waiting for its requester is not the executor’s to run', async () => {
    let runs = 0;
    const { executor, submit, runOf } = setup(
      agentOf(async () => {
        runs++;
        return askForInput('?');
      }),
    );
    const head = await submit();
    await executor.run(runOf(head));
    assert.equal((await executor.run(runOf(head))).result, 'skipped');
    assert.equal(runs, 1);
  });
});

describe('a run stopped', () => {
  it('by a cancel: the next report fails, the agent’s signal aborts, and nothing more is written', async () => {
    let aborted = false;
    let reported: unknown;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const { executor, engine, submit, runOf, types } = setup(
      agentOf(async (ctx) => {
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
        });
        started();
        await gate;
        reported = await ctx.status('still here').catch((e: unknown) => e);
        return complete('done anyway');
      }),
    );
    const head = await submit();
    const run = executor.run(runOf(head));
    await running;
    await engine.apply(head, { type: 'cancel' });
    release();
    const outcome = await run;
    assert.equal(outcome.result, 'stopped');
    assert.ok(reported instanceof Error, 'the report was refused');
    assert.equal(aborted, true);
    assert.deepEqual(await types(head), ['created', 'confirm', 'start', 'cancel']);
  });

  it('by its heartbeat: a silent agent’s liveness write is refused once the task was canceled', async () => {
    const { executor, engine, submit, runOf, store, clock } = setup(
      agentOf(
        (ctx) =>
          new Promise<Outcome>((resolve) => {
            ctx.signal.addEventListener('abort', () => resolve(complete('aborted')));
          }),
      ),
      { heartbeatSeconds: 0.02 },
    );
    const head = await submit();
    // the run's heartbeat timer keeps no process alive (unref'd): this test's wait does
    const keepAlive = setInterval(() => {}, 1000);
    const running = executor.run(runOf(head)).finally(() => clearInterval(keepAlive));
    for (let i = 0; i < 100 && !(await store.get(head))?.head.heartbeatAt; i++)
      await new Promise((r) => setTimeout(r, 10));
    const beating = await store.get(head);
    assert.equal(
      beating?.head.heartbeatAt,
      clock.now().toISOString(),
      'a liveness write, at the clock’s time',
    );
    assert.equal(beating?.head.version, 3, 'which records no event');
    await engine.apply(head, { type: 'cancel' });
    const outcome = await running;
    assert.equal(outcome.result, 'stopped');
    assert.equal((await store.get(head))?.head.state, 'cancelled');
  });
});

describe('the lease watch', () => {
  it('looks again while the lease runs; past it, the run that left the task executing is lost', async () => {
    const { executor, engine, submit, clock, store } = setup(
      agentOf(async () => complete()),
      { leaseSeconds: 90 },
    );
    const head = await submit();
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    const watch = { tenant, taskId: head.taskId, version: 3, watch: 'lease' as const };
    clock.advanceSeconds(30);
    assert.deepEqual(await executor.run(watch), { result: 'recheck', recheckInSeconds: 60 });
    assert.equal(
      (await executor.run({ ...watch, watch: undefined })).result,
      'skipped',
      'someone else’s run',
    );
    clock.advanceSeconds(61);
    const lost = await executor.run(watch);
    assert.equal(lost.result, 'lost');
    const record = await store.get(head);
    assert.deepEqual(
      [record?.head.state, record?.recent.at(-1)?.type, record?.recent.at(-1)?.reason?.code],
      ['failed', 'heartbeat_lost', 'executor_lost'],
    );
    assert.equal((await executor.run(watch)).result, 'skipped', 'and a second watch finds it finished');
  });
});

describe('inline runs', () => {
  it('hand the task back (release) when the request’s time is up, and record nothing more of the run', async () => {
    let finish!: () => void;
    const { executor, engine, store } = setup(
      agentOf(async (ctx) => {
        await new Promise<void>((r) => {
          finish = r;
        });
        await ctx.status('too late').catch(() => undefined);
        return complete('too late');
      }),
    );
    const then: EventDraft[] = [{ type: 'confirm' }, { type: 'start' }];
    const { record } = await engine.create({
      tenant,
      owner,
      message: user('slow'),
      then,
    });
    const input = await executor.inputOf(record);
    const clockNow = Date.parse('2026-05-01T12:00:00.000Z');
    const outcome = await executor.execute(record.head, record, input, { handBackAt: clockNow + 20 });
    assert.equal(outcome.result, 'released');
    finish();
    await new Promise((r) => setTimeout(r, 10));
    const after = await store.get(record.head);
    assert.deepEqual([after?.head.state, after?.recent.at(-1)?.type], ['confirmed', 'release']);
    assert.equal(after?.head.version, 4, 'nothing of the run after the release');
  });
});

describe('what the agent is given', () => {
  it('the request, the recent history and its text, even when the record no longer carries the request', async () => {
    const { executor, engine, submit, store } = setup(
      agentOf(async () => complete()),
      { recentEvents: 1 },
    );
    const head = await submit('the request');
    await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    await engine.apply(head, {
      type: 'status_update',
      message: { messageId: 'a1', role: 'agent', parts: [{ text: 'working' }] },
    });
    const record = (await store.get(head)) as TaskRecord;
    assert.equal(record.recent.length, 1);
    const input = await executor.inputOf(record);
    assert.equal(input.request.parts[0]?.text, 'the request');
    assert.equal(input.text, 'the request');
    assert.deepEqual(
      input.history.map((m) => m.parts[0]?.text),
      ['the request', 'working'],
    );
  });
});

describe('a store unavailable for a while', () => {
  /** The store refusing its next `n` commits as the SDK would after its retries (nothing written). */
  const outage = (store: InMemoryTaskStore, n: number) => {
    let left = n;
    const commit = store.commit.bind(store);
    store.commit = async (...args: Parameters<InMemoryTaskStore['commit']>) => {
      if (left-- > 0) throw new UnavailableError('DynamoDB PutItem (ThrottlingException)');
      return commit(...args);
    };
    return () => n - Math.max(0, left);
  };

  it('records the outcome once it answers: the task completes, each event once', async () => {
    const { executor, submit, runOf, types, store } = setup(
      agentOf(async (ctx) => {
        refused = outage(store, WRITE_ROUNDS - 1);
        await ctx.progress(50, 'half way');
        return complete('done');
      }),
    );
    let refused = () => 0;
    const head = await submit();
    const outcome = await executor.run(runOf(head));
    assert.equal(outcome.result, 'completed');
    assert.equal(refused(), WRITE_ROUNDS - 1, 'the progress write was refused that often, then landed');
    assert.deepEqual(await types(head), ['created', 'confirm', 'start', 'status_update', 'complete']);
  });

  it('gives up after its rounds: the error is the run’s, and the task is not failed for it', async () => {
    const { executor, submit, runOf, store } = setup(
      agentOf(async () => {
        outage(store, 1000);
        return complete('done');
      }),
    );
    const head = await submit();
    await assert.rejects(executor.run(runOf(head)), UnavailableError);
    assert.equal((await store.get(head))?.head.state, 'executing', 'left to its heartbeat watch');
  });
});
