/** ProbeQueue on SQS: each probe a message on the registry's probe queue (REGISTRY_PROBE_QUEUE), delayed to its time. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ProbeQueue, ProbeRequest } from '../../ports/probe-queue.ts';
import { sendDelayedJsonBatches } from './send.ts';

export class SqsProbeQueue implements ProbeQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  schedule(probes: readonly { request: ProbeRequest; delaySeconds: number }[]): Promise<void> {
    return sendDelayedJsonBatches(
      this.client,
      this.queueUrl,
      probes.map((p) => ({ body: p.request, delaySeconds: p.delaySeconds })),
      'registry probe',
    );
  }
}
