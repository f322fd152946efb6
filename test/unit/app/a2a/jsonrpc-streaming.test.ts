/**
 * The streaming methods of the JSON-RPC binding over the A2A handler, with a fake task service and a
 * scripted task on a virtual clock: SSE framing (ids, each data a JSON-RPC response with the request's
 * id, the version's shape), plain errors before a stream, errors inside one, Last-Event-ID, and a
 * streamed send's first event (snapshot, or the Message of a reply).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JsonRpcBinding, jsonRpcOver, type RpcResponse } from '../../../../shared/app/a2a/jsonrpc.ts';
import { derivedTaskId } from '../../../../shared/app/tasks/task-engine.ts';
import type { TaskService } from '../../../../shared/app/tasks/task-service.ts';
import type { Message } from '../../../../shared/domain/task.ts';
import type { TaskRecord } from '../../../../shared/ports/task-store.ts';
import { agentMessage } from '../../protocol/a2a/fixtures.ts';
import { CALLER, type ScriptedEvent, type ScriptedTask, scriptedTask, virtualClock } from './stream-fakes.ts';

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Splits SSE text into its frames (events and comments). */
const frames = (text: string): SseFrame[] =>
  text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else {
          const [field, ...rest] = line.split(': ');
          (frame as Record<string, string>)[field!] = rest.join(': ');
        }
      }
      return frame;
    });

const collect = async (response: RpcResponse): Promise<SseFrame[]> => {
  assert.ok(response.stream, `a stream, got ${response.body}`);
  let text = '';
  for await (const chunk of response.stream) text += chunk;
  return frames(text);
};

const dataOf = (frame: SseFrame | undefined) => JSON.parse(frame?.data ?? 'null') as Record<string, unknown>;

const SLOW: ScriptedEvent[] = [
  {
    at: 1000,
    type: 'status_update',
    to: 'executing',
    progress: 50,
    message: agentMessage({ parts: [{ text: '1/2 s' }] }),
  },
  { at: 2000, type: 'complete', to: 'completed', message: agentMessage({ messageId: 'done' }) },
];

const userText = (text: string, extra: Partial<Message> = {}) => ({
  messageId: `m-${text}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

const rpcOver = (
  task: ScriptedTask,
  clock: ReturnType<typeof virtualClock>,
  tasks: Partial<TaskService> = {},
) => jsonRpcOver(tasks as TaskService, { reader: task, clock, logger: { error: () => {} } });

const call = (
  rpc: JsonRpcBinding,
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
) =>
  rpc.handle({
    body: JSON.stringify({ jsonrpc: '2.0', id: 'req-7', method, params }),
    headers: { 'content-type': 'application/json', ...headers },
    principal: { ...CALLER, rights: ['read', 'write'], scheme: 'api-key' },
    blockingBudgetMs: 1000,
    streamBudgetMs: 60_000,
  });

describe('SubscribeToTask over JSON-RPC', () => {
  it('answers text/event-stream: the snapshot, then each event, each a JSON-RPC response with the id', async () => {
    const clock = virtualClock();
    const rpc = rpcOver(scriptedTask(clock, SLOW), clock);
    const response = await call(rpc, 'SubscribeToTask', { id: 't1' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/event-stream');
    assert.equal(response.headers['cache-control'], 'no-cache');
    assert.equal(response.meta?.taskId, 't1');
    const got = await collect(response);
    assert.deepEqual(
      got.map((f) => f.id),
      ['1', '2', '3'],
      'ids are the task versions',
    );
    for (const f of got) {
      const data = dataOf(f);
      assert.equal(data.jsonrpc, '2.0');
      assert.equal(data.id, 'req-7');
    }
    assert.deepEqual(Object.keys(dataOf(got[0]).result as object), ['task']);
    const progress = (dataOf(got[1]).result as { statusUpdate: { status: { state: string } } }).statusUpdate;
    assert.equal(progress.status.state, 'TASK_STATE_WORKING');
    const done = (dataOf(got[2]).result as { statusUpdate: { status: { state: string } } }).statusUpdate;
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED');
  });

  it('v0.3 tasks/resubscribe: bare objects with kind, final only on the last status update', async () => {
    const clock = virtualClock();
    const rpc = rpcOver(scriptedTask(clock, SLOW), clock);
    const got = await collect(await call(rpc, 'tasks/resubscribe', { id: 't1' }, {}));
    const results = got.map(
      (f) => dataOf(f).result as { kind: string; final?: boolean; status?: { state: string } },
    );
    assert.deepEqual(
      results.map((r) => [r.kind, r.final]),
      [
        ['task', undefined],
        ['status-update', false],
        ['status-update', true],
      ],
    );
    assert.equal(results[2]?.status?.state, 'completed');
  });

  it('plain JSON-RPC errors before a stream: unknown task -32001, finished task -32004, no store -32004', async () => {
    const clock = virtualClock();
    const rpc = rpcOver(scriptedTask(clock, SLOW), clock);
    const unknown = await call(rpc, 'SubscribeToTask', { id: 'nope' });
    assert.equal(unknown.stream, undefined);
    assert.equal(unknown.headers['content-type'], 'application/json');
    assert.equal(JSON.parse(unknown.body).error.code, -32001);
    assert.equal(JSON.parse(unknown.body).id, 'req-7');

    clock.advance(5000);
    const finished = await call(rpc, 'SubscribeToTask', { id: 't1' });
    const error = JSON.parse(finished.body).error;
    assert.equal(error.code, -32004);
    assert.match(error.message, /TASK_STATE_COMPLETED.*GetTask/);
    const v03 = await call(rpc, 'tasks/resubscribe', { id: 't1' }, {});
    assert.equal(JSON.parse(v03.body).error.data.reason, 'UNSUPPORTED_OPERATION');

    const storeless = jsonRpcOver({} as TaskService);
    const refused = await call(storeless, 'SubscribeToTask', { id: 't1' });
    assert.equal(JSON.parse(refused.body).error.code, -32004);
    const badParams = await call(rpc, 'SubscribeToTask', { task: 't1' });
    assert.equal(JSON.parse(badParams.body).error.code, -32602);
  });

  it('Last-Event-ID resumes after that event, without a snapshot; an impossible one is -32602', async () => {
    const clock = virtualClock();
    const rpc = rpcOver(scriptedTask(clock, SLOW), clock);
    clock.advance(1500);
    const resumed = await collect(
      await call(rpc, 'SubscribeToTask', { id: 't1' }, { 'a2a-version': '1.0', 'last-event-id': '1' }),
    );
    assert.equal(resumed[0]?.comment, 'keepalive', 'a resumed stream opens with a comment');
    assert.deepEqual(
      resumed.slice(1).map((f) => f.id),
      ['2', '3'],
    );
    for (const bad of ['x', '-1', '4']) {
      const r = await call(
        rpc,
        'SubscribeToTask',
        { id: 't1' },
        { 'a2a-version': '1.0', 'last-event-id': bad },
      );
      const error = JSON.parse(r.body).error;
      assert.equal(error.code, -32602, bad);
      assert.match(error.message, /Last-Event-ID/);
    }
    // everything seen of a finished task: refused like a plain subscribe
    const seen = await call(
      rpc,
      'SubscribeToTask',
      { id: 't1' },
      { 'a2a-version': '1.0', 'last-event-id': '3' },
    );
    assert.equal(JSON.parse(seen.body).error.code, -32004);
    // a missed final event of a finished task is still delivered
    const missed = await collect(
      await call(rpc, 'SubscribeToTask', { id: 't1' }, { 'a2a-version': '1.0', 'last-event-id': '2' }),
    );
    assert.deepEqual(
      missed.filter((f) => f.id).map((f) => f.id),
      ['3'],
    );
  });

  it('an error inside a stream is a last data: with the JSON-RPC error and the id, then the end', async () => {
    const clock = virtualClock();
    const task = scriptedTask(clock, SLOW);
    const failing = { ...task, events: async () => Promise.reject(new Error('store down')) };
    const logged: unknown[] = [];
    const rpc = jsonRpcOver({} as TaskService, {
      reader: failing,
      clock,
      logger: { error: (...a) => logged.push(a) },
    });
    const got = await collect(await call(rpc, 'SubscribeToTask', { id: 't1' }));
    assert.equal(got.length, 2);
    assert.ok(dataOf(got[0]).result, 'the snapshot');
    assert.equal(got[1]?.event, 'error');
    const error = dataOf(got[1]);
    assert.equal(error.id, 'req-7');
    assert.equal((error.error as { code: number }).code, -32603);
    assert.equal((error.error as { message: string }).message, 'Internal error', 'nothing leaks');
    assert.equal(logged.length, 1, 'logged with its cause');
  });

  it('close() ends a stream that is waiting for news, promptly', async () => {
    const clock = virtualClock();
    const rpc = rpcOver(scriptedTask(clock, []), clock);
    const response = await call(rpc, 'SubscribeToTask', { id: 't1' });
    const iterator = response.stream![Symbol.asyncIterator]();
    assert.match((await iterator.next()).value as string, /^id: 1\n/);
    response.stream!.close();
    assert.equal((await iterator.next()).done, true);
  });
});

describe('SendStreamingMessage over JSON-RPC', () => {
  const derived = (text: string) =>
    derivedTaskId(CALLER.tenant, CALLER.owner, { messageId: `m-${text}`, role: 'user', parts: [{ text }] });

  it('a message-only reply: the stream is that Message alone, without an id', async () => {
    const clock = virtualClock();
    const reply = agentMessage({ messageId: 'pong', taskId: undefined, parts: [{ text: 'pong' }] });
    delete reply.taskId;
    const rpc = rpcOver(scriptedTask(clock, []), clock, { send: async () => ({ reply, duplicate: false }) });
    const response = await call(rpc, 'SendStreamingMessage', { message: userText('ping') });
    assert.equal(response.meta?.contextId, 'c1');
    const got = await collect(response);
    assert.equal(got.length, 1);
    assert.equal(got[0]?.id, undefined);
    const result = dataOf(got[0]).result as { message: { role: string; parts: { text: string }[] } };
    assert.equal(result.message.role, 'ROLE_AGENT');
    assert.equal(result.message.parts[0]?.text, 'pong');
  });

  it('a new task: its snapshot once the write is seen, then its events; the run runs inline until the budget', async () => {
    const clock = virtualClock();
    const taskId = derived('slow 2');
    const task = scriptedTask(clock, SLOW, { taskId });
    let release!: (r: { record: TaskRecord; head: TaskRecord['head']; duplicate: boolean }) => void;
    const sends: unknown[][] = [];
    const rpc = rpcOver(task, clock, {
      send: (...args: unknown[]) => {
        sends.push(args);
        return new Promise((resolve) => {
          release = resolve;
        });
      },
    });
    const response = await call(rpc, 'SendStreamingMessage', { message: userText('slow 2') });
    const options = sends[0]?.[3] as { runInlineUntil: number };
    assert.equal(
      options.runInlineUntil,
      clock.now() - 100 + 60_000 - 2_000,
      'hands back 2 s before the close',
    );
    const iterator = response.stream![Symbol.asyncIterator]();
    const first = await iterator.next();
    assert.match(first.value as string, /^id: 1\ndata: \{"jsonrpc":"2.0","id":"req-7","result":\{"task":/);
    const rest: string[] = [];
    const done = (async () => {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    })();
    // the stream ends only once the inline run has: release it after the task completed
    await new Promise((r) => setTimeout(r, 20));
    const record = (await task.find(CALLER, taskId))!;
    release({ record, head: record.head, duplicate: false });
    await done;
    assert.deepEqual(
      frames(rest.join('')).map((f) => f.id),
      ['2', '3'],
    );
  });

  it('a send that settles before its write is seen opens with the settled task and its final status', async () => {
    const clock = virtualClock();
    const taskId = derived('hello');
    const task = scriptedTask(clock, [{ at: 0, type: 'complete', to: 'completed' }], { taskId });
    const record = (await task.find(CALLER, taskId))!;
    const rpc = rpcOver(task, clock, { send: async () => ({ record, head: record.head, duplicate: false }) });
    const got = await collect(await call(rpc, 'SendStreamingMessage', { message: userText('hello') }));
    assert.deepEqual(
      got.map((f) => Object.keys(dataOf(f).result as object)[0]),
      ['task', 'statusUpdate'],
      'the stream still ends on a status update, never on a snapshot alone',
    );
    assert.deepEqual(
      got.map((f) => f.id),
      ['2', '2'],
    );
  });

  it('continuing a task: the snapshot is taken after the answer was applied', async () => {
    const clock = virtualClock();
    const task = scriptedTask(
      clock,
      [
        { at: 0, type: 'need_info', to: 'info_needed', message: agentMessage() },
        { at: 250, type: 'info_provided', to: 'info_provided' },
        { at: 250, type: 'resume', to: 'executing' },
        { at: 1200, type: 'complete', to: 'completed' },
      ],
      {},
    );
    // the inline run ends (in real time) after the stream saw the completion
    const rpc = rpcOver(task, clock, {
      continueTask: async () => {
        await new Promise((r) => setTimeout(r, 50));
        const record = (await task.find(CALLER, 't1'))!;
        return { record, head: record.head, duplicate: false };
      },
    });
    const got = await collect(
      await call(rpc, 'SendStreamingMessage', { message: userText('42', { taskId: 't1' }) }),
    );
    const snapshot = dataOf(got[0]).result as { task: { status: { state: string } } };
    assert.equal(snapshot.task.status.state, 'TASK_STATE_WORKING', 'not the INPUT_REQUIRED it was');
    assert.equal(got[0]?.id, '4');
    assert.deepEqual(
      got.slice(1).map((f) => f.id),
      ['5'],
    );
  });

  it('errors before the stream are plain: a ROLE_AGENT message, an unknown task, a refused send', async () => {
    const clock = virtualClock();
    const calls: string[] = [];
    const rpc = rpcOver(scriptedTask(clock, []), clock, {
      send: async () => {
        calls.push('send');
        throw new Error('unreachable');
      },
      continueTask: async () => {
        calls.push('continueTask');
        const { InvalidTransitionError } = await import('../../../../shared/domain/errors.ts');
        throw new InvalidTransitionError('t1', 'completed', 'info_provided');
      },
    });
    const agent = await call(rpc, 'SendStreamingMessage', {
      message: { ...userText('x'), role: 'ROLE_AGENT' },
    });
    assert.equal(JSON.parse(agent.body).error.code, -32602);
    assert.deepEqual(calls, [], 'nothing was sent');
    const unknown = await call(rpc, 'SendStreamingMessage', { message: userText('x', { taskId: 'nope' }) });
    assert.equal(JSON.parse(unknown.body).error.code, -32001);
    const refused = await call(rpc, 'SendStreamingMessage', { message: userText('x', { taskId: 't1' }) });
    assert.equal(refused.stream, undefined);
    assert.equal(JSON.parse(refused.body).error.code, -32004);
    assert.ok(refused.settled, 'the answer says when the send is done');
    await refused.settled;
  });

  it('an inline run that fails after the stream began ends the stream with its error', async () => {
    const clock = virtualClock();
    const taskId = derived('slow 2');
    const task = scriptedTask(clock, SLOW, { taskId });
    let fail!: (e: Error) => void;
    const rpc = rpcOver(task, clock, {
      send: () =>
        new Promise((_resolve, reject) => {
          fail = reject;
        }),
    });
    const response = await call(rpc, 'SendStreamingMessage', { message: userText('slow 2') });
    const iterator = response.stream![Symbol.asyncIterator]();
    await iterator.next();
    const { ConflictError } = await import('../../../../shared/domain/errors.ts');
    fail(new ConflictError(taskId, 5));
    const rest: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    const last = frames(rest.join('')).at(-1);
    assert.equal(last?.event, 'error');
    assert.equal((dataOf(last).error as { code: number }).code, -32050);
  });
});
