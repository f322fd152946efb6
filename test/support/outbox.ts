/**
 * The real outbox for tests: the local stream event source on the test table's DynamoDB Local stream,
 * decoding each record with the store's codec (`taskChangeOf`) and relaying it with `relayChanges`, as
 * functions/relay.ts does in AWS, into a recording executor queue and lifecycle publisher. Tests take
 * the executor runs from here instead of a queue the use cases would fill themselves: a run exists only
 * because a committed change reached the stream.
 */
import assert from 'node:assert/strict';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { type FailedBatch, type StreamSource, startStreamSource } from '../../local/stream-source.ts';
import { STREAM_RELAY, taskChangeOf } from '../../shared/adapters/dynamodb/stream.ts';
import { relayChanges } from '../../shared/app/delivery/relay.ts';
import type { HeartbeatRules } from '../../shared/domain/heartbeat.ts';
import type { ExecutorRun } from '../../shared/ports/executor-queue.ts';
import type { HeartbeatWatch } from '../../shared/ports/heartbeat-queue.ts';
import type { LifecycleEvent } from '../../shared/ports/lifecycle-publisher.ts';
import type { TaskChange } from '../../shared/ports/task-changes.ts';
import type { TaskRef } from '../../shared/ports/task-store.ts';
import type { TestTable } from './dynamo.ts';

export interface EnqueuedRun {
  run: ExecutorRun;
  /** As the relay asked the queue (undefined: no delay). */
  delaySeconds: number | undefined;
}

export interface Outbox {
  /**
   * Waits until every change committed so far was relayed, then removes and returns the next run
   * (not a lease watch) the relay enqueued, for the given task if one is named. Fails when there is none.
   */
  take(task?: Pick<TaskRef, 'taskId'>): Promise<ExecutorRun>;
  /** Once caught up: the runs (not lease watches) enqueued and not yet taken, for the task if named. */
  pending(task?: Pick<TaskRef, 'taskId'>): Promise<ExecutorRun[]>;
  /** Once caught up: removes and returns every run not yet taken. */
  drain(): Promise<ExecutorRun[]>;
  /** Once caught up: removes and returns the next lease watch enqueued for the task. Fails when there is none. */
  takeWatch(task: Pick<TaskRef, 'taskId'>): Promise<EnqueuedRun>;
  /** Once caught up: the lease watches enqueued for the task and not yet taken. */
  watches(task: Pick<TaskRef, 'taskId'>): Promise<EnqueuedRun[]>;
  /** With `heartbeats` rules: once caught up, removes and returns the next heartbeat watch armed for the task. */
  takeHeartbeat(task: Pick<TaskRef, 'taskId'>): Promise<{ watch: HeartbeatWatch; delaySeconds: number }>;
  /** With `heartbeats` rules: once caught up, the heartbeat watches armed for the task and not yet taken. */
  heartbeats(task: Pick<TaskRef, 'taskId'>): Promise<Array<{ watch: HeartbeatWatch; delaySeconds: number }>>;
  /** Once caught up: every lifecycle event published so far (for the task if named). */
  events(task?: Pick<TaskRef, 'taskId'>): Promise<LifecycleEvent[]>;
  /** Resolves once everything committed before the call was relayed; fails if relaying failed. */
  caughtUp(): Promise<void>;
  /** Polls of the stream that failed and were retried by the source (nothing lost; for diagnosis). */
  readonly pollErrors: readonly string[];
  stop(): Promise<void>;
}

const CAUGHT_UP_TIMEOUT_MS = 15_000;

export interface OutboxOptions {
  /** Relay claims to heartbeat watches under these rules, as functions/relay.ts does (default: lease watches). */
  heartbeats?: HeartbeatRules;
}

export const startOutbox = async (table: TestTable, options: OutboxOptions = {}): Promise<Outbox> => {
  const { Table } = await table.client.send(new DescribeTableCommand({ TableName: table.tableName }));
  const streamArn = Table?.LatestStreamArn;
  assert.ok(streamArn, 'the test table has a stream');
  const streams = new DynamoDBStreamsClient({
    endpoint: table.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

  const runs: EnqueuedRun[] = [];
  const watches: EnqueuedRun[] = [];
  const heartbeats: Array<{ watch: HeartbeatWatch; delaySeconds: number }> = [];
  const published: LifecycleEvent[] = [];
  const problems: string[] = [];
  const pollErrors: string[] = [];

  const source: StreamSource = await startStreamSource({
    client: streams,
    streamArn,
    functionName: 'relay',
    batchSize: STREAM_RELAY.batchSize,
    bisectBatchOnError: STREAM_RELAY.bisectBatchOnError,
    // a failure here is a test failure: report it at once rather than retry
    maxRetryAttempts: 0,
    idlePollMs: 10,
    // a failed poll is retried by the source from its checkpoint (DynamoDB Local now and then answers
    // GetRecords with TrimmedDataAccessException): nothing is lost, only later; a record the relay
    // could not handle is a failure
    log: (message, error) => void pollErrors.push(`${message}${error ? `: ${String(error)}` : ''}`),
    onFailure: async (failed: FailedBatch) =>
      void problems.push(`${failed.batchSize} record(s) could not be relayed (${failed.reason})`),
    handler: async (event) => {
      try {
        const changes = event.Records.flatMap((r: DynamoDBRecord): TaskChange[] => {
          const change = taskChangeOf(r);
          return change ? [change] : [];
        });
        await relayChanges(changes, {
          executor: {
            enqueue: async (enqueued, delaySeconds) => {
              for (const run of enqueued) (run.watch ? watches : runs).push({ run, delaySeconds });
            },
          },
          lifecycle: { publish: async (events) => void published.push(...events) },
          ...(options.heartbeats
            ? {
                heartbeats: {
                  queue: {
                    arm: async (armed, delaySeconds) =>
                      void heartbeats.push(...armed.map((watch) => ({ watch, delaySeconds }))),
                  },
                  rules: options.heartbeats,
                },
              }
            : {}),
        });
      } catch (e) {
        problems.push(`relaying ${event.Records.length} record(s) threw: ${String(e)}`);
        throw e;
      }
    },
  });

  const caughtUp = async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the relay did not catch up within ${CAUGHT_UP_TIMEOUT_MS} ms`)),
        CAUGHT_UP_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([source.caughtUp(), timeout]);
    } finally {
      clearTimeout(timer);
    }
    assert.deepEqual(problems, [], 'every committed change was relayed');
  };
  const of = (task: Pick<TaskRef, 'taskId'> | undefined) => (e: EnqueuedRun) =>
    task === undefined || e.run.taskId === task.taskId;
  const remove = (list: EnqueuedRun[], task: Pick<TaskRef, 'taskId'> | undefined, what: string) => {
    const i = list.findIndex(of(task));
    assert.ok(i >= 0, `the relay enqueued ${what}${task ? ` for task ${task.taskId}` : ''}`);
    return list.splice(i, 1)[0]!;
  };

  return {
    caughtUp,
    pollErrors,
    take: async (task) => {
      await caughtUp();
      const { run, delaySeconds } = remove(runs, task, 'a run');
      assert.equal(delaySeconds, undefined, 'a run is enqueued without delay');
      return run;
    },
    pending: async (task) => {
      await caughtUp();
      return runs.filter(of(task)).map((e) => e.run);
    },
    drain: async () => {
      await caughtUp();
      return runs.splice(0).map((e) => e.run);
    },
    takeWatch: async (task) => {
      await caughtUp();
      return remove(watches, task, 'a lease watch');
    },
    watches: async (task) => {
      await caughtUp();
      return watches.filter(of(task));
    },
    takeHeartbeat: async (task) => {
      await caughtUp();
      const i = heartbeats.findIndex((h) => h.watch.taskId === task.taskId);
      assert.ok(i >= 0, `the relay armed a heartbeat watch for task ${task.taskId}`);
      return heartbeats.splice(i, 1)[0]!;
    },
    heartbeats: async (task) => {
      await caughtUp();
      return heartbeats.filter((h) => h.watch.taskId === task.taskId);
    },
    events: async (task) => {
      await caughtUp();
      return published.filter((e) => task === undefined || e.detail.taskId === task.taskId);
    },
    stop: async () => {
      await source.stop();
      streams.destroy();
    },
  };
};
