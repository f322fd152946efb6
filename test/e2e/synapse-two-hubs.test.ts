/**
 * Two hubs talk Synapse to each other on the local runtime, on two ports: hub A (this process) is the
 * requester, hub B (a child process: `npm start`'s entry) the executor with the demo agent. Tasks are
 * delegated through A's requester API (/synapse/tasks) and carried out by B; every message between
 * them is signed and goes through each hub's delivery pipeline. The protocol's four flows, a report with a
 * bad signature (refused, nothing changes), and an unreachable executor (retries, the DLQ, the task
 * failing at its timeout with a reason).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log.ts';
import { SYNAPSE_CALLBACK_PATH, SYNAPSE_TASKS_PATH } from '../../shared/contracts/routes.ts';
import { composeMessage, signSynapseRequest } from '../../shared/protocol/synapse/index.ts';
import { startHubProcess, stopHubProcess } from './fixtures/hub-process.ts';
import { freePort } from './fixtures/registry.ts';

const KEY = { id: 'ab-1', secret: 'the-secret-hub-a-and-hub-b-share-32+' };
let hubA: LocalHub;
let hubB: ChildProcess;
let urlB: string;
let portB: number;
let peersOfB: unknown;
const dataDirB = mkdtempSync(join(tmpdir(), 'synapse-hub-b-'));

const startHubB = (port: number, peersOfB: unknown): Promise<ChildProcess> =>
  startHubProcess({
    port,
    args: ['--data-dir', dataDirB],
    env: {
      SYNAPSE_AGENT_ID: 'hub-b',
      SYNAPSE_PEERS: JSON.stringify(peersOfB),
      // B's runs and the heartbeats it sends A: every second
      HEARTBEAT_INTERVAL_SECONDS: '1',
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.05',
      DELIVERY_JITTER: '0',
    },
  });

before(async () => {
  const portA = await freePort();
  portB = await freePort();
  urlB = `http://127.0.0.1:${portB}`;
  const urlA = `http://127.0.0.1:${portA}`;
  const ghost = await freePort(); // nothing listens there
  peersOfB = [
    { peerId: 'hub-a', tenant: 'partners', endpoint: `${urlA}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
  ];
  hubB = await startHubB(portB, peersOfB);
  hubA = await startLocalHub({
    port: portA,
    sweepIntervalMs: 500,
    env: {
      SYNAPSE_AGENT_ID: 'hub-a',
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: 'hub-b', tenant: 'default', endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
        {
          peerId: 'ghost',
          tenant: 'default',
          endpoint: `http://127.0.0.1:${ghost}${SYNAPSE_CALLBACK_PATH}`,
          keys: [KEY],
        },
      ]),
      // the bridge: these skills of A's card are carried out by B
      SYNAPSE_REMOTE_SKILLS: JSON.stringify({
        echo: 'hub-b',
        slow: 'hub-b',
        approve: { peer: 'hub-b', type: 'approve' },
      }),
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.2',
      // a message to a peer: tried once, retried twice (the protocol's MaxRetries is 5)
      SYNAPSE_MAX_RETRIES: '2',
      DELIVERY_JITTER: '0',
      DELIVERY_TIMEOUT_MS: '1000',
      // A watches B's heartbeats: B is lost after 2 missed, 10 s apart
      HEARTBEAT_INTERVAL_SECONDS: '10',
    },
  });
});

after(async () => {
  await hubA?.stop();
  // nothing of B's may outlive the test (a killed B's DynamoDB Local was in its process group)
  await stopHubProcess(hubB);
  rmSync(dataDirB, { recursive: true, force: true });
});

/** Kills hub B at once, with its whole process group (its DynamoDB Local would outlive a SIGKILL of node alone). */
const killB = async () => {
  const exited = new Promise((r) => hubB.once('exit', r));
  process.kill(-hubB.pid!, 'SIGKILL');
  await exited;
};

interface Shown {
  task: {
    id: string;
    status: { state: string; message?: { parts: { text?: string }[] } };
    artifacts?: unknown[];
    history?: Array<{ messageId: string }>;
  };
  synapse: { state: string; peer: string };
}

const api = async (
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Shown }> => {
  const res = await fetch(`${hubA.url}${SYNAPSE_TASKS_PATH}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Shown };
};

const waitForState = async (id: string, states: readonly string[], timeoutMs = 30_000): Promise<Shown> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await api('GET', `/${id}`);
    if (states.includes(body.synapse?.state)) return body;
    if (Date.now() > until)
      throw new Error(`task ${id} is ${body.synapse?.state}, not ${states.join(' or ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const delegate = async (text: string, type = text.split(' ')[0]!, extra: Record<string, unknown> = {}) => {
  const made = await api('POST', '', { peer: 'hub-b', type, text, ...extra });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.synapse.peer, extra.peer ?? 'hub-b');
  return made.body.task.id;
};

/** Asks hub B, as hub A, what state its task for A's `id` is in (a signed p2p:heartbeat). */
const stateAtB = async (id: string): Promise<string> => {
  const message = composeMessage(
    'p2p:heartbeat',
    { task_id: id },
    {
      sender: { agent_id: 'hub-a', endpoint: `${hubA.url}${SYNAPSE_CALLBACK_PATH}` },
      task_id: id,
      message_id: `hb-${crypto.randomUUID()}`,
    },
  );
  const raw = JSON.stringify(message);
  const res = await fetch(`${urlB}${SYNAPSE_CALLBACK_PATH}`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...signSynapseRequest({ rawBody: raw, messageId: message.message_id, key: KEY }),
    },
    body: raw,
  });
  return ((await res.json()) as { payload: { status: string } }).payload.status;
};

describe('two hubs over Synapse: A delegates, B executes (local runtime)', () => {
  it('normal: the request is confirmed, worked on and completed; the result comes back as artifacts', async () => {
    const id = await delegate('echo across hubs', 'echo');
    const done = await waitForState(id, ['completed', 'failed', 'rejected']);
    assert.equal(done.synapse.state, 'completed', JSON.stringify(done));
    assert.equal(done.task.status.state, 'TASK_STATE_COMPLETED');
    assert.ok(
      JSON.stringify(done.task.artifacts).includes('echo across hubs'),
      JSON.stringify(done.task.artifacts),
    );
    assert.equal(await stateAtB(id), 'completed');
  });

  it('info needed: B asks, A’s task waits (input-required) until its owner answers, then B finishes', async () => {
    const id = await delegate('slow', 'slow');
    const waiting = await waitForState(id, ['info_needed']);
    assert.equal(waiting.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.match(JSON.stringify(waiting.task.status.message), /How many seconds/);
    // a decision is not what it waits for (409); a malformed id is refused (400 at the gateway), not a 500
    assert.equal((await api('POST', `/${id}/answer`, { decision: 'approve' })).status, 409);
    assert.equal((await api('GET', '/%E0%A4')).status, 400);
    const answer = { fields: { seconds: 1 }, messageId: crypto.randomUUID() };
    const answered = await api('POST', `/${id}/answer`, answer);
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    // sent again (its answer lost, a 503): the same answer, taken as applied, not refused as not waiting
    const again = await api('POST', `/${id}/answer`, answer);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const done = await waitForState(id, ['completed', 'failed']);
    assert.equal(done.synapse.state, 'completed');
    assert.match(JSON.stringify(done.task.status.message), /Done after 1 s/);
    const answers = (done.task.history ?? []).filter((m) => m.messageId === answer.messageId);
    assert.equal(answers.length, 1, 'the answer applied once');
  });

  it('human decision: B asks for one, the decision (with who decided) reaches B, which completes', async () => {
    const id = await delegate('approve', 'approve');
    await waitForState(id, ['need_human']);
    const decided = await api('POST', `/${id}/answer`, {
      decision: 'approve',
      notes: 'fine by me',
      decidedBy: { userId: 'u-1', userName: 'Grace', role: 'lead' },
    });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const done = await waitForState(id, ['completed', 'failed', 'rejected']);
    assert.equal(done.synapse.state, 'completed');
    assert.match(JSON.stringify(done.task.status.message), /Approved: fine by me/);
  });

  it('cancel: cancelling at A cancels at B, and no completion follows', async () => {
    const id = await delegate('slow 30', 'slow');
    await waitForState(id, ['confirmed', 'executing']);
    const cancelled = await api('POST', `/${id}/cancel`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.synapse.state, 'cancelled');
    const until = Date.now() + 15_000;
    while ((await stateAtB(id)) !== 'cancelled' && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal(await stateAtB(id), 'cancelled');
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await api('GET', `/${id}`)).body.synapse.state, 'cancelled');
  });

  it('a report with a bad signature is refused (403) and changes nothing', async () => {
    const id = await delegate('slow 30', 'slow');
    await waitForState(id, ['confirmed', 'executing']);
    const forged = composeMessage(
      'p2p:task_complete',
      { task_id: id, result: { output: 'forged' } },
      {
        sender: { agent_id: 'hub-b', endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}` },
        task_id: id,
        message_id: `f-${crypto.randomUUID()}`,
      },
    );
    const raw = JSON.stringify(forged);
    const res = await fetch(`${hubA.url}${SYNAPSE_CALLBACK_PATH}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...signSynapseRequest({
          rawBody: raw,
          messageId: forged.message_id,
          key: { id: KEY.id, secret: 'x'.repeat(40) },
        }),
      },
      body: raw,
    });
    assert.equal(res.status, 403);
    const state = (await api('GET', `/${id}`)).body.synapse.state;
    assert.ok(['confirmed', 'executing'].includes(state), state);
    await api('POST', `/${id}/cancel`);
  });

  it('an unreachable executor: the request is retried at the configured delays, dead-lettered, and the task fails at its timeout', async () => {
    const made = await api('POST', '', { peer: 'ghost', type: 'echo', text: 'anyone?', deadlineSeconds: 4 });
    assert.equal(made.status, 201);
    const id = made.body.task.id;
    const failed = await waitForState(id, ['failed'], 30_000);
    assert.match(JSON.stringify(failed.task.status), /deadline/i);
    const log = new DynamoDeliveryLog(new DynamoDBClient({ endpoint: hubA.dynamoEndpoint }), hubA.tableName);
    // the request (the task's first delivery, its submit event); the p2p:task_cancel its timeout sends follows
    const logged = await log.list('default', id);
    const requestVersion = Math.min(...logged.map((a) => a.version));
    const attempts = logged.filter((a) => a.version === requestVersion);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status]),
      [
        [1, 'retrying'],
        [2, 'retrying'],
        [3, 'failed'],
      ],
    );
    // the configured 0.2 s and 0.4 s, each raised to a Synapse message's floor of 1 s (docs/synapse-protocol.md#signatures)
    assert.deepEqual(attempts.map((a) => a.retryInSeconds).slice(0, 2), [1, 1]);
    assert.equal(attempts[2]!.deadLetter, 'attempts_exhausted');
  });

  it('refuses a delegation to an unknown peer (400) and makes no task', async () => {
    const refused = await api('POST', '', { peer: 'nobody', type: 'echo', text: 'x' });
    assert.equal(refused.status, 400);
    const malformed = await api('POST', '', { peer: 'hub-b' });
    assert.equal(malformed.status, 400);
  });
});

// ---- the bridge: an A2A client of hub A, whose skills run at hub B ------------------------------

const a2aMessage = (text: string, skill?: string, taskId = ''): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: skill ? { 'synapse.skill': skill } : undefined,
  extensions: [],
  referenceTaskIds: [],
});

const partsText = (m: Message | undefined) =>
  (m?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

const send = async (client: Client, m: Message, returnImmediately = false): Promise<Task> =>
  (await client.sendMessage({
    tenant: '',
    message: m,
    configuration: { acceptedOutputModes: [], returnImmediately, taskPushNotificationConfig: undefined },
    metadata: undefined,
  })) as Task;

const settle = async (client: Client, id: string, states: TaskState[], timeoutMs = 30_000): Promise<Task> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.getTask({ tenant: '', id, historyLength: undefined });
    if (task.status && states.includes(task.status.state)) return task;
    if (Date.now() > until) throw new Error(`task ${id} is ${task.status?.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('the bridge: an A2A client of hub A, the skill carried out by hub B over Synapse', () => {
  let client: Client;
  before(async () => {
    client = await new ClientFactory().createFromUrl(hubA.url);
  });

  it('a blocking send completes with the artifacts B made; the task is linked (same id at both hubs)', async () => {
    const task = await send(client, a2aMessage('echo bridged hello', 'echo'));
    const done =
      task.status?.state === TaskState.TASK_STATE_COMPLETED
        ? task
        : await settle(client, task.id, [TaskState.TASK_STATE_COMPLETED]);
    assert.ok(JSON.stringify(done.artifacts).includes('bridged hello'), JSON.stringify(done.artifacts));
    assert.equal((done.metadata as Record<string, unknown>)['synapse.peer'], 'hub-b');
    assert.equal(await stateAtB(task.id), 'completed');
  });

  it('info needed → input-required with the question; the client’s next message answers it', async () => {
    const task = await send(client, a2aMessage('slow', 'slow'), true);
    const asking = await settle(client, task.id, [TaskState.TASK_STATE_INPUT_REQUIRED]);
    assert.match(partsText(asking.status?.message), /How many seconds/);
    await send(client, a2aMessage('1', undefined, task.id), true);
    const done = await settle(client, task.id, [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED]);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(partsText(done.status?.message), /Done after 1 s/);
  });

  it('need human → input-required; "approve …" from the client reaches B as a human decision', async () => {
    const task = await send(client, a2aMessage('approve', 'approve'), true);
    const asking = await settle(client, task.id, [TaskState.TASK_STATE_INPUT_REQUIRED]);
    assert.match(partsText(asking.status?.message), /Approve/);
    // with the options the executor offered
    const options = asking.status?.message?.parts.find((p) => p.content?.$case === 'data');
    assert.match(JSON.stringify(options), /approve/);
    assert.match(JSON.stringify(options), /reject/);
    await send(client, a2aMessage('approve ship it', undefined, task.id), true);
    const done = await settle(client, task.id, [
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_REJECTED,
    ]);
    assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(partsText(done.status?.message), /Approved: ship it/);
  });

  it('a streaming client sees B’s progress live, then the completion', async () => {
    const progress: string[] = [];
    let last: TaskState | undefined;
    for await (const event of client.sendMessageStream({
      tenant: '',
      message: a2aMessage('slow 2', 'slow'),
      configuration: undefined,
      metadata: undefined,
    })) {
      if (event.payload?.$case === 'statusUpdate') {
        const text = partsText(event.payload.value.status?.message);
        if (text) progress.push(text);
        last = event.payload.value.status?.state;
      }
    }
    assert.deepEqual(
      progress.filter((t) => /^\d\/2 s$/.test(t)),
      ['1/2 s', '2/2 s'],
    );
    assert.equal(last, TaskState.TASK_STATE_COMPLETED);
  });

  it('CancelTask at A cancels the task at B', async () => {
    const task = await send(client, a2aMessage('slow 30', 'slow'), true);
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    assert.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
    const until = Date.now() + 15_000;
    while ((await stateAtB(task.id)) !== 'cancelled' && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal(await stateAtB(task.id), 'cancelled');
  });
});

// last: these kill hub B
describe('heartbeat loss resolves the task, on either side', () => {
  it('B’s run is lost (B killed and started again): B’s own watch fails it, and A’s task fails', async () => {
    const id = await delegate('slow 120', 'slow');
    await waitForState(id, ['executing']);
    await killB();
    hubB = await startHubB(portB, peersOfB);
    // B, started again, finds its run lost and fails its task; A's task fails too: told by B, or by its
    // own watch first (B's p2p:task_failed may wait behind a delivery the kill interrupted: ordering)
    const until = Date.now() + 30_000;
    while ((await stateAtB(id)) !== 'failed' && Date.now() < until)
      await new Promise((r) => setTimeout(r, 200));
    assert.equal(await stateAtB(id), 'failed');
    const failed = await waitForState(id, ['failed'], 30_000);
    assert.match(
      JSON.stringify(failed.task.status.message),
      /No heartbeat from the (run|Synapse peer hub-b)/,
    );
  });

  it('B is gone: A gets no heartbeat for 2 intervals and fails the task, saying so', async () => {
    const id = await delegate('slow 120', 'slow');
    await waitForState(id, ['executing']);
    await killB();
    const failed = await waitForState(id, ['failed'], 45_000);
    assert.match(JSON.stringify(failed.task.status.message), /No heartbeat from the Synapse peer hub-b/);
  });
});
