/**
 * EventBridgeLifecyclePublisher (shared/adapters/eventbridge/lifecycle-publisher.ts) on the local event bus
 * (local/event-bus.ts, which speaks EventBridge's PutEvents): the LifecyclePublisher contract
 * (test/contract/lifecycle-publisher.ts; the in-memory twin runs it in the unit suite), then what an
 * EventBridge rule sees: the source, the bus, the id inside the detail; and a refused entry failing the call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { type LocalEventBus, startLocalEventBus } from '../../../../local/event-bus.ts';
import { EventBridgeLifecyclePublisher } from '../../../../shared/adapters/eventbridge/lifecycle-publisher.ts';
import { LIFECYCLE_SOURCE, type LifecycleEvent } from '../../../../shared/ports/lifecycle-publisher.ts';
import { lifecyclePublisherContract } from '../../../contract/lifecycle-publisher.ts';

let bus: LocalEventBus;
let client: EventBridgeClient;

before(async () => {
  bus = await startLocalEventBus();
  client = new EventBridgeClient({
    endpoint: bus.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});
after(async () => {
  client?.destroy();
  await bus?.stop();
});

/** What arrived on the bus, as the event published (the id is inside the detail on the bus). */
const arrived = async (): Promise<LifecycleEvent[]> =>
  bus.events().map((e) => {
    const { id, ...detail } = e.detail as { id: string } & Record<string, unknown>;
    return { detailType: e.detailType, id, time: e.time, detail };
  });

lifecyclePublisherContract('EventBridge', {
  make: () => ({ publisher: new EventBridgeLifecyclePublisher(client, 'hub-bus'), arrived }),
});

describe('EventBridgeLifecyclePublisher', () => {
  it('puts each event on the bus with the lifecycle source, the id first in its detail', async () => {
    const from = bus.events().length;
    await new EventBridgeLifecyclePublisher(client, 'hub-bus').publish([
      { detailType: 'Task Completed', id: 't:5', time: '2026-01-01T00:00:05.000Z', detail: { taskId: 't' } },
    ]);
    const [event] = bus.events().slice(from);
    assert.equal(event?.source, LIFECYCLE_SOURCE);
    assert.equal(event?.eventBusName, 'hub-bus');
    assert.deepEqual(Object.keys(event?.detail ?? {}), ['id', 'taskId']);
  });

  it('a refused entry fails the call, naming it', async () => {
    await assert.rejects(
      new EventBridgeLifecyclePublisher(client, 'hub-bus').publish([
        { detailType: '', id: 'x:1', time: '2026-01-01T00:00:00.000Z', detail: {} },
      ]),
      /EventBridge refused 1 event/,
    );
  });
});
