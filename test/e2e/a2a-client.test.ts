/**
 * The local hub (same handlers as Lambda, DynamoDB Local, local SQS) driven by
 * the official @a2a-js/sdk client over both of the card's 1.0 interfaces
 * (JSON-RPC and HTTP+JSON): discovery from the card URL, then SendMessage /
 * GetTask / ListTasks / CancelTask / GetExtendedAgentCard through the demo agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

let hub: LocalHub;
/** The client of the transport whose tests run now (each transport's suite sets it before its tests). */
let client: Client;
const TRANSPORTS = {
  JSONRPC: { factory: () => new JsonRpcTransportFactory(), path: '/a2a/jsonrpc' },
  'HTTP+JSON': { factory: () => new RestTransportFactory(), path: '/a2a/rest' },
} as const;

const message = (
  text: string,
  extra: { taskId?: string; contextId?: string; messageId?: string; referenceTaskIds?: string[] } = {},
): Message => ({
  messageId: extra.messageId ?? crypto.randomUUID(),
  contextId: extra.contextId ?? '',
  taskId: extra.taskId ?? '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: extra.referenceTaskIds ?? [],
});

const send = async (
  text: string,
  extra: Parameters<typeof message>[1] & { returnImmediately?: boolean; historyLength?: number } = {},
): Promise<Task> => {
  const result = await client.sendMessage({
    tenant: '',
    message: message(text, extra),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: extra.historyLength,
      returnImmediately: extra.returnImmediately ?? false,
    },
    metadata: undefined,
  });
  assert.ok('id' in result && 'status' in result, 'the hub answers with a Task');
  return result as Task;
};

const textOf = (m: Message | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const waitFor = async (taskId: string, done: (t: Task) => boolean, timeoutMs = 15_000): Promise<Task> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    if (done(task) || Date.now() > until) return task;
    await new Promise((r) => setTimeout(r, 100));
  }
};

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
});
after(async () => hub?.stop());

for (const [transport, { factory, path }] of Object.entries(TRANSPORTS))
  describe(`@a2a-js/sdk client against the local hub over ${transport}`, () => {
    before(async () => {
      // a factory that knows one transport picks that transport's interface from the card
      client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [factory()] }),
      ).createFromUrl(hub.url);
    });

    it(`discovers the agent from the card URL and speaks v1.0 over ${transport}`, async () => {
      assert.equal(client.protocolVersion, '1.0');
      const card = await client.getAgentCard();
      assert.equal(card.name, 'Synapse demo agent');
      assert.ok(card.skills.some((s) => s.id === 'echo'));
      assert.deepEqual(
        card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
        [
          [`${hub.url}/a2a/jsonrpc`, 'JSONRPC', '1.0'],
          [`${hub.url}/a2a/rest`, 'HTTP+JSON', '1.0'],
          [`${hub.url}/a2a/jsonrpc`, 'JSONRPC', '0.3'],
        ],
      );
      assert.ok(card.supportedInterfaces.some((i) => i.url === `${hub.url}${path}`));
      assert.equal(card.capabilities?.streaming, true);
      assert.equal(card.capabilities?.extendedAgentCard, true);
    });

    it('the extended card: the SDK fetches it over the transport (the card declares one); the public card lacks its additions', async () => {
      // Client.getAgentCard calls GetExtendedAgentCard when capabilities.extendedAgentCard is set
      const extended = await client.getAgentCard();
      const skills = extended.skills.map((s) => s.id);
      assert.ok(skills.includes('echo') && skills.includes('operator-notes'), skills.join());
      assert.match(extended.description, /extended card/);
      assert.equal(extended.supportedInterfaces.length, 3);
      const pub = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as {
        description: string;
        skills: Array<{ id: string }>;
      };
      assert.ok(!pub.skills.some((s) => s.id === 'operator-notes'), 'not in the public card');
      assert.doesNotMatch(pub.description, /extended card/);
    });

    it('echo: a blocking send returns the completed task with the echo artifact', async () => {
      const task = await send('hello hub');
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.ok(task.contextId, 'a contextId is generated');
      const artifactText = task.artifacts[0]?.parts[0]?.content;
      assert.deepEqual(artifactText, { $case: 'text', value: 'hello hub' });
      const got = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
      assert.equal(got.history.length, 1, 'historyLength is honoured');
      assert.equal(got.history[0]?.role, Role.ROLE_AGENT);
    });

    it('a message refers to earlier tasks: referenceTaskIds come back in the task history as sent', async () => {
      const first = await send('the first');
      const second = await send('the follow-up', {
        contextId: first.contextId,
        referenceTaskIds: [first.id],
      });
      assert.notEqual(second.id, first.id, 'a reference makes a new task, not an answer to the old one');
      assert.equal(second.contextId, first.contextId);
      const got = await client.getTask({ tenant: '', id: second.id, historyLength: undefined });
      const asked = got.history.find((m) => m.role === Role.ROLE_USER);
      assert.deepEqual(asked?.referenceTaskIds, [first.id]);
      const earlier = await client.getTask({ tenant: '', id: first.id, historyLength: undefined });
      assert.deepEqual(earlier.history.find((m) => m.role === Role.ROLE_USER)?.referenceTaskIds, []);
    });

    it('keeps a client-chosen contextId and lists tasks by context and status, page by page', async () => {
      const contextId = crypto.randomUUID();
      const ids: string[] = [];
      for (const text of ['one', 'two', 'three']) ids.push((await send(text, { contextId })).id);
      const failed = await send('fail', { contextId });
      assert.equal(failed.contextId, contextId);

      const page1 = await client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 2,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      });
      assert.equal(page1.totalSize, 3, 'before the last page, a lower bound: these 2 and more');
      assert.equal(page1.tasks.length, 2);
      assert.ok(page1.nextPageToken);
      assert.equal(page1.tasks[0]?.id, failed.id, 'newest status first');
      const page2 = await client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 2,
        pageToken: page1.nextPageToken,
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      });
      assert.equal(page2.tasks.length, 2);
      assert.equal(page2.nextPageToken, '');
      assert.equal(page2.totalSize, 4, 'the last page counts them all');
      assert.deepEqual(
        new Set([...page1.tasks, ...page2.tasks].map((t) => t.id)),
        new Set([...ids, failed.id]),
      );
      const onlyFailed = await client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_FAILED,
        pageSize: 10,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      });
      assert.deepEqual(
        onlyFailed.tasks.map((t) => t.id),
        [failed.id],
      );
    });

    it('slow N: returnImmediately gives the submitted task, progress shows, cancel stops it', async () => {
      const submitted = await send('slow 30', { returnImmediately: true });
      assert.ok(
        [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(submitted.status!.state),
        `state ${submitted.status?.state}`,
      );
      const working = await waitFor(submitted.id, (t) => textOf(t.status?.message).includes('/30 s'));
      assert.equal(working.status?.state, TaskState.TASK_STATE_WORKING);
      const canceled = await client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      // the agent notices on its next progress report and stops; the task stays canceled
      await new Promise((r) => setTimeout(r, 1500));
      const later = await client.getTask({ tenant: '', id: submitted.id, historyLength: undefined });
      assert.equal(later.status?.state, TaskState.TASK_STATE_CANCELED);
      // canceling again returns the canceled task
      const again = await client.cancelTask({ tenant: '', id: submitted.id, metadata: undefined });
      assert.equal(again.status?.state, TaskState.TASK_STATE_CANCELED);
    });

    it('ask: input required, then the answer on the same task completes it', async () => {
      const asked = await send('ask');
      assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.equal(textOf(asked.status?.message), 'What is your answer?');
      const answered = await send('forty-two', { taskId: asked.id, contextId: asked.contextId });
      assert.equal(answered.id, asked.id);
      assert.equal(answered.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(answered.status?.message), 'You answered: forty-two');
      assert.deepEqual(
        answered.history.map((m) => m.role),
        [Role.ROLE_USER, Role.ROLE_AGENT, Role.ROLE_USER, Role.ROLE_AGENT],
      );
    });

    it('approve: waits for a human decision given as a message', async () => {
      const waiting = await send('approve');
      assert.equal(waiting.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const approved = await send('approve ship it', { taskId: waiting.id });
      assert.equal(approved.status?.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(approved.status?.message), 'Approved: ship it');
    });

    it('fail and reject end in their terminal states', async () => {
      const failed = await send('fail');
      assert.equal(failed.status?.state, TaskState.TASK_STATE_FAILED);
      const rejected = await send('reject');
      assert.equal(rejected.status?.state, TaskState.TASK_STATE_REJECTED);
    });

    it('a duplicate messageId returns the same task and runs nothing new', async () => {
      const messageId = crypto.randomUUID();
      const first = await send('only once', { messageId });
      const second = await send('only once', { messageId });
      assert.equal(second.id, first.id);
      assert.equal(second.artifacts.length, 1);
    });

    it('ping: the agent answers with a Message and no task; a retry gets the same reply', async () => {
      const ping = message('ping', { messageId: crypto.randomUUID() });
      const ask = () =>
        client.sendMessage({
          tenant: '',
          message: ping,
          configuration: undefined,
          metadata: undefined,
        });
      const reply = await ask();
      assert.ok(!('status' in reply), 'a Message, not a Task');
      const answer = reply as Message;
      assert.equal(answer.role, Role.ROLE_AGENT);
      assert.equal(textOf(answer), 'pong');
      assert.ok(answer.contextId, 'the reply carries the context');
      assert.equal(answer.taskId, '', 'and no task');
      const again = (await ask()) as Message;
      assert.equal(again.messageId, answer.messageId);
    });

    it('parts: file (inline and by URL) and data parts, and metadata, come back as the agent sent them', async () => {
      const task = await send('parts');
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      const [artifact] = task.artifacts;
      const kinds = (artifact?.parts ?? []).map((p) => p.content?.$case);
      assert.deepEqual(kinds, ['text', 'raw', 'url', 'data']);
      const raw = artifact?.parts[1];
      assert.equal(raw?.mediaType, 'text/plain');
      assert.equal(raw?.filename, 'hello.txt');
      assert.equal(
        Buffer.from(raw?.content?.$case === 'raw' ? raw.content.value : new Uint8Array()).toString(),
        'hello, file',
      );
      assert.equal(artifact?.parts[2]?.filename, 'report.pdf');
      assert.deepEqual(artifact?.metadata, { kind: 'demo' });
      assert.deepEqual(task.metadata, { demo: 'parts' });
      assert.deepEqual(task.status?.message?.metadata, { demo: 'parts' });
    });

    it('errors surface as the SDK error types', async () => {
      const done = await send('finished');
      await assert.rejects(send('more', { taskId: done.id }), UnsupportedOperationError);
      await assert.rejects(
        client.cancelTask({ tenant: '', id: done.id, metadata: undefined }),
        TaskNotCancelableError,
      );
      await assert.rejects(
        client.getTask({ tenant: '', id: crypto.randomUUID(), historyLength: undefined }),
        TaskNotFoundError,
      );
    });
  });
