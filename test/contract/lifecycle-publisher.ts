/**
 * The LifecyclePublisher port's contract (shared/ports/lifecycle-publisher.ts): run against the in-memory
 * twin in the unit suite and against EventBridgeLifecyclePublisher on the local event bus (local/event-bus.ts,
 * the PutEvents API) in the integration suite. Every event published arrives, in order, with its detail
 * type, its id, its time and its detail, however many go in one call; publishing nothing publishes nothing.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { LifecycleEvent, LifecyclePublisher } from '../../shared/ports/lifecycle-publisher.ts';

export interface LifecyclePublisherSide {
  publisher: LifecyclePublisher;
  /** Every event that arrived so far, oldest first, as published (id, detail type, time, detail). */
  arrived(): Promise<LifecycleEvent[]>;
}

export const lifecyclePublisherContract = (
  name: string,
  harness: { make(): LifecyclePublisherSide | Promise<LifecyclePublisherSide> },
): void => {
  describe(`LifecyclePublisher contract: ${name}`, () => {
    let side: LifecyclePublisherSide;
    before(async () => {
      side = await harness.make();
    });

    const eventOf = (i: number): LifecycleEvent => ({
      detailType: i % 2 ? 'Task State Changed' : 'Task Created',
      id: `task-${i}:${i + 1}`,
      time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      detail: {
        taskId: `task-${i}`,
        tenant: 'acme',
        version: i + 1,
        state: 'executing',
        events: ['start'],
        ...(i % 3 ? {} : { reason: { code: 'x', message: 'why' } }),
      },
    });

    it('every event published arrives, in order, as published, however many go in one call', async () => {
      const before = (await side.arrived()).length;
      const events = Array.from({ length: 23 }, (_, i) => eventOf(i));
      await side.publisher.publish(events);
      await side.publisher.publish([eventOf(30)]);
      assert.deepEqual((await side.arrived()).slice(before), [...events, eventOf(30)]);
    });

    it('publishing nothing publishes nothing', async () => {
      const before = (await side.arrived()).length;
      await side.publisher.publish([]);
      assert.equal((await side.arrived()).length, before);
    });
  });
};
