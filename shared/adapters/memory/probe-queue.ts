/** ProbeQueue in memory: the twin of SqsProbeQueue (contract: test/contract/queues.ts). See queue.ts. */
import type { ProbeQueue, ProbeRequest } from '../../ports/probe-queue.ts';
import { InMemoryQueue } from './queue.ts';

export class InMemoryProbeQueue extends InMemoryQueue<ProbeRequest> implements ProbeQueue {
  async schedule(probes: readonly { request: ProbeRequest; delaySeconds: number }[]): Promise<void> {
    for (const { request, delaySeconds } of probes) this.send([request], delaySeconds);
  }
}
