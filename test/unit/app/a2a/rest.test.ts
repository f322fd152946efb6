/**
 * The HTTP+JSON binding (shared/app/a2a/rest.ts) over a recording stand-in
 * for the A2A handler: routes (with and without a tenant prefix, `:verb`
 * before `/tasks/{id}`), query parameters, content types, limits, versions,
 * and the mapping of errors to HTTP statuses with the google.rpc.Status body.
 * The same binding against the real hub is in test/e2e/rest.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { A2AHandler, TaskStream } from '../../../../shared/app/a2a/handler.ts';
import { RestBinding, type RestRequest } from '../../../../shared/app/a2a/rest.ts';
import type { StreamItem } from '../../../../shared/app/a2a/stream.ts';
import { TaskNotFoundError } from '../../../../shared/domain/errors.ts';
import type { TaskView } from '../../../../shared/domain/task.ts';
import { A2AProtocolError } from '../../../../shared/protocol/a2a/index.ts';

const CALLER = { tenant: 't', owner: 'o', rights: ['read', 'write'] as const, scheme: 'api-key' as const };

const taskView = (taskId = 'task-1'): TaskView => ({
  head: {
    taskId,
    tenant: 't',
    owner: 'o',
    contextId: 'ctx-1',
    state: 'completed',
    createdAt: '2026-01-01T00:00:00.000Z',
    statusAt: '2026-01-01T00:00:01.000Z',
  },
  history: [],
  artifacts: [],
});

/** A stream of these items (a function throws in its place: a failure at that point). */
const fakeStream = (items: Array<StreamItem | (() => never)>): TaskStream => ({
  settled: Promise.resolve(),
  async *[Symbol.asyncIterator]() {
    for (const item of items) yield typeof item === 'function' ? item() : item;
  },
});

/** A working task's snapshot (version 2), a comment, then its completion (version 3). */
const defaultItems = (): StreamItem[] => [
  {
    type: 'event',
    id: 2,
    event: {
      kind: 'task',
      view: { ...taskView(), head: { ...taskView().head, state: 'executing' } },
      show: { includeArtifacts: true },
    },
  },
  { type: 'heartbeat' },
  {
    type: 'event',
    id: 3,
    event: {
      kind: 'status-update',
      taskId: 'task-1',
      contextId: 'ctx-1',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:02.000Z' },
      final: true,
    },
  },
];

/** The chunks of a streamed answer, joined. */
const drain = async (stream: AsyncIterable<string> | undefined): Promise<string> => {
  assert.ok(stream, 'a streamed answer');
  let out = '';
  for await (const chunk of stream) out += chunk;
  return out;
};

/** SSE events of a stream's text: their id, event name and parsed data. */
const sseEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
      return {
        id: field('id'),
        event: field('event'),
        data: JSON.parse(field('data') ?? 'null') as Record<string, unknown>,
      };
    });

/** A handler that records each call's command and answers with a finished task. */
const recording = (overrides: Partial<Record<keyof A2AHandler, (...a: unknown[]) => unknown>> = {}) => {
  const calls: Array<{ op: string; command: unknown; context?: unknown }> = [];
  const answer = (op: string) => async (_caller: unknown, command: unknown) => {
    calls.push({ op, command });
    const override = overrides[op as keyof A2AHandler];
    if (override) return override(_caller, command);
    if (op === 'sendMessage') return { kind: 'task', view: taskView(), show: { includeArtifacts: true } };
    if (op === 'listTasks')
      return {
        page: { tasks: [taskView()], nextPageToken: '', pageSize: 50, totalSize: 1 },
        show: { includeArtifacts: false, historyLength: 0 },
      };
    return { view: taskView(String((command as { id?: string }).id)), show: { includeArtifacts: true } };
  };
  const streamOf =
    (op: string) =>
    (_caller: unknown, command: unknown, context: unknown): TaskStream => {
      calls.push({ op, command, context });
      const override = overrides[op as keyof A2AHandler];
      if (override) return override(_caller, command, context) as TaskStream;
      return fakeStream(defaultItems());
    };
  const handler = {
    sendMessage: answer('sendMessage'),
    getTask: answer('getTask'),
    listTasks: answer('listTasks'),
    cancelTask: answer('cancelTask'),
    sendStreamingMessage: streamOf('sendStreamingMessage'),
    subscribeToTask: streamOf('subscribeToTask'),
    activateExtensions: (headers: Record<string, string | undefined>) =>
      (overrides.activateExtensions as ((h: unknown) => string[]) | undefined)?.(headers) ?? [],
    getExtendedAgentCard: (caller: unknown, where: unknown) => {
      calls.push({ op: 'getExtendedAgentCard', command: where });
      const override = overrides.getExtendedAgentCard;
      if (override) return override(caller, where);
      throw A2AProtocolError.unsupportedOperation('no extended agent card');
    },
  } as unknown as A2AHandler;
  return { binding: new RestBinding(handler, { logger: { error: () => {} } }), calls };
};

const request = (method: string, path: string, more: Partial<RestRequest> = {}): RestRequest => ({
  method,
  path,
  query: {},
  headers: { 'content-type': 'application/json' },
  body: undefined,
  principal: CALLER,
  blockingBudgetMs: 1000,
  ...more,
});

interface Body {
  task: { id: string };
  error: {
    code: number;
    status: string;
    message: string;
    details: Array<{ '@type': string; reason?: string }>;
  };
}
const json = (body: string) => JSON.parse(body) as Body;
const send = JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });

describe('HTTP+JSON binding: routes', () => {
  it('answers every v1.0 route, with and without a tenant prefix', async () => {
    const { binding, calls } = recording();
    for (const prefix of ['', '/t']) {
      const sent = await binding.handle(request('POST', `${prefix}/message:send`, { body: send }));
      assert.equal(sent.statusCode, 200);
      assert.equal(sent.headers['content-type'], 'application/json', 'asked in application/json');
      assert.equal(json(sent.body).task.id, 'task-1');
      assert.equal((await binding.handle(request('GET', `${prefix}/tasks/abc`))).statusCode, 200);
      assert.equal((await binding.handle(request('GET', `${prefix}/tasks`))).statusCode, 200);
      assert.equal((await binding.handle(request('POST', `${prefix}/tasks/abc:cancel`))).statusCode, 200);
    }
    assert.deepEqual(
      calls.map((c) => c.op),
      [
        'sendMessage',
        'getTask',
        'listTasks',
        'cancelTask',
        'sendMessage',
        'getTask',
        'listTasks',
        'cancelTask',
      ],
    );
  });

  it('matches `:cancel` before `/tasks/{id}`, decodes path segments, and refuses bad ones', async () => {
    const { binding, calls } = recording();
    await binding.handle(request('POST', '/tasks/a%2Fb:cancel'));
    assert.deepEqual(calls[0], { op: 'cancelTask', command: { id: 'a/b' } });
    const bad = await binding.handle(request('GET', '/tasks/%E0%A4%A'));
    assert.equal(bad.statusCode, 400);
    assert.equal(json(bad.body).error.status, 'INVALID_ARGUMENT');
    assert.equal(calls.length, 1, 'nothing else reached the handler');
  });

  it('a cancel takes no body, {} or null alike', async () => {
    const { binding, calls } = recording();
    for (const body of [undefined, '', '{}', 'null']) {
      const r = await binding.handle(request('POST', '/tasks/x:cancel', { body, headers: {} }));
      assert.equal(r.statusCode, 200, String(body));
    }
    assert.equal(calls.length, 4);
  });

  it('builds GetTask and ListTasks from query parameters as the A2A HTTP+JSON binding spells them', async () => {
    const { binding, calls } = recording();
    await binding.handle(request('GET', '/tasks/t1', { query: { historyLength: '3' } }));
    await binding.handle(
      request('GET', '/tasks', {
        query: {
          contextId: 'c1',
          status: 'TASK_STATE_WORKING',
          pageSize: '10',
          pageToken: 'tok',
          historyLength: '2',
          statusTimestampAfter: '2025-11-09T10:30:00Z',
          includeArtifacts: 'true',
          somethingElse: 'ignored',
        },
      }),
    );
    assert.deepEqual(calls[0]?.command, { id: 't1', historyLength: 3 });
    assert.deepEqual(calls[1]?.command, {
      contextId: 'c1',
      status: 'TASK_STATE_WORKING',
      pageSize: 10,
      pageToken: 'tok',
      historyLength: 2,
      statusTimestampAfter: '2025-11-09T10:30:00.000Z',
      includeArtifacts: true,
    });
    const bad = await binding.handle(request('GET', '/tasks', { query: { pageSize: 'lots' } }));
    assert.equal(bad.statusCode, 400);
    assert.match(json(bad.body).error.message, /pageSize/);
  });

  it('reads the proto snake_case query names as their camelCase ones, and refuses one given both ways', async () => {
    const { binding, calls } = recording();
    await binding.handle(request('GET', '/tasks/t1', { query: { history_length: '3' } }));
    await binding.handle(
      request('GET', '/tasks', {
        query: {
          context_id: 'c1',
          status: 'TASK_STATE_WORKING',
          page_size: '10',
          page_token: 'tok',
          history_length: '2',
          status_timestamp_after: '2025-11-09T10:30:00Z',
          include_artifacts: 'true',
        },
      }),
    );
    assert.deepEqual(calls[0]?.command, { id: 't1', historyLength: 3 });
    assert.deepEqual(calls[1]?.command, {
      contextId: 'c1',
      status: 'TASK_STATE_WORKING',
      pageSize: 10,
      pageToken: 'tok',
      historyLength: 2,
      statusTimestampAfter: '2025-11-09T10:30:00.000Z',
      includeArtifacts: true,
    });
    const both = await binding.handle(
      request('GET', '/tasks', { query: { pageSize: '10', page_size: '20' } }),
    );
    assert.equal(both.statusCode, 400);
    assert.match(json(both.body).error.message, /both/);
    assert.equal(calls.length, 2, 'the refused one reached no handler');
  });
});

describe('HTTP+JSON binding: refusals', () => {
  it('415 for a body of another media type; JSON of any case and with parameters is fine', async () => {
    const { binding, calls } = recording();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await binding.handle(
        request('POST', '/message:send', { body: send, headers: { 'content-type': type } }),
      );
      assert.equal(r.statusCode, 415, type);
      const error = json(r.body).error;
      assert.equal(error.code, 415);
      assert.equal(error.details[0]?.reason, 'CONTENT_TYPE_NOT_SUPPORTED');
    }
    assert.equal(calls.length, 0);
    for (const type of ['APPLICATION/JSON; charset=utf-8', 'application/a2a+json']) {
      const r = await binding.handle(
        request('POST', '/message:send', { body: send, headers: { 'content-type': type } }),
      );
      assert.equal(r.statusCode, 200, type);
    }
  });

  it('answers results and errors in the media type the client asks for (Accept, else its Content-Type, else application/json)', async () => {
    const { binding } = recording({
      getTask: () => {
        throw new TaskNotFoundError('gone');
      },
    });
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'application/json'],
      [{ accept: '*/*' }, 'application/json'],
      [{ accept: '*/*', 'content-type': 'application/a2a+json' }, 'application/json'],
      [{ accept: 'application/*' }, 'application/json'],
      [{ accept: 'application/a2a+json' }, 'application/a2a+json'],
      [{ accept: 'application/a2a+json, application/json' }, 'application/a2a+json'],
      [{ accept: 'application/json, application/a2a+json' }, 'application/json'],
      [{ accept: 'application/json;q=0.5, application/a2a+json;q=0.9' }, 'application/a2a+json'],
      [{ accept: 'application/a2a+json;q=0, */*' }, 'application/json'],
      [{ accept: 'APPLICATION/A2A+JSON; charset=utf-8' }, 'application/a2a+json'],
      [{ 'content-type': 'application/a2a+json; charset=utf-8' }, 'application/a2a+json'],
      [{ 'content-type': 'application/json' }, 'application/json'],
      [{ accept: 'text/html', 'content-type': 'application/a2a+json' }, 'application/a2a+json'],
      [{ accept: 'text/html' }, 'application/json'],
    ];
    for (const [headers, expected] of cases) {
      const label = JSON.stringify(headers);
      const sent = await binding.handle(request('POST', '/message:send', { body: send, headers }));
      assert.equal(sent.statusCode, 200, label);
      assert.equal(sent.headers['content-type'], expected, `result ${label}`);
      assert.match(sent.headers.vary ?? '', /Accept/, label);
      const missing = await binding.handle(request('GET', '/tasks/gone', { headers }));
      assert.equal(missing.statusCode, 404, label);
      assert.equal(missing.headers['content-type'], expected, `error ${label}`);
      assert.equal(json(missing.body).error.status, 'NOT_FOUND');
    }
    const unknown = await binding.handle(
      request('GET', '/nowhere/at/all', { headers: { accept: 'application/a2a+json' } }),
    );
    assert.equal(unknown.headers['content-type'], 'application/a2a+json', 'no route: still negotiated');
    const refused = await binding.handle(
      request('POST', '/message:send', { body: send, headers: { 'content-type': 'text/plain' } }),
    );
    assert.equal(refused.statusCode, 415);
    assert.equal(refused.headers['content-type'], 'application/json', 'a refused type is not echoed');
  });

  it('404 for an unknown route, 405 with Allow for a known one with another method', async () => {
    const { binding, calls } = recording();
    const unknown = await binding.handle(request('GET', '/nowhere/at/all'));
    assert.equal(unknown.statusCode, 404);
    assert.equal(json(unknown.body).error.status, 'NOT_FOUND');
    const wrong = await binding.handle(request('DELETE', '/tasks/x'));
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'GET');
    assert.equal(calls.length, 0);
  });

  it('413 over 1 MiB; 400 for a body that is not JSON or breaks the schema; 400 for an unsupported version', async () => {
    const { binding, calls } = recording();
    const big = await binding.handle(request('POST', '/message:send', { body: 'x'.repeat(1024 * 1024 + 1) }));
    assert.equal(big.statusCode, 413);
    const notJson = await binding.handle(request('POST', '/message:send', { body: '{nope' }));
    assert.equal(notJson.statusCode, 400);
    assert.equal(json(notJson.body).error.details[0]?.reason, 'PARSE_ERROR');
    const wrong = await binding.handle(
      request('POST', '/message:send', { body: '{"message":{"role":"ROLE_USER"}}' }),
    );
    assert.equal(wrong.statusCode, 400);
    assert.ok(json(wrong.body).error.details.some((d) => d['@type'].endsWith('BadRequest')));
    const old = await binding.handle(
      request('POST', '/message:send', {
        body: send,
        headers: { 'content-type': 'application/json', 'a2a-version': '0.3' },
      }),
    );
    assert.equal(old.statusCode, 400);
    assert.equal(json(old.body).error.details[0]?.reason, 'VERSION_NOT_SUPPORTED');
    assert.equal(calls.length, 0, 'the handler was never asked');
  });

  it('maps the handler errors to the 1.0.1 statuses: not found 404, internal 500 with a generic message', async () => {
    const { binding } = recording({
      getTask: () => {
        throw new TaskNotFoundError('gone');
      },
      cancelTask: () => {
        throw new Error('disk on fire');
      },
    });
    const missing = await binding.handle(request('GET', '/tasks/gone'));
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(
      {
        code: json(missing.body).error.code,
        status: json(missing.body).error.status,
        reason: json(missing.body).error.details[0]?.reason,
      },
      { code: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' },
    );
    const broken = await binding.handle(request('POST', '/tasks/x:cancel'));
    assert.equal(broken.statusCode, 500);
    assert.equal(json(broken.body).error.status, 'INTERNAL');
    assert.doesNotMatch(broken.body, /disk on fire/);
  });

  it('push-config routes say push is not supported (400); no extended card is UnsupportedOperation (400)', async () => {
    const { binding } = recording();
    const push = await binding.handle(request('POST', '/tasks/x/pushNotificationConfigs', { body: '{}' }));
    assert.equal(push.statusCode, 400);
    assert.equal(json(push.body).error.details[0]?.reason, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    const card = await binding.handle(request('GET', '/extendedAgentCard'));
    assert.equal(card.statusCode, 400);
    assert.equal(json(card.body).error.details[0]?.reason, 'UNSUPPORTED_OPERATION');
  });
});

describe('HTTP+JSON binding: streams, extensions, the extended card', () => {
  it('message:stream answers text/event-stream: each data a bare StreamResponse with the task version as id', async () => {
    const { binding, calls } = recording();
    const res = await binding.handle(
      request('POST', '/t/message:stream', { body: send, streamBudgetMs: 5000 }),
    );
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    const text = await drain(res.stream);
    assert.match(text, /^: keepalive$/m, 'the heartbeat is an SSE comment');
    const events = sseEvents(text);
    assert.deepEqual(
      events.map((e) => [e.id, Object.keys(e.data)]),
      [
        ['2', ['task']],
        ['3', ['statusUpdate']],
      ],
    );
    assert.equal((events[0]!.data.task as { id: string }).id, 'task-1');
    assert.ok(!('jsonrpc' in events[0]!.data), 'no JSON-RPC envelope over REST');
    assert.equal(calls[0]?.op, 'sendStreamingMessage');
    assert.equal((calls[0]?.context as { budgetMs?: number } | undefined)?.budgetMs, 5000);
    assert.equal(res.meta?.taskId, 'task-1');
  });

  it(':subscribe by GET or POST (no body, {} or null), resuming after Last-Event-ID', async () => {
    const { binding, calls } = recording();
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', undefined],
      ['POST', '{}'],
      ['POST', 'null'],
    ] as const) {
      const res = await binding.handle(
        request(method, '/tasks/task%201:subscribe', { body, headers: { 'last-event-id': '7' } }),
      );
      assert.equal(res.statusCode, 200, `${method} ${body}`);
      await drain(res.stream);
    }
    assert.equal(calls.length, 4);
    for (const call of calls) {
      assert.equal(call.op, 'subscribeToTask');
      assert.deepEqual(call.command, { id: 'task 1' });
      assert.equal((call.context as { afterVersion?: number }).afterVersion, 7);
    }
    const bad = await binding.handle(
      request('GET', '/tasks/t:subscribe', { headers: { 'last-event-id': 'x' } }),
    );
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Last-Event-ID/);
  });

  it('an error before the first event is a plain error answer; one after it ends the stream with event: error', async () => {
    const missing = recording({
      subscribeToTask: () =>
        fakeStream([
          () => {
            throw new TaskNotFoundError('nope');
          },
        ]),
    });
    const notFound = await missing.binding.handle(request('POST', '/tasks/nope:subscribe'));
    assert.equal(notFound.statusCode, 404);
    assert.equal(notFound.stream, undefined);
    assert.equal(json(notFound.body).error.details[0]?.reason, 'TASK_NOT_FOUND');

    const midway = recording({
      subscribeToTask: () =>
        fakeStream([
          defaultItems()[0]!,
          () => {
            throw A2AProtocolError.unsupportedOperation('went away');
          },
        ]),
    });
    const res = await midway.binding.handle(request('GET', '/tasks/task-1:subscribe'));
    assert.equal(res.statusCode, 200);
    const events = sseEvents(await drain(res.stream));
    assert.equal(events.length, 2);
    assert.equal(events[1]!.event, 'error');
    const error = events[1]!.data.error as {
      code: number;
      status: string;
      details: Array<{ reason?: string }>;
    };
    assert.equal(error.code, 400);
    assert.equal(error.status, 'FAILED_PRECONDITION');
    assert.equal(error.details[0]?.reason, 'UNSUPPORTED_OPERATION');
  });

  it('A2A-Extensions: a required extension left out is 400 EXTENSION_SUPPORT_REQUIRED and runs nothing; activated ones are echoed', async () => {
    const required = 'https://ext.example/billing/v2';
    const refusing = recording({
      activateExtensions: () => {
        throw A2AProtocolError.extensionSupportRequired([required]);
      },
    });
    const refused = await refusing.binding.handle(request('POST', '/message:send', { body: send }));
    assert.equal(refused.statusCode, 400);
    assert.equal(json(refused.body).error.details[0]?.reason, 'EXTENSION_SUPPORT_REQUIRED');
    assert.match(json(refused.body).error.message, /billing\/v2/);
    assert.equal(refusing.calls.length, 0, 'nothing ran');

    const echoing = recording({ activateExtensions: () => [required] });
    const sent = await echoing.binding.handle(request('POST', '/message:send', { body: send }));
    assert.equal(sent.statusCode, 200);
    assert.equal(sent.headers['a2a-extensions'], required);
    const streamed = await echoing.binding.handle(request('POST', '/message:stream', { body: send }));
    assert.equal(streamed.headers['a2a-extensions'], required);
    await drain(streamed.stream);
  });

  it("GET /extendedAgentCard serves the handler's card, with the public URL it was given", async () => {
    const card = { name: 'extended', skills: [{ id: 'audit' }] };
    const { binding, calls } = recording({ getExtendedAgentCard: () => card });
    const res = await binding.handle(
      request('GET', '/t/extendedAgentCard', { publicUrl: 'https://hub.example' }),
    );
    assert.equal(res.statusCode, 200);
    assert.deepEqual(JSON.parse(res.body), card);
    assert.deepEqual(calls.at(-1)?.command, { publicUrl: 'https://hub.example', version: '1.0' });
  });
});

describe('HTTP+JSON binding: authentication and tenants', () => {
  it('401 with a challenge for no principal, 403 for another tenant prefix, 400 for a body naming another one; nothing called', async () => {
    const { binding, calls } = recording();
    const { AuthError } = await import('../../../../shared/domain/errors.ts');
    const anonymous = await binding.handle({
      ...request('GET', '/tasks/x'),
      principal: new AuthError('unauthenticated', 'no credentials'),
    });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(json(anonymous.body).error.status, 'UNAUTHENTICATED');
    assert.match(anonymous.headers['www-authenticate'] ?? '', /^Bearer realm="synapse"/);
    const other = await binding.handle(request('GET', '/acme/tasks/x'));
    assert.equal(other.statusCode, 403);
    assert.equal(json(other.body).error.status, 'PERMISSION_DENIED');
    const clash = await binding.handle(
      request('POST', '/t/message:send', { body: JSON.stringify({ ...JSON.parse(send), tenant: 'acme' }) }),
    );
    assert.equal(clash.statusCode, 400);
    assert.equal(calls.length, 0);
  });
});
