/**
 * Push notifications end to end: a client registers a webhook inline with its message through
 * @a2a-js/sdk (and, for v0.3, with a raw tasks/pushNotificationConfig/set), the local hub runs the
 * demo agent, and a receiver on 127.0.0.1 (allowlisted) gets every update, signed by the hub: the JWT
 * verifies through the hub's JWKS route, and its body hash is the body's. v1.0 configs get
 * StreamResponses, v0.3 configs bare v0.3 Tasks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import type { JSONWebKeySet } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { JWKS_PATH } from '../../shared/contracts/routes.ts';
import { startWebhookReceiver, verifyPush, type WebhookReceiver } from '../support/webhook-receiver.ts';

let hub: LocalHub;
let client: Client;
let receiver: WebhookReceiver;
let jwks: JSONWebKeySet;

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

before(async () => {
  receiver = await startWebhookReceiver();
  hub = await startLocalHub({
    port: 0,
    sweepIntervalMs: 60_000,
    env: { PUSH_URL_ALLOWLIST: '127.0.0.1', DELIVERY_BASE_DELAY_SECONDS: '0.05', DELIVERY_JITTER: '0' },
  });
  client = await new ClientFactory().createFromUrl(hub.url);
  jwks = (await (await fetch(`${hub.url}${JWKS_PATH}`)).json()) as JSONWebKeySet;
});
after(async () => {
  await hub?.stop();
  await receiver?.close();
});

describe('push notifications through the local hub', () => {
  it('v1.0: every update of a task is POSTed as a StreamResponse, signed, with the configured credentials', async () => {
    const url = receiver.url('/v1');
    const sent = await client.sendMessage({
      tenant: '',
      message: message('chunks 2'),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: {
          tenant: '',
          id: '',
          taskId: '',
          url,
          token: 'session-token',
          authentication: { scheme: 'Bearer', credentials: 'receiver-secret' },
        },
        returnImmediately: true,
      },
      metadata: undefined,
    });
    const task = sent as Task;
    // working, two artifact chunks, completed: wait for the completion
    let pushes = await receiver.waitFor('/v1', 1, 30_000);
    const until = Date.now() + 30_000;
    while (
      !pushes.some((p) => JSON.parse(p.body).statusUpdate?.status?.state === 'TASK_STATE_COMPLETED') &&
      Date.now() < until
    ) {
      await new Promise((r) => setTimeout(r, 100));
      pushes = receiver.received('/v1');
    }
    const bodies = pushes.map((p) => JSON.parse(p.body));
    assert.ok(
      bodies.some((b) => b.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'),
      'the completion arrived',
    );
    assert.ok(
      bodies.some((b) => b.artifactUpdate),
      'the artifact arrived',
    );
    const versions = pushes.map((p) => Number(p.headers['a2a-event-version']));
    assert.equal(new Set(versions).size, versions.length, 'each event once');
    for (const push of pushes) {
      assert.equal(push.headers['content-type'], 'application/a2a+json');
      assert.equal(push.headers.authorization, 'Bearer receiver-secret');
      assert.equal(push.headers['x-a2a-notification-token'], 'session-token');
      const claims = await verifyPush(push, jwks, { audience: url, taskId: task.id });
      assert.equal(claims.taskId, task.id);
    }
  });

  it('v0.3: a config registered over v0.3 gets bare v0.3 Tasks as application/json', async () => {
    const rpc = async (method: string, params: unknown) => {
      const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await res.json()) as { result?: { id: string; pushNotificationConfig?: { id: string } } };
    };
    const made = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text: 'ask' }],
      },
    });
    const taskId = made.result!.id;
    const url = receiver.url('/v03');
    const set = await rpc('tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { url, token: 'old-style' },
    });
    assert.ok(set.result?.pushNotificationConfig?.id, 'the config is stored');
    // the answer resumes the task: its updates (working, completed) are delivered to the v0.3 config
    await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        taskId,
        parts: [{ kind: 'text', text: 'blue' }],
      },
    });
    const [first] = await receiver.waitFor('/v03', 1, 30_000);
    assert.equal(first!.headers['content-type'], 'application/json');
    assert.equal(first!.headers['x-a2a-notification-token'], 'old-style');
    const body = JSON.parse(first!.body);
    assert.equal(body.kind, 'task');
    assert.equal(body.id, taskId);
    assert.match(body.status.state, /^(working|completed)$/);
    await verifyPush(first!, jwks, { audience: url, taskId });
  });

  it('a config registered on a finished task is sent its final state once, through the delivery pipeline', async () => {
    const done = (await client.sendMessage({
      tenant: '',
      message: message('hello late'),
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    const url = receiver.url('/late');
    const res = await fetch(`${hub.url}/a2a/rest/tasks/${done.id}/pushNotificationConfigs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'late', url, token: 'late-token' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const [push] = await receiver.waitFor('/late', 1, 30_000);
    const body = JSON.parse(push!.body);
    assert.equal(body.statusUpdate.taskId, done.id);
    assert.equal(body.statusUpdate.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(push!.headers['x-a2a-notification-token'], 'late-token');
    await verifyPush(push!, jwks, { audience: url, taskId: done.id });
    const got = (await fetch(`${hub.url}/a2a/rest/tasks/${done.id}`).then((r) => r.json())) as {
      status: { state: string };
    };
    assert.equal(got.status.state, 'TASK_STATE_COMPLETED', 'the task is still as it was');
    // once: nothing more arrives (the pipeline has had time to send a duplicate, had it made one)
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(receiver.received('/late').length, 1);
    const listed = (await fetch(`${hub.url}/a2a/rest/tasks/${done.id}/pushNotificationConfigs`).then((r) =>
      r.json(),
    )) as { configs: Array<{ id: string }> };
    assert.deepEqual(
      listed.configs.map((c) => c.id),
      ['late'],
    );
  });
});
