/**
 * Fakes for the stream poller's tests: a virtual clock (sleeping advances it at once) and a task whose
 * events appear at scripted virtual times, read through the TaskReader port and counted.
 */
import type { StreamClock, TaskReader } from '../../../../shared/app/a2a/stream.ts';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { Message, TaskEvent } from '../../../../shared/domain/task.ts';
import type { TaskRecord } from '../../../../shared/ports/task-store.ts';
import { head } from '../../protocol/a2a/fixtures.ts';

export interface VirtualClock extends StreamClock {
  /** Every sleep asked for, in ms. */
  sleeps: number[];
  advance(ms: number): void;
}

export const virtualClock = (start = 1_000_000): VirtualClock => {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    sleep: async (ms, signal) => {
      if (signal?.aborted) return;
      sleeps.push(ms);
      t += Math.max(0, ms);
      // lets real I/O and timers of the test progress too
      await new Promise((r) => setImmediate(r));
    },
  };
};

export interface ScriptedEvent {
  /** Virtual ms after the clock's start at which the event is committed. */
  at: number;
  type: TaskEvent['type'];
  to: SynapseState;
  message?: Message;
  artifact?: TaskEvent['artifact'];
  progress?: number;
}

export interface ScriptedTask extends TaskReader {
  /** Poll times (virtual ms since the start), one per find(). */
  polls: number[];
  /** events() calls: the version each read after. */
  reads: number[];
  /** Every event of the script, as stored. */
  all: TaskEvent[];
}

/**
 * A task of the caller `{tenant: 'tenant-a', owner: 'owner-a'}` (id `t1` unless given), created at
 * version 1 (state `executing` unless given), whose further events are committed at their scripted times.
 */
export const scriptedTask = (
  clock: VirtualClock,
  script: ScriptedEvent[],
  options: { taskId?: string; state?: SynapseState } = {},
): ScriptedTask => {
  const taskId = options.taskId ?? 't1';
  const start = clock.now();
  const all: TaskEvent[] = [];
  let state: SynapseState = options.state ?? 'executing';
  all.push({
    taskId,
    tenant: 'tenant-a',
    version: 1,
    type: 'created',
    from: null,
    to: state,
    at: new Date(start).toISOString(),
  });
  const times = [0];
  for (const s of script) {
    const from = state;
    state = s.to;
    all.push({
      taskId,
      tenant: 'tenant-a',
      version: all.length + 1,
      type: s.type,
      from,
      to: s.to,
      at: new Date(start + s.at).toISOString(),
      ...(s.message ? { message: s.message } : {}),
      ...(s.artifact ? { artifact: s.artifact } : {}),
      ...(s.progress !== undefined ? { progress: s.progress } : {}),
    });
    times.push(s.at);
  }
  const polls: number[] = [];
  const reads: number[] = [];
  const recordAt = (elapsed: number): TaskRecord => {
    const committed = all.filter((_, i) => (times[i] ?? 0) <= elapsed);
    const last = committed.at(-1)!;
    return {
      head: head({ taskId, version: last.version, state: last.to, statusAt: last.at }),
      // a short log, as the store keeps: events() must fill in older ones
      recent: committed.slice(-3),
    };
  };
  return {
    polls,
    reads,
    all,
    find: async (caller, id) => {
      polls.push(clock.now() - start);
      if (id !== taskId || caller.owner !== 'owner-a') return undefined;
      return recordAt(clock.now() - start);
    },
    events: async (record, after) => {
      reads.push(after);
      return all.filter((e) => e.version > after && e.version <= record.head.version);
    },
    view: async (record) => ({ head: record.head, history: [], artifacts: [] }),
  };
};

export const CALLER = { tenant: 'tenant-a', owner: 'owner-a' };
