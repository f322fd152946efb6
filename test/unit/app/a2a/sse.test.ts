/**
 * Compatibility with the real TypeScript peer, @a2a-js/sdk 1.3.0: its client
 * (v1.0 transport and the opt-in v0.3 legacy transport) talks through a fake
 * `fetch` to a miniature server built only from our wire layer and an
 * in-memory task map. Also decodes our output with the SDK's own ProtoJSON
 * parsers and compares our error details with the SDK's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ListTasksResponse,
  Role,
  type Message as SdkMessage,
  SendMessageRequest as SdkSendMessageRequest,
  Task as SdkTask,
  SendMessageResponse,
  TaskState,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError as SdkTaskNotFoundError, toJsonRpcError } from '@a2a-js/sdk/errors';
import { finalStatusOf, snapshotOf } from '../../../../shared/app/a2a/events.ts';
import { SSE_HEADERS, sseEvent } from '../../../../shared/app/a2a/sse.ts';
import type { TaskView } from '../../../../shared/domain/task.ts';
import {
  A2AProtocolError,
  buildAgentCard,
  cardVersionFor,
  errorCodecFor,
  failure,
  httpStatusOf,
  type JsonRpcResponse,
  jsonRpcError,
  parseEnvelope,
  parseRequest,
  type SendMessageCommand,
  selectCodec,
  success,
  toProtocolError,
  v1Codec,
} from '../../../../shared/protocol/a2a/index.ts';
import type { StreamEvent } from '../../../../shared/protocol/a2a/operations.ts';
import { agentMessage, artifact, head, T1, userMessage, view } from '../../protocol/a2a/fixtures.ts';

const BASE = 'https://agent.example.com';
const RPC_URL = `${BASE}/a2a/jsonrpc`;

const cardInput = (version: '1.0' | '0.3') => ({
  agent: {
    name: 'Echo',
    description: 'Echoes',
    version: '1.0.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'echo text', tags: ['demo'] }],
  },
  jsonRpcUrl: RPC_URL,
  capabilities: { streaming: false, pushNotifications: false },
  version,
});

/** A reply as the task service makes it: role agent, contextId set, no taskId. */
const replyMessage = (contextId: string) => {
  const { taskId: _none, ...reply } = agentMessage({
    messageId: 'reply-1',
    contextId,
    parts: [{ text: 'pong' }, { data: { n: 1 }, mediaType: 'application/json' }],
    metadata: { via: 'respond' },
  });
  return reply;
};

interface Captured {
  headers: Headers;
  body: { jsonrpc: string; id: unknown; method: string; params?: Record<string, unknown> };
}

/** A miniature JSON-RPC server: our wire layer + an in-memory "engine". */
function fakeServer() {
  const tasks = new Map<string, TaskView>();
  const calls: Captured[] = [];
  const commands: unknown[] = [];
  let n = 0;

  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  /** An SSE answer: each event a JSON-RPC response with the request's id, as the binding writes it. */
  const sse = (id: JsonRpcResponse['id'], codec: ReturnType<typeof selectCodec>, events: StreamEvent[]) =>
    new Response(
      events
        .map((e, i) => sseEvent({ id: i + 1, data: JSON.stringify(success(id, codec.encodeStreamEvent(e))) }))
        .join(': keepalive\n\n'),
      { status: 200, headers: SSE_HEADERS },
    );

  const send = (cmd: SendMessageCommand): TaskView => {
    const existing = cmd.taskId ? tasks.get(cmd.taskId) : undefined;
    if (cmd.taskId && !existing) throw A2AProtocolError.taskNotFound(cmd.taskId);
    const taskId = existing?.head.taskId ?? `task-${++n}`;
    const contextId = existing?.head.contextId ?? cmd.contextId ?? `ctx-${n}`;
    const stored = { ...cmd.message, taskId, contextId };
    const text = cmd.message.parts.map((p) => p.text ?? '').join('');
    const v: TaskView = {
      head: head({
        taskId,
        contextId,
        state: cmd.returnImmediately ? 'pending' : 'completed',
        statusAt: T1,
        statusMessage: agentMessage({ taskId, contextId, parts: [{ text: `echo: ${text}` }] }),
      }),
      history: [...(existing?.history ?? []), stored],
      artifacts: [artifact({ parts: [{ text }, { data: { length: text.length } }] })],
    };
    tasks.set(taskId, v);
    return v;
  };

  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers);
    const versionHeader = headers.get('A2A-Version') ?? undefined;
    if (url.endsWith('/.well-known/agent-card.json')) {
      return json(buildAgentCard(cardInput(cardVersionFor(versionHeader))));
    }
    assert.equal(url, RPC_URL);
    const raw = typeof init?.body === 'string' ? init.body : undefined;
    calls.push({ headers, body: JSON.parse(raw ?? 'null') });

    let codec: ReturnType<typeof selectCodec>;
    try {
      codec = selectCodec(versionHeader);
    } catch (e) {
      const err = jsonRpcError(errorCodecFor(versionHeader), toProtocolError(e));
      return json(failure(null, err), httpStatusOf(err.code));
    }
    const env = parseEnvelope(raw);
    if (!env.ok) return json(failure(env.id, jsonRpcError(codec, env.error)), httpStatusOf(env.error.code));
    try {
      const req = parseRequest(codec, env.method, env.params);
      commands.push(req.command);
      let result: JsonRpcResponse;
      switch (req.operation) {
        case 'SendStreamingMessage': {
          if (req.command.message.parts[0]?.text === 'reply please') {
            return sse(env.id, codec, [{ kind: 'message', message: replyMessage('ctx-reply') }]);
          }
          const done = send(req.command);
          const working: TaskView = { ...done, head: { ...done.head, state: 'executing' }, artifacts: [] };
          const ids = { taskId: done.head.taskId, contextId: done.head.contextId };
          return sse(env.id, codec, [
            snapshotOf(working, { includeArtifacts: true }),
            {
              kind: 'artifact-update',
              ...ids,
              artifact: artifact({ parts: [{ text: 'a' }] }),
              append: false,
            },
            {
              kind: 'artifact-update',
              ...ids,
              artifact: artifact({ parts: [{ text: 'b' }] }),
              append: true,
              lastChunk: true,
            },
            finalStatusOf(done),
          ]);
        }
        case 'SubscribeToTask': {
          const v = tasks.get(req.command.id);
          if (!v) throw A2AProtocolError.taskNotFound(req.command.id);
          return sse(env.id, codec, [snapshotOf(v, { includeArtifacts: true }), finalStatusOf(v)]);
        }
        case 'SendMessage': {
          if (req.command.message.parts[0]?.text === 'reply please') {
            // the agent answers with a message and makes no task
            const contextId = req.command.contextId ?? 'ctx-reply';
            result = success(env.id, codec.encodeSendReply(replyMessage(contextId)));
            break;
          }
          const v = send(req.command);
          const opts = {
            includeArtifacts: true,
            ...(req.command.historyLength !== undefined ? { historyLength: req.command.historyLength } : {}),
          };
          result = success(env.id, codec.encodeSendResult(v, opts));
          break;
        }
        case 'GetTask': {
          const v = tasks.get(req.command.id);
          if (!v) throw A2AProtocolError.taskNotFound(req.command.id);
          const opts = {
            includeArtifacts: true,
            ...(req.command.historyLength !== undefined ? { historyLength: req.command.historyLength } : {}),
          };
          result = success(env.id, codec.encodeGetResult(v, opts));
          break;
        }
        case 'CancelTask': {
          const v = tasks.get(req.command.id);
          if (!v) throw A2AProtocolError.taskNotFound(req.command.id);
          const canceled: TaskView = { ...v, head: { ...v.head, state: 'cancelled' } };
          tasks.set(req.command.id, canceled);
          result = success(env.id, codec.encodeCancelResult(canceled, { includeArtifacts: true }));
          break;
        }
        case 'ListTasks': {
          const all = [...tasks.values()].filter(
            (t) => !req.command.contextId || t.head.contextId === req.command.contextId,
          );
          const page = all.slice(0, req.command.pageSize);
          const opts = {
            includeArtifacts: req.command.includeArtifacts,
            ...(req.command.historyLength !== undefined ? { historyLength: req.command.historyLength } : {}),
          };
          result = success(
            env.id,
            codec.encodeListResult(
              { tasks: page, nextPageToken: '', pageSize: req.command.pageSize, totalSize: all.length },
              opts,
            ),
          );
          break;
        }
        case 'GetExtendedAgentCard':
          throw A2AProtocolError.unsupportedOperation('no extended agent card in this fake');
        default:
          throw A2AProtocolError.pushNotificationNotSupported('no push notifications in this fake');
      }
      return json(result);
    } catch (e) {
      const err = jsonRpcError(codec, toProtocolError(e));
      return json(failure(env.id, err), httpStatusOf(err.code));
    }
  };
  return { fetchImpl, calls, commands, tasks };
}

const textPart = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

const sdkMessage = (text: string, extra: { taskId?: string; contextId?: string } = {}) => ({
  messageId: `msg-${text}`,
  contextId: extra.contextId ?? '',
  taskId: extra.taskId ?? '',
  role: Role.ROLE_USER,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

function v1Client(server: ReturnType<typeof fakeServer>) {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: server.fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: server.fetchImpl }),
    }),
  );
  return factory.createFromUrl(BASE);
}

describe('@a2a-js/sdk 1.3.0 client (v1.0 JSON-RPC transport) against our wire layer', () => {
  it('discovers the card, negotiates v1.0 and sends SendMessage we accept; decodes our {task}', async () => {
    const server = fakeServer();
    const client = await v1Client(server);
    assert.equal(client.protocolVersion, '1.0');

    const result = await client.sendMessage({
      tenant: '',
      message: sdkMessage('hi'),
      configuration: undefined,
      metadata: undefined,
    });

    const [call] = server.calls;
    assert.ok(call);
    assert.equal(call.headers.get('A2A-Version'), '1.0');
    assert.equal(call.body.method, 'SendMessage');
    // What the client really sends: no tenant "", a configuration object without blocking/returnImmediately.
    assert.deepEqual(call.body.params, {
      message: { messageId: 'msg-hi', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: {},
    });
    assert.deepEqual(server.commands[0], {
      message: { messageId: 'msg-hi', role: 'user', parts: [{ text: 'hi' }] },
      returnImmediately: false,
    });

    assert.ok('id' in result && 'status' in result, 'a Task, not a Message');
    assert.equal(result.id, 'task-1');
    assert.equal(result.contextId, 'ctx-1');
    assert.equal(result.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(result.status?.timestamp, T1);
    assert.equal(result.status?.message?.role, Role.ROLE_AGENT);
    assert.deepEqual(result.status?.message?.parts[0]?.content, { $case: 'text', value: 'echo: hi' });
    assert.equal(result.artifacts.length, 1);
    assert.deepEqual(result.artifacts[0]?.parts[1]?.content, { $case: 'data', value: { length: 2 } });
    assert.equal(result.history.length, 1);
  });

  it('sends every SendMessage option the SDK supports, and we parse them', async () => {
    const server = fakeServer();
    const client = await v1Client(server);
    const first = await client.sendMessage({
      tenant: '',
      message: sdkMessage('one'),
      configuration: undefined,
      metadata: undefined,
    });
    assert.ok('id' in first);
    await client.sendMessage({
      tenant: 'acme',
      message: {
        ...sdkMessage('two', { taskId: first.id, contextId: first.contextId }),
        parts: [
          textPart('two'),
          {
            content: { $case: 'raw', value: Buffer.from('bytes') },
            metadata: { a: 1 },
            filename: 'b.bin',
            mediaType: 'application/octet-stream',
          },
          {
            content: { $case: 'url', value: 'https://x/y.png' },
            metadata: undefined,
            filename: '',
            mediaType: 'image/png',
          },
          { content: { $case: 'data', value: [1, 'two'] }, metadata: undefined, filename: '', mediaType: '' },
        ],
        metadata: { trace: 'x' },
        extensions: ['https://ext.example/v1'],
        referenceTaskIds: ['task-0'],
      },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: undefined,
        historyLength: 1,
        returnImmediately: true,
      },
      metadata: { req: true },
    });
    const params = server.calls[1]?.body.params;
    assert.equal(params?.tenant, 'acme');
    assert.deepEqual(params?.configuration, {
      acceptedOutputModes: ['text/plain'],
      historyLength: 1,
      returnImmediately: true,
    });
    const cmd = server.commands[1] as SendMessageCommand;
    assert.equal(cmd.tenant, 'acme');
    assert.equal(cmd.taskId, first.id);
    assert.equal(cmd.contextId, first.contextId);
    assert.equal(cmd.returnImmediately, true);
    assert.equal(cmd.historyLength, 1);
    assert.deepEqual(cmd.acceptedOutputModes, ['text/plain']);
    assert.deepEqual(cmd.metadata, { req: true });
    assert.deepEqual(cmd.message.parts, [
      { text: 'two' },
      {
        raw: Buffer.from('bytes').toString('base64'),
        mediaType: 'application/octet-stream',
        filename: 'b.bin',
        metadata: { a: 1 },
      },
      { url: 'https://x/y.png', mediaType: 'image/png' },
      { data: [1, 'two'] },
    ]);
    assert.deepEqual(cmd.message.extensions, ['https://ext.example/v1']);
    assert.deepEqual(cmd.message.referenceTaskIds, ['task-0']);
  });

  it('GetTask, ListTasks and CancelTask round-trip through the SDK', async () => {
    const server = fakeServer();
    const client = await v1Client(server);
    const sent = await client.sendMessage({
      tenant: '',
      message: sdkMessage('hi', { contextId: 'ctx-x' }),
      configuration: undefined,
      metadata: undefined,
    });
    assert.ok('id' in sent);
    assert.equal(sent.contextId, 'ctx-x');

    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    assert.deepEqual(server.calls.at(-1)?.body.params, { id: sent.id, historyLength: 0 });
    assert.deepEqual(server.commands.at(-1), { id: sent.id, historyLength: 0 });
    assert.equal(got.id, sent.id);
    assert.deepEqual(got.history, []);

    const list = await client.listTasks({
      tenant: '',
      contextId: 'ctx-x',
      status: TaskState.TASK_STATE_COMPLETED,
      pageSize: 10,
      pageToken: '',
      historyLength: 1,
      statusTimestampAfter: '2024-12-31T00:00:00Z',
      includeArtifacts: false,
    });
    assert.deepEqual(server.calls.at(-1)?.body.params, {
      contextId: 'ctx-x',
      status: 'TASK_STATE_COMPLETED',
      pageSize: 10,
      historyLength: 1,
      statusTimestampAfter: '2024-12-31T00:00:00Z',
      includeArtifacts: false,
    });
    assert.deepEqual(server.commands.at(-1), {
      contextId: 'ctx-x',
      status: 'TASK_STATE_COMPLETED',
      pageSize: 10,
      historyLength: 1,
      statusTimestampAfter: '2024-12-31T00:00:00.000Z',
      includeArtifacts: false,
    });
    assert.equal(list.tasks.length, 1);
    assert.equal(list.nextPageToken, '');
    assert.equal(list.pageSize, 10);
    assert.equal(list.totalSize, 1);
    assert.deepEqual(list.tasks[0]?.artifacts, []);

    const canceled = await client.cancelTask({ tenant: '', id: sent.id, metadata: { why: 'test' } });
    assert.deepEqual(server.commands.at(-1), { id: sent.id, metadata: { why: 'test' } });
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
  });

  it('a message reply ({message}, no task) is what the SDK returns from sendMessage', async () => {
    const server = fakeServer();
    const client = await v1Client(server);
    const result = await client.sendMessage({
      tenant: '',
      message: sdkMessage('reply please', { contextId: 'ctx-r' }),
      configuration: undefined,
      metadata: undefined,
    });
    assert.ok(!('status' in result), 'a Message, not a Task');
    const message = result as SdkMessage;
    assert.equal(message.messageId, 'reply-1');
    assert.equal(message.role, Role.ROLE_AGENT);
    assert.equal(message.contextId, 'ctx-r');
    assert.equal(message.taskId, '');
    assert.deepEqual(message.parts[0]?.content, { $case: 'text', value: 'pong' });
    assert.deepEqual(message.parts[1]?.content, { $case: 'data', value: { n: 1 } });
    assert.deepEqual(message.metadata, { via: 'respond' });
    assert.equal(server.tasks.size, 0, 'no task was made');
  });

  it('maps our errors to the SDK error classes', async () => {
    const server = fakeServer();
    const client = await v1Client(server);
    await assert.rejects(client.getTask({ tenant: '', id: 'nope' }), (e: unknown) => {
      assert.ok(e instanceof SdkTaskNotFoundError);
      assert.match((e as Error).message, /Task not found: nope/);
      return true;
    });
    await assert.rejects(
      client.sendMessage({
        tenant: '',
        message: { ...sdkMessage('x'), parts: [] },
        configuration: undefined,
        metadata: undefined,
      }),
      (e: unknown) => {
        assert.equal((e as { envelopeCode?: number }).envelopeCode, -32602);
        assert.match((e as Error).message, /message\.parts/);
        return true;
      },
    );
  });
});

describe('@a2a-js/sdk 1.3.0 legacy (v0.3) JSON-RPC transport against our v0.3 codec', () => {
  it('accepts the v0.3 card shape and exchanges message/send, tasks/get, tasks/cancel', async () => {
    const server = fakeServer();
    const legacy = { enabled: true };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: server.fetchImpl, legacyCompat: legacy })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: server.fetchImpl, legacyCompat: legacy }),
      }),
    );
    // A pure v0.3 card (as an old server would serve it) goes through the SDK's v0.3 card translator.
    const { supportedInterfaces: _ignored, ...pureV03Card } = buildAgentCard(cardInput('0.3'));
    const client = await factory.createFromAgentCard(pureV03Card as never);
    assert.equal(client.protocolVersion, '0.3');

    const sent = await client.sendMessage({
      tenant: '',
      message: sdkMessage('hi'),
      configuration: undefined,
      metadata: undefined,
    });
    const call = server.calls[0];
    assert.equal(call?.headers.get('A2A-Version'), '0.3');
    assert.equal(call?.body.method, 'message/send');
    assert.deepEqual(call?.body.params, {
      message: { kind: 'message', messageId: 'msg-hi', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      configuration: { blocking: true, acceptedOutputModes: [] },
    });
    assert.deepEqual(server.commands[0], {
      message: { messageId: 'msg-hi', role: 'user', parts: [{ text: 'hi' }] },
      returnImmediately: false,
    });
    assert.ok('id' in sent);
    assert.equal(sent.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.deepEqual(sent.artifacts[0]?.parts[1]?.content, { $case: 'data', value: { length: 2 } });

    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: 5 });
    assert.equal(server.calls.at(-1)?.body.method, 'tasks/get');
    assert.equal(got.history[0]?.role, Role.ROLE_USER);

    const canceled = await client.cancelTask({ tenant: '', id: sent.id, metadata: undefined });
    assert.equal(server.calls.at(-1)?.body.method, 'tasks/cancel');
    assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);

    await assert.rejects(client.getTask({ tenant: '', id: 'nope' }), (e: unknown) => {
      assert.ok(e instanceof SdkTaskNotFoundError);
      return true;
    });
  });
});

describe('@a2a-js/sdk 1.3.0 clients read our streams', () => {
  const streamingCard = (version: '1.0' | '0.3') => {
    const card = buildAgentCard(cardInput(version)) as unknown as Record<string, unknown> & {
      capabilities: Record<string, unknown>;
    };
    const withStreaming: Record<string, unknown> = {
      ...card,
      capabilities: { ...card.capabilities, streaming: true },
    };
    // a pure v0.3 card, as an old server serves it, goes through the SDK's v0.3 card translator
    if (version === '0.3') delete withStreaming.supportedInterfaces;
    return withStreaming;
  };
  const factoryFor = (server: ReturnType<typeof fakeServer>, legacy: boolean) =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [
          new JsonRpcTransportFactory({
            fetchImpl: server.fetchImpl,
            ...(legacy ? { legacyCompat: { enabled: true } } : {}),
          }),
        ],
        cardResolver: new DefaultAgentCardResolver({
          fetchImpl: server.fetchImpl,
          ...(legacy ? { legacyCompat: { enabled: true } } : {}),
        }),
      }),
    );

  for (const version of ['1.0', '0.3'] as const) {
    it(`v${version}: sendMessageStream yields the snapshot, the artifact chunks and the final status`, async () => {
      const server = fakeServer();
      const card = streamingCard(version);
      const client = await factoryFor(server, version === '0.3').createFromAgentCard(card as never);
      assert.equal(client.protocolVersion, version);
      const events = [];
      for await (const e of client.sendMessageStream({
        tenant: '',
        message: sdkMessage('hi'),
        configuration: undefined,
        metadata: undefined,
      })) {
        events.push(e);
      }
      assert.equal(
        server.calls[0]?.body.method,
        version === '1.0' ? 'SendStreamingMessage' : 'message/stream',
      );
      assert.deepEqual(
        events.map((e) => e.payload?.$case),
        ['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
      );
      const [task, first, second, status] = events.map((e) => e.payload?.value) as [
        SdkTask,
        { append: boolean; lastChunk: boolean; artifact: { parts: { content: unknown }[] } },
        { append: boolean; lastChunk: boolean },
        { status: { state: TaskState } },
      ];
      assert.equal(task.status?.state, TaskState.TASK_STATE_WORKING);
      assert.equal(first.append, false);
      assert.deepEqual(first.artifact.parts[0]?.content, { $case: 'text', value: 'a' });
      assert.equal(second.append, true);
      assert.equal(second.lastChunk, true);
      assert.equal(status.status.state, TaskState.TASK_STATE_COMPLETED);

      const again = [];
      for await (const e of client.resubscribeTask({ tenant: '', id: task.id })) again.push(e.payload?.$case);
      assert.equal(
        server.calls.at(-1)?.body.method,
        version === '1.0' ? 'SubscribeToTask' : 'tasks/resubscribe',
      );
      assert.deepEqual(again, ['task', 'statusUpdate']);

      const reply = [];
      for await (const e of client.sendMessageStream({
        tenant: '',
        message: sdkMessage('reply please'),
        configuration: undefined,
        metadata: undefined,
      })) {
        reply.push(e.payload);
      }
      assert.equal(reply.length, 1);
      assert.equal(reply[0]?.$case, 'message');
      await assert.rejects(
        (async () => {
          for await (const _ of client.resubscribeTask({ tenant: '', id: 'nope' })) {
            // never reached
          }
        })(),
        (e: unknown) => e instanceof SdkTaskNotFoundError,
        'an error before the stream is a plain JSON-RPC error the SDK maps',
      );
    });
  }
});

describe('@a2a-js/sdk 1.3.0 legacy (v0.3) transport: a message reply', () => {
  it('the bare v0.3 Message (kind "message") is what the SDK returns from sendMessage', async () => {
    const server = fakeServer();
    const legacy = { enabled: true };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: server.fetchImpl, legacyCompat: legacy })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: server.fetchImpl, legacyCompat: legacy }),
      }),
    );
    const { supportedInterfaces: _ignored, ...pureV03Card } = buildAgentCard(cardInput('0.3'));
    const client = await factory.createFromAgentCard(pureV03Card as never);
    assert.equal(client.protocolVersion, '0.3');
    const result = await client.sendMessage({
      tenant: '',
      message: sdkMessage('reply please'),
      configuration: undefined,
      metadata: undefined,
    });
    assert.equal(server.calls[0]?.body.method, 'message/send');
    assert.ok(!('status' in result), 'a Message, not a Task');
    const message = result as SdkMessage;
    assert.equal(message.role, Role.ROLE_AGENT);
    assert.equal(message.contextId, 'ctx-reply');
    assert.deepEqual(message.parts[0]?.content, { $case: 'text', value: 'pong' });
    assert.deepEqual(message.parts[1]?.content, { $case: 'data', value: { n: 1 } });
  });
});

describe('our v1.0 output decoded by the SDK ProtoJSON types', () => {
  const v = view({
    state: 'info_needed',
    head: { statusMessage: agentMessage(), metadata: { k: 'v' } },
    history: [
      userMessage({
        parts: [
          { text: 'a', mediaType: 'text/plain' },
          { raw: Buffer.from('xyz').toString('base64'), filename: 'x.bin' },
          { url: 'https://x/y' },
          { data: { n: 1 }, metadata: { m: true } },
        ],
        extensions: ['urn:e'],
        referenceTaskIds: ['t0'],
        metadata: { z: 1 },
      }),
    ],
    artifacts: [artifact({ description: 'desc', extensions: ['urn:e'], metadata: { a: 1 } })],
  });

  it('Task.fromJSON → Task.toJSON reproduces our encoding exactly', () => {
    const ours = v1Codec.encodeTask(v, { includeArtifacts: true });
    const decoded = SdkTask.fromJSON(ours);
    assert.equal(decoded.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    assert.deepEqual(SdkTask.toJSON(decoded), ours);
  });

  it('SendMessageResponse.fromJSON finds the task payload', () => {
    const decoded = SendMessageResponse.fromJSON(v1Codec.encodeSendResult(v, { includeArtifacts: true }));
    assert.equal(decoded.payload?.$case, 'task');
  });

  it('SendMessageResponse.fromJSON finds the message payload of a reply, and toJSON gives our encoding back', () => {
    const ours = v1Codec.encodeSendReply(replyMessage('ctx-1'));
    const decoded = SendMessageResponse.fromJSON(ours);
    assert.equal(decoded.payload?.$case, 'message');
    if (decoded.payload?.$case !== 'message') return;
    assert.equal(decoded.payload.value.role, Role.ROLE_AGENT);
    assert.equal(decoded.payload.value.contextId, 'ctx-1');
    assert.deepEqual(SendMessageResponse.toJSON(decoded), ours);
  });

  it('ListTasksResponse.fromJSON reads all four fields', () => {
    const ours = v1Codec.encodeListResult(
      { tasks: [v], nextPageToken: 'next', pageSize: 1, totalSize: 3 },
      { includeArtifacts: false },
    );
    const decoded = ListTasksResponse.fromJSON(ours);
    assert.equal(decoded.tasks.length, 1);
    assert.equal(decoded.nextPageToken, 'next');
    assert.equal(decoded.pageSize, 1);
    assert.equal(decoded.totalSize, 3);
  });

  it('what SendMessageRequest.toJSON produces, our v1 parser accepts', () => {
    const wire = SdkSendMessageRequest.toJSON({
      tenant: 't',
      message: sdkMessage('x', { taskId: 'task-9', contextId: 'ctx-9' }),
      configuration: {
        acceptedOutputModes: ['application/json'],
        taskPushNotificationConfig: undefined,
        historyLength: 2,
        returnImmediately: false,
      },
      metadata: { a: 1 },
    });
    const cmd = v1Codec.parseSendMessage(wire);
    assert.equal(cmd.taskId, 'task-9');
    assert.equal(cmd.tenant, 't');
  });

  it('our ErrorInfo detail equals the SDK server encoding of the same error', () => {
    const sdk = toJsonRpcError(
      new SdkTaskNotFoundError({ message: 'Task not found: t9', metadata: { taskId: 't9' } }),
    );
    const ours = jsonRpcError(v1Codec, A2AProtocolError.taskNotFound('t9'));
    assert.deepEqual(ours, sdk);
  });
});
