/**
 * A task's stream, read from the store and nothing else: it works whichever
 * Lambda runs the agent (this one inline, the executor, a retry elsewhere),
 * and any number of streams can follow one task.
 *
 * `follow` sends every event after a version, in order, none twice (a task's
 * versions are its event ids: the SSE `id:`), then polls the task's item for
 * more: one consistent GetItem of the small task item per poll (1 read unit),
 * and the events' content is read only when the head's version moved (the
 * item's recent log usually holds them: no further read). It ends:
 *
 * - after the status update that leaves the task where the stream ends
 *   (`endsAt`): terminal or interrupted for SendStreamingMessage (INPUT_REQUIRED,
 *   AUTH_REQUIRED: the sender must act, and its answer is a new send with a
 *   stream of its own), terminal only for
 *   SubscribeToTask (a subscriber watches the task until it is done, through
 *   its questions and their answers);
 * - when its time budget runs out: at a resumable position, since every event
 *   sent was whole and the last one's version is the place to resume after
 *   (SubscribeToTask with `Last-Event-ID`, or a fresh SubscribeToTask that
 *   starts with a new snapshot);
 * - when its consumer goes away (the signal).
 *
 * While nothing happens it polls with a backoff (STREAM_TIMING: 100 ms after
 * news, doubling to 1 s) and writes an SSE comment when nothing was written for
 * 15 s, well inside API Gateway's idle timeout (30 s for edge-optimized
 * endpoints, 5 minutes for regional ones). docs/streaming.md has the arithmetic.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { Caller } from '../../domain/caller.ts';
import { TaskNotFoundError } from '../../domain/errors.ts';
import { isTerminal, type SynapseState } from '../../domain/states.ts';
import { isWellFormed, MAX_ID_LENGTH, type TaskEvent, type TaskView } from '../../domain/task.ts';
import type { ReadOptions, TaskRecord, TaskStore } from '../../ports/task-store.ts';
import type { StreamEvent } from '../../protocol/a2a/operations.ts';
import { endsStream, streamEventOf } from './events.ts';

/** What a stream writes: an event (with its version as id, when it has one) or a keep-alive. */
export type StreamItem = { type: 'event'; event: StreamEvent; id?: number } | { type: 'heartbeat' };

/** Why a stream ended: the task settled, the time budget ran out, or the consumer left. */
export type StreamEnd = 'final' | 'budget' | 'aborted';

/** Time for the poller, injectable so its tests need no real waiting. */
export interface StreamClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemStreamClock: StreamClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    signal?.aborted || ms <= 0
      ? Promise.resolve()
      : // node's timer rejects with an AbortError on abort: here that is the end of the wait
        wait(ms, undefined, signal ? { signal } : {}).catch(() => undefined),
};

export interface StreamTiming {
  /** Pause before the first poll after news (ms); it doubles while nothing happens. */
  minPollMs: number;
  /** The backoff's cap (ms): an idle stream polls once per this. */
  maxPollMs: number;
  /** An SSE comment is written when nothing was written for this long (ms). */
  heartbeatMs: number;
}

/**
 * 100 ms doubling to 1 s: an idle stream reads its task once a second, 60 read units a minute
 * (docs/streaming.md: about 2% of what the open Lambda itself costs meanwhile) for an event delay of
 * at most a second; a busy one sees each event within about 100-200 ms.
 */
export const STREAM_TIMING: StreamTiming = { minPollMs: 100, maxPollMs: 1_000, heartbeatMs: 15_000 };

/** How a stream reads its task: scoped to the caller, a task of someone else is not found. */
export interface TaskReader {
  /** The caller's task as stored now, or undefined (no such task, another owner's, an impossible id). */
  find(caller: Caller, taskId: string): Promise<TaskRecord | undefined>;
  /** Events after `afterVersion`, oldest first, with their content (reads only what the record lacks). */
  events(record: TaskRecord, afterVersion: number): Promise<TaskEvent[]>;
  view(record: TaskRecord, options: ReadOptions): Promise<TaskView>;
}

/** Ids no task can have are simply not found (never a key the store would refuse). */
const isTaskId = (id: string): boolean => id.length > 0 && id.length <= MAX_ID_LENGTH && isWellFormed(id);

/** The reader over a TaskStore, with the ownership rule TaskService applies to every read. */
export const storeReader = (store: TaskStore): TaskReader => ({
  find: async (caller, taskId) => {
    if (!isTaskId(taskId)) return undefined;
    const record = await store.get({ tenant: caller.tenant, taskId });
    return record && record.head.owner === caller.owner ? record : undefined;
  },
  events: (record, afterVersion) => store.events(record, afterVersion),
  view: (record, options) => store.view(record, options),
});

/** The caller's task, or TaskNotFoundError. */
export const recordOf = async (reader: TaskReader, caller: Caller, taskId: string): Promise<TaskRecord> => {
  const record = await reader.find(caller, taskId);
  if (!record) throw new TaskNotFoundError(taskId);
  return record;
};

export interface FollowOptions {
  clock: StreamClock;
  timing: StreamTiming;
  /** Epoch ms at which the stream closes (at a resumable position). */
  deadline: number;
  /** Last time something was written to the stream (epoch ms): the heartbeat counts from it. */
  lastWrite: number;
  signal?: AbortSignal;
  /** Called before each read: throws to end the stream with an error (the inline run failed, say). */
  check?: () => void;
  /** Counts the polls (tests, the cost measurement). */
  onPoll?: () => void;
  /** The states the stream ends at, after their status update: endsStream (terminal or interrupted) by default. */
  endsAt?: (state: SynapseState) => boolean;
}

/**
 * Every event of the task after `afterVersion`, starting from `record` (as just read), then every
 * event that follows, until the task ends, the budget runs out or the signal aborts. Returns why it
 * ended.
 */
export async function* follow(
  reader: TaskReader,
  caller: Caller,
  record: TaskRecord,
  afterVersion: number,
  options: FollowOptions,
): AsyncGenerator<StreamItem, StreamEnd> {
  const { clock, timing, deadline, signal } = options;
  const ends = options.endsAt ?? endsStream;
  let sent = afterVersion;
  let lastWrite = options.lastWrite;
  let pause = timing.minPollMs;
  let current = record;
  for (;;) {
    options.check?.();
    if (current.head.version > sent) {
      for (const event of await reader.events(current, sent)) {
        // in order and never twice, whatever a read returns
        if (event.version <= sent) continue;
        sent = event.version;
        const shown = finalAt(streamEventOf(current.head, event), ends(event.to));
        if (shown) {
          yield { type: 'event', event: shown, id: event.version };
          lastWrite = clock.now();
        }
        if (ends(event.to)) return 'final';
      }
      pause = timing.minPollMs;
    } else if (ends(current.head.state)) {
      // a resumed stream of a task that settled before: nothing is left to follow
      return 'final';
    }
    const nextPoll = clock.now() + pause;
    pause = Math.min(pause * 2, timing.maxPollMs);
    // wait for the next poll, keeping the connection alive on the way
    for (;;) {
      if (signal?.aborted) return 'aborted';
      const now = clock.now();
      if (now >= deadline) return 'budget';
      if (now - lastWrite >= timing.heartbeatMs) {
        yield { type: 'heartbeat' };
        lastWrite = clock.now();
      }
      if (now >= nextPoll) break;
      await clock.sleep(Math.min(nextPoll, deadline, lastWrite + timing.heartbeatMs) - now, signal);
    }
    options.check?.();
    options.onPoll?.();
    const next = await reader.find(caller, current.head.taskId);
    // a task is deleted only long after it finished (TTL): its stream had ended by then
    if (!next) throw new TaskNotFoundError(current.head.taskId);
    current = next;
  }
}

/** A status update is `final` (v0.3's flag) where this stream ends, not where streams end by default. */
const finalAt = (event: StreamEvent | undefined, final: boolean): StreamEvent | undefined =>
  event?.kind === 'status-update' ? { ...event, final } : event;

/**
 * Waits for the write a send makes to appear in the store: the first record of `taskId` whose version
 * is above `before` (0 for a new task), or the send's own result, whichever comes first. Polls with the
 * stream's backoff while the send runs; returns undefined when the send settled first.
 */
export async function firstWrite(
  reader: TaskReader,
  caller: Caller,
  taskId: string,
  before: number,
  sending: Promise<unknown>,
  options: Pick<FollowOptions, 'clock' | 'timing' | 'signal' | 'onPoll'>,
): Promise<TaskRecord | undefined> {
  let settled = false;
  const done = sending.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let pause = options.timing.minPollMs;
  for (;;) {
    await Promise.race([done, options.clock.sleep(pause, options.signal)]);
    if (settled || options.signal?.aborted) return undefined;
    options.onPoll?.();
    const record = await reader.find(caller, taskId);
    if (record && record.head.version > before) return record;
    pause = Math.min(pause * 2, options.timing.maxPollMs);
  }
}

/**
 * A GetTask long poll (`currentGeneration`, docs/generations.md): the task once its version is above
 * `afterVersion`, or as it is when the deadline comes or the signal aborts. It notices a change as an idle
 * stream does (`follow`): one GetItem of the task item per poll, on the same backoff (STREAM_TIMING: 100 ms
 * doubling to 1 s), so it never reads more than a stream of the task would over the same time, and answers
 * at most a poll interval (1 s) after the change. A finished task is answered at once: its state and artifacts
 * never change again, nothing is worth the wait.
 */
export async function awaitVersion(
  reader: Pick<TaskReader, 'find'>,
  caller: Caller,
  record: TaskRecord,
  afterVersion: number,
  options: Pick<FollowOptions, 'clock' | 'timing' | 'deadline' | 'signal' | 'onPoll'>,
): Promise<TaskRecord> {
  const { clock, timing, deadline, signal } = options;
  let current = record;
  let pause = timing.minPollMs;
  for (;;) {
    if (current.head.version > afterVersion || isTerminal(current.head.state)) return current;
    const now = clock.now();
    if (now >= deadline || signal?.aborted) return current;
    await clock.sleep(Math.min(pause, deadline - now), signal);
    pause = Math.min(pause * 2, timing.maxPollMs);
    // as a stream's budget ends: with the task as last polled (at most a poll interval ago), no extra read
    if (signal?.aborted || clock.now() >= deadline) return current;
    options.onPoll?.();
    const next = await reader.find(caller, current.head.taskId);
    if (!next) throw new TaskNotFoundError(current.head.taskId);
    current = next;
  }
}
