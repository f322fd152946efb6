/**
 * Raw HTTP against the local hub: every JSON-RPC error code, the body limit,
 * v0.3 requests without the version header, and the agent card's caching.
 * Each bad request must change nothing: the task count is checked around them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { parseStrict, V1AgentCardSchema, V03AgentCardSchema } from '../unit/protocol/a2a/card-schema.ts';

let hub: LocalHub;
let rpcUrl: string;

interface RpcReply {
  status: number;
  /** Size of the response body. */
  bytes?: number;
  body: {
    jsonrpc: string;
    id: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

const post = async (
  body: string,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
): Promise<RpcReply> => {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) as RpcReply['body'] };
};
const call = (method: string, params: unknown, headers?: Record<string, string>) =>
  post(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), headers);

const v1Message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

/** Every task the caller can list, counted page by page (totalSize is exact only on the last page). */
const taskCount = async (): Promise<number> => {
  let count = 0;
  let pageToken = '';
  do {
    const r = await call('ListTasks', { pageSize: 100, ...(pageToken ? { pageToken } : {}) });
    count += ((r.body.result?.tasks as unknown[] | undefined) ?? []).length;
    pageToken = r.body.result?.nextPageToken as string;
  } while (pageToken);
  return count;
};

const errorInfo = (data: unknown) =>
  (data as Array<Record<string, unknown>>).find(
    (d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  );

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
  rpcUrl = `${hub.url}/a2a/jsonrpc`;
});
after(async () => hub?.stop());

describe('JSON-RPC errors over HTTP', () => {
  it('-32700 for a body that is not JSON, with id null', async () => {
    const r = await post('{"jsonrpc": "2.0", "method": ');
    assert.equal(r.status, 200);
    assert.equal(r.body.error?.code, -32700);
    assert.equal(r.body.id, null);
    assert.equal(errorInfo(r.body.error?.data)?.reason, 'PARSE_ERROR');
  });

  it('-32600 for envelopes that are not JSON-RPC 2.0 requests', async () => {
    const bad = [
      { id: 1, method: 'GetTask', params: {} },
      { jsonrpc: '1.0', id: 1, method: 'GetTask', params: {} },
      { jsonrpc: '2.0', id: 1, params: {} },
      { jsonrpc: '2.0', id: { no: 1 }, method: 'GetTask', params: {} },
      [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }],
    ];
    for (const body of bad) {
      const r = await post(JSON.stringify(body));
      assert.equal(r.body.error?.code, -32600, JSON.stringify(body));
    }
  });

  it('clean errors for odd envelopes: bodies that are not objects, weird ids, methods and params', async () => {
    const before = await taskCount();
    const hugeId = JSON.stringify('h'.repeat(900_000));
    const cases: Array<[string, number, unknown]> = [
      ['null', -32600, null],
      ['42', -32600, null],
      ['"SendMessage"', -32600, null],
      ['true', -32600, null],
      ['[]', -32600, null],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask","params":{"id":"x"}}', -32600, null],
      ['{"jsonrpc":"2.0","id":[1],"method":"GetTask","params":{"id":"x"}}', -32600, null],
      ['{"jsonrpc":"2.0","id":false,"method":"GetTask","params":{"id":"x"}}', -32600, null],
      [`{"jsonrpc":"2.0","id":${hugeId},"method":"GetTask","params":{"id":"x"}}`, -32600, null],
      ['{"jsonrpc":"2.0","id":1e400,"method":"GetTask","params":{"id":"x"}}', -32600, null],
      ['{"jsonrpc":"2.0","id":4,"method":42,"params":{}}', -32600, 4],
      ['{"jsonrpc":"2.0","id":4,"method":null,"params":{}}', -32600, 4],
      ['{"jsonrpc":"2.0","id":4,"method":["SendMessage"],"params":{}}', -32600, 4],
      ['{"jsonrpc":"2.0","id":4,"method":{"name":"SendMessage"},"params":{}}', -32600, 4],
      ['{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":[{"message":{}}]}', -32602, 4],
      ['{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":null}', -32602, 4],
      ['{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":"x"}', -32602, 4],
    ];
    for (const [body, code, id] of cases) {
      const r = await post(body);
      assert.equal(r.status, 200, body.slice(0, 80));
      assert.equal(r.body.error?.code, code, body.slice(0, 80));
      assert.equal(r.body.id, id, body.slice(0, 80));
      assert.ok((r.bytes ?? 0) < 1024, `${body.slice(0, 80)}: ${r.bytes} bytes`);
    }
    // the huge id is not echoed either when the request fails before its envelope is read
    const badVersion = await post(`{"jsonrpc":"2.0","id":${hugeId},"method":"GetTask"}`, {
      'A2A-Version': '9.9',
    });
    assert.equal(badVersion.body.error?.code, -32009);
    assert.equal(badVersion.body.id, null);
    assert.ok((badVersion.bytes ?? 0) < 1024);
    assert.equal(await taskCount(), before);
  });

  it('-32601 for unknown methods and for a method of the other A2A version', async () => {
    const unknown = await call('tasks/teleport', {});
    assert.equal(unknown.body.error?.code, -32601);
    const v1WithoutHeader = await call('SendMessage', { message: v1Message('x') }, {});
    assert.equal(v1WithoutHeader.body.error?.code, -32601);
    assert.match(v1WithoutHeader.body.error?.message ?? '', /A2A-Version: 1\.0/);
  });

  it('-32602 for invalid params, naming the field; nothing is written', async () => {
    const before = await taskCount();
    const cases: Array<[string, unknown, RegExp]> = [
      ['SendMessage', { message: { messageId: 'a', role: 'ROLE_USER', parts: [] } }, /parts/],
      ['SendMessage', { message: { messageId: 'a', parts: [{ text: 'x' }] } }, /role/],
      ['SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }, /messageId/],
      ['SendMessage', { message: v1Message('x', { kind: 'message', parts: [{ kind: 'text' }] }) }, /kind/],
      [
        'SendMessage',
        { message: v1Message('x', { foo: 1, parts: [{ text: 1, size: 1 }] }) },
        /parts\[0\]\.text/,
      ],
      ['GetTask', { id: 'x', historyLength: -1 }, /historyLength/],
      ['ListTasks', { statusTimestampAfter: 'yesterday' }, /statusTimestampAfter/],
      ['ListTasks', { pageSize: 1000 }, /pageSize/],
      ['ListTasks', { status: 'TASK_STATE_SLEEPING' }, /status/],
      ['ListTasks', { pageToken: 'not-a-token' }, /pageToken/],
      ['ListTasks', { contextId: 'c'.repeat(3000) }, /contextId/],
      ['SendMessage', { message: v1Message('x', { role: 'ROLE_AGENT' }) }, /message\.role/],
      ['SendMessage', { message: v1Message('x', { contextId: 'c'.repeat(3000) }) }, /contextId/],
    ];
    for (const [method, params, field] of cases) {
      const r = await call(method, params);
      assert.equal(r.status, 200);
      assert.equal(r.body.error?.code, -32602, `${method} ${JSON.stringify(params)}`);
      assert.match(JSON.stringify(r.body.error), field);
    }
    const tooLong = await call('SendMessage', { message: v1Message('x'.repeat(70 * 1024)) });
    assert.equal(tooLong.body.error?.code, -32602);
    assert.match(tooLong.body.error?.message ?? '', /65536 bytes/);
    assert.equal(await taskCount(), before);
  });

  it('unknown fields are ignored (v1.0 and v0.3), and none of them is stored', async () => {
    const sent = await call('SendMessage', {
      message: v1Message('unknown fields', {
        foo: { bar: [1] },
        kind: 'message',
        parts: [{ text: 'unknown fields', size: 3, kind: 'text' }],
      }),
      configuration: { historyLength: 5, blocking: true, future: { x: 1 } },
      surprise: true,
    });
    const task = sent.body.result?.task as { id: string; status: { state: string } } | undefined;
    assert.equal(task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(sent.body.error));
    const got = await call('GetTask', { id: task?.id, extra: 'ignored' });
    const history = (got.body.result as { history: Array<Record<string, unknown>> }).history;
    assert.deepEqual(Object.keys(history[0] ?? {}).sort(), [
      'contextId',
      'messageId',
      'parts',
      'role',
      'taskId',
    ]);
    assert.deepEqual(history[0]?.parts, [{ text: 'unknown fields' }]);

    const v03 = await call(
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'v03 unknown', mediaType: 'text/plain' }],
          foo: 1,
        },
        tenant: 'ignored in v0.3',
        configuration: { returnImmediately: false, blocking: true },
      },
      {},
    );
    assert.equal((v03.body.result as { status?: { state: string } }).status?.state, 'completed');
  });

  it('-32001 task not found, -32002 not cancelable, -32004 message to a finished task', async () => {
    const missing = await call('GetTask', { id: crypto.randomUUID() });
    assert.equal(missing.body.error?.code, -32001);
    const absurd = await call('GetTask', { id: 'x'.repeat(3000) });
    assert.equal(absurd.status, 200);
    assert.equal(absurd.body.error?.code, -32602, 'an id over 256 characters is invalid params');
    assert.ok(!JSON.stringify(absurd.body).includes('x'.repeat(100)), 'and is not repeated');
    assert.equal(errorInfo(missing.body.error?.data)?.reason, 'TASK_NOT_FOUND');

    const done = await call('SendMessage', { message: v1Message('hi') });
    const task = done.body.result?.task as { id: string; status: { state: string } };
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    const cancel = await call('CancelTask', { id: task.id });
    assert.equal(cancel.body.error?.code, -32002);
    const more = await call('SendMessage', { message: v1Message('more', { taskId: task.id }) });
    assert.equal(more.body.error?.code, -32004);
    const again = await call('GetTask', { id: task.id });
    assert.equal(
      (again.body.result?.status as { state: string } | undefined)?.state,
      'TASK_STATE_COMPLETED',
      'unchanged',
    );
  });

  it('-32602 when the contextId does not match the task', async () => {
    const asked = await call('SendMessage', { message: v1Message('ask') });
    const task = asked.body.result?.task as { id: string };
    const r = await call('SendMessage', {
      message: v1Message('42', { taskId: task.id, contextId: 'another' }),
    });
    assert.equal(r.body.error?.code, -32602);
    const still = await call('GetTask', { id: task.id });
    assert.equal(
      (still.body.result?.status as { state: string } | undefined)?.state,
      'TASK_STATE_INPUT_REQUIRED',
    );
  });

  it('-32009 for an unsupported A2A-Version', async () => {
    const r = await call('GetTask', { id: 'x' }, { 'A2A-Version': '2.0' });
    assert.equal(r.body.error?.code, -32009);
    assert.equal(r.body.id, 7, 'the request id is echoed');
    assert.equal(errorInfo(r.body.error?.data)?.reason, 'VERSION_NOT_SUPPORTED');
  });

  it('refuses a body over 1 MiB with a clear error and writes nothing', async () => {
    const before = await taskCount();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: v1Message('y'.repeat(1_100_000)) },
    });
    const r = await post(big);
    assert.equal(r.status, 413);
    assert.equal(r.body.error?.code, -32600);
    assert.equal(r.body.id, 1, 'the request id is echoed');
    assert.match(r.body.error?.message ?? '', /1048576 bytes/);
    assert.equal(await taskCount(), before);
  });
});

/** A POST with exactly these headers (fetch would add a Content-Type of its own). */
const rawPost = (body: string, headers: Record<string, string>): Promise<RpcReply> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(
      rpcUrl,
      { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            });
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });

describe('the request Content-Type', () => {
  const send = (text: string) =>
    JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'SendMessage', params: { message: v1Message(text) } });

  it('-32005 (HTTP 200) for a body not declared as JSON, whatever it holds; nothing is written', async () => {
    const before = await taskCount();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const r = await rawPost(send('not json'), { 'content-type': type, 'A2A-Version': '1.0' });
      assert.equal(r.status, 200, type);
      assert.equal(r.body.error?.code, -32005, type);
      assert.equal(r.body.id, 11, 'the request id is echoed');
      assert.equal(errorInfo(r.body.error?.data)?.reason, 'CONTENT_TYPE_NOT_SUPPORTED');
      assert.match(r.body.error?.message ?? '', /application\/json/);
    }
    // v0.3 (no A2A-Version): the v0.3 error shape
    const v03 = await rawPost('{}', { 'content-type': 'text/plain' });
    assert.equal(v03.body.error?.code, -32005);
    assert.equal(
      (v03.body.error?.data as { reason?: string } | undefined)?.reason,
      'CONTENT_TYPE_NOT_SUPPORTED',
    );
    assert.equal(await taskCount(), before);
  });

  it('accepts application/json and application/a2a+json with parameters, and no Content-Type at all', async () => {
    const cases: Array<Record<string, string>> = [
      { 'content-type': 'Application/JSON; charset=UTF-8' },
      { 'content-type': 'application/a2a+json' },
      {},
    ];
    for (const headers of cases) {
      const r = await rawPost(send('typed'), { ...headers, 'A2A-Version': '1.0' });
      assert.equal(r.status, 200, JSON.stringify(headers));
      const task = r.body.result?.task as { status: { state: string } } | undefined;
      assert.equal(task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(r.body.error ?? headers));
    }
  });

  it("the README's curl call works as written", async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    // the deploy example also sends "Authorization: Bearer $KEY": a dev-mode hub takes any request
    const calls = [
      ...readme.matchAll(/curl -s \S+ -H '([^']+)' -H '([^']+)'(?: -H "[^"]+")?\s*(?:\\\n\s*)?-d '([^']+)'/g),
    ];
    assert.ok(calls.length >= 2, 'both curl examples found');
    for (const [, h1, h2, body] of calls) {
      const headers = Object.fromEntries(
        [h1, h2].map((h) => h!.split(/:\s*/, 2) as [string, string]),
      ) as Record<string, string>;
      // what curl sends: the -H headers and the -d body, and a Content-Type only if -H gave one
      const r = await rawPost(body!.replace('"m1"', `"${crypto.randomUUID()}"`), headers);
      assert.equal(r.status, 200);
      const task = r.body.result?.task as { status: { state: string } } | undefined;
      assert.equal(task?.status.state, 'TASK_STATE_COMPLETED', JSON.stringify(r.body));
    }
  });
});

describe('hostile input: bounded work, bounded errors (found by fuzzing)', () => {
  const rpc = (method: string, params: string) =>
    `{"jsonrpc":"2.0","id":5,"method":"${method}","params":${params}}`;
  const message = (fields: string) => `{"message":{"messageId":"${crypto.randomUUID()}",${fields}}}`;
  /** A JSON text nesting `levels` arrays around 1. */
  const deep = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it('300,000 empty parts (900 KB): a small -32602 at once, naming message.parts; nothing is written', async () => {
    const before = await taskCount();
    const body = rpc(
      'SendMessage',
      message(`"role":"ROLE_USER","parts":[${Array(300_000).fill('{}').join(',')}]`),
    );
    assert.ok(body.length > 890_000 && body.length < 1024 * 1024);
    const started = Date.now();
    const r = await post(body);
    const ms = Date.now() - started;
    assert.equal(r.status, 200);
    assert.equal(r.body.error?.code, -32602);
    assert.equal(r.body.id, 5);
    assert.match(r.body.error?.message ?? '', /message\.parts: has 300000 items; at most 10000/);
    assert.ok((r.bytes ?? 0) < 2048, `${r.bytes} bytes`);
    assert.ok(ms < 2000, `${ms} ms`);
    assert.equal(await taskCount(), before);
  });

  it('values nested 5,000+ levels deep (role, status, data, unknown fields): -32602, not 500', async () => {
    const before = await taskCount();
    const cases: Array<[string, string, RegExp]> = [
      ['SendMessage', message(`"role":${deep(6000)},"parts":[{"text":"x"}]`), /message\.role\[0\]/],
      [
        'SendMessage',
        message(`"role":"ROLE_USER","parts":[{"data":${deep(6000)}}]`),
        /message\.parts\[0\]\.data/,
      ],
      [
        'SendMessage',
        message(`"role":"ROLE_USER","parts":[{"text":"x"}],"foo":${deep(6000)}`),
        /message\.foo/,
      ],
      ['ListTasks', `{"status":${deep(100_000)}}`, /status\[0\]/],
    ];
    for (const [method, params, field] of cases) {
      const r = await post(rpc(method, params));
      assert.equal(r.status, 200, method);
      assert.equal(r.body.error?.code, -32602, `${method}: ${r.body.error?.message}`);
      assert.match(r.body.error?.message ?? '', field);
      assert.match(r.body.error?.message ?? '', /deeper than 64 levels/);
      assert.ok((r.bytes ?? 0) < 2048);
    }
    // v0.3 too
    const v03 = await post(rpc('message/send', message(`"role":${deep(6000)},"parts":[{"text":"x"}]`)), {});
    assert.equal(v03.body.error?.code, -32602);
    assert.equal(await taskCount(), before);
  });

  it('non-finite numbers (1e400) are refused anywhere in params, naming the field; nothing is written', async () => {
    const before = await taskCount();
    const cases: Array<[string, string, string]> = [
      [
        'SendMessage',
        message('"role":"ROLE_USER","parts":[{"data":{"x":1e400}}]'),
        'message.parts[0].data.x',
      ],
      [
        'SendMessage',
        message('"role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"m":-1e400}'),
        'message.metadata.m',
      ],
      ['GetTask', '{"id":"t","historyLength":1e400}', 'historyLength'],
    ];
    for (const [method, params, field] of cases) {
      const r = await post(rpc(method, params));
      assert.equal(r.body.error?.code, -32602, params);
      assert.match(r.body.error?.message ?? '', /finite number/);
      const badRequest = (
        r.body.error?.data as Array<{ fieldViolations?: Array<{ field: string }> }> | undefined
      )?.[1];
      assert.equal(badRequest?.fieldViolations?.[0]?.field, field);
    }
    assert.equal(await taskCount(), before);
  });

  it('huge strings where they do not belong get small errors', async () => {
    const huge = 'z'.repeat(900_000);
    const cases: Array<[string, unknown, number]> = [
      ['SendMessage', { message: v1Message('x', { role: huge }) }, -32602],
      ['GetTask', { id: huge }, -32602],
      ['CancelTask', { id: huge }, -32602],
      [huge, {}, -32601],
      ['ListTasks', { pageToken: huge }, -32602],
    ];
    for (const [method, params, code] of cases) {
      const r = await call(method, params);
      assert.equal(r.body.error?.code, code, method.slice(0, 20));
      assert.ok((r.bytes ?? 0) < 4096, `${method.slice(0, 20)}: ${r.bytes} bytes`);
    }
  });
});

describe('ListTasks over HTTP', () => {
  it('honours statusTimestampAfter (inclusive), historyLength and includeArtifacts', async () => {
    const contextId = crypto.randomUUID();
    const first = (await call('SendMessage', { message: v1Message('one', { contextId }) })).body.result
      ?.task as {
      id: string;
      status: { timestamp: string };
    };
    await new Promise((r) => setTimeout(r, 20));
    const second = (await call('SendMessage', { message: v1Message('two', { contextId }) })).body.result
      ?.task as {
      id: string;
      status: { timestamp: string };
    };
    const after = await call('ListTasks', { contextId, statusTimestampAfter: second.status.timestamp });
    const listed = after.body.result as {
      tasks: Array<{ id: string }>;
      totalSize: number;
      nextPageToken: string;
    };
    assert.deepEqual(
      listed.tasks.map((t) => t.id),
      [second.id],
    );
    assert.equal(listed.totalSize, 1);
    assert.equal(listed.nextPageToken, '');

    const plain = (await call('ListTasks', { contextId })).body.result as {
      tasks: Array<Record<string, unknown>>;
    };
    assert.equal(plain.tasks.length, 2);
    assert.ok(
      plain.tasks.every((t) => !('artifacts' in t) && !('history' in t)),
      'no artifacts or history unless asked for',
    );
    const detailed = (await call('ListTasks', { contextId, historyLength: 1, includeArtifacts: true })).body
      .result as { tasks: Array<{ id: string; history: unknown[]; artifacts: unknown[] }> };
    for (const t of detailed.tasks) {
      assert.equal(t.history.length, 1);
      assert.equal(t.artifacts.length, 1);
    }
    assert.ok(detailed.tasks.some((t) => t.id === first.id));
  });
});

describe('A2A v0.3 without the version header', () => {
  it('message/send, tasks/get and tasks/cancel with kind discriminators and lower-case states', async () => {
    const sent = await call(
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'v03' }],
        },
      },
      {},
    );
    const task = sent.body.result as {
      kind: string;
      id: string;
      status: { state: string };
      artifacts: Array<{ parts: unknown[] }>;
    };
    assert.equal(task.kind, 'task');
    assert.equal(task.status.state, 'completed');
    assert.deepEqual(task.artifacts[0]?.parts[0], { kind: 'text', text: 'v03' });

    const got = await call('tasks/get', { id: task.id }, {});
    assert.equal((got.body.result as { kind: string }).kind, 'task');

    const slow = await call(
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'slow 20' }],
        },
        configuration: { blocking: false },
      },
      {},
    );
    const slowTask = slow.body.result as { id: string; status: { state: string } };
    assert.ok(['submitted', 'working'].includes(slowTask.status.state));
    const canceled = await call('tasks/cancel', { id: slowTask.id }, {});
    assert.equal((canceled.body.result as { status: { state: string } }).status.state, 'canceled');
  });

  it('v0.3 errors carry a free-form data object', async () => {
    const r = await call('tasks/get', { id: crypto.randomUUID() }, {});
    assert.equal(r.body.error?.code, -32001);
    assert.ok(!Array.isArray(r.body.error?.data));
  });
});

describe('agent card', () => {
  const cardUrl = (path = 'agent-card.json') => `${hub.url}/.well-known/${path}`;

  it('serves the pure v1.0 card by default, at both paths, strictly valid against the v1.0 AgentCard', async () => {
    for (const path of ['agent-card.json', 'agent.json']) {
      const res = await fetch(cardUrl(path));
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('vary'), 'A2A-Version');
      const card = parseStrict(V1AgentCardSchema, await res.json());
      assert.deepEqual(
        card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
        [
          [rpcUrl, 'JSONRPC', '1.0'],
          [`${hub.url}/a2a/rest`, 'HTTP+JSON', '1.0'],
          [rpcUrl, 'JSONRPC', '0.3'],
        ],
      );
      // the local hub configures the delivery pipeline (DELIVERY_QUEUE_URL), so it offers push notifications
      assert.equal(card.capabilities.pushNotifications, true);
      assert.equal(card.capabilities.streaming, true);
      assert.equal(card.capabilities.extendedAgentCard, true);
    }
  });

  it('GetExtendedAgentCard (params omitted) is the v1.0 extended card; agent/getAuthenticatedExtendedCard the v0.3 one', async () => {
    const v1 = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetExtendedAgentCard' }));
    assert.equal(v1.status, 200);
    const card = parseStrict(V1AgentCardSchema, v1.body.result);
    assert.ok(card.skills.some((s) => s.id === 'operator-notes'));
    assert.equal(card.capabilities.extendedAgentCard, true);
    const v03 = await call('agent/getAuthenticatedExtendedCard', {}, {});
    assert.equal(v03.status, 200);
    const legacy = parseStrict(V03AgentCardSchema, v03.body.result);
    assert.equal(legacy.url, rpcUrl);
    assert.equal(legacy.supportsAuthenticatedExtendedCard, true);
    assert.ok(legacy.skills.some((s) => s.id === 'operator-notes'));
  });

  it('serves the v1.0 card with caching headers and 304 on If-None-Match', async () => {
    const res = await fetch(cardUrl(), { headers: { 'A2A-Version': '1.0' } });
    assert.equal(res.status, 200);
    const etag = res.headers.get('etag');
    assert.ok(etag);
    assert.ok(res.headers.get('last-modified'));
    assert.match(res.headers.get('cache-control') ?? '', /max-age=\d+/);
    parseStrict(V1AgentCardSchema, await res.json());
    const plain = await fetch(cardUrl());
    assert.equal(plain.headers.get('etag'), etag, 'with or without the header: the same card');
    const again = await fetch(cardUrl(), { headers: { 'A2A-Version': '1.0', 'If-None-Match': etag } });
    assert.equal(again.status, 304);
  });

  it('serves the v0.3 card for ?A2A-Version=0.3 and for the header A2A-Version: 0.3', async () => {
    const v1Tag = (await fetch(cardUrl())).headers.get('etag');
    for (const [url, headers] of [
      [`${cardUrl()}?A2A-Version=0.3`, {}],
      [`${cardUrl('agent.json')}?A2A-Version=0.3`, {}],
      [cardUrl(), { 'A2A-Version': '0.3' }],
    ] as const) {
      const res = await fetch(url, { headers });
      assert.equal(res.status, 200, url);
      assert.notEqual(res.headers.get('etag'), v1Tag);
      const card = parseStrict(V03AgentCardSchema, await res.json());
      assert.equal(card.url, rpcUrl);
      assert.equal(card.preferredTransport, 'JSONRPC');
      assert.equal(card.protocolVersion, '0.3.0');
    }
  });
});

describe('message replies over HTTP', () => {
  it('v1.0 answers ping with {message} and makes no task; v0.3 with a bare message of kind "message"', async () => {
    const before = await taskCount();
    const v1 = await call('SendMessage', { message: v1Message('ping') });
    assert.equal(v1.status, 200);
    const reply = v1.body.result?.message as Record<string, unknown> | undefined;
    assert.ok(reply, `a message result: ${JSON.stringify(v1.body)}`);
    assert.equal(v1.body.result?.task, undefined);
    assert.equal(reply.role, 'ROLE_AGENT');
    assert.deepEqual(reply.parts, [{ text: 'pong', mediaType: 'text/plain' }]);
    assert.ok(typeof reply.contextId === 'string' && reply.contextId.length > 0);

    const v03 = await call(
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'ping' }],
        },
      },
      {},
    );
    const legacy = v03.body.result as Record<string, unknown> | undefined;
    assert.equal(legacy?.kind, 'message');
    assert.equal(legacy?.role, 'agent');
    assert.equal(await taskCount(), before, 'no task was made');
  });
});

describe('ids that cannot be keys', () => {
  it('a contextId with a lone surrogate is -32602 for SendMessage and ListTasks, and nothing is written', async () => {
    const before = await taskCount();
    // the escape stays in the JSON text: JSON.parse turns it into a lone surrogate
    const send = await post(
      `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-${crypto.randomUUID()}","role":"ROLE_USER","contextId":"\\ud800","parts":[{"text":"hello"}]}}}`,
    );
    assert.equal(send.status, 200);
    assert.equal(send.body.error?.code, -32602, JSON.stringify(send.body));
    const list = await post(
      '{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{"contextId":"\\udc00x"}}',
    );
    assert.equal(list.status, 200);
    assert.equal(list.body.error?.code, -32602);
    const get = await post('{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"\\ud800"}}');
    assert.equal(get.body.error?.code, -32001, 'no task has such an id');
    assert.equal(await taskCount(), before);
  });
});
