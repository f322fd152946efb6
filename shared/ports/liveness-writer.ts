/** Records an agent's heartbeats on its running task (docs/heartbeats.md). */
import type { TaskRecord } from './task-store.ts';

export type BeatResult = { written: true } | { written: false; current?: TaskRecord };

/** The liveness write: moves `heartbeatAt` when the task is still at `seen`'s version and state. */
export interface LivenessWriter {
  beat(seen: TaskRecord, at: string): Promise<BeatResult>;
}
