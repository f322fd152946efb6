/** Where the registry's health probes wait for their time: an SQS delay queue (shared/adapters/sqs/probe-queue.ts). */

/** One agent to probe. */
export interface ProbeRequest {
  tenant: string;
  id: string;
}

export interface ProbeQueue {
  /** Sends each probe, delayed by its own `delaySeconds` (0–900). */
  schedule(probes: readonly { request: ProbeRequest; delaySeconds: number }[]): Promise<void>;
}
