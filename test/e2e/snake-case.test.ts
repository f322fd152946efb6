/**
 * The proto's snake_case field names, as the TCK and Python clients send them, against the local hub
 * over both bindings: every field of a send (message, parts, configuration, an inline push config), of
 * GetTask, ListTasks and the push-config operations is read as its camelCase twin (ProtoJSON accepts
 * either), and a field given both ways is refused, writing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

let hub: LocalHub;

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
});
after(async () => hub?.stop());

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any;

const rpc = async (method: string, params: unknown): Promise<Json> => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return res.json();
};

const rest = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${hub.url}/a2a/rest${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Json };
};

const snakeMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  message_id: crypto.randomUUID(),
  context_id: `ctx-${crypto.randomUUID()}`,
  role: 'ROLE_USER',
  parts: [{ text, media_type: 'text/plain' }],
  reference_task_ids: [],
  ...extra,
});

const taskCount = async (contextId: string): Promise<number> =>
  (await rest('GET', `/tasks?context_id=${contextId}&page_size=100`)).json.tasks.length;

describe('snake_case field names over JSON-RPC', () => {
  it('a send, GetTask, ListTasks and push configs read every snake_case field', async () => {
    const message = snakeMessage('parts');
    const sent = await rpc('SendMessage', {
      message,
      configuration: {
        accepted_output_modes: ['text/plain', 'application/json'],
        history_length: 1,
        return_immediately: false,
      },
    });
    const task = sent.result?.task;
    assert.ok(task, JSON.stringify(sent));
    assert.equal(task.contextId, message.context_id, 'context_id was read');
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED', 'blocking: return_immediately false was read');
    assert.equal(task.history.length, 1, 'history_length was read');
    const got = await rpc('GetTask', { id: task.id, history_length: 0 });
    assert.equal(got.result.history, undefined, 'history_length 0: no history');
    const listed = await rpc('ListTasks', {
      context_id: message.context_id,
      page_size: 1,
      include_artifacts: true,
    });
    assert.deepEqual(
      listed.result.tasks.map((t: Json) => t.id),
      [task.id],
    );
    assert.ok(listed.result.tasks[0].artifacts.length > 0, 'include_artifacts was read');
    const later = await rpc('SendMessage', {
      message: snakeMessage('slow 1'),
      configuration: {
        return_immediately: true,
        task_push_notification_config: { id: 'hook', url: 'https://hooks.example.com/a2a' },
      },
    });
    const live = later.result.task;
    assert.equal(live.status.state === 'TASK_STATE_COMPLETED', false, 'return_immediately true was read');
    const configs = await rpc('ListTaskPushNotificationConfigs', { task_id: live.id, page_size: 10 });
    assert.deepEqual(
      configs.result.configs.map((c: Json) => c.id),
      ['hook'],
      'the inline task_push_notification_config was registered',
    );
    const one = await rpc('GetTaskPushNotificationConfig', { task_id: live.id, id: 'hook' });
    assert.equal(one.result.url, 'https://hooks.example.com/a2a');
  });

  it('a field given in both spellings is refused with -32602 and writes nothing', async () => {
    const message = { ...snakeMessage('hello'), messageId: 'also-camel' };
    const refused = await rpc('SendMessage', { message });
    assert.equal(refused.error?.code, -32602);
    assert.match(refused.error.message, /both/);
    assert.equal(await taskCount(message.context_id), 0);
  });
});

describe('snake_case field names over HTTP+JSON', () => {
  it('bodies and query parameters', async () => {
    const message = snakeMessage('hello');
    const sent = await rest('POST', '/message:send', {
      message,
      configuration: { history_length: 0, return_immediately: false },
    });
    assert.equal(sent.status, 200);
    assert.equal(sent.json.task.contextId, message.context_id);
    assert.equal(sent.json.task.history, undefined, 'history_length 0 was read');
    const id = sent.json.task.id;
    const got = await rest('GET', `/tasks/${id}?history_length=1`);
    assert.equal(got.json.history.length, 1);
    const listed = await rest(
      'GET',
      `/tasks?context_id=${message.context_id}&page_size=5&include_artifacts=false`,
    );
    assert.deepEqual(
      listed.json.tasks.map((t: Json) => [t.id, t.artifacts]),
      [[id, undefined]],
    );
    const both = await rest('GET', `/tasks?pageSize=5&page_size=6`);
    assert.equal(both.status, 400);
    assert.equal(both.json.error.status, 'INVALID_ARGUMENT');
    const doubled = { ...snakeMessage('hello'), contextId: `ctx-${crypto.randomUUID()}` };
    const twice = await rest('POST', '/message:send', { message: doubled });
    assert.equal(twice.status, 400);
    assert.equal(await taskCount(doubled.context_id), 0, 'nothing written under either spelling');
    assert.equal(await taskCount(doubled.contextId), 0);
  });
});
