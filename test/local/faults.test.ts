/**
 * The rules for faults (docs/reliability.md), each against its fault, on the local hub: the real
 * handlers on DynamoDB Local and the local SQS, with a fault layer whose faults each test chooses
 * (test/support/faults.ts) on their AWS clients and event sources.
 * - a call that stays throttled: the caller gets 503 with Retry-After (JSON-RPC and REST; a Synapse peer
 *   p2p:nack agent_not_ready), nothing written;
 * - a create applied whose answer was lost, then throttled: 503, and the client's retry with the same
 *   messageId gets the same task, applied once;
 * - an SQS message delivered twice (after it was handled, or twice in one batch): handled once;
 * - a stream batch handed to the relay again: no second push;
 * - a consumer that dies mid-way (the executor before or after its claim, the relay): the task still
 *   finishes and its push arrives once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { SYNAPSE_CALLBACK_PATH } from '../../shared/contracts/routes.ts';
import type { DeliveryAttempt } from '../../shared/ports/delivery-log.ts';
import { composeMessage, signSynapseRequest } from '../../shared/protocol/synapse/index.ts';
import { type FaultScript, inOrder, ScriptedFaults } from '../support/faults.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const KEY = { id: 'ab-1', secret: 'the-secret-hub-a-and-hub-b-share-32+' };
const ENV = {
  SYNAPSE_AGENT_ID: 'hub-b',
  // the peer's callbacks go nowhere that answers: only what it sends here matters
  SYNAPSE_PEERS: JSON.stringify([
    { peerId: 'hub-a', tenant: 'partners', endpoint: 'http://127.0.0.1:9/synapse/callback', keys: [KEY] },
  ]),
  PUSH_URL_ALLOWLIST: '127.0.0.1',
  DELIVERY_BASE_DELAY_SECONDS: '0.05',
  DELIVERY_JITTER: '0',
  HEARTBEAT_INTERVAL_SECONDS: '1',
  HEARTBEAT_MISSED_LIMIT: '2',
  SYNAPSE_QUIET_EVENTS: '1',
  POWERTOOLS_LOG_LEVEL: 'CRITICAL',
};

let hub: LocalHub;
let faults: ScriptedFaults;
let receiver: WebhookReceiver;
let dynamo: DynamoDBClient;
let store: DynamoTaskStore;

before(async () => {
  receiver = await startWebhookReceiver();
  faults = new ScriptedFaults();
  hub = await startLocalHub({
    env: ENV,
    faults,
    visibilityTimeoutCapSeconds: 2,
    // runs lost with their executor are run again (a run of an agent not declared idempotent is failed)
    agentModule: fileURLToPath(new URL('./fixtures/idempotent-demo-agent.ts', import.meta.url)),
    log: () => {},
  });
  // past the fault layer: what the table holds
  dynamo = new DynamoDBClient({
    endpoint: hub.dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  store = new DynamoTaskStore(dynamo, { tableName: hub.tableName });
});

after(async () => {
  dynamo?.destroy();
  await hub?.stop();
  await receiver?.close();
});

const rpc = async (method: string, params: unknown) => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as {
      result?: { task?: { id: string; status: { state: string } }; id?: string; status?: { state: string } };
      error?: { code: number; message: string };
    },
  };
};

const sendParams = (text: string, options: { messageId?: string; hook?: string } = {}) => ({
  message: { messageId: options.messageId ?? crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  configuration: {
    returnImmediately: true,
    ...(options.hook
      ? { taskPushNotificationConfig: { url: receiver.url(options.hook), token: 'tok' } }
      : {}),
  },
});

const send = async (text: string, hook?: string): Promise<string> => {
  const answer = await rpc('SendMessage', sendParams(text, hook ? { hook } : {}));
  const id = answer.body.result?.task?.id;
  assert.ok(id, JSON.stringify(answer));
  return id;
};

const tenant = 'default';

/** Waits for the task to be completed, then for the relay to have passed its last change on. */
const completed = async (taskId: string) => {
  for (let i = 0; i < 600; i++) {
    const record = await store.get({ tenant, taskId });
    if (record?.head.state === 'completed') {
      await hub.relayCaughtUp();
      return record;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`task ${taskId} did not complete: ${(await store.get({ tenant, taskId }))?.head.state}`);
};

const eventTypes = async (taskId: string) => {
  const record = await store.get({ tenant, taskId });
  assert.ok(record);
  return (await store.events(record, 0)).map((e) => e.type);
};

/** Every task item of the table. */
const taskItems = async () =>
  (
    (
      await DynamoDBDocumentClient.from(dynamo).send(
        new ScanCommand({
          TableName: hub.tableName,
          FilterExpression: 'sk = :t',
          ExpressionAttributeValues: { ':t': 'T' },
        }),
      )
    ).Items ?? []
  ).length;

/** The pushes `hook` accepted, by event version: each must be there once. */
const acceptedVersions = (hook: string) =>
  receiver
    .received(hook)
    .filter((p) => p.status < 300)
    .map((p) => Number(p.headers['a2a-event-version']));

const completionPushed = async (hook: string) => {
  for (let i = 0; i < 400; i++) {
    if (receiver.received(hook).some((p) => p.status < 300 && p.body.includes('TASK_STATE_COMPLETED')))
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `${hook} never got the completion: ${JSON.stringify(receiver.received(hook).map((p) => p.body))}`,
  );
};

/** Every attempt of the log delivered, or taken over after its invocation died. */
const settled = (attempts: DeliveryAttempt[]) =>
  attempts.length > 0 && attempts.every((a) => a.status === 'delivered' || a.status === 'interrupted');

const once = (versions: number[]) =>
  assert.equal(new Set(versions).size, versions.length, `each once: ${versions}`);

describe('a call that stays throttled', () => {
  it('is answered 503 with Retry-After over JSON-RPC and REST, and nothing is written', async () => {
    const before = await taskItems();
    const throttled: FaultScript = (place) => (place.startsWith('sdk:DynamoDB.') ? 'throttle' : undefined);
    const jsonrpc = await faults.during(throttled, () => rpc('SendMessage', sendParams('hello')));
    assert.equal(jsonrpc.status, 503);
    assert.equal(jsonrpc.retryAfter, '1');
    assert.equal(jsonrpc.body.error?.code, 503);
    assert.match(
      jsonrpc.body.error?.message ?? '',
      /could not reach DynamoDB .*; try again \(a retried messageId applies once\)/,
    );

    const rest = await faults.during(throttled, () =>
      fetch(`${hub.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify(sendParams('hello')),
      }),
    );
    assert.equal(rest.status, 503);
    assert.equal(rest.headers.get('retry-after'), '1');
    const restBody = (await rest.json()) as { error: { code: number; status: string } };
    assert.deepEqual([restBody.error.code, restBody.error.status], [503, 'UNAVAILABLE']);
    assert.ok(faults.given.length >= 3, 'the SDK tried 3 times');
    assert.equal(await taskItems(), before, 'no task written');
  });
});

describe('a Synapse message while the table stays throttled', () => {
  it('is nacked agent_not_ready (503, Retry-After), writes nothing, and is taken when sent again', async () => {
    const taskId = `t-${crypto.randomUUID()}`;
    const message = composeMessage(
      'p2p:task_request',
      { task: { id: taskId, type: 'echo', payload: { text: 'hello' } } },
      { sender: { agent_id: 'hub-a', endpoint: 'http://127.0.0.1:9/synapse/callback' }, task_id: taskId },
    );
    const raw = JSON.stringify(message);
    const headers = {
      'Content-Type': 'application/json',
      ...signSynapseRequest({ rawBody: raw, messageId: message.message_id, key: KEY }),
    };
    const post = () => fetch(`${hub.url}${SYNAPSE_CALLBACK_PATH}`, { method: 'POST', headers, body: raw });
    const before = await taskItems();
    const refused = await faults.during(
      (place) => (place.startsWith('sdk:DynamoDB.') ? 'throttle' : undefined),
      post,
    );
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    const nacked = (await refused.json()) as { type: string; payload: { code: string } };
    assert.deepEqual([nacked.type, nacked.payload.code], ['p2p:nack', 'agent_not_ready']);
    assert.equal(await taskItems(), before, 'nothing written');
    // the same signed request again, once the table answers: not a replay, the task is taken
    const taken = await post();
    assert.ok(taken.status < 300, `${taken.status} ${await taken.text()}`);
    assert.equal(await taskItems(), before + 1);
  });
});

describe('a create applied whose answer was lost, then throttled', () => {
  it("is answered with the task it made (read back); the client's retry with the same messageId gets it again, once", async () => {
    const messageId = crypto.randomUUID();
    const before = await taskItems();
    const first = await faults.during(
      inOrder('sdk:DynamoDB.PutItem', ['ambiguous', 'throttle', 'throttle']),
      () => rpc('SendMessage', sendParams('hello', { messageId })),
    );
    assert.deepEqual(
      faults.given.map((g) => g.kind),
      ['ambiguous', 'throttle', 'throttle'],
      'the create failed as far as the SDK knows',
    );
    assert.equal(await taskItems(), before + 1, 'its first attempt was applied');
    const id = first.body.result?.task?.id;
    assert.ok(id, `the task found, not an error: ${JSON.stringify(first.body)}`);
    const retried = await rpc('SendMessage', sendParams('hello', { messageId }));
    assert.equal(retried.body.result?.task?.id, id, 'the same task');
    assert.equal(await taskItems(), before + 1, 'one task');
    await completed(id);
    assert.equal((await eventTypes(id)).filter((t) => t === 'created').length, 1);
  });
});

describe('SQS delivering a message twice', () => {
  it('a run and a push handed over again after they were handled, or twice in a batch, are handled once', async () => {
    const script: FaultScript = (place) =>
      place === 'sqs:executor'
        ? 'sqs-duplicate'
        : place === 'sqs:deliver'
          ? 'sqs-duplicate-in-batch'
          : undefined;
    const taskId = await faults.during(script, async () => {
      const id = await send('hello', '/sqs-twice');
      await completed(id);
      await completionPushed('/sqs-twice');
      return id;
    });
    assert.ok(faults.given.some((g) => g.kind === 'sqs-duplicate'));
    assert.ok(faults.given.some((g) => g.kind === 'sqs-duplicate-in-batch'));
    const types = await eventTypes(taskId);
    assert.equal(types.filter((t) => t === 'start').length, 1, `run once: ${types}`);
    once(acceptedVersions('/sqs-twice'));
  });
});

describe('the stream handing a batch to the relay again', () => {
  it('sends no second push', async () => {
    let asked = 0;
    // every batch handled is handed over once more
    const script: FaultScript = (place) =>
      place === 'stream:relay' && asked++ % 2 === 0 ? 'stream-redelivered' : undefined;
    await faults.during(script, async () => {
      const id = await send('hello', '/stream-again');
      await completed(id);
      await completionPushed('/stream-again');
    });
    assert.ok(faults.given.filter((g) => g.kind === 'stream-redelivered').length >= 2);
    // the deliveries queued a second time find their attempts in the log
    await new Promise((r) => setTimeout(r, 500));
    once(acceptedVersions('/stream-again'));
  });
});

describe('a consumer that dies mid-way', () => {
  for (const dieAt of [1, 2, 3]) {
    it(`the executor dying at its call ${dieAt}: the task still finishes, its push arrives once`, async () => {
      faults.dieAt = dieAt;
      let killed = false;
      const script: FaultScript = (place) => {
        if (place !== 'invoke:executor' || killed) return undefined;
        killed = true;
        return 'function-dies';
      };
      const hook = `/executor-dies-${dieAt}`;
      await faults.during(script, async () => {
        const id = await send('hello', hook);
        await completed(id);
        await completionPushed(hook);
      });
      assert.deepEqual(
        faults.given.map((g) => g.kind),
        ['function-dies'],
      );
      once(acceptedVersions(hook));
    });
  }

  it('the deliver function dying after its claims: each attempt is taken over when its message comes back', async () => {
    faults.dieAt = 2; // its first call is the attempt's claim
    let killed = 0;
    const script: FaultScript = (place) =>
      place === 'invoke:deliver' && killed++ < 2 ? 'function-dies' : undefined;
    const log = new DynamoDeliveryLog(dynamo, hub.tableName);
    const attempts = await faults.during(script, async () => {
      const taskId = await send('hello', '/deliver-dies');
      await completed(taskId);
      // every attempt settled within seconds: a claim's window is the capped visibility, not the minute
      // a deliver function may take (DELIVERY_IN_FLIGHT_SECONDS)
      let found = await log.list(tenant, taskId);
      for (let i = 0; i < 300 && !(settled(found) && killed >= 2); i++) {
        await new Promise((r) => setTimeout(r, 50));
        found = await log.list(tenant, taskId);
      }
      return found;
    });
    assert.equal(faults.given.filter((g) => g.kind === 'function-dies').length, 2);
    assert.ok(settled(attempts), JSON.stringify(attempts.map((a) => [a.version, a.attempt, a.status])));
    assert.ok(
      attempts.some((a) => a.status === 'interrupted'),
      'the claims the dead invocations left were taken over',
    );
    once(acceptedVersions('/deliver-dies'));
  });

  it('the relay dying more often in a row than a few retries: the batch is still relayed, nothing given up', async () => {
    faults.dieAt = 1;
    await hub.relayCaughtUp();
    let killed = 0;
    // more than the 5 retries that once gave a batch up under the chaos run (STREAM_RELAY.maxRetryAttempts):
    // the relay's invocations are one at a time, so these are the tries of the task's first batch
    const script: FaultScript = (place) =>
      place === 'invoke:relay' && killed++ < 8 ? 'function-dies' : undefined;
    await faults.during(script, async () => {
      const id = await send('hello', '/relay-dies-often');
      await completed(id);
      await completionPushed('/relay-dies-often');
    });
    assert.equal(faults.given.filter((g) => g.kind === 'function-dies').length, 8);
    once(acceptedVersions('/relay-dies-often'));
  });

  it('the relay dying after some of its calls: the task finishes, its push arrives once', async () => {
    faults.dieAt = 2;
    let killed = 0;
    const script: FaultScript = (place) =>
      place === 'invoke:relay' && killed++ < 2 ? 'function-dies' : undefined;
    await faults.during(script, async () => {
      const id = await send('hello', '/relay-dies');
      await completed(id);
      await completionPushed('/relay-dies');
    });
    assert.equal(faults.given.filter((g) => g.kind === 'function-dies').length, 2);
    once(acceptedVersions('/relay-dies'));
  });
});
