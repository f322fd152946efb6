/** HeartbeatQueue in memory: the twin of SqsHeartbeatQueue (contract: test/contract/queues.ts). See queue.ts. */
import type { HeartbeatQueue, HeartbeatWatch } from '../../ports/heartbeat-queue.ts';
import { InMemoryQueue } from './queue.ts';

export class InMemoryHeartbeatQueue extends InMemoryQueue<HeartbeatWatch> implements HeartbeatQueue {
  async arm(watches: readonly HeartbeatWatch[], delaySeconds: number): Promise<void> {
    this.send(watches, delaySeconds);
  }
}
