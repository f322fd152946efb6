/**
 * Push deliveries through the running local hub (the deployed handlers: relay, deliver, executor): a
 * task of the demo agent with a push config (registered with PushConfigService on the hub's table,
 * until the API serves it) has its events POSTed to a receiver on 127.0.0.1 (PUSH_URL_ALLOWLIST),
 * each signed with the hub's key and verified through its JWKS route; a receiver that fails first is
 * retried at the configured (scaled-down) delays; every attempt is in the task's delivery log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log.ts';
import { DynamoPushConfigStore } from '../../shared/adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { urlGuardFromEnv } from '../../shared/adapters/http/url-guard.ts';
import { PushConfigService } from '../../shared/app/push/push-configs.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../shared/app/tasks/task-service.ts';
import { JWKS_PATH } from '../../shared/contracts/routes.ts';
import { bodySha256, PUSH_JWT_HEADER } from '../../shared/domain/push-signing.ts';
import type { DeliveryAttempt } from '../../shared/ports/delivery-log.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const ENV = {
  PUSH_URL_ALLOWLIST: '127.0.0.1',
  DELIVERY_MAX_ATTEMPTS: '3',
  DELIVERY_BASE_DELAY_SECONDS: '0.05',
  DELIVERY_JITTER: '0',
  SYNAPSE_QUIET_EVENTS: '1',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};
const caller = { tenant: 'default', owner: 'anonymous' };

let hub: LocalHub;
let receiver: WebhookReceiver;
let dynamo: DynamoDBClient;
let pushConfigs: PushConfigService;
let log: DynamoDeliveryLog;

before(async () => {
  receiver = await startWebhookReceiver();
  hub = await startLocalHub({ env: ENV, log: () => {} });
  dynamo = new DynamoDBClient({
    endpoint: hub.dynamoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const engine = new TaskEngine(new DynamoTaskStore(dynamo, { tableName: hub.tableName }));
  pushConfigs = new PushConfigService(
    engine,
    new TaskService(engine),
    new DynamoPushConfigStore(dynamo, hub.tableName),
    urlGuardFromEnv(ENV),
  );
  log = new DynamoDeliveryLog(dynamo, hub.tableName);
});

after(async () => {
  dynamo?.destroy();
  await hub?.stop();
  await receiver?.close();
});

const send = async (text: string): Promise<string> => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
        configuration: { returnImmediately: true },
      },
    }),
  });
  const body = (await res.json()) as { result?: { task?: { id: string } } };
  assert.ok(body.result?.task?.id, JSON.stringify(body));
  return body.result.task.id;
};

const logUntil = async (taskId: string, done: (a: DeliveryAttempt[]) => boolean) => {
  for (let i = 0; i < 300; i++) {
    const attempts = await log.list(caller.tenant, taskId);
    if (done(attempts)) return attempts;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the delivery log of ${taskId}: ${JSON.stringify(await log.list(caller.tenant, taskId))}`);
};

const stateOf = (body: string): string => JSON.parse(body).statusUpdate?.status?.state;

describe('push deliveries on the local hub', () => {
  it('a running task notifies its webhook of every update, signed; the first failure is retried', async () => {
    receiver.script('/hook', [503, 204]);
    const taskId = await send('slow 2');
    await pushConfigs.create(caller, taskId, { url: receiver.url('/hook'), token: 't0k' }, '1.0');
    const attempts = await logUntil(taskId, (a) =>
      a.some(
        (x) =>
          x.status === 'delivered' &&
          receiver.received('/hook').some((p) => stateOf(p.body) === 'TASK_STATE_COMPLETED'),
      ),
    );

    const jwks = createRemoteJWKSet(new URL(`${hub.url}${JWKS_PATH}`));
    const accepted = receiver.received('/hook').filter((p) => p.status === 204);
    assert.ok(accepted.length >= 2, 'progress and the completion');
    for (const p of accepted) {
      const { payload } = await jwtVerify(String(p.headers[PUSH_JWT_HEADER.toLowerCase()]), jwks, {
        issuer: hub.url,
        audience: receiver.url('/hook'),
      });
      assert.equal(payload.taskId, taskId);
      assert.equal(payload.body_sha256, bodySha256(p.body));
      assert.equal(p.headers['x-a2a-notification-token'], 't0k');
    }
    const versions = accepted.map((p) => Number(p.headers['a2a-event-version']));
    assert.equal(new Set(versions).size, versions.length, 'each event once');
    const last = accepted.find((p) => Number(p.headers['a2a-event-version']) === Math.max(...versions))!;
    assert.equal(stateOf(last.body), 'TASK_STATE_COMPLETED', 'the highest version is the ending');

    // the receiver's first answer was a 503: that delivery was retried after the policy's first delay
    const first = attempts.find((a) => a.attempt === 1 && a.status === 'retrying');
    assert.equal(first?.retryInSeconds, 0.05);
    assert.ok(
      attempts.some((a) => a.version === first!.version && a.attempt === 2 && a.status === 'delivered'),
      JSON.stringify(attempts),
    );
  });
});
