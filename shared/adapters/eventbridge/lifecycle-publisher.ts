/** LifecyclePublisher on an EventBridge bus: PutEvents in batches of ten entries (the API's limit). */
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { LifecycleEvent, LifecyclePublisher } from '../../ports/lifecycle-publisher.ts';
import { LIFECYCLE_SOURCE } from '../../ports/lifecycle-publisher.ts';

const BATCH = 10;

export class EventBridgeLifecyclePublisher implements LifecyclePublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(events: readonly LifecycleEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      const batch = events.slice(i, i + BATCH);
      const out = await this.client.send(
        new PutEventsCommand({
          Entries: batch.map((e) => ({
            EventBusName: this.busName,
            Source: e.source ?? LIFECYCLE_SOURCE,
            DetailType: e.detailType,
            Time: new Date(e.time),
            Detail: JSON.stringify({ id: e.id, ...e.detail }),
          })),
        }),
      );
      if (out.FailedEntryCount) {
        const failed = (out.Entries ?? []).filter((entry) => entry.ErrorCode);
        throw new Error(`EventBridge refused ${out.FailedEntryCount} event(s): ${JSON.stringify(failed)}`);
      }
    }
  }
}
