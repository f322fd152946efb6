/**
 * The push-config API through @a2a-js/sdk over both 1.0 transports, against the local hub (which
 * configures the delivery pipeline, so its card declares push notifications): create, get, list and
 * delete, secrets never read back, an inline config with SendMessage, and refusals that write nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

let hub: LocalHub;
let client: Client;
const TRANSPORTS = {
  JSONRPC: () => new JsonRpcTransportFactory(),
  'HTTP+JSON': () => new RestTransportFactory(),
} as const;

const message = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const config = (taskId: string, extra: Partial<{ id: string; url: string; token: string }> = {}) => ({
  tenant: '',
  id: extra.id ?? '',
  taskId,
  url: extra.url ?? 'https://hooks.example.com/a2a',
  token: extra.token ?? 'the-token',
  authentication: { scheme: 'Bearer', credentials: 'the-credentials' },
});

/** A task that stays live for the test (the demo's `ask` waits for input). */
const liveTask = async (inline?: ReturnType<typeof config>): Promise<Task> => {
  const result = await client.sendMessage({
    tenant: '',
    message: message('ask'),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: inline,
      returnImmediately: false,
    },
    metadata: undefined,
  });
  assert.ok('id' in result, 'a task');
  return result as Task;
};

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
});
after(async () => hub?.stop());

for (const [transport, factory] of Object.entries(TRANSPORTS))
  describe(`push configs through @a2a-js/sdk over ${transport}`, () => {
    before(async () => {
      client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [factory()] }),
      ).createFromUrl(hub.url);
    });

    it('the card declares push notifications', async () => {
      assert.equal((await client.getAgentCard()).capabilities?.pushNotifications, true);
    });

    it('create, get, list, delete: reads show the scheme but never the token or the credentials', async () => {
      const task = await liveTask();
      const made = await client.createTaskPushNotificationConfig(config(task.id, { id: 'hook-1' }));
      assert.equal(made.id, 'hook-1');
      assert.equal(made.taskId, task.id);
      assert.equal(made.url, 'https://hooks.example.com/a2a');
      assert.equal(made.token, '', 'no token read back');
      assert.equal(made.authentication?.scheme, 'Bearer');
      assert.equal(made.authentication?.credentials ?? '', '', 'no credentials read back');

      const assigned = await client.createTaskPushNotificationConfig(config(task.id));
      assert.match(assigned.id, /^[0-9a-f-]{36}$/, 'the hub assigns an id');

      const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      assert.deepEqual(got, made);
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 10,
        pageToken: '',
      });
      assert.deepEqual(
        listed.configs.map((c) => c.id),
        ['hook-1', assigned.id],
      );
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
      await assert.rejects(
        client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' }),
        TaskNotFoundError,
      );
      const left = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 10,
        pageToken: '',
      });
      assert.deepEqual(
        left.configs.map((c) => c.id),
        [assigned.id],
      );
    });

    it('an inline config with the message that makes the task is registered with it, under the task id', async () => {
      const task = await liveTask(config('', { url: 'https://hooks.example.com/inline' }));
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 10,
        pageToken: '',
      });
      assert.deepEqual(
        listed.configs.map((c) => [c.id, c.url]),
        [[task.id, 'https://hooks.example.com/inline']],
      );
    });

    it('refusals: a private URL, an unknown task; nothing is registered', async () => {
      const task = await liveTask();
      await assert.rejects(
        client.createTaskPushNotificationConfig(config(task.id, { url: 'https://169.254.169.254/latest' })),
        /url|169\.254|link-local|refused/i,
      );
      await assert.rejects(
        client.createTaskPushNotificationConfig(config('no-such-task')),
        TaskNotFoundError,
      );
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 10,
        pageToken: '',
      });
      assert.deepEqual(listed.configs, []);
    });
  });
