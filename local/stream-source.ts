/**
 * A local Lambda event source mapping for a DynamoDB stream: polls every
 * shard in order (a parent before its children), calls the handler with a
 * `DynamoDBStreamEvent`, and as in AWS:
 * - a partial batch response (`batchItemFailures`, the first failed record's
 *   sequence number) checkpoints the records before it and retries from it;
 * - an error (or failure) bisects the batch when `bisectBatchOnError` is set,
 *   and is retried up to `maxRetryAttempts` times; then the records go to
 *   `onFailure` (the mapping's on-failure destination) and polling moves on.
 *
 * The position of each shard is kept by `checkpoints`: in a file next to the
 * data (so a restart resumes after the last relayed record), or in memory.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { type FaultLayer, FunctionDiedError } from './faults/layer.ts';
import { consoleLog, createLambdaContext, LOCAL_REGION, type LocalLog } from './lambda-context.ts';

export type StreamHandler = (
  event: DynamoDBStreamEvent,
  context: Context,
  // biome-ignore lint/suspicious/noConfusingVoidType: the result type of aws-lambda's DynamoDBStreamHandler
) => Promise<DynamoDBBatchResponse | void>;

/** Shard positions (last processed sequence number per shard) of one stream. */
export interface CheckpointStore {
  get(shardId: string): string | undefined;
  set(shardId: string, sequence: string): void;
}

export const memoryCheckpoints = (): CheckpointStore => {
  const positions = new Map<string, string>();
  return { get: (s) => positions.get(s), set: (s, q) => void positions.set(s, q) };
};

/** Checkpoints in a JSON file, per stream ARN (a re-created table has a new stream and starts over). */
export const fileCheckpoints = (file: string, streamArn: string): CheckpointStore => {
  const all: Record<string, Record<string, string>> = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>)
    : {};
  const positions = all[streamArn] ?? {};
  return {
    get: (s) => positions[s],
    set: (s, q) => {
      positions[s] = q;
      // write and rename: a crash never leaves a half-written file
      writeFileSync(`${file}.tmp`, JSON.stringify({ [streamArn]: positions }));
      renameSync(`${file}.tmp`, file);
    },
  };
};

export interface FailedBatch {
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  batchSize: number;
  reason: string;
}

export interface StreamSourceOptions {
  client: DynamoDBStreamsClient;
  streamArn: string;
  handler: StreamHandler;
  functionName: string;
  batchSize: number;
  maxRetryAttempts: number;
  bisectBatchOnError: boolean;
  timeoutMs?: number;
  checkpoints?: CheckpointStore;
  onFailure?: (failed: FailedBatch) => Promise<void>;
  /** Records the handler is given (the mapping's filter criteria); the others are passed over. */
  filter?: (record: DynamoDBRecord) => boolean;
  /** Pause after an empty poll (Lambda polls a shard about four times a second). */
  idlePollMs?: number;
  /** The fault layer (FAULTS): batches handed over again, invocations that die. */
  faults?: Pick<FaultLayer, 'invoke' | 'streamAgain'>;
  log?: LocalLog;
}

export interface StreamSource {
  /** Resolves once every record written before the call has been handled. */
  caughtUp(): Promise<void>;
  /** Stops polling and waits for the batch in flight. */
  stop(): Promise<void>;
}

const toLambdaRecord = (r: StreamRecord, streamArn: string): DynamoDBRecord => ({
  eventID: r.eventID ?? '',
  eventName: r.eventName as DynamoDBRecord['eventName'],
  eventVersion: r.eventVersion ?? '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: LOCAL_REGION,
  eventSourceARN: streamArn,
  dynamodb: {
    ...(r.dynamodb?.ApproximateCreationDateTime
      ? { ApproximateCreationDateTime: Math.floor(r.dynamodb.ApproximateCreationDateTime.getTime() / 1000) }
      : {}),
    Keys: r.dynamodb?.Keys as never,
    ...(r.dynamodb?.NewImage ? { NewImage: r.dynamodb.NewImage as never } : {}),
    ...(r.dynamodb?.OldImage ? { OldImage: r.dynamodb.OldImage as never } : {}),
    SequenceNumber: r.dynamodb?.SequenceNumber ?? '',
    SizeBytes: r.dynamodb?.SizeBytes ?? 0,
    StreamViewType: r.dynamodb?.StreamViewType as never,
  },
});

/** The longest pause between two tries of a failing batch. */
const RETRY_PAUSE_MAX_MS = 5_000;

const sleep = (ms: number, cancel?: Promise<void>) =>
  Promise.race([new Promise<void>((r) => setTimeout(r, ms)), ...(cancel ? [cancel] : [])]);

export const startStreamSource = async (options: StreamSourceOptions): Promise<StreamSource> => {
  const { client, streamArn, handler, functionName } = options;
  const log = options.log ?? consoleLog;
  const checkpoints = options.checkpoints ?? memoryCheckpoints();
  const idlePollMs = options.idlePollMs ?? 50;
  let stopping = false;
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    wake = resolve;
  });
  // polls that came back empty, counted so caughtUp() can wait for one that started after it was called
  let emptyPolls = 0;
  let pollsStarted = 0;
  const waiters: Array<{ after: number; resolve: () => void }> = [];
  const notify = () => {
    for (const w of waiters.splice(0)) {
      if (emptyPolls > w.after) w.resolve();
      else waiters.push(w);
    }
  };

  const invoke = async (records: DynamoDBRecord[]): Promise<number | undefined> => {
    // undefined: all handled; otherwise the index of the first record to retry
    const context = createLambdaContext({ functionName, timeoutMs: options.timeoutMs ?? 60_000 });
    const run = () => handler({ Records: records }, context);
    try {
      const response = await (options.faults ? options.faults.invoke(functionName, run) : run());
      const failures = response?.batchItemFailures ?? [];
      if (failures.length === 0) return undefined;
      const indexes = failures.map((f) =>
        records.findIndex((r) => r.dynamodb?.SequenceNumber === f.itemIdentifier),
      );
      // an identifier that is not in the batch fails the whole batch, as in Lambda
      return indexes.some((i) => i < 0) ? 0 : Math.min(...indexes);
    } catch (e) {
      if (e instanceof FunctionDiedError)
        log(`${e.message}: its batch of ${records.length} will be retried`, undefined, 'info');
      else log(`${functionName} threw; its batch of ${records.length} will be retried`, e);
      return 0;
    }
  };

  const process = async (shardId: string, batch: DynamoDBRecord[], retriesLeft: number): Promise<void> => {
    const failedAt = await invoke(batch);
    if (failedAt === undefined) {
      // the batch handled, then handed over again as after a failure before the checkpoint
      if (options.faults?.streamAgain(functionName)) return process(shardId, batch, retriesLeft);
      checkpoints.set(shardId, batch[batch.length - 1]!.dynamodb!.SequenceNumber!);
      return;
    }
    if (failedAt > 0) checkpoints.set(shardId, batch[failedAt - 1]!.dynamodb!.SequenceNumber!);
    const rest = batch.slice(failedAt);
    if (options.bisectBatchOnError && rest.length > 1) {
      const half = Math.ceil(rest.length / 2);
      await process(shardId, rest.slice(0, half), retriesLeft);
      await process(shardId, rest.slice(half), retriesLeft);
      return;
    }
    if (retriesLeft > 0 && !stopping) {
      // Lambda's backoff between a stream batch's retries grows, up to a limit
      await sleep(
        Math.min(RETRY_PAUSE_MAX_MS, 100 * 2 ** Math.max(0, options.maxRetryAttempts - retriesLeft)),
        stopped,
      );
      return process(shardId, rest, retriesLeft - 1);
    }
    const first = rest[0]!.dynamodb!.SequenceNumber!;
    const last = rest[rest.length - 1]!.dynamodb!.SequenceNumber!;
    log(`${functionName}: giving up on ${rest.length} record(s) of ${shardId} (${first}..${last})`);
    await options.onFailure?.({
      streamArn,
      shardId,
      startSequenceNumber: first,
      endSequenceNumber: last,
      batchSize: rest.length,
      reason: 'RetryAttemptsExhausted',
    });
    checkpoints.set(shardId, last);
  };

  const iteratorFor = async (shardId: string): Promise<string | undefined> => {
    const after = checkpoints.get(shardId);
    const from = async (position: 'checkpoint' | 'oldest') =>
      (
        await client.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ...(position === 'checkpoint' && after
              ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
              : { ShardIteratorType: 'TRIM_HORIZON' }),
          }),
        )
      ).ShardIterator;
    try {
      return await from('checkpoint');
    } catch (e) {
      // the checkpoint fell out of the stream's retention (24 h): as in Lambda, go on from the oldest record
      if (!after || (e as Error).name !== 'TrimmedDataAccessException') throw e;
      log(
        `${functionName}: the checkpoint of ${shardId} is older than the stream keeps; reading from its oldest record`,
      );
      return from('oldest');
    }
  };

  /** One pass over a shard from its checkpoint; returns true once the shard is closed and read to its end. */
  const readShard = async (shardId: string): Promise<boolean> => {
    let iterator = await iteratorFor(shardId);
    while (iterator && !stopping) {
      pollsStarted++;
      const startedAs = pollsStarted;
      const out = await client.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: options.batchSize }),
      );
      iterator = out.NextShardIterator;
      const read = (out.Records ?? []).map((r) => toLambdaRecord(r, streamArn));
      if (read.length > 0) {
        const records = options.filter ? read.filter(options.filter) : read;
        if (records.length > 0) await process(shardId, records, options.maxRetryAttempts);
        // what the filter passed over is behind us too
        checkpoints.set(shardId, read[read.length - 1]!.dynamodb!.SequenceNumber!);
        if (read.length < options.batchSize) await sleep(0);
      } else {
        emptyPolls = Math.max(emptyPolls, startedAs);
        notify();
        await sleep(idlePollMs, stopped);
      }
    }
    return !stopping;
  };

  /**
   * Reads one shard until it closes or the source stops. A failed read (an expired iterator, the
   * stream briefly unavailable) starts again from the shard's checkpoint, so nothing is skipped
   * and nothing already handled is handled again; this poller stays the shard's only one.
   */
  const pollShard = async (shard: Shard): Promise<boolean> => {
    const shardId = shard.ShardId!;
    while (!stopping) {
      try {
        return await readShard(shardId);
      } catch (e) {
        if (stopping) break;
        log(`${functionName}: reading ${shardId} failed; resuming from its checkpoint in 1 s`, e);
        await sleep(1000, stopped);
      }
    }
    return false;
  };

  const run = async () => {
    const done = new Set<string>();
    while (!stopping) {
      try {
        const description = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
        const shards = description.StreamDescription?.Shards ?? [];
        // a parent shard is read to its end before its children
        const ready = shards.filter(
          (s) =>
            !done.has(s.ShardId!) &&
            (!s.ParentShardId ||
              done.has(s.ParentShardId) ||
              !shards.some((p) => p.ShardId === s.ParentShardId)),
        );
        if (ready.length === 0) {
          await sleep(1000, stopped);
          continue;
        }
        await Promise.all(
          ready.map(async (s) => {
            if (await pollShard(s)) done.add(s.ShardId!);
          }),
        );
      } catch (e) {
        if (stopping) break;
        log(`${functionName}: describing ${streamArn} failed; retrying in 1 s`, e);
        await sleep(1000, stopped);
      }
    }
  };

  const running = run();
  return {
    caughtUp: () =>
      new Promise<void>((resolve) => {
        waiters.push({ after: pollsStarted, resolve });
      }),
    stop: async () => {
      stopping = true;
      wake();
      await running;
      for (const w of waiters.splice(0)) w.resolve();
    },
  };
};
