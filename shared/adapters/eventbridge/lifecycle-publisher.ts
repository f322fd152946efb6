/**
 * LifecyclePublisher on an EventBridge bus: PutEvents in batches of ten entries (the API's limit).
 * PutEvents can succeed as a call and still refuse some entries (FailedEntryCount): only those are sent
 * again, a few times with a short backoff, so the ones accepted are not published twice; what is still
 * refused then fails the call, and the relay's batch with it (docs/reliability.md#eventbridge).
 */
import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import type { LifecycleEvent, LifecyclePublisher } from '../../ports/lifecycle-publisher.ts';
import { LIFECYCLE_SOURCE } from '../../ports/lifecycle-publisher.ts';

const BATCH = 10;
/** Sends of the refused entries of a batch, the first one included. */
export const PUT_EVENTS_ATTEMPTS = 4;

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));

export class EventBridgeLifecyclePublisher implements LifecyclePublisher {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(events: readonly LifecycleEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += BATCH) {
      await this.put(
        events.slice(i, i + BATCH).map((e) => ({
          EventBusName: this.busName,
          Source: e.source ?? LIFECYCLE_SOURCE,
          DetailType: e.detailType,
          Time: new Date(e.time),
          Detail: JSON.stringify({ id: e.id, ...e.detail }),
        })),
      );
    }
  }

  private async put(entries: PutEventsRequestEntry[]): Promise<void> {
    let pending = entries;
    for (let attempt = 1; ; attempt++) {
      const out = await this.client.send(new PutEventsCommand({ Entries: pending }));
      if (!out.FailedEntryCount) return;
      // the answer's entries are in the request's order: a refused one carries an ErrorCode
      const refused = pending.filter((_, n) => out.Entries?.[n]?.ErrorCode !== undefined);
      if (attempt >= PUT_EVENTS_ATTEMPTS || refused.length === 0) {
        const errors = (out.Entries ?? []).filter((entry) => entry.ErrorCode);
        throw new Error(
          `EventBridge refused ${refused.length} event(s) ${attempt} times: ${JSON.stringify(errors)}`,
        );
      }
      pending = refused;
      await pause(attempt);
    }
  }
}
