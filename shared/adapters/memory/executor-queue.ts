/** ExecutorQueue in memory: the twin of SqsExecutorQueue (contract: test/contract/queues.ts). See queue.ts. */
import type { ExecutorQueue, ExecutorRun } from '../../ports/executor-queue.ts';
import { InMemoryQueue } from './queue.ts';

export class InMemoryExecutorQueue extends InMemoryQueue<ExecutorRun> implements ExecutorQueue {
  async enqueue(runs: ExecutorRun[], delaySeconds?: number): Promise<void> {
    this.send(runs, delaySeconds);
  }
}
