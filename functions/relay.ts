/**
 * Relay: the table's stream (DynamoDB Streams event source, in order per
 * task). Turns committed task changes into executor runs, heartbeat watches,
 * lifecycle events and push deliveries (shared/app/delivery/relay.ts). A record that cannot be relayed is
 * reported as the batch's first failure: Lambda retries from it (bisecting,
 * a bounded number of times) and then hands it to the on-failure queue.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { registryStreamChangeOf, taskChangeOf } from '../shared/adapters/dynamodb/stream.ts';
import { relayChanges } from '../shared/app/delivery/relay.ts';
import { registryEventsOf } from '../shared/app/registry/events.ts';
import {
  executorQueueFromEnv,
  heartbeatQueueFromEnv,
  heartbeatRules,
  lifecyclePublisher,
} from '../shared/composition-roots/core.ts';
import { deliveryQueueFromEnv } from '../shared/composition-roots/delivery-queue.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import type { LifecycleEvent } from '../shared/ports/lifecycle-publisher.ts';
import type { TaskChange } from '../shared/ports/task-changes.ts';

const failAt = (sequence: string | undefined): DynamoDBBatchResponse => ({
  batchItemFailures: sequence ? [{ itemIdentifier: sequence }] : [],
});

export const relayHandler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const changes: TaskChange[] = [];
  const registryEvents: LifecycleEvent[] = [];
  let undecodable: string | undefined;
  for (const record of event.Records) {
    try {
      const change = taskChangeOf(record);
      if (change) changes.push(change);
      const registryChange = change ? undefined : registryStreamChangeOf(record);
      if (registryChange) registryEvents.push(...registryEventsOf(registryChange));
    } catch (e) {
      undecodable = record.dynamodb?.SequenceNumber;
      logger.error('cannot decode a stream record', { sequence: undecodable, error: e as Error });
      break;
    }
  }
  try {
    const result = await relayChanges(changes, {
      executor: executorQueueFromEnv(),
      lifecycle: lifecyclePublisher(),
      heartbeats: { queue: heartbeatQueueFromEnv(), rules: heartbeatRules() },
      deliveries: deliveryQueueFromEnv(),
    });
    if (registryEvents.length) await lifecyclePublisher().publish(registryEvents);
    logger.info('relayed', {
      ...result,
      registryEvents: registryEvents.length,
      records: event.Records.length,
    });
  } catch (e) {
    logger.error('relay failed', { error: e as Error, changes: changes.length });
    return failAt(event.Records[0]?.dynamodb?.SequenceNumber);
  }
  return failAt(undecodable);
};

export const handler = withObservability(relayHandler, { functionName: 'relay' });
