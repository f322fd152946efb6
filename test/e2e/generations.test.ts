/**
 * Generations through the running local hub with A2A_GENERATIONS=on (docs/generations.md), over JSON-RPC
 * and HTTP+JSON: `generation` on every Task (send, get, list, cancel, a stream's snapshot and updates); a
 * stale `ifGenerationMatch` is -32010 / HTTP 409 ABORTED and writes nothing (the table's DynamoDB stream,
 * read by a reader of our own, shows no record); a matching one is applied; a cancel is one change; the
 * `currentGeneration` long poll answers after a change, not at the end of its budget; the card declares it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { GENERATIONS_EXTENSION_URI } from '../../shared/protocol/a2a/generations.ts';
import { type WriteWatcher, watchWrites } from '../fuzz/writes.ts';

let hub: LocalHub;
let writes: WriteWatcher;

interface RpcBody {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Array<Record<string, unknown>> };
}
type Task = { id: string; generation?: string; status: { state: string } };

/** What a client that knows generations sends: their extension activated (docs/generations.md). */
const ACTIVATED = { 'A2A-Extensions': GENERATIONS_EXTENSION_URI };

const call = async (method: string, params: unknown, activated = true): Promise<RpcBody> => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...(activated ? ACTIVATED : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcBody;
};
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
const send = (text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) =>
  call('SendMessage', { message: message(text, extra), ...(configuration ? { configuration } : {}) });
const getTask = async (id: string, extra: Record<string, unknown> = {}) =>
  (await call('GetTask', { id, ...extra })).result as Task;
/** A task waiting for its requester's answer (INPUT_REQUIRED): nothing moves it until someone writes. */
const waitingTask = async (): Promise<Task> => {
  const sent = await send('ask');
  const task = (sent.result as { task: Task }).task;
  assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
  return task;
};
const errorInfo = (body: RpcBody) => body.error?.data?.find((d) => String(d['@type']).endsWith('ErrorInfo'));

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000, env: { A2A_GENERATIONS: 'on' } });
  writes = await watchWrites(hub.dynamoEndpoint, hub.tableName);
});
after(async () => {
  writes?.close();
  await hub?.stop();
});

describe('generations on (A2A_GENERATIONS=on)', () => {
  it('the card declares the extension, not required, in v1.0 and v0.3', async () => {
    for (const version of ['1.0', '0.3']) {
      const res = await fetch(`${hub.url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': version },
      });
      const card = (await res.json()) as {
        capabilities: { extensions?: Array<{ uri: string; required?: boolean }> };
      };
      const ours = card.capabilities.extensions?.find((e) => e.uri === GENERATIONS_EXTENSION_URI);
      assert.ok(ours, `v${version} card`);
      assert.equal(ours.required, false);
    }
  });

  it('every Task shows its generation as an int64 string: send, get, list', async () => {
    const task = await waitingTask();
    assert.match(task.generation ?? '', /^[1-9]\d*$/);
    assert.equal((await getTask(task.id)).generation, task.generation);
    const listed = (await call('ListTasks', { pageSize: 100 })).result as { tasks: Task[] };
    assert.equal(listed.tasks.find((t) => t.id === task.id)?.generation, task.generation);
    const rest = (await (
      await fetch(`${hub.url}/a2a/rest/tasks/${task.id}`, { headers: ACTIVATED })
    ).json()) as Task;
    assert.equal(rest.generation, task.generation);
  });

  it('a request that does not activate the extension sees A2A 1.0 tasks (no generation); the activation is echoed', async () => {
    const task = await waitingTask();
    const plain = (await call('GetTask', { id: task.id }, false)).result as Task;
    assert.equal(plain.id, task.id);
    assert.equal('generation' in plain, false, 'a strict 1.0 client sees no field it does not know');
    const listed = (await call('ListTasks', { pageSize: 100 }, false)).result as { tasks: Task[] };
    assert.equal(
      listed.tasks.some((t) => 'generation' in t),
      false,
    );
    const res = await fetch(`${hub.url}/a2a/rest/tasks/${task.id}`);
    assert.equal('generation' in ((await res.json()) as Task), false);
    assert.equal(res.headers.get('a2a-extensions'), null, 'nothing activated, nothing echoed');
    const activated = await fetch(`${hub.url}/a2a/rest/tasks/${task.id}`, { headers: ACTIVATED });
    assert.equal(activated.headers.get('a2a-extensions'), GENERATIONS_EXTENSION_URI);
    assert.equal(((await activated.json()) as Task).generation, task.generation);
    // the request fields are honoured whoever sends them: a stale one is refused all the same
    await writes.drain();
    const stale = await call(
      'SendMessage',
      { message: message('Paris', { taskId: task.id }), configuration: { ifGenerationMatch: '1' } },
      false,
    );
    assert.equal(stale.error?.code, -32010);
    assert.deepEqual(await writes.drain(), []);
  });

  it('a stale ifGenerationMatch is -32010 and writes nothing; a matching one is applied', async () => {
    const task = await waitingTask();
    const g = Number(task.generation);
    await writes.drain();
    const stale = await send('Paris', { taskId: task.id }, { ifGenerationMatch: String(g - 1) });
    assert.equal(stale.error?.code, -32010, JSON.stringify(stale));
    assert.equal(errorInfo(stale)?.reason, 'TASK_GENERATION_MISMATCH');
    assert.deepEqual(errorInfo(stale)?.metadata, {
      taskId: task.id,
      expectedGeneration: String(g - 1),
      generation: String(g),
    });
    assert.deepEqual(await writes.drain(), [], 'no record in the table stream');
    const still = await getTask(task.id);
    assert.equal(still.generation, task.generation);
    assert.equal(still.status.state, 'TASK_STATE_INPUT_REQUIRED');

    const matching = await send('Paris', { taskId: task.id }, { if_generation_match: g });
    const done = (matching.result as { task: Task }).task;
    assert.equal(done.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(matching));
    assert.ok(Number(done.generation) > g);
    assert.equal((await getTask(task.id)).generation, done.generation);
    // the reader does see writes: the applied answer is there
    assert.ok((await writes.drain()).some((w) => w.pk.endsWith(task.id) && w.sk === 'T'));
  });

  it('HTTP+JSON: a stale one is 409 with a google.rpc.Status ABORTED and ErrorInfo, nothing written', async () => {
    const task = await waitingTask();
    await writes.drain();
    const res = await fetch(`${hub.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', ...ACTIVATED },
      body: JSON.stringify({
        message: message('Paris', { taskId: task.id }),
        configuration: { if_generation_match: String(Number(task.generation) + 1) },
      }),
    });
    assert.equal(res.status, 409);
    const body = (await res.json()) as {
      error: { code: number; status: string; details: Array<Record<string, unknown>> };
    };
    assert.equal(body.error.code, 409);
    assert.equal(body.error.status, 'ABORTED');
    assert.equal(body.error.details[0]?.reason, 'TASK_GENERATION_MISMATCH');
    assert.equal(body.error.details[0]?.domain, 'a2a-protocol.org');
    assert.deepEqual(await writes.drain(), []);
  });

  it('a new task: only 0 matches; another value is -32010; a malformed one -32602; neither writes', async () => {
    await writes.drain();
    const refused = await send('hello', {}, { ifGenerationMatch: '3' });
    assert.equal(refused.error?.code, -32010);
    const bad = await send('hello', {}, { ifGenerationMatch: 'three' });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error?.message ?? '', /ifGenerationMatch/);
    assert.deepEqual(await writes.drain(), []);
    const made = await send('hello', {}, { ifGenerationMatch: 0 });
    assert.equal((made.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
  });

  it('SendStreamingMessage with a stale ifGenerationMatch: a plain -32010 answer before any stream, nothing written', async () => {
    const task = await waitingTask();
    await writes.drain();
    const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...ACTIVATED },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendStreamingMessage',
        params: {
          message: message('Paris', { taskId: task.id }),
          configuration: { ifGenerationMatch: String(Number(task.generation) - 1) },
        },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /application\/json/, 'not text/event-stream');
    const body = (await res.json()) as RpcBody;
    assert.equal(body.error?.code, -32010, JSON.stringify(body));
    assert.deepEqual(await writes.drain(), [], 'no record in the table stream');
    assert.equal((await getTask(task.id)).status.state, 'TASK_STATE_INPUT_REQUIRED');
  });

  it('a cancel is one change: the generation moves by exactly one', async () => {
    const task = await waitingTask();
    const canceled = (await call('CancelTask', { id: task.id })).result as Task;
    assert.equal(canceled.status.state, 'TASK_STATE_CANCELED');
    assert.equal(Number(canceled.generation), Number(task.generation) + 1);
    assert.equal((await getTask(task.id)).generation, canceled.generation);
  });

  it('the long poll answers after a change, not at the end of its budget (25 s)', async () => {
    const task = await waitingTask();
    const started = Date.now();
    const polling = getTask(task.id, { currentGeneration: task.generation });
    // let it wait a while, then change the task
    await new Promise((r) => setTimeout(r, 1_500));
    const canceled = (await call('CancelTask', { id: task.id })).result as Task;
    const changedAt = Date.now();
    const answer = await polling;
    const answeredAt = Date.now();
    assert.equal(answer.generation, canceled.generation, 'the new generation');
    assert.equal(answer.status.state, 'TASK_STATE_CANCELED');
    assert.ok(answeredAt - started >= 1_500, 'it waited for the change');
    // one poll interval (1 s) after the change, with a generous margin for a loaded machine
    assert.ok(answeredAt - changedAt < 10_000, `${answeredAt - changedAt} ms after the change`);
    // REST: currentGeneration as a query parameter; already past it: answered at once
    const rest = (await (
      await fetch(
        `${hub.url}/a2a/rest/tasks/${task.id}?currentGeneration=${Number(canceled.generation) - 1}`,
        {
          headers: ACTIVATED,
        },
      )
    ).json()) as Task;
    assert.equal(rest.generation, canceled.generation);
  });

  it("a stream's snapshot and updates carry the generation of their event (the SSE id)", async () => {
    const res = await fetch(`${hub.url}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED },
      body: JSON.stringify({ message: message('chunks 2') }),
    });
    const text = await res.text();
    const events = text
      .split('\n\n')
      .filter((e) => e.includes('data:'))
      .map((e) => ({
        id: /^id: (\d+)$/m.exec(e)?.[1],
        data: JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as Record<string, { generation?: string }>,
      }));
    assert.ok(events.length >= 3, text);
    for (const { id, data } of events) {
      const payload = Object.values(data)[0]!;
      assert.equal(payload.generation, id, JSON.stringify(data));
    }
  });
});
