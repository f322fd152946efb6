/**
 * The documented bounds on what a request may carry (docs/security.md#limits), through the local hub:
 * metadata over 4 KiB, ids over 256 characters and a requester API body over 1 MiB are refused with
 * each binding's error, and write nothing (the table's stream is read around every refused request).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { SYNAPSE_TASKS_PATH } from '../../shared/contracts/routes.ts';
import { MAX_ID_LENGTH, MAX_METADATA_BYTES } from '../../shared/domain/task.ts';
import { type WriteWatcher, watchWrites } from '../fuzz/writes.ts';

let hub: LocalHub;
let writes: WriteWatcher;

before(async () => {
  hub = await startLocalHub({
    port: 0,
    sweepIntervalMs: 60_000,
    env: {
      SYNAPSE_PEERS: JSON.stringify([
        {
          peerId: 'peer-x',
          tenant: 'default',
          endpoint: 'http://127.0.0.1:9/never',
          keys: [{ id: 'k1', secret: 'peer-x-shared-secret-of-32-characters' }],
        },
      ]),
    },
  });
  writes = await watchWrites(hub.dynamoEndpoint, hub.tableName);
});
after(async () => {
  writes?.close();
  await hub?.stop();
});

/** Everything written so far is read and forgotten: the next drain shows only what follows. */
beforeEach(async () => {
  await hub.relayCaughtUp();
  await writes.drain();
});

const nothingWritten = async (what: string) => {
  // a write of the request would be on the stream by now: the answer came after it
  assert.deepEqual(await writes.drain(), [], `${what} wrote nothing`);
};

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

const http = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${hub.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  // a stream's error comes as one SSE event: its data is the JSON-RPC response
  const data = text.startsWith('data:') || text.includes('\ndata:') ? /data: ?(.*)/.exec(text)?.[1] : text;
  return { status: res.status, text, json: JSON.parse(data ?? '{}') } as Answer;
};

const rpc = (method: string, params: unknown, headers?: Record<string, string>) =>
  http('POST', '/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method, params }, headers);

const rpcError = (a: Answer) => a.json.error as { code: number; message: string; data?: unknown };

/** A JSON object of exactly `bytes` bytes as JSON text. */
const metadataOf = (bytes: number): Record<string, unknown> => {
  const m = { note: '' };
  m.note = 'x'.repeat(bytes - JSON.stringify(m).length);
  assert.equal(Buffer.byteLength(JSON.stringify(m)), bytes);
  return m;
};

const v1Message = (extra: Record<string, unknown> = {}, part: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text: 'hello', ...part }],
  ...extra,
});

describe('metadata over 4 KiB is refused at the edge and writes nothing', () => {
  const over = metadataOf(MAX_METADATA_BYTES + 1);
  const fiveKiB = metadataOf(5 * 1024);

  it('JSON-RPC SendMessage: message metadata, part metadata, request metadata → -32602', async () => {
    const cases: Array<[string, unknown]> = [
      ['message.metadata', { message: v1Message({ metadata: fiveKiB }) }],
      ['message.metadata (one byte over)', { message: v1Message({ metadata: over }) }],
      ['message.parts[0].metadata', { message: v1Message({}, { metadata: fiveKiB }) }],
      ['metadata', { message: v1Message(), metadata: fiveKiB }],
    ];
    for (const [field, params] of cases) {
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const a = await rpc(method, params);
        assert.equal(rpcError(a)?.code, -32602, `${method} ${field}: ${a.text.slice(0, 300)}`);
        assert.match(rpcError(a).message, /4096 bytes/, field);
        await nothingWritten(`${method} with ${field} over 4 KiB`);
      }
    }
  });

  it('JSON-RPC v0.3 message/send: message and part metadata → -32602', async () => {
    const v03 = (extra: Record<string, unknown>, part: Record<string, unknown> = {}) => ({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'hello', ...part }],
        ...extra,
      },
    });
    for (const params of [v03({ metadata: fiveKiB }), v03({}, { metadata: fiveKiB })]) {
      const a = await rpc('message/send', params, { 'A2A-Version': '0.3' });
      assert.equal(rpcError(a)?.code, -32602, a.text.slice(0, 300));
      await nothingWritten('v0.3 message/send with metadata over 4 KiB');
    }
  });

  it('HTTP+JSON message:send and message:stream: 400 INVALID_ARGUMENT', async () => {
    for (const path of ['/a2a/rest/message:send', '/a2a/rest/message:stream']) {
      for (const body of [
        { message: v1Message({ metadata: fiveKiB }) },
        { message: v1Message({}, { metadata: fiveKiB }) },
        { message: v1Message(), metadata: fiveKiB },
      ]) {
        const a = await http('POST', path, body);
        assert.equal(a.status, 400, `${path}: ${a.text.slice(0, 300)}`);
        assert.equal((a.json.error as { status: string }).status, 'INVALID_ARGUMENT');
        await nothingWritten(`${path} with metadata over 4 KiB`);
      }
    }
  });

  it('metadata of exactly 4 KiB is accepted and kept', async () => {
    const a = await rpc('SendMessage', { message: v1Message({ metadata: metadataOf(MAX_METADATA_BYTES) }) });
    assert.equal(a.json.error, undefined, a.text.slice(0, 300));
    const task = (a.json.result as { task: { history: Array<{ metadata?: unknown }> } }).task;
    assert.deepEqual(task.history[0]?.metadata, metadataOf(MAX_METADATA_BYTES));
  });
});

describe('ids over 256 characters are invalid params, never echoed, and write nothing', () => {
  const long = 'L'.repeat(300);

  it('JSON-RPC: every operation taking a task id, and ListTasks contextId → -32602', async () => {
    const cases: Array<[string, unknown]> = [
      ['GetTask', { id: long }],
      ['CancelTask', { id: long }],
      ['SubscribeToTask', { id: long }],
      ['CreateTaskPushNotificationConfig', { taskId: long, url: 'https://example.com/hook' }],
      ['GetTaskPushNotificationConfig', { taskId: long, id: 'c1' }],
      ['ListTaskPushNotificationConfigs', { taskId: long }],
      ['DeleteTaskPushNotificationConfig', { taskId: long, id: 'c1' }],
      ['ListTasks', { contextId: long }],
      ['SendMessage', { message: v1Message({ taskId: long }) }],
    ];
    for (const [method, params] of cases) {
      const a = await rpc(method, params);
      assert.equal(rpcError(a)?.code, -32602, `${method}: ${a.text.slice(0, 300)}`);
      assert.ok(!a.text.includes(long.slice(0, 100)), `${method} does not echo the id`);
      await nothingWritten(method);
    }
    const v03: Array<[string, unknown]> = [
      ['tasks/get', { id: long }],
      ['tasks/cancel', { id: long }],
      ['tasks/resubscribe', { id: long }],
      ['tasks/pushNotificationConfig/get', { id: long }],
      ['tasks/pushNotificationConfig/list', { id: long }],
      ['tasks/pushNotificationConfig/delete', { id: long, pushNotificationConfigId: 'c1' }],
      [
        'tasks/pushNotificationConfig/set',
        { taskId: long, pushNotificationConfig: { url: 'https://e.x/h' } },
      ],
    ];
    for (const [method, params] of v03) {
      const a = await rpc(method, params, { 'A2A-Version': '0.3' });
      assert.equal(rpcError(a)?.code, -32602, `${method}: ${a.text.slice(0, 300)}`);
      assert.ok(!a.text.includes(long.slice(0, 100)), `${method} does not echo the id`);
      await nothingWritten(method);
    }
  });

  it('an id of exactly 256 characters is still looked up (not found)', async () => {
    const a = await rpc('GetTask', { id: 'L'.repeat(MAX_ID_LENGTH) });
    assert.equal(rpcError(a)?.code, -32001);
  });

  it('HTTP+JSON: 400 INVALID_ARGUMENT on every route with a task id', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/a2a/rest/tasks/${long}`],
      ['POST', `/a2a/rest/tasks/${long}:cancel`, {}],
      ['GET', `/a2a/rest/tasks/${long}:subscribe`],
      ['POST', `/a2a/rest/tasks/${long}/pushNotificationConfigs`, { url: 'https://example.com/hook' }],
      ['GET', `/a2a/rest/tasks/${long}/pushNotificationConfigs`],
      ['GET', `/a2a/rest/tasks/${long}/pushNotificationConfigs/c1`],
      ['DELETE', `/a2a/rest/tasks/${long}/pushNotificationConfigs/c1`],
      ['GET', `/a2a/rest/tasks?contextId=${long}`],
    ];
    for (const [method, path, body] of routes) {
      const a = await http(method, path, body);
      assert.equal(a.status, 400, `${method} ${path.slice(0, 40)}: ${a.text.slice(0, 300)}`);
      assert.equal((a.json.error as { status: string }).status, 'INVALID_ARGUMENT');
      assert.ok(!a.text.includes(long.slice(0, 100)), `${method} ${path.slice(0, 40)} does not echo the id`);
      await nothingWritten(`${method} ${path.slice(0, 40)}`);
    }
  });
});

describe('the requester API (/synapse/tasks): a body over 1 MiB', () => {
  it('is 413 with the API problem shape, and writes nothing', async () => {
    const big = JSON.stringify({ peer: 'peer-x', type: 'echo', text: 'x'.repeat(1_048_576) });
    for (const path of [SYNAPSE_TASKS_PATH, `${SYNAPSE_TASKS_PATH}/some-task/answer`]) {
      const a = await http('POST', path, big);
      assert.equal(a.status, 413, `${path}: ${a.text.slice(0, 300)}`);
      const error = a.json.error as { code: string; message: string };
      assert.equal(error.code, 'payload_too_large');
      assert.match(error.message, /1048576 bytes/);
      await nothingWritten(`POST ${path} over 1 MiB`);
    }
  });
});
