/**
 * Raw HTTP against the local hub's HTTP+JSON interface (/a2a/rest): every
 * route of A2A's HTTP+JSON binding (docs/rest.md), with and without a tenant prefix, and every
 * error status (404, 405, 413, 415, 400s, the spec's errors), each checked to
 * change nothing (the task count around them). Extension negotiation is in
 * extensions.test.ts (a hub whose agent requires one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

let hub: LocalHub;
let base: string;

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
  base = `${hub.url}/a2a/rest`;
});
after(async () => hub?.stop());

interface ErrorBody {
  error: {
    code: number;
    status: string;
    message: string;
    details: Array<{ '@type': string; reason?: string; domain?: string; metadata?: Record<string, string> }>;
  };
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
  json: any;
}

const rest = async (
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; url?: string } = {},
): Promise<Reply> => {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await fetch(`${options.url ?? base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
};

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

const send = (
  text: string,
  configuration: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) => rest('POST', '/message:send', { body: { message: message(text, extra), configuration } });

/** Every task the caller can list, counted page by page (totalSize is exact only on the last page). */
const taskCount = async (): Promise<number> => {
  let count = 0;
  let pageToken = '';
  do {
    const r = await rest(
      'GET',
      `/tasks?pageSize=100${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
    );
    assert.equal(r.status, 200);
    count += (r.json.tasks as unknown[]).length;
    pageToken = r.json.nextPageToken;
  } while (pageToken);
  return count;
};

/** An error answer: its status, the google.rpc.Status body and the ErrorInfo reason. */
const assertError = (r: Reply, status: number, reason: string | undefined, grpc?: string) => {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/(a2a\+)?json/);
  const { error } = r.json as ErrorBody;
  assert.equal(error.code, status);
  if (grpc) assert.equal(error.status, grpc);
  assert.ok(error.message.length > 0);
  if (reason) {
    const info = error.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    assert.equal(info?.reason, reason, r.text);
    assert.equal(info?.domain, 'a2a-protocol.org');
  }
};

interface Frame {
  id?: number;
  event?: string;
  comment?: string;
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON
  data?: any;
}

/** The SSE frames of a whole streamed answer. */
const framesOf = (text: string): Frame[] =>
  text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const frame: Frame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
        else assert.fail(`an unexpected SSE line: ${JSON.stringify(line)}`);
      }
      return frame;
    });
const eventsOf = (r: Reply) => framesOf(r.text).filter((f) => f.data);
const kindOf = (f: Frame) => Object.keys(f.data ?? {})[0];

describe('HTTP+JSON routes on the local hub', () => {
  it('answers results and errors in the media type asked for: application/a2a+json only when named', async () => {
    for (const [headers, expected] of [
      [{}, 'application/json'],
      [{ accept: '*/*' }, 'application/json'],
      [{ accept: 'application/a2a+json, application/json' }, 'application/a2a+json'],
      [{ accept: 'text/html', 'content-type': 'application/a2a+json' }, 'application/a2a+json'],
    ] as Array<[Record<string, string>, string]>) {
      const label = JSON.stringify(headers);
      const sent = await rest('POST', '/message:send', { body: { message: message('hello') }, headers });
      assert.equal(sent.status, 200, label);
      assert.equal(sent.headers.get('content-type'), expected, label);
      const missing = await rest('GET', '/tasks/no-such-task', { headers });
      assertError(missing, 404, 'TASK_NOT_FOUND', 'NOT_FOUND');
      assert.equal(missing.headers.get('content-type'), expected, label);
    }
  });

  it('POST /message:send: a blocking send is the completed task; a reply without a task is {message}', async () => {
    const sent = await send('hello rest');
    assert.equal(sent.status, 200);
    // fetch sends Accept: */*, so the answer is application/json (docs/rest.md, "Content type of an answer")
    assert.equal(sent.headers.get('content-type'), 'application/json');
    assert.equal(sent.json.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(sent.json.task.artifacts[0].parts[0].text, 'hello rest');
    const pong = await send('ping');
    assert.equal(pong.status, 200);
    assert.deepEqual(Object.keys(pong.json), ['message']);
    assert.equal(pong.json.message.role, 'ROLE_AGENT');
    assert.equal(pong.json.message.parts[0].text, 'pong');
  });

  it('every route also answers under its own /{tenant} prefix (dev mode: default), and application/a2a+json is accepted', async () => {
    const sent = await rest('POST', '/default/message:send', {
      raw: JSON.stringify({ message: message('tenant prefix') }),
      headers: { 'content-type': 'application/a2a+json; charset=utf-8' },
    });
    assert.equal(sent.status, 200, sent.text);
    const id = sent.json.task.id as string;
    assert.equal((await rest('GET', `/default/tasks/${id}`)).json.id, id);
    assert.equal((await rest('GET', '/default/tasks?pageSize=1')).status, 200);
    assert.equal((await rest('GET', '/default/extendedAgentCard')).status, 200);
    assertError(await rest('POST', `/default/tasks/${id}:cancel`), 400, 'TASK_NOT_CANCELABLE');
  });

  it('GET /tasks/{id} with historyLength; an unknown id is 404 TASK_NOT_FOUND', async () => {
    const sent = await send('history please');
    const id = sent.json.task.id as string;
    const whole = await rest('GET', `/tasks/${encodeURIComponent(id)}`);
    assert.equal(whole.status, 200);
    assert.ok(whole.json.history.length >= 2, 'the request and the answer');
    const one = await rest('GET', `/tasks/${encodeURIComponent(id)}?historyLength=1`);
    assert.equal(one.json.history.length, 1);
    assertError(await rest('GET', `/tasks/${crypto.randomUUID()}`), 404, 'TASK_NOT_FOUND', 'NOT_FOUND');
    assertError(await rest('GET', `/tasks/${id}?historyLength=-1`), 400, undefined, 'INVALID_ARGUMENT');
  });

  it('GET /tasks: contextId, status, pageSize, pageToken and includeArtifacts as query parameters', async () => {
    const contextId = crypto.randomUUID();
    for (const text of ['a', 'b', 'c']) assert.equal((await send(text, {}, { contextId })).status, 200);
    const page1 = await rest('GET', `/tasks?contextId=${contextId}&pageSize=2`);
    assert.equal(page1.status, 200);
    assert.equal(page1.json.tasks.length, 2);
    assert.equal(page1.json.pageSize, 2);
    assert.ok(page1.json.nextPageToken);
    assert.ok(!('artifacts' in page1.json.tasks[0]), 'no artifacts unless asked for');
    const page2 = await rest(
      'GET',
      `/tasks?contextId=${contextId}&pageSize=2&pageToken=${encodeURIComponent(page1.json.nextPageToken)}&includeArtifacts=true`,
    );
    assert.equal(page2.json.tasks.length, 1);
    assert.equal(page2.json.nextPageToken, '');
    assert.equal(page2.json.totalSize, 3);
    assert.ok(page2.json.tasks[0].artifacts.length > 0);
    const completed = await rest('GET', `/tasks?contextId=${contextId}&status=TASK_STATE_COMPLETED`);
    assert.equal(completed.json.tasks.length, 3);
    const working = await rest('GET', `/tasks?contextId=${contextId}&status=TASK_STATE_WORKING`);
    assert.equal(working.json.tasks.length, 0);
    for (const bad of [
      'pageSize=0',
      'pageSize=101',
      'status=DONE',
      'includeArtifacts=yes',
      'statusTimestampAfter=x',
    ]) {
      assertError(await rest('GET', `/tasks?${bad}`), 400, undefined, 'INVALID_ARGUMENT');
    }
  });

  it('POST /tasks/{id}:cancel with no body, {} or null; a finished task is 400 TASK_NOT_CANCELABLE', async () => {
    for (const raw of [undefined, '{}', 'null']) {
      const started = await send('slow 30', { returnImmediately: true });
      const id = started.json.task.id as string;
      const canceled = await rest('POST', `/tasks/${id}:cancel`, raw === undefined ? {} : { raw });
      assert.equal(canceled.status, 200, canceled.text);
      assert.equal(canceled.json.status.state, 'TASK_STATE_CANCELED');
    }
    const done = await send('finished');
    assertError(
      await rest('POST', `/tasks/${done.json.task.id}:cancel`),
      400,
      'TASK_NOT_CANCELABLE',
      'FAILED_PRECONDITION',
    );
    assertError(await rest('POST', `/tasks/${crypto.randomUUID()}:cancel`), 404, 'TASK_NOT_FOUND');
  });

  it('POST /message:stream: text/event-stream of bare StreamResponses, ids the task versions', async () => {
    const res = await rest('POST', '/message:stream', { body: { message: message('slow 2') } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const events = eventsOf(res);
    assert.equal(kindOf(events[0]!), 'task');
    assert.ok(
      events.every((e) => !('jsonrpc' in e.data)),
      'no JSON-RPC envelope',
    );
    const versions = events.map((e) => e.id!);
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
      'ids grow',
    );
    assert.equal(events.at(-1)?.data.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    const pong = eventsOf(await rest('POST', '/message:stream', { body: { message: message('ping') } }));
    assert.deepEqual(pong.map(kindOf), ['message']);
  });

  it('GET and POST /tasks/{id}:subscribe follow a task; Last-Event-ID resumes; finished 400, unknown 404', async () => {
    const started = await send('slow 2', { returnImmediately: true });
    const id = started.json.task.id as string;
    const [got, posted] = await Promise.all([
      rest('GET', `/tasks/${id}:subscribe`),
      rest('POST', `/tasks/${id}:subscribe`),
    ]);
    for (const r of [got, posted]) {
      assert.equal(r.status, 200);
      const events = eventsOf(r);
      assert.equal(kindOf(events[0]!), 'task');
      assert.equal(events.at(-1)?.data.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    }
    // the whole task from its first version: the reference every resume is a suffix of
    const all = eventsOf(await rest('GET', `/tasks/${id}:subscribe`, { headers: { 'Last-Event-ID': '0' } }));
    const middle = all[Math.floor(all.length / 2)]!.id!;
    const resumed = eventsOf(
      await rest('GET', `/tasks/${id}:subscribe`, { headers: { 'Last-Event-ID': String(middle) } }),
    );
    assert.deepEqual(
      resumed.map((e) => e.id),
      all.filter((e) => e.id! > middle).map((e) => e.id),
      'every event after the one seen, none twice',
    );
    assertError(
      await rest('GET', `/tasks/${id}:subscribe`),
      400,
      'UNSUPPORTED_OPERATION',
      'FAILED_PRECONDITION',
    );
    assertError(await rest('POST', `/tasks/${crypto.randomUUID()}:subscribe`), 404, 'TASK_NOT_FOUND');
    assertError(
      await rest('GET', `/tasks/${id}:subscribe`, { headers: { 'Last-Event-ID': 'later' } }),
      400,
      undefined,
      'INVALID_ARGUMENT',
    );
  });

  it('GET /extendedAgentCard: the v1.0 card with the demo agent’s operator notes', async () => {
    const r = await rest('GET', '/extendedAgentCard');
    assert.equal(r.status, 200);
    assert.ok(r.json.skills.some((s: { id: string }) => s.id === 'operator-notes'));
    assert.equal(r.json.capabilities.extendedAgentCard, true);
    assert.equal(r.json.supportedInterfaces[1].url, base);
  });

  it('push-config routes: create, list, get, delete; secrets never read back; each refusal its status', async () => {
    const id = (await send('ask')).json.task.id as string;
    const path = `/tasks/${id}/pushNotificationConfigs`;
    const made = await rest('POST', path, {
      body: {
        id: 'c1',
        url: 'https://hooks.example.com/a2a',
        token: 'tok',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      },
    });
    assert.equal(made.status, 200, made.text);
    assert.deepEqual(made.json, {
      id: 'c1',
      taskId: id,
      url: 'https://hooks.example.com/a2a',
      authentication: { scheme: 'Bearer' },
    });
    const listed = await rest('GET', path);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json, { configs: [made.json], nextPageToken: '' });
    assert.doesNotMatch(listed.text, /tok|secret/);
    assert.deepEqual((await rest('GET', `${path}/c1`)).json, made.json);
    const deleted = await rest('DELETE', `${path}/c1`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json, {});
    assertError(await rest('GET', `${path}/c1`), 404, 'TASK_NOT_FOUND', 'NOT_FOUND');

    assertError(
      await rest('POST', '/tasks/no-such-task/pushNotificationConfigs', {
        body: { url: 'https://hooks.example.com/a2a' },
      }),
      404,
      'TASK_NOT_FOUND',
    );
    assertError(
      await rest('POST', path, { body: { url: 'https://10.0.0.1/hook' } }),
      400,
      'INVALID_PARAMS',
      'INVALID_ARGUMENT',
    );
    assertError(await rest('POST', path, { body: { token: 'no url' } }), 400, 'INVALID_PARAMS');
    assertError(await rest('PUT', `${path}/c1`), 405, undefined);
    // a finished task takes a config (sent its final state once: docs/push-notifications.md)
    const finished = (await send('hello')).json.task.id as string;
    const late = await rest('POST', `/tasks/${finished}/pushNotificationConfigs`, {
      body: { url: 'https://hooks.example.com/a2a' },
    });
    assert.equal(late.status, 200, late.text);
    assert.equal(late.json.taskId, finished);
    assert.deepEqual((await rest('GET', path)).json.configs, [], 'no refusal registered anything');
  });
});

describe('HTTP+JSON refusals change nothing', () => {
  it('404 unknown route, 405 with Allow, 413, 415, 400 bad JSON / schema / version, each writing nothing', async () => {
    const before = await taskCount();
    assertError(await rest('GET', '/nope'), 404, undefined, 'NOT_FOUND');
    assertError(await rest('POST', '/message:sendit', { body: { message: message('x') } }), 404, undefined);
    const wrongMethod = await rest('GET', '/message:send');
    assertError(wrongMethod, 405, undefined);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    assert.equal((await rest('DELETE', '/tasks')).headers.get('allow'), 'GET');
    const big = JSON.stringify({ message: message('x'.repeat(1024 * 1024 + 10)) });
    assertError(await rest('POST', '/message:send', { raw: big }), 413, undefined);
    assertError(
      await rest('POST', '/message:send', {
        raw: JSON.stringify({ message: message('x') }),
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'CONTENT_TYPE_NOT_SUPPORTED',
    );
    assertError(
      await rest('POST', '/message:send', { raw: '{"message": ' }),
      400,
      undefined,
      'INVALID_ARGUMENT',
    );
    assertError(
      await rest('POST', '/message:send', { body: { message: { role: 'ROLE_USER', parts: [] } } }),
      400,
      undefined,
      'INVALID_ARGUMENT',
    );
    assertError(
      await rest('POST', '/message:send', { body: { message: message('x', { role: 'user' }) } }),
      400,
      undefined,
      'INVALID_ARGUMENT',
    );
    assertError(
      await rest('POST', '/message:send', {
        body: { message: message('x') },
        headers: { 'A2A-Version': '0.3' },
      }),
      400,
      'VERSION_NOT_SUPPORTED',
    );
    assertError(
      await rest('POST', '/message:stream', { body: { message: message('x', { role: 'ROLE_AGENT' }) } }),
      400,
      undefined,
    );
    const raw = Buffer.alloc(60 * 1024, 1).toString('base64');
    const file = await rest('POST', '/message:send', {
      body: { message: message('file', { parts: [{ raw, mediaType: 'application/octet-stream' }] }) },
    });
    assertError(file, 400, undefined, 'INVALID_ARGUMENT');
    assert.match(file.json.error.message + JSON.stringify(file.json.error.details), /65536 bytes/);
    assert.equal(await taskCount(), before, 'no refused request made a task');
  });
});
