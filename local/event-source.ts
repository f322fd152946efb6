/**
 * A local Lambda SQS event source mapping: pollers receive batches, call the
 * handler with an `SQSEvent`, and delete what succeeded. As in AWS:
 * - each batch is its own invocation, and a poller goes on receiving while
 *   it runs: a slow batch holds one unit of concurrency, not the queue, and
 *   the invocations in flight grow with the backlog up to `concurrency` (the
 *   mapping's maximum concurrency; the function's, in the end);
 * - a partial batch response (`batchItemFailures`) leaves just those messages
 *   for redelivery once their visibility timeout runs out;
 * - a throw, or a response naming a message that is not in the batch, leaves
 *   the whole batch;
 * - the move to the dead-letter queue after maxReceiveCount is the queue's
 *   RedrivePolicy at work (the emulator's), not ours.
 *
 * Receiving: the emulator answers an under-filled
 * long poll only when WaitTimeSeconds runs out, so an idle poller waits for a
 * single message (woken within ~10 ms of a send), then tops the batch up with
 * short receives that return within ~40 ms.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { type FaultLayer, FunctionDiedError } from './faults/layer.ts';
import { consoleLog, createLambdaContext, LOCAL_REGION, type LocalLog } from './lambda-context.ts';
import type { LocalQueue } from './sqs.ts';

// biome-ignore lint/suspicious/noConfusingVoidType: the result type of aws-lambda's SQSHandler
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface EventSourceOptions {
  client: SQSClient;
  /** Queue URL, ARN, and the definition's batchSize and consumerTimeoutSeconds. */
  queue: Pick<LocalQueue, 'url' | 'arn' | 'definition'>;
  handler: SqsHandler;
  functionName?: string;
  /** Invocations (batches) in flight at most; a poller waits for a free one before it receives. */
  concurrency?: number;
  /** Receive loops (Lambda starts with five); at most `concurrency`. */
  pollers?: number;
  /** Long-poll time of an idle poller; stop() waits up to this long for a pending receive. */
  waitTimeSeconds?: number;
  /** The mapping's ReportBatchItemFailures; without it the response is ignored. */
  reportBatchItemFailures?: boolean;
  /** The fault layer (FAULTS): duplicated, late and redelivered messages, invocations that die. */
  faults?: Pick<FaultLayer, 'invoke' | 'sqsDelivery'>;
  log?: LocalLog;
}

export interface EventSource {
  /**
   * Stops polling at once (a batch a pending receive still brings back is made visible again, not
   * handled) and waits for the batches in flight and their deletes: for `graceMs` at most when given.
   * Batches still running then are left to themselves, as a runtime shut down mid-invocation would;
   * their messages stay in flight until their visibility timeout. Resolves to how many were left.
   */
  stop(graceMs?: number): Promise<number>;
  /** Invocations running now. */
  inFlight(): number;
}

const MAX_RECEIVE = 10;

const toRecord = (m: Message, arn: string): SQSRecord => {
  const a = m.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      dataType: v.DataType ?? 'String',
      stringValue: v.StringValue,
      binaryValue: v.BinaryValue ? Buffer.from(v.BinaryValue).toString('base64') : undefined,
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
    },
    messageAttributes,
    md5OfBody: m.MD5OfBody ?? '',
    ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: arn,
    awsRegion: LOCAL_REGION,
  };
};

/** Ids to keep for redelivery; `undefined` means the whole batch (Lambda's rule for an invalid response). */
const failedIds = (response: unknown, records: SQSRecord[]): Set<string> | undefined => {
  if (response === undefined || response === null) return new Set();
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return undefined;
  const ids = new Set(records.map((r) => r.messageId));
  const failed = new Set<string>();
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return undefined;
    failed.add(id);
  }
  return failed;
};

export const startEventSource = (options: EventSourceOptions): EventSource => {
  const { client, queue, handler } = options;
  const functionName = options.functionName ?? queue.definition.name;
  const batchSize = Math.max(1, queue.definition.batchSize);
  const waitTimeSeconds = options.waitTimeSeconds ?? 1;
  const reportBatchItemFailures = options.reportBatchItemFailures ?? true;
  const log = options.log ?? consoleLog;
  let stopping = false;
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });

  const receive = async (max: number, wait: number): Promise<Message[]> => {
    const { Messages } = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: wait,
        // the emulator ignores MessageSystemAttributeNames and only honours the older AttributeNames
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return Messages ?? [];
  };

  const nextBatch = async (): Promise<Message[]> => {
    const batch = await receive(1, waitTimeSeconds);
    while (batch.length > 0 && batch.length < batchSize) {
      const want = Math.min(MAX_RECEIVE, batchSize - batch.length);
      const more = await receive(want, 0);
      batch.push(...more);
      if (more.length < want) break;
    }
    return batch;
  };

  const deleteMessages = async (records: SQSRecord[]) => {
    for (let i = 0; i < records.length; i += MAX_RECEIVE) {
      const chunk = records.slice(i, i + MAX_RECEIVE);
      const { Failed } = await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: chunk.map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })),
        }),
      );
      if (Failed?.length)
        log(`${functionName}: could not delete ${Failed.length} message(s): ${JSON.stringify(Failed)}`);
    }
  };

  const call = (records: SQSRecord[]) => {
    const context = createLambdaContext({
      functionName,
      timeoutMs: queue.definition.consumerTimeoutSeconds * 1000,
    });
    const run = () => handler({ Records: records }, context);
    return options.faults ? options.faults.invoke(functionName, run) : run();
  };

  const invoke = async (messages: Message[]) => {
    const received = messages.map((m) => toRecord(m, queue.arn));
    const delivery = options.faults?.sqsDelivery(functionName, received) ?? {
      records: received,
      lateMs: 0,
      again: [],
    };
    if (delivery.lateMs > 0) await new Promise((r) => setTimeout(r, delivery.lateMs));
    const records = delivery.records;
    let failed: Set<string> | undefined;
    try {
      const response = await call(records);
      failed = reportBatchItemFailures ? failedIds(response, records) : new Set();
      if (!failed) log(`${functionName}: invalid batchItemFailures, the whole batch will be retried`);
    } catch (e) {
      if (e instanceof FunctionDiedError)
        log(
          `${e.message}: its batch of ${records.length} comes back after its visibility timeout`,
          undefined,
          'info',
        );
      else log(`${functionName} threw; its batch of ${records.length} will be retried`, e);
      return;
    }
    if (!failed) return;
    await deleteMessages(received.filter((r) => !failed.has(r.messageId)));
    // SQS's at-least-once delivery: a message handled (and deleted) handed over once more
    for (const again of delivery.again) {
      const count = Number(again.attributes.ApproximateReceiveCount) + 1;
      await call([
        { ...again, attributes: { ...again.attributes, ApproximateReceiveCount: String(count) } },
      ]).catch((e: unknown) =>
        log(`${functionName}: a message delivered again failed (it was handled before)`, e),
      );
    }
  };

  const running = new Set<Promise<void>>();
  // slots of the concurrency: taken by a poller before it receives, given back when its batch is done
  const concurrency = Math.max(1, options.concurrency ?? 1);
  let taken = 0;
  let freed: () => void = () => {};
  let slotFreed = new Promise<void>((resolve) => {
    freed = resolve;
  });
  const release = () => {
    taken--;
    freed();
    slotFreed = new Promise<void>((resolve) => {
      freed = resolve;
    });
  };
  const takeSlot = async (): Promise<boolean> => {
    while (taken >= concurrency && !stopping) await Promise.race([slotFreed, stopped]);
    if (stopping) return false;
    taken++;
    return true;
  };

  /**
   * Back to the queue at once: received while stopping, so nobody will handle it here.
   */
  const giveBack = async (messages: Message[]) => {
    try {
      for (let i = 0; i < messages.length; i += MAX_RECEIVE) {
        await client.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queue.url,
            Entries: messages.slice(i, i + MAX_RECEIVE).map((m, n) => ({
              Id: String(n),
              ReceiptHandle: m.ReceiptHandle!,
              VisibilityTimeout: 0,
            })),
          }),
        );
      }
    } catch (e) {
      log(`${functionName}: could not return ${messages.length} message(s) received while stopping`, e);
    }
  };

  const poller = async () => {
    while (await takeSlot()) {
      let batch: Message[] = [];
      try {
        batch = await nextBatch();
      } catch (e) {
        release();
        if (stopping) break;
        log(`${functionName}: polling ${queue.url} failed; retrying in 1 s`, e);
        await Promise.race([new Promise((r) => setTimeout(r, 1000).unref()), stopped]);
        continue;
      }
      if (batch.length === 0) {
        release();
      } else if (stopping) {
        release();
        await giveBack(batch);
      } else {
        // not awaited: the poller goes on receiving while this batch runs
        const invocation: Promise<void> = invoke(batch)
          .catch((e: unknown) => log(`${functionName}: handling a batch failed`, e))
          .finally(() => {
            running.delete(invocation);
            release();
          });
        running.add(invocation);
      }
    }
  };

  const pollers = Array.from({ length: Math.min(concurrency, Math.max(1, options.pollers ?? 5)) }, poller);
  return {
    inFlight: () => running.size,
    stop: async (graceMs?: number) => {
      stopping = true;
      wake();
      const drained = (async () => {
        await Promise.all(pollers);
        while (running.size > 0) await Promise.allSettled([...running]);
      })();
      let timer: NodeJS.Timeout | undefined;
      const grace =
        graceMs === undefined
          ? new Promise<void>(() => {})
          : new Promise<void>((resolve) => {
              timer = setTimeout(resolve, graceMs);
            });
      await Promise.race([drained, grace]);
      clearTimeout(timer);
      return running.size;
    },
  };
};
