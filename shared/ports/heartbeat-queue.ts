/** Where the watch of a running task's heartbeats waits: an SQS delay queue (shared/adapters/sqs/heartbeat-queue.ts). */
/** One watch: the task, the version that armed it (for the logs), and the claim it follows. */
export interface HeartbeatWatch {
  tenant: string;
  taskId: string;
  version: number;
  /**
   * The lease end its claim set: a claim's identity. A watch of an older claim stops. Absent for a
   * requester task: the peer's liveness is watched (its reports and p2p:heartbeats), not a claim.
   */
  claim?: string;
}

/** Delayed watches (an SQS queue in production and locally). */
export interface HeartbeatQueue {
  arm(watches: readonly HeartbeatWatch[], delaySeconds: number): Promise<void>;
}
