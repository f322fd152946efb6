/**
 * LifecyclePublisher in memory: the twin of EventBridgeLifecyclePublisher (contract:
 * test/contract/lifecycle-publisher.ts). Every event published is kept, in order, as JSON.
 */
import type { LifecycleEvent, LifecyclePublisher } from '../../ports/lifecycle-publisher.ts';
import { stored } from './json.ts';

export class InMemoryLifecyclePublisher implements LifecyclePublisher {
  /** Every event published, oldest first. */
  readonly events: LifecycleEvent[] = [];

  async publish(events: readonly LifecycleEvent[]): Promise<void> {
    this.events.push(...stored([...events]));
  }
}
