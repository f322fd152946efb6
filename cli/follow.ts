/**
 * Waiting for a task (a2a-cli SPEC §7): by polling `GetTask` (`--poll-interval`, 2 s, growing by half up to
 * 10 s between polls), or by following its stream, which falls back to polling when the stream breaks. Both
 * stop at a terminal state or an interrupted one (input or authorization required), and at `--timeout`
 * (A2ACLI_ERR_TIMEOUT, exit 5: the task goes on, and the hint says how to look at it again).
 */
import { type Message, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { CliError } from './errors.ts';
import { isInterrupted, isTerminal, PROGRAM } from './output.ts';

export interface WaitOptions {
  /** Seconds between the first polls. */
  pollInterval: number;
  /** Seconds in all; none: no limit. */
  timeout?: number;
}

const MAX_POLL_INTERVAL_MS = 10_000;

/** A state a wait stops at: the task's end, or a pause for input or authorization. */
const stopsWait = (state: TaskState | undefined): boolean =>
  state !== undefined && (isTerminal(state) || isInterrupted(state));

export const settled = (task: Task): boolean =>
  stopsWait(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

/** An event that ends a stream: a message, or a task or status a wait stops at. */
export const endsStream = (event: StreamResponse): boolean => {
  const p = event.payload;
  if (p?.$case === 'message') return true;
  if (p?.$case === 'task') return settled(p.value);
  if (p?.$case === 'statusUpdate') return stopsWait(p.value.status?.state);
  return false;
};

const timedOut = (id: string) =>
  new CliError(
    'A2ACLI_ERR_TIMEOUT',
    `task ${id} had not ended when --timeout ran out`,
    `${PROGRAM} task get ${id}`,
  );

/** A deadline from `--timeout`, started now. */
export const deadlineOf = (options: WaitOptions): number =>
  options.timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeout * 1000;

/**
 * Runs `wait` with Ctrl-C answered by naming the task waited on (SPEC §7.3: a wait stays interruptible
 * without losing the task's id): the task goes on, and the note says how to look at it again.
 */
export async function interruptibleWait<T>(taskId: () => string | undefined, wait: () => Promise<T>) {
  const onInterrupt = () => {
    const id = taskId();
    process.stderr.write(
      id === undefined
        ? 'interrupted\n'
        : `interrupted: task ${id} goes on; look at it with ${PROGRAM} task get ${id} --wait\n`,
    );
    // 128 + SIGINT, as a shell reports an interrupted command
    process.exit(130);
  };
  process.on('SIGINT', onInterrupt);
  try {
    return await wait();
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** `task` once it has settled, polled until then or until the deadline. */
export const pollUntilSettled = (client: Client, task: Task, options: WaitOptions, deadline: number) =>
  interruptibleWait(
    () => task.id,
    async () => {
      let current = task;
      let intervalMs = options.pollInterval * 1000;
      while (!settled(current)) {
        const wait = Math.min(intervalMs, deadline - Date.now());
        if (wait <= 0) throw timedOut(current.id);
        await new Promise((r) => setTimeout(r, wait));
        current = await client.getTask({ tenant: '', id: current.id, historyLength: undefined });
        intervalMs = Math.min(intervalMs * 1.5, MAX_POLL_INTERVAL_MS);
      }
      return current;
    },
  );

export interface FollowHandlers {
  /** Each event as it comes. */
  event(event: StreamResponse): void;
  /**
   * Whether `event` ends the follow (default: endsStream). A live view reads past a settled snapshot to the
   * status update that ends the stream, for what its metadata says (docs/streaming.md#progress-and-questions).
   */
  ends?(event: StreamResponse): boolean;
}

/**
 * Follows `events` to the end, handing each to `handlers`; the task (or the message) it ends with. A
 * stream that breaks is not the task's end: the task is then polled (SPEC §7.4). A protocol error is
 * thrown as it came.
 */
export function follow(
  client: Client,
  events: AsyncIterable<StreamResponse>,
  handlers: FollowHandlers,
  options: WaitOptions,
  deadline: number,
): Promise<Task | Message> {
  const seen: { taskId?: string } = {};
  return interruptibleWait(
    () => seen.taskId,
    () => followStream(client, events, handlers, options, deadline, seen),
  );
}

async function followStream(
  client: Client,
  events: AsyncIterable<StreamResponse>,
  handlers: FollowHandlers,
  options: WaitOptions,
  deadline: number,
  seen: { taskId?: string },
): Promise<Task | Message> {
  let last: Task | undefined;
  const iterator = events[Symbol.asyncIterator]();
  try {
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw timedOut(seen.taskId ?? '(not known yet)');
      let timer: NodeJS.Timeout | undefined;
      // cleared however the race ends: a stream that fails at once (an unknown task) must not leave a timer
      // that keeps the process alive
      const next = await Promise.race([
        iterator.next(),
        new Promise<'timeout'>((r) => {
          timer = setTimeout(() => r('timeout'), Math.min(left, 2 ** 31 - 1));
        }),
      ]).finally(() => clearTimeout(timer));
      if (next === 'timeout') throw timedOut(seen.taskId ?? '(not known yet)');
      if (next.done) break;
      const event = next.value;
      handlers.event(event);
      const payload = event.payload;
      if (payload?.$case === 'message') return payload.value;
      if (payload?.$case === 'task') {
        seen.taskId = payload.value.id;
        last = payload.value;
      } else if (payload) seen.taskId = payload.value.taskId;
      // a status ends the stream but is not the whole task: the task itself is read once
      if (handlers.ends ? handlers.ends(event) : endsStream(event))
        return payload?.$case === 'task'
          ? payload.value
          : await client.getTask({ tenant: '', id: seen.taskId!, historyLength: undefined });
    }
  } catch (e) {
    if (e instanceof A2AError || e instanceof CliError || seen.taskId === undefined) throw e;
    process.stderr.write(`note: the stream broke (${(e as Error).message}); polling task ${seen.taskId}\n`);
  } finally {
    void iterator.return?.();
  }
  const taskId = seen.taskId;
  if (taskId === undefined)
    throw new CliError('A2ACLI_ERR_INTERNAL', 'the stream ended before it named a task');
  const task = last ?? (await client.getTask({ tenant: '', id: taskId, historyLength: undefined }));
  return pollUntilSettled(client, task, options, deadline);
}
