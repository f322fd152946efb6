/**
 * The hub as a Synapse executor, end to end on the local runtime: a requester (this test, with a
 * callback receiver on 127.0.0.1) POSTs signed p2p messages to /synapse/callback, and the demo agent's
 * work comes back as signed callbacks through the delivery pipeline. The protocol's four flows (normal,
 * info needed, human decision, cancel), refused signatures and malformed messages that change
 * nothing, duplicates acknowledged again, a finished task's 409, capabilities, and the schemas route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { taskPk } from '../../shared/adapters/dynamodb/keys.ts';
import { pushConfigSk } from '../../shared/adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../../shared/app/synapse/callbacks.ts';
import { synapseTaskId } from '../../shared/app/synapse/inbound.ts';
import {
  SYNAPSE_CALLBACK_PATH,
  SYNAPSE_SCHEMAS_PATH,
  SYNAPSE_TASKS_PATH,
} from '../../shared/contracts/routes.ts';
import {
  composeMessage,
  parseSynapseMessage,
  SIGNATURE_HEADER,
  type SynapseMessage,
  type SynapseMessageType,
  type SynapsePayloadInput,
  signSynapseRequest,
  TIMESTAMP_HEADER,
  verifySynapseRequest,
} from '../../shared/protocol/synapse/index.ts';
import { watchWrites } from '../fuzz/writes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const PEER = 'requester-a';
const TENANT = 'acme';
const KEY = { id: 'k1', secret: 'requester-a-shared-secret-of-32-chars!' };
const OTHER_KEY = { id: 'k1', secret: 'not-the-shared-secret-but-32-characters' };
const CALLBACKS = '/callbacks';
const EXECUTOR_X = '/executor-x';

let hub: LocalHub;
let receiver: WebhookReceiver;

before(async () => {
  receiver = await startWebhookReceiver();
  hub = await startLocalHub({
    port: 0,
    sweepIntervalMs: 60_000,
    env: {
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.05',
      DELIVERY_JITTER: '0',
      SYNAPSE_AGENT_ID: 'hub-b',
      // heartbeats every second (30 by default), so a test sees them
      HEARTBEAT_INTERVAL_SECONDS: '1',
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: PEER, tenant: TENANT, endpoint: receiver.url(CALLBACKS), keys: [KEY] },
        // an executor this hub delegates to (the requester role), scripted by the test
        { peerId: 'executor-x', tenant: 'default', endpoint: receiver.url(EXECUTOR_X), keys: [KEY] },
      ]),
    },
  });
});
after(async () => {
  await hub?.stop();
  await receiver?.close();
});

const sender = () => ({ agent_id: PEER, endpoint: receiver.url(CALLBACKS) });

const build = <T extends SynapseMessageType>(
  type: T,
  payload: SynapsePayloadInput<T>,
  taskId?: string,
): SynapseMessage<T> =>
  composeMessage(type, payload, {
    sender: sender(),
    recipient: { agent_id: 'hub-b' },
    ...(taskId ? { task_id: taskId } : {}),
    message_id: `m-${crypto.randomUUID()}`,
  });

interface Sent {
  status: number;
  body: SynapseMessage;
}

/** POSTs `raw` with the headers of `sign` (default: signed with the shared key now). */
const post = async (
  raw: string,
  messageId: string,
  headers: Record<string, string> = signSynapseRequest({ rawBody: raw, messageId, key: KEY }),
): Promise<Sent> => {
  const res = await fetch(`${hub.url}${SYNAPSE_CALLBACK_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: raw,
  });
  const body = (await res.json()) as SynapseMessage;
  return { status: res.status, body };
};

const send = (message: SynapseMessage): Promise<Sent> => post(JSON.stringify(message), message.message_id);

/**
 * A retry of `message`: signed anew once the clock has moved to the next second (a signature's timestamp
 * is in seconds; the same signed request again within it is a replay, refused).
 */
const resend = async (message: SynapseMessage): Promise<Sent> => {
  await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 10));
  return send(message);
};

const request = (remoteId: string, text: string, type = text.split(' ')[0]!) =>
  build('p2p:task_request', { task: { id: remoteId, type, payload: { text } } }, remoteId);

/** The callbacks received for the requester's task `remoteId`, parsed, in arrival order. */
const callbacksOf = (remoteId: string): SynapseMessage[] =>
  receiver
    .received(CALLBACKS)
    .map((r) => JSON.parse(r.body) as SynapseMessage)
    .filter((m) => m.task_id === remoteId);

const waitForCallback = async (remoteId: string, type: SynapseMessageType, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = callbacksOf(remoteId).find((m) => m.type === type);
    if (found) return found;
    if (Date.now() > until)
      throw new Error(
        `no ${type} for ${remoteId}; got ${callbacksOf(remoteId)
          .map((m) => m.type)
          .join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
};

const noTask = async (remoteId: string) => {
  const probe = await send(build('p2p:heartbeat', { task_id: remoteId }, remoteId));
  assert.equal(probe.status, 404);
  assert.equal(probe.body.type, 'p2p:nack');
  assert.equal((probe.body.payload as { code: string }).code, 'task_not_found');
};

describe('the hub as a Synapse executor (local runtime)', () => {
  it('normal flow: request → ack; task_confirm, task_complete with the artifacts; every callback signed and valid', async () => {
    const id = `t-${crypto.randomUUID()}`;
    const answer = await send(request(id, 'echo hello synapse', 'echo'));
    assert.equal(answer.status, 200);
    assert.equal(answer.body.type, 'p2p:ack');
    assert.equal(answer.body.task_id, id);
    const complete = await waitForCallback(id, 'p2p:task_complete');
    await waitForCallback(id, 'p2p:task_confirm');
    // a peer gets a task's messages in order: the confirmation arrived before the completion
    const types = callbacksOf(id)
      .map((m) => m.type)
      .filter((t) => t !== 'p2p:heartbeat');
    assert.deepEqual(types, ['p2p:task_confirm', 'p2p:task_complete']);
    const result = (complete.payload as { result: { output: { parts: { text?: string }[] }[] } }).result;
    assert.ok(JSON.stringify(result.output).includes('hello synapse'), JSON.stringify(result));
    for (const raw of receiver.received(CALLBACKS).filter((r) => JSON.parse(r.body).task_id === id)) {
      // what the hub sends parses with the schemas it checks inbound messages against
      assert.ok(parseSynapseMessage(JSON.parse(raw.body)).ok, raw.body);
      const verified = await verifySynapseRequest(
        {
          rawBody: raw.body,
          headers: raw.headers as Record<string, string>,
          peerId: 'hub-b',
          messageId: JSON.parse(raw.body).message_id,
        },
        {
          peers: {
            peer: () => ({ peerId: 'hub-b', tenant: 't', endpoint: hub.url, keys: [KEY], unsigned: false }),
          },
          seen: { remember: async () => true },
        },
      );
      assert.ok(verified.ok, JSON.stringify(verified));
      assert.equal(JSON.parse(raw.body).sender.agent_id, 'hub-b');
      assert.equal(JSON.parse(raw.body).recipient.agent_id, PEER);
    }
  });

  it('info flow: need_info at validation, info_provided continues it, then it completes', async () => {
    const id = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(id, 'slow', 'slow'))).status, 200);
    const needInfo = await waitForCallback(id, 'p2p:task_need_info');
    const fields = (needInfo.payload as { missing_fields: { field: string }[] }).missing_fields;
    assert.deepEqual(
      fields.map((f) => f.field),
      ['seconds'],
    );
    const provided = await send(
      build('p2p:task_info_provided', { task_id: id, provided_fields: { seconds: 1 } }, id),
    );
    assert.equal(provided.status, 200, JSON.stringify(provided.body));
    assert.equal(provided.body.type, 'p2p:ack');
    const complete = await waitForCallback(id, 'p2p:task_complete');
    assert.match(String((complete.payload as { summary?: string }).summary), /Done after 1 s/);
    assert.ok(callbacksOf(id).some((m) => m.type === 'p2p:task_status_update'));
    // the same answer again (a retry: same message id, signed anew) is acknowledged, no effect
    const again = await send(
      build('p2p:task_info_provided', { task_id: id, provided_fields: { seconds: 1 } }, id),
    );
    assert.equal(again.status, 409, 'a new answer to a finished task is task_already_completed');
    assert.equal((again.body.payload as { code: string }).code, 'task_already_completed');
  });

  it('human flow: need_human with the options, human_decision (decided_by kept) completes it', async () => {
    const id = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(id, 'approve', 'approve'))).status, 200);
    const needHuman = await waitForCallback(id, 'p2p:task_need_human');
    assert.ok(((needHuman.payload as { options?: unknown[] }).options ?? []).length >= 2);
    const decision = build(
      'p2p:human_decision',
      {
        task_id: id,
        decision_id: 'd-1',
        decided_by: { user_id: 'u-7', user_name: 'Ada', role: 'reviewer' },
        decision: { action: 'approve' },
        notes: 'looks right',
      },
      id,
    );
    // information is not what it waits for: refused, nothing changes
    const wrongAnswer = await send(
      build('p2p:task_info_provided', { task_id: id, provided_fields: { x: 1 } }, id),
    );
    assert.equal(wrongAnswer.status, 400);
    assert.match((wrongAnswer.body.payload as { message: string }).message, /does not wait for information/);
    const decided = await send(decision);
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const complete = await waitForCallback(id, 'p2p:task_complete');
    assert.match(String((complete.payload as { summary?: string }).summary), /Approved: looks right/);
    // who decided is kept with the decision, in the task's history
    const store = new DynamoTaskStore(new DynamoDBClient({ endpoint: hub.dynamoEndpoint }), {
      tableName: hub.tableName,
    });
    const record = await store.get({ tenant: TENANT, taskId: synapseTaskId(TENANT, PEER, id) });
    const view = await store.view(record!, { historyLength: 10 });
    const kept = view.history.find((m) => m.metadata?.['synapse.decidedBy']);
    assert.deepEqual(kept?.metadata?.['synapse.decidedBy'], {
      user_id: 'u-7',
      user_name: 'Ada',
      role: 'reviewer',
    });
    // the decision was applied once: the same message (a retry with a fresh signature) is a duplicate
    const retried = await resend(decision);
    assert.equal(retried.status, 200);
    assert.equal((retried.body.payload as { duplicate?: boolean }).duplicate, true);
  });

  it('a rejection at validation is p2p:task_reject; a failure p2p:task_failed', async () => {
    const rejected = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(rejected, 'reject', 'echo'))).status, 200);
    const reject = await waitForCallback(rejected, 'p2p:task_reject');
    assert.equal((reject.payload as { reason: { code: string } }).reason.code, 'capability_lacking');
    const failed = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(failed, 'fail', 'echo'))).status, 200);
    const failure = await waitForCallback(failed, 'p2p:task_failed');
    assert.equal((failure.payload as { error: { code: string } }).error.code, 'execution_failed');
  });

  it('as requester: the request reaches the executor signed; its completion is answered with p2p:task_ack', async () => {
    const made = await fetch(`${hub.url}${SYNAPSE_TASKS_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ peer: 'executor-x', type: 'summarize', text: 'summarize this' }),
    });
    assert.equal(made.status, 201);
    const taskId = ((await made.json()) as { task: { id: string } }).task.id;
    const [got] = await receiver.waitFor(EXECUTOR_X, 1);
    const req = JSON.parse(got!.body) as SynapseMessage<'p2p:task_request'>;
    assert.equal(req.type, 'p2p:task_request');
    assert.deepEqual(req.payload.task.payload, { text: 'summarize this' });
    const asExecutor = composeMessage(
      'p2p:task_complete',
      { task_id: taskId, result: { output: 'a summary' }, summary: 'Done' },
      {
        sender: { agent_id: 'executor-x', endpoint: receiver.url(EXECUTOR_X) },
        task_id: taskId,
        message_id: `c-${crypto.randomUUID()}`,
      },
    );
    const answer = await send(asExecutor);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.type, 'p2p:task_ack');
    assert.equal(
      (answer.body.payload as { acked_type: string; status: string }).acked_type,
      'p2p:task_complete',
    );
    assert.equal((answer.body.payload as { status: string }).status, 'completed');
    const read = await fetch(`${hub.url}${SYNAPSE_TASKS_PATH}/${taskId}`);
    assert.equal(((await read.json()) as { synapse: { state: string } }).synapse.state, 'completed');
  });

  it('cancel flow: task_cancel is answered with p2p:task_ack, the task is cancelled, no completion follows', async () => {
    const id = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(id, 'slow 30', 'slow'))).status, 200);
    await waitForCallback(id, 'p2p:task_confirm');
    const cancelled = await send(build('p2p:task_cancel', { task_id: id }, id));
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.type, 'p2p:task_ack');
    assert.equal((cancelled.body.payload as { acked_type: string }).acked_type, 'p2p:task_cancel');
    assert.equal((cancelled.body.payload as { status: string }).status, 'cancelled');
    const beat = await send(build('p2p:heartbeat', { task_id: id }, id));
    assert.equal((beat.body.payload as { status: string }).status, 'cancelled');
    await new Promise((r) => setTimeout(r, 1_500));
    assert.ok(!callbacksOf(id).some((m) => m.type === 'p2p:task_complete'));
  });

  it('heartbeats: while the agent works the requester gets a signed p2p:heartbeat every interval; they stop when it ends', async () => {
    const id = `t-${crypto.randomUUID()}`;
    assert.equal((await send(request(id, 'slow 3', 'slow'))).status, 200);
    await waitForCallback(id, 'p2p:task_complete');
    const beats = callbacksOf(id).filter((m) => m.type === 'p2p:heartbeat');
    assert.ok(beats.length >= 2, `${beats.length} heartbeat(s)`);
    for (const beat of beats) {
      assert.equal((beat.payload as { status: string }).status, 'executing');
      assert.equal((beat.payload as { interval: number }).interval, 1);
      assert.ok(parseSynapseMessage(beat).ok);
    }
    const count = beats.length;
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal(
      callbacksOf(id).filter((m) => m.type === 'p2p:heartbeat').length,
      count,
      'none after the completion',
    );
  });

  it('a duplicate request (same task id, a retry) is acknowledged again with duplicate: true and makes no second task', async () => {
    const id = `t-${crypto.randomUUID()}`;
    const first = request(id, 'echo once', 'echo');
    assert.equal((await send(first)).status, 200);
    const again = await resend(first);
    assert.equal(again.status, 200);
    assert.equal((again.body.payload as { duplicate?: boolean }).duplicate, true);
    await waitForCallback(id, 'p2p:task_complete');
    assert.equal(callbacksOf(id).filter((m) => m.type === 'p2p:task_confirm').length, 1);
  });

  it("a duplicate request writes nothing: its task's synapse push config stays byte for byte, no stream record", async () => {
    const id = `t-${crypto.randomUUID()}`;
    const first = request(id, 'echo once', 'echo');
    assert.equal((await send(first)).status, 200);
    await waitForCallback(id, 'p2p:task_complete');
    const taskId = synapseTaskId(TENANT, PEER, id);
    const key = { pk: { S: taskPk(TENANT, taskId) }, sk: { S: pushConfigSk(SYNAPSE_CALLBACK_CONFIG_ID) } };
    const dynamo = new DynamoDBClient({
      endpoint: hub.dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const writes = await watchWrites(hub.dynamoEndpoint, hub.tableName);
    try {
      const read = async () =>
        (await dynamo.send(new GetItemCommand({ TableName: hub.tableName, Key: key, ConsistentRead: true })))
          .Item;
      const before = await read();
      assert.ok(before?.cf, 'the request registered its requester as the synapse config');
      await writes.drain();
      const again = await resend(first);
      assert.equal(again.status, 200);
      assert.equal((again.body.payload as { duplicate?: boolean }).duplicate, true);
      assert.deepEqual(await read(), before, 'the config item is unchanged (time and TTL included)');
      await hub.relayCaughtUp();
      const ofTask = (await writes.drain()).filter((w) => w.pk === key.pk.S);
      assert.deepEqual(ofTask, [], 'nothing of the task was written');
    } finally {
      writes.close();
      dynamo.destroy();
    }
  });

  it('a retry signed anew within the same second is a duplicate (acknowledged again); the same signed request again is a replay', async () => {
    const id = `t-${crypto.randomUUID()}`;
    const first = request(id, 'echo retried', 'echo');
    const now = Date.now();
    const raw = JSON.stringify(first);
    const sign = (body: string) =>
      signSynapseRequest({ rawBody: body, messageId: first.message_id, key: KEY, now });
    assert.equal((await post(raw, first.message_id, sign(raw))).status, 200);
    // the sender built the message again for its retry (its envelope time moved): a fresh signature, same second
    const rebuilt = JSON.stringify({ ...first, timestamp: new Date(now + 1).toISOString() });
    const retryHeaders = sign(rebuilt);
    assert.equal(retryHeaders[TIMESTAMP_HEADER], sign(raw)[TIMESTAMP_HEADER], 'signed in the same second');
    const retry = await post(rebuilt, first.message_id, retryHeaders);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.type, 'p2p:ack');
    assert.equal((retry.body.payload as { duplicate?: boolean }).duplicate, true);
    // a captured request sent again, byte for byte: refused, whichever attempt it was
    for (const [body, headers] of [
      [raw, sign(raw)],
      [rebuilt, retryHeaders],
    ] as const) {
      const replayed = await post(body, first.message_id, headers);
      assert.equal(replayed.status, 403);
      assert.equal((replayed.body.payload as { details?: { reason?: string } }).details?.reason, 'replayed');
    }
    // the signature's hex in capitals is the same signature: still a replay
    const upper = {
      ...retryHeaders,
      [SIGNATURE_HEADER]: retryHeaders[SIGNATURE_HEADER]!.replace(
        /=(.*)$/,
        (_, h: string) => `=${h.toUpperCase()}`,
      ),
    };
    const shouted = await post(rebuilt, first.message_id, upper);
    assert.equal(shouted.status, 403);
    await waitForCallback(id, 'p2p:task_complete');
    assert.equal(callbacksOf(id).filter((m) => m.type === 'p2p:task_confirm').length, 1, 'one task');
  });

  describe('refused signatures: p2p:nack permission_denied (403), and nothing is written', () => {
    const refusedRequest = async (
      headersOf: (raw: string, messageId: string) => Record<string, string>,
      body?: (raw: string) => string,
    ) => {
      const id = `t-${crypto.randomUUID()}`;
      const message = request(id, 'echo refused', 'echo');
      const raw = JSON.stringify(message);
      const headers = headersOf(raw, message.message_id);
      const answer = await post(body ? body(raw) : raw, message.message_id, headers);
      assert.equal(answer.status, 403, JSON.stringify(answer.body));
      assert.equal(answer.body.type, 'p2p:nack');
      assert.equal((answer.body.payload as { code: string }).code, 'permission_denied');
      await noTask(id);
    };

    it('a wrong key', () =>
      refusedRequest((raw, messageId) => signSynapseRequest({ rawBody: raw, messageId, key: OTHER_KEY })));
    it('a stale timestamp (10 minutes old)', () =>
      refusedRequest((raw, messageId) =>
        signSynapseRequest({ rawBody: raw, messageId, key: KEY, now: Date.now() - 600_000 }),
      ));
    it('a changed body', () =>
      refusedRequest(
        (raw, messageId) => signSynapseRequest({ rawBody: raw, messageId, key: KEY }),
        (raw) => raw.replace('echo refused', 'echo altered'),
      ));
    it('no signature from a signed peer', () => refusedRequest(() => ({})));
    it('a replay (the same signed request twice): the second is refused', async () => {
      const message = build('p2p:capability_query', {});
      const raw = JSON.stringify(message);
      const headers = signSynapseRequest({ rawBody: raw, messageId: message.message_id, key: KEY });
      assert.equal((await post(raw, message.message_id, headers)).status, 200);
      const replayed = await post(raw, message.message_id, headers);
      assert.equal(replayed.status, 403);
      assert.equal((replayed.body.payload as { details?: { reason?: string } }).details?.reason, 'replayed');
      assert.ok(headers[SIGNATURE_HEADER] && headers[TIMESTAMP_HEADER]);
    });
  });

  it('malformed messages: message_format_invalid / invalid_params (400), nothing written', async () => {
    const notJson = await post('{nope', 'm-x');
    assert.equal(notJson.status, 400);
    assert.equal((notJson.body.payload as { code: string }).code, 'message_format_invalid');
    const id = `t-${crypto.randomUUID()}`;
    const bad = request(id, 'echo x', 'echo') as unknown as { payload: { task: Record<string, unknown> } };
    delete bad.payload.task.type;
    const invalid = await send(bad as unknown as SynapseMessage);
    assert.equal(invalid.status, 400);
    assert.equal((invalid.body.payload as { code: string }).code, 'invalid_params');
    await noTask(id);
    // a message for another agent
    const misdirected = { ...request(id, 'echo x', 'echo'), recipient: { agent_id: 'someone-else' } };
    const wrong = await send(misdirected);
    assert.equal(wrong.status, 400);
    assert.match((wrong.body.payload as { message: string }).message, /for someone-else/);
    await noTask(id);
  });

  it('an unknown task type is capability_lacking (403); a capability query lists the agent skills', async () => {
    const id = `t-${crypto.randomUUID()}`;
    const refused = await send(request(id, 'x', 'no-such-skill'));
    assert.equal(refused.status, 403);
    assert.equal((refused.body.payload as { code: string }).code, 'capability_lacking');
    await noTask(id);
    const caps = await send(build('p2p:capability_query', {}));
    assert.equal(caps.status, 200);
    assert.equal(caps.body.type, 'p2p:capability_response');
    const types = (caps.body.payload as { task_types: string[] }).task_types;
    assert.ok(types.includes('echo') && types.includes('approve'), types.join());
  });

  it('another peer’s task id is another task: the hub derives its ids per peer', () => {
    assert.notEqual(synapseTaskId(TENANT, PEER, 'same'), synapseTaskId(TENANT, 'other-peer', 'same'));
  });

  it('serves the JSON Schemas', async () => {
    const index = await fetch(`${hub.url}${SYNAPSE_SCHEMAS_PATH}/index.json`);
    assert.equal(index.status, 200);
    const listed = (await index.json()) as { payloads: Record<string, string> };
    assert.equal(Object.keys(listed.payloads).length, 17);
    const request = await fetch(`${hub.url}${SYNAPSE_SCHEMAS_PATH}/task_request.json`);
    assert.equal(request.status, 200);
    assert.ok(JSON.stringify(await request.json()).includes('"task"'));
    assert.equal((await fetch(`${hub.url}${SYNAPSE_SCHEMAS_PATH}/nope.json`)).status, 404);
  });
});
