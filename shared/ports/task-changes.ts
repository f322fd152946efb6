/** A committed change to a task as the table's stream reports it (shared/adapters/dynamodb/stream.ts). */
import type { TaskEvent, TaskHead } from '../domain/task.ts';
import type { TaskRecord } from './task-store.ts';

/** One committed change to a task, as the table's stream reports it. */
export interface TaskChange {
  /** Position in the stream (for partial batch failures). */
  sequence: string;
  /** The head before the change; absent for a new task. */
  before?: TaskHead;
  /** The task after the change; absent when it was deleted (TTL). */
  after?: TaskRecord;
  /** The events this change appended, oldest first. */
  events: TaskEvent[];
}
