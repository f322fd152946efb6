/**
 * SSE streaming against the local hub (the deployed handlers, DynamoDB Local, local SQS): the official
 * @a2a-js/sdk 1.3.0 client's sendMessageStream / resubscribeTask through the demo agent, and raw HTTP
 * for the framing (ids, data, heartbeat comments, content type, no buffering), Last-Event-ID
 * resumption, the budget close and the v0.3 shapes.
 *
 * The client is made from the hub's card with `capabilities.streaming` set (the SDK falls back to a
 * plain send otherwise); streams answer the same whatever the card says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Message,
  Role,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  TaskState,
  type TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

/** Short, so the raw-HTTP tests see comments between the demo agent's one-second progress reports. */
const HEARTBEAT_MS = 300;

let hub: LocalHub;
/** The client of the transport whose tests run now (each transport's suite sets it before its tests). */
let client: Client;
let rpcUrl: string;
const clients: Partial<Record<'JSONRPC' | 'HTTP+JSON', Client>> = {};

before(async () => {
  hub = await startLocalHub({
    port: 0,
    sweepIntervalMs: 60_000,
    env: { STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) },
  });
  rpcUrl = `${hub.url}/a2a/jsonrpc`;
  const card = await new ClientFactory().createFromUrl(hub.url).then((c) => c.getAgentCard());
  assert.equal(card.capabilities?.streaming, true, 'the card declares streaming');
  // a factory that knows one transport picks that transport's interface from the card
  for (const [name, transport] of [
    ['JSONRPC', new JsonRpcTransportFactory()],
    ['HTTP+JSON', new RestTransportFactory()],
  ] as const) {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [transport] }),
    );
    clients[name] = await factory.createFromAgentCard(card);
  }
});
after(async () => hub?.stop());

// ---- the SDK client ---------------------------------------------------------------------------

const message = (text: string, extra: { taskId?: string; contextId?: string } = {}): Message => ({
  messageId: crypto.randomUUID(),
  contextId: extra.contextId ?? '',
  taskId: extra.taskId ?? '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const streamOf = (text: string, extra: { taskId?: string; contextId?: string } = {}) =>
  client.sendMessageStream({
    tenant: '',
    message: message(text, extra),
    configuration: undefined,
    metadata: undefined,
  });

const textOf = (m: Message | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const getTask = (id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

type Seen = { event: StreamResponse; at: number; state?: TaskState };

/** Every event of a stream, with when it arrived and (for the first `peekAt` ones) the task's state then. */
const collect = async (events: AsyncGenerator<StreamResponse>, peekAt = 0): Promise<Seen[]> => {
  const seen: Seen[] = [];
  for await (const event of events) {
    const entry: Seen = { event, at: Date.now() };
    if (seen.length < peekAt) entry.state = (await getTask(taskIdOf(event)!)).status?.state;
    seen.push(entry);
  }
  return seen;
};

const taskIdOf = (e: StreamResponse): string | undefined => {
  const p = e.payload;
  if (p?.$case === 'task') return p.value.id;
  if (p?.$case === 'statusUpdate' || p?.$case === 'artifactUpdate') return p.value.taskId;
  return undefined;
};

const kinds = (seen: Seen[]) => seen.map((s) => s.event.payload?.$case);
const statusUpdates = (seen: Seen[]) =>
  seen.flatMap((s) => (s.event.payload?.$case === 'statusUpdate' ? [s.event.payload.value] : []));
const artifactUpdates = (seen: Seen[]) =>
  seen.flatMap((s) => (s.event.payload?.$case === 'artifactUpdate' ? [s.event.payload.value] : []));
/** The `n` of the demo's `n/N s` progress messages, in order. */
const progressOf = (updates: TaskStatusUpdateEvent[]) =>
  updates.flatMap((u) => {
    const m = /^(\d+)\/\d+ s$/.exec(textOf(u.status?.message));
    return m ? [Number(m[1])] : [];
  });

const TERMINAL = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED];

const waitFor = async (id: string, done: (t: Task) => boolean, timeoutMs = 20_000): Promise<Task> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(id);
    if (done(task) || Date.now() > until) return task;
    await new Promise((r) => setTimeout(r, 100));
  }
};

// ---- raw HTTP ---------------------------------------------------------------------------------

interface Frame {
  id?: number;
  event?: string;
  comment?: string;
  /** The parsed data: a JSON-RPC response. */
  data?: { jsonrpc: string; id: unknown; result?: Record<string, unknown>; error?: { code: number } };
  at: number;
}

/** Reads SSE frames as they arrive. */
async function* framesOf(res: Response): AsyncGenerator<Frame> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: Frame = { at: Date.now() };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        else if (line.startsWith('id: ')) frame.id = Number(line.slice(4));
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
        else assert.fail(`an unexpected SSE line: ${JSON.stringify(line)}`);
      }
      yield frame;
    }
  }
}

let rpcId = 0;
const rawStream = async (
  method: string,
  params: unknown,
  headers: Record<string, string> = { 'A2A-Version': '1.0' },
) => {
  const id = `raw-${++rpcId}`;
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return { id, res };
};

const rawAll = async (res: Response): Promise<Frame[]> => {
  const out: Frame[] = [];
  for await (const f of framesOf(res)) out.push(f);
  return out;
};

const v1Send = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

const events = (frames: Frame[]) => frames.filter((f) => f.data);
const ids = (frames: Frame[]) => events(frames).map((f) => f.id);
const resultKind = (f: Frame) => Object.keys(f.data?.result ?? {})[0];

/** Every event a stream shows of a task, from the start (a resume after version 0 of the finished task). */
const reference = async (taskId: string): Promise<Frame[]> => {
  const { res } = await rawStream(
    'SubscribeToTask',
    { id: taskId },
    { 'A2A-Version': '1.0', 'Last-Event-ID': '0' },
  );
  return events(await rawAll(res));
};

// ---- the tests --------------------------------------------------------------------------------

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const)
  describe(`streaming with the @a2a-js/sdk client over ${transport}`, () => {
    before(() => {
      client = clients[transport]!;
    });

    it('slow 5: the snapshot, then each progress report as it happens, then the completion', async () => {
      const seen = await collect(streamOf('slow 5'), 2);
      assert.equal(kinds(seen)[0], 'task', 'the first event is the Task snapshot');
      const updates = statusUpdates(seen);
      assert.deepEqual(progressOf(updates), [1, 2, 3, 4, 5], 'every report, in order, none twice');
      const last = updates.at(-1);
      assert.equal(last?.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(last?.status?.message), 'Done after 5 s');
      assert.equal(kinds(seen).at(-1), 'statusUpdate', 'the stream ends on the final status update');
      // no buffering: the events arrived over the run, the first while it was still going on
      assert.ok(seen[1]?.state !== undefined && !TERMINAL.includes(seen[1].state), `state ${seen[1]?.state}`);
      assert.ok(seen.at(-1)!.at - seen[0]!.at >= 3000, 'spread over the task’s five seconds');
      const task = await getTask(taskIdOf(seen[0]!.event)!);
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
    });

    it('a stream cut midway: the task goes on, and a resubscription continues with no duplicate', async () => {
      const first: Seen[] = [];
      for await (const event of streamOf('slow 5')) {
        first.push({ event, at: Date.now() });
        if (progressOf(statusUpdates(first)).includes(2)) break; // the client goes away
      }
      const taskId = taskIdOf(first[0]!.event)!;
      const before = progressOf(statusUpdates(first));
      assert.deepEqual(before, [1, 2]);
      const second = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
      assert.equal(kinds(second)[0], 'task', 'a resubscription starts with a fresh snapshot');
      const snapshot = second[0]!.event.payload?.value as Task;
      const atSnapshot = Number(/^(\d+)\//.exec(textOf(snapshot.status?.message))?.[1] ?? 0);
      assert.ok(atSnapshot >= 2, 'the snapshot covers what happened in between');
      const after = progressOf(statusUpdates(second));
      assert.ok(
        after.every((n) => n > atSnapshot),
        `after the snapshot only: ${after} (snapshot at ${atSnapshot})`,
      );
      assert.deepEqual(
        [...before, ...after].filter((n) => n > 2),
        [...new Set([...before, ...after])].filter((n) => n > 2),
      );
      assert.equal(statusUpdates(second).at(-1)?.status?.state, TaskState.TASK_STATE_COMPLETED);
      // the cut stream did not stop the agent, which ran inline in the function serving it
      const task = await getTask(taskId);
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(task.status?.message), 'Done after 5 s');
    });

    it('ask: streamed to input-required (the stream ends), then answered and streamed on to completion', async () => {
      const asked = await collect(streamOf('ask'));
      const askedUpdates = statusUpdates(asked);
      const interrupted = askedUpdates.at(-1);
      assert.equal(interrupted?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.equal(textOf(interrupted?.status?.message), 'What is your answer?');
      assert.equal(kinds(asked).at(-1), 'statusUpdate');
      const task = asked[0]!.event.payload?.value as Task;
      const answered = await collect(streamOf('forty-two', { taskId: task.id, contextId: task.contextId }));
      assert.equal(kinds(answered)[0], 'task');
      const snapshot = answered[0]!.event.payload?.value as Task;
      assert.equal(snapshot.id, task.id);
      assert.notEqual(snapshot.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED, 'taken after the answer');
      const done = statusUpdates(answered).at(-1);
      assert.equal(done?.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(done?.status?.message), 'You answered: forty-two');
    });

    it('SubscribeToTask of an input-required task stays open through the answer, to the completion', async () => {
      const asked = await collect(streamOf('ask'));
      const task = asked[0]!.event.payload?.value as Task;
      assert.equal(statusUpdates(asked).at(-1)?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const subscribed: Seen[] = [];
      let answered: Promise<unknown> | undefined;
      for await (const event of client.resubscribeTask({ tenant: '', id: task.id })) {
        subscribed.push({ event, at: Date.now() });
        // the snapshot is INPUT_REQUIRED, where a send's stream closes: this one goes on, so answer
        if (subscribed.length === 1)
          answered = collect(streamOf('forty-two', { taskId: task.id, contextId: task.contextId }));
      }
      await answered;
      assert.equal(kinds(subscribed)[0], 'task');
      const snapshot = subscribed[0]!.event.payload?.value as Task;
      assert.equal(snapshot.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const states = statusUpdates(subscribed).map((u) => u.status?.state);
      assert.equal(states[0], TaskState.TASK_STATE_WORKING, `working again after the answer: ${states}`);
      assert.equal(states.at(-1), TaskState.TASK_STATE_COMPLETED, 'and it ends on the completion');
      assert.equal(textOf(statusUpdates(subscribed).at(-1)?.status?.message), 'You answered: forty-two');
    });

    it('chunks 4: each artifact chunk arrives as it is recorded, and they add up to the stored artifact', async () => {
      const seen = await collect(streamOf('chunks 4'), 3);
      const chunks = artifactUpdates(seen);
      assert.equal(chunks.length, 4);
      assert.deepEqual(
        chunks.map((c) => [c.append, c.lastChunk]),
        [
          [false, false],
          [true, false],
          [true, false],
          [true, true],
        ],
      );
      assert.equal(new Set(chunks.map((c) => c.artifact?.artifactId)).size, 1, 'one artifact');
      const firstChunk = seen.find((s) => s.event.payload?.$case === 'artifactUpdate');
      const lastEvent = seen.at(-1)!;
      assert.ok(lastEvent.at - firstChunk!.at >= 1000, 'the chunks came over time, not at the end');
      const text = chunks
        .flatMap((c: TaskArtifactUpdateEvent) => c.artifact?.parts ?? [])
        .map((p) => (p.content?.$case === 'text' ? p.content.value : ''));
      assert.deepEqual(text, ['chunk 1/4\n', 'chunk 2/4\n', 'chunk 3/4\n', 'chunk 4/4\n']);
      const stored = await getTask(taskIdOf(seen[0]!.event)!);
      assert.deepEqual(
        stored.artifacts[0]?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')),
        text,
      );
      assert.equal(statusUpdates(seen).at(-1)?.status?.state, TaskState.TASK_STATE_COMPLETED);
    });

    it('ping: a message-only reply is the stream’s single event, the Message', async () => {
      const seen = await collect(streamOf('ping'));
      assert.deepEqual(kinds(seen), ['message']);
      const reply = seen[0]!.event.payload?.value as Message;
      assert.equal(reply.role, Role.ROLE_AGENT);
      assert.equal(textOf(reply), 'pong');
    });

    it('two subscribers of one task receive the same events', async () => {
      const submitted = await client.sendMessage({
        tenant: '',
        message: message('slow 3'),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
        metadata: undefined,
      });
      const id = (submitted as Task).id;
      const [a, b] = await Promise.all([
        collect(client.resubscribeTask({ tenant: '', id })),
        collect(client.resubscribeTask({ tenant: '', id })),
      ]);
      for (const s of [a, b])
        assert.equal(statusUpdates(s).at(-1)?.status?.state, TaskState.TASK_STATE_COMPLETED);
      // what both saw after the later of their snapshots is the same, event for event
      const times = (s: Seen[]) =>
        statusUpdates(s).map((u) => `${u.status?.state} ${textOf(u.status?.message)} ${u.status?.timestamp}`);
      const common = Math.min(times(a).length, times(b).length);
      assert.ok(common >= 2);
      assert.deepEqual(times(a).slice(-common), times(b).slice(-common));
    });

    it('SubscribeToTask: a finished task is UnsupportedOperationError, an unknown one TaskNotFoundError', async () => {
      const done = statusUpdates(await collect(streamOf('hello')));
      assert.equal(done.at(-1)?.status?.state, TaskState.TASK_STATE_COMPLETED);
      const drain = async (id: string) => {
        for await (const _ of client.resubscribeTask({ tenant: '', id })) {
          // an error is expected before any event
        }
      };
      await assert.rejects(drain(done.at(-1)!.taskId), UnsupportedOperationError);
      await assert.rejects(drain(crypto.randomUUID()), TaskNotFoundError);
    });
  });

describe('streaming over raw HTTP', () => {
  it('SSE framing: text/event-stream, ids, JSON-RPC data with the id, comments, and no buffering', async () => {
    const { id, res } = await rawStream('SendStreamingMessage', v1Send('slow 3'));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(res.headers.get('content-length'), null);
    const frames: Frame[] = [];
    let stateAtFirst: string | undefined;
    for await (const f of framesOf(res)) {
      frames.push(f);
      if (frames.length === 1) {
        const taskId = (f.data!.result!.task as { id: string }).id;
        const got = await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: taskId } }),
        });
        stateAtFirst = ((await got.json()) as { result: { status: { state: string } } }).result.status.state;
      }
    }
    assert.equal(stateAtFirst, 'TASK_STATE_WORKING', 'the first event arrived while the task ran');
    const shown = events(frames);
    for (const f of shown) {
      assert.equal(f.data?.jsonrpc, '2.0');
      assert.equal(f.data?.id, id, 'every data is a JSON-RPC response with the request id');
      assert.ok(Number.isInteger(f.id), 'every event has its task version as id');
    }
    const versions = ids(frames) as number[];
    assert.deepEqual(
      versions,
      [...versions].sort((x, y) => x - y),
      'in version order',
    );
    assert.equal(new Set(versions).size, versions.length, 'none twice');
    assert.equal(resultKind(shown[0]!), 'task');
    assert.ok(shown.slice(1).every((f) => resultKind(f) === 'statusUpdate'));
    const comments = frames.filter((f) => f.comment !== undefined);
    assert.ok(comments.length >= 2, `heartbeat comments between the one-second reports: ${comments.length}`);
    assert.ok(comments.every((c) => c.comment === 'keepalive'));
    assert.ok(shown.at(-1)!.at - shown[0]!.at >= 2000, 'events written as they happen, not at the end');
  });

  it('the budget closes a stream at a resumable position; Last-Event-ID resumes with no gap and no duplicate', async () => {
    // the function reads STREAM_BUDGET_MS per request: this stream closes after 3.5 s, and its inline
    // run hands the task back to the executor 2 s before that, which runs it on
    process.env.STREAM_BUDGET_MS = '3500';
    let first: Frame[];
    try {
      const { res } = await rawStream('SendStreamingMessage', v1Send('slow 4'));
      first = await rawAll(res);
    } finally {
      delete process.env.STREAM_BUDGET_MS;
    }
    const taskId = (events(first)[0]!.data!.result!.task as { id: string }).id;
    const states = events(first).map(
      (f) => (f.data?.result?.statusUpdate as { status: { state: string } } | undefined)?.status.state,
    );
    assert.ok(!states.includes('TASK_STATE_COMPLETED'), 'closed before the end, at its budget');
    assert.ok(states.includes('TASK_STATE_SUBMITTED'), 'handed back (released) to the executor');
    const last = ids(first).at(-1)!;
    const { res } = await rawStream(
      'SubscribeToTask',
      { id: taskId },
      { 'A2A-Version': '1.0', 'Last-Event-ID': String(last) },
    );
    const rest = await rawAll(res);
    assert.equal(rest[0]?.comment, 'keepalive', 'a resumed stream opens at once');
    assert.ok(
      events(rest).every((f) => resultKind(f) !== 'task'),
      'no new snapshot',
    );
    const final = events(rest).at(-1)?.data?.result?.statusUpdate as { status: { state: string } };
    assert.equal(final.status.state, 'TASK_STATE_COMPLETED');
    const all = await reference(taskId);
    const snapshotVersion = ids(first)[0]!;
    assert.deepEqual(
      [...ids(first).slice(1), ...ids(rest)],
      ids(all).filter((v) => v! > snapshotVersion),
      'every event after the snapshot exactly once, across the two streams',
    );
    // the executor ran it again from the start: its progress restarts, and ends at 4/4
    assert.equal(
      (await waitFor(taskId, (t) => TERMINAL.includes(t.status!.state))).status?.state,
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('two raw subscribers resuming from the same version receive identical sequences', async () => {
    const sent = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { ...v1Send('chunks 3'), configuration: { returnImmediately: true } },
      }),
    });
    const taskId = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;
    const open = () =>
      rawStream('SubscribeToTask', { id: taskId }, { 'A2A-Version': '1.0', 'Last-Event-ID': '1' });
    const [a, b] = await Promise.all([
      open().then(({ res }) => rawAll(res)),
      open().then(({ res }) => rawAll(res)),
    ]);
    const shape = (frames: Frame[]) => events(frames).map((f) => [f.id, JSON.stringify(f.data?.result)]);
    assert.ok(shape(a).length >= 5, 'the start, three chunks and the completion');
    assert.deepEqual(shape(a), shape(b));
  });

  it('v0.3 message/stream: bare events with kind, final: true on the last status update only', async () => {
    const { id, res } = await rawStream(
      'message/stream',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: 'chunks 2' }],
        },
      },
      {},
    );
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const shown = events(await rawAll(res));
    const results = shown.map(
      (f) =>
        f.data?.result as { kind: string; final?: boolean; status?: { state: string }; append?: boolean },
    );
    assert.ok(shown.every((f) => f.data?.id === id));
    assert.equal(results[0]?.kind, 'task');
    assert.deepEqual(
      results.filter((r) => r.kind === 'artifact-update').map((r) => r.append),
      [false, true],
    );
    const statuses = results.filter((r) => r.kind === 'status-update');
    assert.deepEqual(
      statuses.map((r) => r.final),
      [...statuses.slice(0, -1).map(() => false), true],
    );
    assert.equal(statuses.at(-1)?.status?.state, 'completed');
    assert.equal(results.at(-1)?.kind, 'status-update');
    // tasks/resubscribe of the finished task: the v0.3 error, not a stream
    const taskId = (results[0] as unknown as { id: string }).id;
    const again = await rawStream('tasks/resubscribe', { id: taskId }, {});
    assert.match(again.res.headers.get('content-type') ?? '', /application\/json/);
    const error = ((await again.res.json()) as { error: { code: number; data: { reason: string } } }).error;
    assert.equal(error.code, -32004);
    assert.equal(error.data.reason, 'UNSUPPORTED_OPERATION');
  });

  it('bad input to a streaming method is a plain JSON-RPC error and changes nothing', async () => {
    for (const [method, params, headers, code] of [
      [
        'SendStreamingMessage',
        { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x' }] } },
        {},
        -32602,
      ],
      ['SendStreamingMessage', {}, {}, -32602],
      ['SubscribeToTask', { id: crypto.randomUUID() }, {}, -32001],
      ['SubscribeToTask', { id: 'x' }, { 'Last-Event-ID': 'abc' }, -32602],
    ] as const) {
      const { id, res } = await rawStream(method, params, { 'A2A-Version': '1.0', ...headers });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, method);
      const body = (await res.json()) as { id: unknown; error: { code: number } };
      assert.equal(body.error.code, code, `${method} ${JSON.stringify(params)}`);
      assert.equal(body.id, id);
    }
  });
});
