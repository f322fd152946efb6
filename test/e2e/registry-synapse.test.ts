/**
 * A skill found through the agent registry (docs/synapse-protocol.md#skills-found-in-the-registry): two
 * hubs on the local runtime. Hub B (a child process: `npm start`'s entry, with an agent whose skill
 * `translate` hub A's demo agent does not have) publishes its card — which declares the hub's Synapse
 * extension — to A's registry by URL; A's admin approves it; an A2A client of A (the official
 * `@a2a-js/sdk` client) sends a message for `translate`, and B carries it out over Synapse. A has no
 * SYNAPSE_REMOTE_SKILLS: the route is the registry's, to a peer A has configured (its HMAC key).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { REGISTRY_PATH, SYNAPSE_CALLBACK_PATH, SYNAPSE_TASKS_PATH } from '../../shared/contracts/routes.ts';
import { SYNAPSE_EXTENSION_URI } from '../../shared/protocol/synapse/card-extension.ts';
import { startHubProcess, stopHubProcess } from './fixtures/hub-process.ts';
import { freePort } from './fixtures/registry.ts';

const KEY = { id: 'ab-1', secret: 'the-secret-hub-a-and-hub-b-share-32+' };
let hubA: LocalHub;
let hubB: ChildProcess;
let urlB: string;
const dataDirB = mkdtempSync(join(tmpdir(), 'synapse-registry-hub-b-'));

const startHubB = (port: number, peersOfB: unknown): Promise<ChildProcess> =>
  startHubProcess({
    port,
    args: ['--data-dir', dataDirB],
    env: {
      AGENT_MODULE: new URL('./fixtures/translator-agent.ts', import.meta.url).pathname,
      SYNAPSE_AGENT_ID: 'hub-b',
      SYNAPSE_PEERS: JSON.stringify(peersOfB),
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.05',
      DELIVERY_JITTER: '0',
    },
  });

before(async () => {
  const portA = await freePort();
  const portB = await freePort();
  urlB = `http://127.0.0.1:${portB}`;
  const urlA = `http://127.0.0.1:${portA}`;
  hubB = await startHubB(portB, [
    { peerId: 'hub-a', tenant: 'partners', endpoint: `${urlA}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
  ]);
  hubA = await startLocalHub({
    port: portA,
    sweepIntervalMs: 500,
    env: {
      SYNAPSE_AGENT_ID: 'hub-a',
      // B is a configured peer (its key, its tenant here, its endpoint); which skills it carries out is
      // the registry's to say: no SYNAPSE_REMOTE_SKILLS
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: 'hub-b', tenant: 'default', endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
      ]),
      SYNAPSE_REMOTE_SKILLS: '',
      // the SSRF guard lets A fetch B's card and send to B on loopback
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.2',
      DELIVERY_JITTER: '0',
      // every message reads the catalog's feed: an approval is seen by the next message
      REGISTRY_CATALOG_REFRESH_MS: '0',
    },
  });
});

after(async () => {
  await hubA?.stop();
  await stopHubProcess(hubB);
  rmSync(dataDirB, { recursive: true, force: true });
});

const registry = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${hubA.url}${REGISTRY_PATH}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const a2aMessage = (text: string, skill: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: { 'synapse.skill': skill },
  extensions: [],
  referenceTaskIds: [],
});

const send = async (client: Client, m: Message): Promise<Task> =>
  (await client.sendMessage({
    tenant: '',
    message: m,
    configuration: {
      acceptedOutputModes: [],
      returnImmediately: false,
      taskPushNotificationConfig: undefined,
    },
    metadata: undefined,
  })) as Task;

const settle = async (client: Client, id: string, timeoutMs = 30_000): Promise<Task> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.getTask({ tenant: '', id, historyLength: undefined });
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) return task;
    if (Date.now() > until) throw new Error(`task ${id} is ${task.status?.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe("a skill found in A's registry, carried out by B over Synapse", () => {
  let client: Client;
  let recordId: string;
  before(async () => {
    client = await new ClientFactory().createFromUrl(hubA.url);
  });

  it("B's card declares the Synapse extension: its agent id, endpoint and task types", async () => {
    const card = (await (await fetch(`${urlB}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extensions?: { uri: string; required?: boolean; params?: Record<string, unknown> }[] };
    };
    const synapse = card.capabilities.extensions?.find((e) => e.uri === SYNAPSE_EXTENSION_URI);
    assert.equal(synapse?.required, false);
    assert.deepEqual(synapse?.params, {
      agentId: 'hub-b',
      endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}`,
      taskTypes: ['translate'],
    });
  });

  it("B's card is published to A's registry by URL; pending, it routes nothing: A's own agent answers", async () => {
    const published = await registry('POST', '/records', {
      cardUrl: `${urlB}/.well-known/agent-card.json`,
      visibility: 'tenant',
    });
    assert.equal(published.status, 201, JSON.stringify(published.body));
    assert.equal(published.body.state, 'PENDING_APPROVAL');
    recordId = published.body.id as string;
    // not approved: A's demo agent does the message (it echoes), nothing goes to B
    const local = await send(client, a2aMessage('bonjour', 'translate'));
    const done = await settle(client, local.id);
    assert.equal((done.metadata as Record<string, unknown> | undefined)?.['synapse.peer'], undefined);
    assert.ok(!JSON.stringify(done.artifacts).includes('[fr]'), JSON.stringify(done.artifacts));
  });

  it("approved by A's admin, a message for B's skill is carried out by B, found through the registry", async () => {
    const approved = await registry('POST', `/records/${recordId}:approve`, {});
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.state, 'APPROVED');
    const task = await send(client, a2aMessage('good morning', 'translate'));
    const done = task.status?.state === TaskState.TASK_STATE_COMPLETED ? task : await settle(client, task.id);
    assert.equal((done.metadata as Record<string, unknown>)['synapse.peer'], 'hub-b');
    assert.ok(JSON.stringify(done.artifacts).includes('[fr] good morning'), JSON.stringify(done.artifacts));
  });

  it('the requester API delegates by skill to the peer the registry names; an unknown skill is a 404', async () => {
    const delegate = async (body: unknown) => {
      const res = await fetch(`${hubA.url}${SYNAPSE_TASKS_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        body: (await res.json()) as {
          task: { id: string };
          synapse: { peer: string };
          error: { code: string };
        },
      };
    };
    const made = await delegate({ skill: 'translate', text: 'good night' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.synapse.peer, 'hub-b');
    const done = await settle(client, made.body.task.id);
    assert.ok(JSON.stringify(done.artifacts).includes('[fr] good night'), JSON.stringify(done.artifacts));
    const unknown = await delegate({ skill: 'juggle', text: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'skill_not_found');
    const both = await delegate({ skill: 'translate', peer: 'hub-b', type: 'translate' });
    assert.equal(both.status, 400);
  });

  it('deprecated, the record routes nothing again', async () => {
    const deprecated = await registry('POST', `/records/${recordId}:deprecate`, {});
    assert.equal(deprecated.status, 200, JSON.stringify(deprecated.body));
    const task = await send(client, a2aMessage('adieu', 'translate'));
    const done = await settle(client, task.id);
    assert.equal((done.metadata as Record<string, unknown> | undefined)?.['synapse.peer'], undefined);
  });
});
