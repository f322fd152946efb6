/**
 * The outbound delivery pipeline end to end on DynamoDB Local and the local SQS: a committed change
 * reaches the table's stream, the relay derives its deliveries into the delivery queue, the delivery
 * handler (functions/deliver.ts, on the local SQS event source) sends each to a receiver on 127.0.0.1
 * (allowlisted through the guard's policy), signed, and records every attempt in the task's log.
 * Retries, timeouts, Retry-After, the dead-letter queue, redrive, duplicates and a crash between claim
 * and outcome. Delays are scaled down by the policy (0.05 s base, no jitter); what is asserted is the
 * recorded delays and their order, never how long anything took.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { createDeliverHandler } from '../../../functions/deliver.ts';
import { type EventSource, startEventSource } from '../../../local/event-source.ts';
import { type LocalSqs, startLocalSqs } from '../../../local/sqs.ts';
import { type StreamSource, startStreamSource } from '../../../local/stream-source.ts';
import { DynamoDeliveryLog } from '../../../shared/adapters/dynamodb/delivery-log.ts';
import { DynamoPushConfigStore } from '../../../shared/adapters/dynamodb/push-config-store.ts';
import { STREAM_RELAY, taskChangeOf } from '../../../shared/adapters/dynamodb/stream.ts';
import { DynamoTaskStore } from '../../../shared/adapters/dynamodb/task-store.ts';
import { parseAllowlist, UrlGuard } from '../../../shared/adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../../../shared/adapters/http/webhook-sender.ts';
import {
  generateSigningKey,
  JosePushSigner,
  publicJwksOf,
  staticKeys,
} from '../../../shared/adapters/keys/index.ts';
import { SqsDeliveryQueue } from '../../../shared/adapters/sqs/delivery-queue.ts';
import { SqsPoisonQueue } from '../../../shared/adapters/sqs/poison-queue.ts';
import { DELIVERY_QUEUE } from '../../../shared/adapters/sqs/queues.ts';
import { type DeliverResult, DeliveryWorker } from '../../../shared/app/delivery/delivery-worker.ts';
import { relayChanges } from '../../../shared/app/delivery/relay.ts';
import { PushConfigService } from '../../../shared/app/push/push-configs.ts';
import { TaskEngine } from '../../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../../shared/app/tasks/task-service.ts';
import type { DeliveryPolicy } from '../../../shared/domain/delivery.ts';
import type { PublicJwks } from '../../../shared/domain/push-signing.ts';
import { logger } from '../../../shared/observability/index.ts';
import type { DeliveryAttempt } from '../../../shared/ports/delivery-log.ts';
import type { DeliveryMessage } from '../../../shared/ports/delivery-queue.ts';
import type { TaskChange } from '../../../shared/ports/task-changes.ts';
import { createTestTable, type TestTable } from '../../support/dynamo.ts';
import { startWebhookReceiver, verifyPush, type WebhookReceiver } from '../../support/webhook-receiver.ts';

const POLICY: DeliveryPolicy = {
  maxAttempts: 3,
  baseDelaySeconds: 0.05,
  factor: 2,
  maxDelaySeconds: 900,
  jitter: 0,
};
// generous for a loaded machine (a receiver on 127.0.0.1 answers in milliseconds); the slow one waits 4× this
const TIMEOUT_MS = 2_000;
const ISSUER = 'https://hub.example.com';
const caller = { tenant: 'acme', owner: 'bob' };

let table: TestTable;
let sqs: LocalSqs;
let receiver: WebhookReceiver;
let jwks: PublicJwks;
let engine: TaskEngine;
let tasks: TaskService;
let pushConfigs: PushConfigService;
let log: DynamoDeliveryLog;
let worker: DeliveryWorker;
let deliveries: EventSource;
let relay: StreamSource;
let streams: DynamoDBStreamsClient;
const results: Array<{ message: DeliveryMessage; result: DeliverResult }> = [];
const observed: DeliveryAttempt[] = [];
/** Tasks whose deliveries fail on every receive (the worker throws before it does anything). */
const unavailableFor = new Set<string>();
/** Dead-letter messages read (and deleted) from the DLQ so far. */
const deadLetters: Array<Record<string, unknown>> = [];

const queueOf = () => sqs.queues[DELIVERY_QUEUE.name]!;

/** Reads (and deletes) what the DLQ holds now, into `deadLetters`: each body parsed, its attributes and raw body beside. */
const readDeadLetters = async (): Promise<void> => {
  const out = await sqs.client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueOf().deadLetterUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageAttributeNames: ['All'],
    }),
  );
  for (const m of out.Messages ?? []) {
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(m.Body!) as Record<string, unknown>;
    } catch {
      // a poison message: its raw body says what it is
    }
    deadLetters.push({ ...parsed, attributes: m.MessageAttributes, rawBody: m.Body });
    await sqs.client.send(
      new DeleteMessageCommand({ QueueUrl: queueOf().deadLetterUrl, ReceiptHandle: m.ReceiptHandle! }),
    );
  }
};

/** The DLQ's message that `matches`, read for `seconds` at most. */
const deadLetterWhere = async (
  matches: (m: Record<string, unknown>) => boolean,
  seconds = 30,
): Promise<Record<string, unknown> | undefined> => {
  for (let i = 0; i < seconds; i++) {
    const found = deadLetters.find(matches);
    if (found) return found;
    await readDeadLetters();
  }
  return deadLetters.find(matches);
};

/** A DLQ message's reason and error attributes. */
const whyOf = (m: Record<string, unknown> | undefined) => {
  const attributes = m?.attributes as Record<string, { StringValue?: string }> | undefined;
  return { reason: attributes?.reason?.StringValue, error: attributes?.error?.StringValue };
};

before(async () => {
  // the handler logs every attempt (CloudWatch on AWS): not here
  logger.setLogLevel('SILENT');
  table = await createTestTable();
  sqs = await startLocalSqs({ queues: [DELIVERY_QUEUE] });
  receiver = await startWebhookReceiver();
  const set = { keys: [await generateSigningKey()] };
  jwks = publicJwksOf(set);
  const store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
  tasks = new TaskService(engine);
  const configs = new DynamoPushConfigStore(table.client, table.tableName);
  // the receiver is on 127.0.0.1: let it through the guard, as PUSH_URL_ALLOWLIST does
  const guard = new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') });
  pushConfigs = new PushConfigService(engine, tasks, configs, guard);
  log = new DynamoDeliveryLog(table.client, table.tableName);
  const queue = new SqsDeliveryQueue(sqs.client, queueOf().url, queueOf().deadLetterUrl);
  worker = new DeliveryWorker(
    {
      store,
      configs,
      log,
      sender: new HttpWebhookSender({ guard }),
      signer: new JosePushSigner({ keys: staticKeys(set), issuer: ISSUER }),
      queue,
    },
    { policy: POLICY, timeoutMs: TIMEOUT_MS, observer: { recorded: (a) => void observed.push(a) } },
  );

  const handler = createDeliverHandler({
    worker: () => ({
      deliver: async (message) => {
        if (unavailableFor.has(message.taskId)) throw new Error('the table is unavailable (scripted)');
        const result = await worker.deliver(message);
        results.push({ message, result });
        return result;
      },
    }),
    deadLetters: () => new SqsPoisonQueue(sqs.client, queueOf().deadLetterUrl),
    // scaled down: a failed record comes back at once
    comeBack: async (record) => {
      await sqs.client.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueOf().url,
          ReceiptHandle: record.receiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      return 0;
    },
  });
  deliveries = startEventSource({
    client: sqs.client,
    queue: queueOf(),
    handler,
    functionName: 'deliver',
    concurrency: 4,
    waitTimeSeconds: 1,
    log: () => {},
  });

  const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
  streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  relay = await startStreamSource({
    client: streams,
    streamArn: Table!.LatestStreamArn!,
    functionName: 'relay',
    batchSize: STREAM_RELAY.batchSize,
    bisectBatchOnError: STREAM_RELAY.bisectBatchOnError,
    maxRetryAttempts: 3,
    idlePollMs: 50,
    log: () => {},
    handler: async (event) => {
      const changes = event.Records.flatMap((r: DynamoDBRecord): TaskChange[] => {
        const change = taskChangeOf(r);
        return change ? [change] : [];
      });
      await relayChanges(changes, {
        executor: { enqueue: async () => {} },
        lifecycle: { publish: async () => {} },
        deliveries: queue,
      });
    },
  });
});

after(async () => {
  await relay?.stop();
  streams?.destroy();
  await deliveries?.stop();
  await receiver?.close();
  await sqs?.stop();
  await table?.drop();
});

/** A live task with one push config on `path`. */
const taskWithConfig = async (
  path: string,
  config: { token?: string; authentication?: { scheme: string; credentials?: string } } = {},
  version: '1.0' | '0.3' = '1.0',
) => {
  const { head } = await tasks.submit(caller, {
    messageId: crypto.randomUUID(),
    role: 'user',
    parts: [{ text: 'hello' }],
  });
  const made = await pushConfigs.create(caller, head.taskId, { url: receiver.url(path), ...config }, version);
  return { taskId: head.taskId, configId: made.id, ref: { tenant: caller.tenant, taskId: head.taskId } };
};

/** Cancels the task: one event a stream shows (CANCELED), so one delivery; its version. */
const cancel = async (ref: { tenant: string; taskId: string }): Promise<number> =>
  (await engine.apply(ref, { type: 'cancel' })).head.version;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the task's delivery log until `done` holds (15 s at most). */
const logUntil = async (
  taskId: string,
  done: (attempts: DeliveryAttempt[]) => boolean,
  what = 'the expected attempts',
): Promise<DeliveryAttempt[]> => {
  for (let i = 0; i < 300; i++) {
    const attempts = await log.list(caller.tenant, taskId);
    if (done(attempts)) return attempts;
    await sleep(50);
  }
  throw new Error(
    `the log of ${taskId} never showed ${what}: ${JSON.stringify(await log.list(caller.tenant, taskId))}`,
  );
};
const ended = (attempts: DeliveryAttempt[]) =>
  attempts.some((a) => a.status === 'delivered' || a.status === 'failed' || a.status === 'config_removed');

/** The DLQ's message of the task. */
const deadLetterOf = async (taskId: string): Promise<Record<string, unknown>> => {
  const found = await deadLetterWhere((m) => m.taskId === taskId);
  if (!found) throw new Error(`no dead-letter message for task ${taskId}`);
  return found;
};

const brief = (attempts: DeliveryAttempt[]) =>
  attempts.map((a) => [a.redrive, a.attempt, a.status, a.retryInSeconds ?? null, a.deadLetter ?? null]);

describe('delivery pipeline', () => {
  it('each event a stream shows is POSTed, signed, with the headers, in version order', async () => {
    const { taskId, configId, ref } = await taskWithConfig('/ok', {
      token: 'tok-1',
      authentication: { scheme: 'Bearer', credentials: 'client-secret' },
    });
    await engine.apply(ref, [{ type: 'confirm' }, { type: 'start' }]);
    await engine.apply(ref, {
      type: 'status_update',
      message: { messageId: crypto.randomUUID(), role: 'agent', parts: [{ text: 'half way' }] },
    });
    const done = await engine.apply(ref, { type: 'complete' });
    const pushes = await receiver.waitFor('/ok', 3);
    assert.equal(pushes.length, 3, 'one POST per shown event (confirm shows nothing: still SUBMITTED)');

    const versions = pushes.map((p) => Number(p.headers['a2a-event-version'])).sort((a, b) => a - b);
    assert.equal(versions.at(-1), done.head.version);
    const byVersion = [...pushes].sort(
      (a, b) => Number(a.headers['a2a-event-version']) - Number(b.headers['a2a-event-version']),
    );
    assert.deepEqual(
      byVersion.map((p) => JSON.parse(p.body).statusUpdate.status.state),
      ['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
    );
    assert.equal(JSON.parse(byVersion[1]!.body).statusUpdate.status.message.parts[0].text, 'half way');
    for (const p of pushes) {
      const version = Number(p.headers['a2a-event-version']);
      assert.equal(p.headers['content-type'], 'application/a2a+json');
      assert.equal(
        p.headers.authorization,
        'Bearer client-secret',
        'the configured credentials, as they are',
      );
      assert.equal(p.headers['x-a2a-notification-token'], 'tok-1');
      assert.equal(p.headers['idempotency-key'], `${taskId}:${configId}:${version}`);
      assert.equal(p.headers['a2a-delivery-attempt'], '1');
      const claims = await verifyPush(p, jwks, { audience: receiver.url('/ok'), taskId, issuer: ISSUER });
      assert.equal(typeof claims.jti, 'string');
    }

    // a receiver that checks the token rejects a body that is not the one signed
    const tampered = {
      ...pushes[0]!,
      // any change will do; the first push is not always a WORKING update (the order of the first two is the stream's)
      body: pushes[0]!.body.replace(/TASK_STATE_[A-Z]+/, (state) =>
        state === 'TASK_STATE_FAILED' ? 'TASK_STATE_WORKING' : 'TASK_STATE_FAILED',
      ),
    };
    await assert.rejects(
      verifyPush(tampered, jwks, { audience: receiver.url('/ok'), taskId }),
      /not the one signed/,
    );
    // and a token sent to another URL
    await assert.rejects(verifyPush(pushes[0]!, jwks, { audience: receiver.url('/other'), taskId }), /aud/);

    const attempts = await logUntil(taskId, (a) => a.filter((x) => x.status === 'delivered').length === 3);
    assert.deepEqual(
      attempts.map((a) => [a.version, a.status, a.httpStatus]),
      versions.map((v) => [v, 'delivered', 204]),
      'the log, per task, in version order',
    );
    assert.ok(attempts.every((a) => typeof a.latencyMs === 'number' && a.keepUntil > a.startedAt));
  });

  it('a receiver failing twice gets the delivery once, after two retries at the policy delays, in order', async () => {
    const { taskId, ref } = await taskWithConfig('/flaky');
    receiver.script('/flaky', [503, 503, 204]);
    const version = await cancel(ref);
    const attempts = await logUntil(taskId, ended);
    assert.deepEqual(brief(attempts), [
      [0, 1, 'retrying', 0.05, null],
      [0, 2, 'retrying', 0.1, null],
      [0, 3, 'delivered', null, null],
    ]);
    assert.deepEqual(
      attempts.map((a) => [a.httpStatus, a.error ?? null]),
      [
        [503, 'HTTP 503'],
        [503, 'HTTP 503'],
        [204, null],
      ],
    );
    const pushes = receiver.received('/flaky');
    assert.deepEqual(
      pushes.map((p) => [p.status, p.headers['a2a-delivery-attempt'], p.headers['a2a-event-version']]),
      [
        [503, '1', String(version)],
        [503, '2', String(version)],
        [204, '3', String(version)],
      ],
    );
    assert.equal(
      new Set(pushes.map((p) => p.headers['idempotency-key'])).size,
      1,
      'one key for every attempt',
    );
    assert.equal(pushes.filter((p) => p.status < 300).length, 1, 'delivered exactly once');
    // each attempt started after the one before had finished
    for (let i = 1; i < attempts.length; i++)
      assert.ok(attempts[i]!.startedAt >= attempts[i - 1]!.finishedAt!);
  });

  it('a receiver that always fails: the DLQ after the last attempt, saying why; the task is unchanged', async () => {
    const { taskId, ref, configId } = await taskWithConfig('/down');
    receiver.script('/down', [500]);
    const version = await cancel(ref);
    const before = await engine.store.get(ref);
    const attempts = await logUntil(taskId, ended);
    assert.deepEqual(brief(attempts), [
      [0, 1, 'retrying', 0.05, null],
      [0, 2, 'retrying', 0.1, null],
      [0, 3, 'failed', null, 'attempts_exhausted'],
    ]);
    assert.equal(receiver.received('/down').length, POLICY.maxAttempts);
    const dead = await deadLetterOf(taskId);
    const { attributes: _attributes, rawBody: _rawBody, ...body } = dead;
    assert.deepEqual(body, {
      tenant: caller.tenant,
      taskId,
      contextId: before!.head.contextId,
      configId,
      version,
      // what a redrive brings back: the first attempt of the next round
      attempt: 1,
      redrive: 1,
      deadLetter: {
        reason: 'attempts_exhausted',
        error: 'HTTP 500',
        attempt: 3,
        redrive: 0,
        at: attempts[2]!.finishedAt,
      },
    });
    assert.equal(
      (dead.attributes as Record<string, { StringValue?: string }>).reason?.StringValue,
      'attempts_exhausted',
    );
    const afterwards = await engine.store.get(ref);
    assert.equal(afterwards?.head.version, before?.head.version, 'deliveries never write the task');
    assert.equal(afterwards?.head.state, 'cancelled');
  });

  it('a slow receiver: the timeout counts as a failure, and the retry is delivered', async () => {
    const { taskId, ref } = await taskWithConfig('/slow');
    receiver.script('/slow', [{ status: 204, delayMs: TIMEOUT_MS * 4 }, 204]);
    await cancel(ref);
    const attempts = await logUntil(taskId, ended);
    assert.deepEqual(brief(attempts), [
      [0, 1, 'retrying', 0.05, null],
      [0, 2, 'delivered', null, null],
    ]);
    assert.match(attempts[0]!.error ?? '', /timed out/);
    assert.equal(attempts[0]!.httpStatus, undefined);
  });

  it("429 with Retry-After: the receiver's delay is used", async () => {
    const { taskId, ref } = await taskWithConfig('/busy');
    receiver.script('/busy', [{ status: 429, headers: { 'Retry-After': '1' } }, 204]);
    await cancel(ref);
    const attempts = await logUntil(taskId, ended);
    assert.deepEqual(brief(attempts), [
      [0, 1, 'retrying', 1, null],
      [0, 2, 'delivered', null, null],
    ]);
    assert.equal(attempts[0]!.httpStatus, 429);
  });

  it('a refusal (4xx other than 429) goes to the DLQ at once', async () => {
    const { taskId, ref } = await taskWithConfig('/gone');
    receiver.script('/gone', [404]);
    await cancel(ref);
    const attempts = await logUntil(taskId, ended);
    assert.deepEqual(brief(attempts), [[0, 1, 'failed', null, 'refused']]);
    assert.equal(((await deadLetterOf(taskId)).deadLetter as { reason: string }).reason, 'refused');
    assert.equal(receiver.received('/gone').length, 1);
  });

  it('a redelivered message whose attempt was recorded sends nothing', async () => {
    const { taskId, ref } = await taskWithConfig('/once');
    await cancel(ref);
    const [first] = await logUntil(taskId, ended);
    // the worker's result is recorded just after its log entry: wait for it too (seen late on a loaded machine)
    for (let i = 0; i < 300 && !results.some((r) => r.message.taskId === taskId); i++) await sleep(50);
    const message = results.find((r) => r.message.taskId === taskId)!.message;
    // SQS delivers a message at least once: the same body again
    await sqs.client.send(
      new SendMessageCommand({ QueueUrl: queueOf().url, MessageBody: JSON.stringify(message) }),
    );
    for (
      let i = 0;
      i < 300 && !results.some((r) => r.message.taskId === taskId && r.result.result === 'duplicate');
      i++
    )
      await sleep(50);
    const duplicate = results.find((r) => r.message.taskId === taskId && r.result.result === 'duplicate');
    assert.ok(duplicate, 'the second copy was handled');
    assert.equal(receiver.received('/once').length, 1, 'sent once');
    assert.deepEqual(await log.list(caller.tenant, taskId), [first]);
  });

  it('an attempt cut off between claim and outcome: never sent again as that attempt; the next one follows', async () => {
    const { taskId, configId, ref } = await taskWithConfig('/crash');
    const record = await engine.store.get(ref);
    const claimOf = (version: number, startedAt: string): DeliveryAttempt => ({
      tenant: caller.tenant,
      taskId,
      configId,
      version,
      redrive: 0,
      attempt: 1,
      status: 'sending',
      claim: crypto.randomUUID(),
      startedAt,
      keepUntil: new Date(Date.now() + 86_400_000).toISOString(),
    });
    // held by another invocation right now: left for later, nothing sent
    assert.equal((await log.claim(claimOf(999, new Date().toISOString()))).claimed, true);
    const held = await worker.deliver({
      tenant: caller.tenant,
      taskId,
      contextId: record!.head.contextId,
      configId,
      version: 999,
      attempt: 1,
    });
    assert.equal(held.result, 'in_flight');

    // the cancel's first attempt, claimed by an invocation that died 10 minutes ago (before it recorded
    // an outcome; whether it sent is unknown): the relay's message finds the claim
    const version = record!.head.version + 1;
    await log.claim(claimOf(version, new Date(Date.now() - 600_000).toISOString()));
    assert.equal(await cancel(ref), version);
    const attempts = await logUntil(taskId, (a) => a.some((x) => x.status === 'delivered'));
    assert.deepEqual(
      attempts
        .filter((a) => a.version === version)
        .map((a) => [a.attempt, a.status, a.retryInSeconds ?? null]),
      [
        [1, 'interrupted', 0.05],
        [2, 'delivered', null],
      ],
    );
    assert.deepEqual(
      receiver.received('/crash').map((p) => p.headers['a2a-delivery-attempt']),
      ['2'],
      'attempt 1 was not sent again',
    );
  });

  it('a redrive from the DLQ gives the delivery a new round of attempts, delivered cleanly', async () => {
    const { taskId, ref } = await taskWithConfig('/later');
    receiver.script('/later', [500]);
    await cancel(ref);
    await logUntil(taskId, ended);
    receiver.script('/later', [204]);
    // the DLQ holds this task's message only (earlier tests' were read and deleted)
    await sqs.client.send(
      new StartMessageMoveTaskCommand({ SourceArn: queueOf().deadLetterArn, DestinationArn: queueOf().arn }),
    );
    const attempts = await logUntil(
      taskId,
      (a) => a.some((x) => x.status === 'delivered'),
      'a delivered redrive',
    );
    assert.deepEqual(brief(attempts), [
      [0, 1, 'retrying', 0.05, null],
      [0, 2, 'retrying', 0.1, null],
      [0, 3, 'failed', null, 'attempts_exhausted'],
      [1, 1, 'delivered', null, null],
    ]);
    const pushes = receiver.received('/later');
    assert.equal(pushes.length, 4);
    assert.equal(
      new Set(pushes.map((p) => p.headers['idempotency-key'])).size,
      1,
      'the same delivery throughout',
    );
  });

  it('a config deleted since the event: dropped, recorded as config_removed', async () => {
    const { taskId, configId, ref } = await taskWithConfig('/removed');
    const record = await engine.store.get(ref);
    await pushConfigs.delete(caller, taskId, configId);
    const result = await worker.deliver({
      tenant: caller.tenant,
      taskId,
      contextId: record!.head.contextId,
      configId,
      version: record!.head.version,
      attempt: 1,
    });
    assert.equal(result.result === 'recorded' && result.attempt.status, 'config_removed');
    assert.equal(receiver.received('/removed').length, 0);
  });

  it('a v0.3 config gets the bare v0.3 Task as application/json', async () => {
    const { taskId, ref } = await taskWithConfig('/v03', { token: 'legacy' }, '0.3');
    await cancel(ref);
    const [push] = await receiver.waitFor('/v03', 1);
    assert.equal(push!.headers['content-type'], 'application/json');
    const body = JSON.parse(push!.body);
    assert.equal(body.kind, 'task');
    assert.equal(body.id, taskId);
    assert.equal(body.status.state, 'canceled');
    assert.equal(body.history, undefined, 'no history: a receiver reads it with GetTask');
    assert.equal(push!.headers['x-a2a-notification-token'], 'legacy');
    // no credentials configured: the JWT is the Authorization too
    assert.equal(push!.headers.authorization, `Bearer ${push!.headers['x-synapse-push-jwt']}`);
    await verifyPush(push!, jwks, { audience: receiver.url('/v03'), taskId });
  });

  it('every attempt with an outcome was told to the observer (metrics)', () => {
    const statuses = new Set(observed.map((a) => a.status));
    for (const s of ['delivered', 'retrying', 'failed', 'interrupted', 'config_removed'])
      assert.ok(statuses.has(s as never), s);
    assert.ok(!statuses.has('sending' as never));
  });
  it('a poison message (not JSON, not a delivery) goes to the DLQ at once with the reason; the batch goes on', async () => {
    const { taskId, ref } = await taskWithConfig('/beside-poison');
    const notJson = `not json ${crypto.randomUUID()}`;
    const notADelivery = JSON.stringify({ taskId: 'only-this', nonce: crypto.randomUUID() });
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queueOf().url, MessageBody: notJson }));
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queueOf().url, MessageBody: notADelivery }));
    await cancel(ref);
    await logUntil(taskId, ended);
    assert.equal(receiver.received('/beside-poison').length, 1, 'the delivery beside them was sent');

    // both are in the DLQ as they were sent, with why (SQS moving them after maxReceiveCount would say nothing)
    const notJsonWhy = whyOf(await deadLetterWhere((m) => m.rawBody === notJson));
    const notADeliveryWhy = whyOf(await deadLetterWhere((m) => m.rawBody === notADelivery));
    assert.equal(notJsonWhy.reason, 'not_json');
    assert.match(notJsonWhy.error ?? '', /JSON/);
    assert.equal(notADeliveryWhy.reason, 'not_a_message');
    assert.match(notADeliveryWhy.error ?? '', /tenant/, 'the schema says what is missing');
    assert.ok(
      results.every((r) => r.message.taskId !== 'only-this'),
      'the worker was never handed the poison message',
    );
  });

  it('a delivery that fails on every receive goes to the DLQ after the last one, with the error as its reason', async () => {
    const taskId = `unavailable-${crypto.randomUUID()}`;
    unavailableFor.add(taskId);
    const body = JSON.stringify({
      tenant: caller.tenant,
      taskId,
      contextId: 'ctx',
      configId: 'hook',
      version: 3,
      attempt: 1,
    });
    await sqs.client.send(new SendMessageCommand({ QueueUrl: queueOf().url, MessageBody: body }));
    const found = whyOf(await deadLetterWhere((m) => m.rawBody === body, 60));
    assert.equal(found?.reason, 'retries_exhausted', 'sent there by the consumer, saying why');
    assert.equal(
      found?.error,
      `${DELIVERY_QUEUE.maxReceiveCount} receives, the last: the table is unavailable (scripted)`,
    );
  });
});
