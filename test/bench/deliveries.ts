/**
 * What a push notification costs, on DynamoDB Local and the local SQS with the real pieces: tasks with
 * one push config each (v1.0) are canceled (one event a stream shows: one delivery each); the table's
 * stream is relayed by `relayChanges` onto the delivery queue, consumed by the delivery handler
 * (functions/deliver.ts) on the local event source, and POSTed to a receiver on 127.0.0.1.
 *
 * Two rounds: every receiver answers 204 at once (a delivered notification), then every receiver
 * answers 503 once and 204 after (each delivery retried once). The second round minus the first is
 * what a retry adds. Counted from the triggering writes to the last attempt recorded:
 * - DynamoDB: the worker's own requests and units (its client alone is metered: the claim and outcome
 *   puts of its log item, the task read, the configs query); the relay reads the stream, no item;
 * - SQS: every request on the queue that carried a delivery message (the relay's batched sends, the
 *   worker's retries, non-empty receives, deletes), with the empty long polls of idle pollers apart
 *   (they are per poller, not per delivery). On AWS, Lambda's pollers make the receives and deletes.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { createDeliverHandler } from '../../functions/deliver.ts';
import { startEventSource } from '../../local/event-source.ts';
import { startLocalSqs } from '../../local/sqs.ts';
import { startStreamSource } from '../../local/stream-source.ts';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log.ts';
import { DynamoPushConfigStore } from '../../shared/adapters/dynamodb/push-config-store.ts';
import { STREAM_RELAY, taskChangeOf } from '../../shared/adapters/dynamodb/stream.ts';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { DynamoUsage, type UsageTotals } from '../../shared/adapters/dynamodb/usage.ts';
import { parseAllowlist, UrlGuard } from '../../shared/adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../../shared/adapters/http/webhook-sender.ts';
import { generateSigningKey, JosePushSigner, staticKeys } from '../../shared/adapters/keys/index.ts';
import { SqsDeliveryQueue } from '../../shared/adapters/sqs/delivery-queue.ts';
import { SqsPoisonQueue } from '../../shared/adapters/sqs/poison-queue.ts';
import { DELIVERY_QUEUE } from '../../shared/adapters/sqs/queues.ts';
import { DeliveryWorker } from '../../shared/app/delivery/delivery-worker.ts';
import { relayChanges } from '../../shared/app/delivery/relay.ts';
import { PushConfigService } from '../../shared/app/push/push-configs.ts';
import { TaskEngine } from '../../shared/app/tasks/task-engine.ts';
import { TaskService } from '../../shared/app/tasks/task-service.ts';
import { logger } from '../../shared/observability/index.ts';
import type { TaskChange } from '../../shared/ports/task-changes.ts';
import { createTestTable } from '../support/dynamo.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

export interface DeliveryCost {
  /** SQS requests that carried delivery messages, per notification (or per retry). */
  sqsRequests: number;
  /** By operation (SendMessageBatch, SendMessage, ReceiveMessage, DeleteMessageBatch), per notification. */
  sqsByOperation: Record<string, number>;
  /** The worker's DynamoDB requests, units and requests by operation, per notification. */
  dynamoRequests: number;
  wru: number;
  rru: number;
  dynamoByOperation: Record<string, number>;
}

export interface DeliveryBenchResult {
  /** Notifications per round. */
  deliveries: number;
  /** A notification delivered at its first attempt. */
  perDelivered: DeliveryCost;
  /** What one retry adds (a failed attempt and the delayed message that follows it). */
  perRetry: DeliveryCost;
  /**
   * The same with SQS unbatched (what the worst case costs: every message sent, received and deleted
   * in a request of its own): 3 per notification, 3 per retry.
   */
  sqsRequestsUnbatched: { perDelivered: number; perRetry: number };
  /** Empty long polls of the idle pollers during both rounds (not per delivery). */
  emptyReceives: number;
  /** Attempts recorded: deliveries × 1 in round one, deliveries × 2 in round two. */
  attempts: { delivered: number; retried: number };
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

interface SqsCounts {
  byOperation: Record<string, number>;
  emptyReceives: number;
}

/** Counts the SQS requests a client makes, receives that brought nothing apart. */
const meterSqs = (client: SQSClient): { counts: SqsCounts; reset(): SqsCounts } => {
  let counts: SqsCounts = { byOperation: {}, emptyReceives: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const op = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const empty = op === 'ReceiveMessage' && !(result.output as { Messages?: unknown[] }).Messages?.length;
      if (empty) counts.emptyReceives++;
      // a visibility change is the test harness's, not a delivery's (none happen: no failed record)
      else counts.byOperation[op] = (counts.byOperation[op] ?? 0) + 1;
      return result;
    },
    { step: 'initialize', name: 'benchSqsMeter' },
  );
  return {
    get counts() {
      return counts;
    },
    reset: () => {
      const was = counts;
      counts = { byOperation: {}, emptyReceives: 0 };
      return was;
    },
  };
};

const per = (totals: Record<string, number>, n: number): Record<string, number> =>
  Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, round(v / n)]));

const costOf = (sqs: SqsCounts, dynamo: UsageTotals, n: number): DeliveryCost => ({
  sqsRequests: round(Object.values(sqs.byOperation).reduce((a, b) => a + b, 0) / n),
  sqsByOperation: per(sqs.byOperation, n),
  dynamoRequests: round(dynamo.requests / n),
  wru: round(dynamo.writeUnits / n),
  rru: round(dynamo.readUnits / n),
  dynamoByOperation: per(dynamo.byOperation, n),
});

const minus = (a: DeliveryCost, b: DeliveryCost): DeliveryCost => {
  const sub = (x: Record<string, number>, y: Record<string, number>) =>
    Object.fromEntries(
      [...new Set([...Object.keys(x), ...Object.keys(y)])].map((k) => [k, round((x[k] ?? 0) - (y[k] ?? 0))]),
    );
  return {
    sqsRequests: round(a.sqsRequests - b.sqsRequests),
    sqsByOperation: sub(a.sqsByOperation, b.sqsByOperation),
    dynamoRequests: round(a.dynamoRequests - b.dynamoRequests),
    wru: round(a.wru - b.wru),
    rru: round(a.rru - b.rru),
    dynamoByOperation: sub(a.dynamoByOperation, b.dynamoByOperation),
  };
};

export const benchDeliveries = async (
  options: { deliveries?: number } = {},
): Promise<DeliveryBenchResult> => {
  const n = options.deliveries ?? 20;
  const savedLevel = logger.getLevelName();
  logger.setLogLevel('SILENT');
  const table = await createTestTable();
  const sqs = await startLocalSqs({ queues: [DELIVERY_QUEUE] });
  const receiver = await startWebhookReceiver();
  const queueRef = sqs.queues[DELIVERY_QUEUE.name]!;
  const sqsMeter = meterSqs(sqs.client);
  // the worker's own client, metered alone
  const workerDynamo = new DynamoDBClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const workerUsage = new DynamoUsage().attach(workerDynamo);
  const streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
    const tasks = new TaskService(engine);
    const guard = new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') });
    const pushConfigs = new PushConfigService(
      engine,
      tasks,
      new DynamoPushConfigStore(table.client, table.tableName),
      guard,
    );
    const queue = new SqsDeliveryQueue(sqs.client, queueRef.url, queueRef.deadLetterUrl);
    const worker = new DeliveryWorker(
      {
        store: new DynamoTaskStore(workerDynamo, { tableName: table.tableName }),
        configs: new DynamoPushConfigStore(workerDynamo, table.tableName),
        log: new DynamoDeliveryLog(workerDynamo, table.tableName),
        sender: new HttpWebhookSender({ guard }),
        signer: new JosePushSigner({ keys: staticKeys({ keys: [await generateSigningKey()] }) }),
        queue,
      },
      // a retry due at once (the delay is not what is measured)
      { policy: { maxAttempts: 3, baseDelaySeconds: 0, factor: 2, maxDelaySeconds: 900, jitter: 0 } },
    );
    const source = startEventSource({
      client: sqs.client,
      queue: queueRef,
      handler: createDeliverHandler({
        worker: () => worker,
        comeBack: async () => 0,
        deadLetters: () => new SqsPoisonQueue(sqs.client, queueRef.deadLetterUrl),
      }),
      functionName: 'deliver',
      concurrency: 10,
      waitTimeSeconds: 1,
      log: () => {},
    });
    stops.push(() => source.stop());
    const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
    const relay = await startStreamSource({
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
    stops.push(() => relay.stop());
    // polling the log for the end of a round is not the worker's cost
    const log = new DynamoDeliveryLog(table.client, table.tableName);
    const caller = { tenant: 'bench', owner: 'bench' };

    const roundOf = async (name: string, answers: number[], attemptsEach: number) => {
      const refs: Array<{ tenant: string; taskId: string }> = [];
      for (let i = 0; i < n; i++) {
        const path = `/${name}/${i}`;
        receiver.script(path, answers);
        const { head } = await tasks.submit(caller, {
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ text: `bench ${name} ${i}` }],
        });
        await pushConfigs.create(caller, head.taskId, { url: receiver.url(path) }, '1.0');
        refs.push({ tenant: caller.tenant, taskId: head.taskId });
      }
      // the setup's changes reach the relay, which derives nothing from them (no event a stream shows)
      await new Promise((r) => setTimeout(r, 500));
      sqsMeter.reset();
      workerUsage.reset();
      await Promise.all(refs.map((ref) => engine.apply(ref, { type: 'cancel' })));
      let recorded = 0;
      for (let i = 0; i < 600; i++) {
        const logs = await Promise.all(refs.map((r) => log.list(r.tenant, r.taskId)));
        recorded = logs.reduce((sum, l) => sum + l.filter((a) => a.status !== 'sending').length, 0);
        if (logs.every((l) => l.some((a) => a.status === 'delivered'))) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (recorded !== n * attemptsEach)
        throw new Error(`${name}: ${recorded} attempts recorded, ${n * attemptsEach} expected`);
      // the deletes of the last batches follow the handler's return
      await new Promise((r) => setTimeout(r, 300));
      return { sqs: sqsMeter.reset(), dynamo: workerUsage.reset(), recorded };
    };

    const first = await roundOf('ok', [204], 1);
    const retried = await roundOf('retry', [503, 204], 2);
    const perDelivered = costOf(first.sqs, first.dynamo, n);
    const perRetry = minus(costOf(retried.sqs, retried.dynamo, n), perDelivered);
    return {
      deliveries: n,
      perDelivered,
      perRetry,
      sqsRequestsUnbatched: { perDelivered: 3, perRetry: 3 },
      emptyReceives: first.sqs.emptyReceives + retried.sqs.emptyReceives,
      attempts: { delivered: first.recorded, retried: retried.recorded },
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
    streams.destroy();
    workerDynamo.destroy();
    await receiver.close();
    await sqs.stop();
    await table.drop();
    logger.setLogLevel(savedLevel);
  }
};

// `npx tsx test/bench/deliveries.ts` prints the figures
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await benchDeliveries(), null, 2));
  process.exit(0);
}
