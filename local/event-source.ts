/**
 * A local Lambda SQS event source mapping: pollers receive batches, call the
 * handler with an `SQSEvent`, and delete what succeeded. As in AWS:
 * - a partial batch response (`batchItemFailures`) leaves just those messages
 *   for redelivery once their visibility timeout runs out;
 * - a throw, or a response naming a message that is not in the batch, leaves
 *   the whole batch;
 * - the move to the dead-letter queue after maxReceiveCount is the queue's
 *   RedrivePolicy at work (the emulator's), not ours.
 *
 * Receiving (see local-aws-facts.md §3): the emulator answers an under-filled
 * long poll only when WaitTimeSeconds runs out, so an idle poller waits for a
 * single message (woken within ~10 ms of a send), then tops the batch up with
 * short receives that return within ~40 ms.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
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
  /** Parallel pollers, each with at most one batch in flight. */
  concurrency?: number;
  /** Long-poll time of an idle poller; stop() waits up to this long for a pending receive. */
  waitTimeSeconds?: number;
  /** The mapping's ReportBatchItemFailures; without it the response is ignored. */
  reportBatchItemFailures?: boolean;
  log?: LocalLog;
}

export interface EventSource {
  /** Stops polling and waits for the batches in flight (and their deletes). */
  stop(): Promise<void>;
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

  const invoke = async (messages: Message[]) => {
    const records = messages.map((m) => toRecord(m, queue.arn));
    const context = createLambdaContext({
      functionName,
      timeoutMs: queue.definition.consumerTimeoutSeconds * 1000,
    });
    let failed: Set<string> | undefined;
    try {
      const response = await handler({ Records: records }, context);
      failed = reportBatchItemFailures ? failedIds(response, records) : new Set();
      if (!failed) log(`${functionName}: invalid batchItemFailures, the whole batch will be retried`);
    } catch (e) {
      log(`${functionName} threw; its batch of ${records.length} will be retried`, e);
      return;
    }
    if (!failed) return;
    await deleteMessages(records.filter((r) => !failed.has(r.messageId)));
  };

  const poller = async () => {
    while (!stopping) {
      try {
        const batch = await nextBatch();
        // a batch received while stopping is still handled: it is in flight, as in Lambda
        if (batch.length > 0) await invoke(batch);
      } catch (e) {
        if (stopping) break;
        log(`${functionName}: polling ${queue.url} failed; retrying in 1 s`, e);
        await Promise.race([new Promise((r) => setTimeout(r, 1000).unref()), stopped]);
      }
    }
  };

  const pollers = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, poller);
  return {
    stop: async () => {
      stopping = true;
      wake();
      await Promise.all(pollers);
    },
  };
};
