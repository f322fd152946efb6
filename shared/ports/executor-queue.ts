/** Hands work to the executor: an SQS queue on AWS and locally (shared/adapters/sqs/executor-queue.ts). */

/** A request to the executor: run (or resume) a task, or check on the lease of a running one. */
export interface ExecutorRun {
  tenant: string;
  taskId: string;
  /** The head version that asked for it, for the logs: a stale run is dropped by the claim's conditional write. */
  version: number;
  /** `lease`: the task was claimed; fail it if its run ended without an outcome when the lease ran out. */
  watch?: 'lease';
}

/** Hands work to the executor (an SQS queue in production and locally). */
export interface ExecutorQueue {
  enqueue(runs: ExecutorRun[], delaySeconds?: number): Promise<void>;
}
