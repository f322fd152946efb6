/**
 * Relay: the table's stream (DynamoDB Streams event source, in order per
 * task). Turns committed task changes into executor runs, heartbeat watches,
 * lifecycle events and push deliveries (shared/app/delivery/relay.ts).
 *
 * The records of a batch go through Powertools' batch processor one after
 * another, in stream order, each decoded into the change it reports; then
 * the changes are relayed together (relayChanges coalesces runs and watches
 * per task over the batch, docs/storage.md#the-tables-stream-is-the-outbox). So:
 * - a record that cannot be decoded can never be: it is described on the
 *   failure queue at once, with the reason, and the batch goes on;
 * - a record that fails otherwise (the failure queue unreachable) is the
 *   batch's failure: the records after it are not relayed now, the ones
 *   before it are, and Lambda retries from it (bisecting, a bounded number
 *   of times) and then hands it to the on-failure queue;
 * - when relaying throws, no record's outputs are known to be out: the
 *   batch's first record is reported, so the whole batch is retried (every
 *   output is harmless to repeat).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { registryStreamChangeOf, taskChangeOf } from '../shared/adapters/dynamodb/stream.ts';
import { type RelayPorts, relayChanges } from '../shared/app/delivery/relay.ts';
import { registryEventsOf } from '../shared/app/registry/events.ts';
import {
  executorQueueFromEnv,
  heartbeatQueueFromEnv,
  heartbeatRules,
  lifecyclePublisher,
  poisonQueueAt,
} from '../shared/composition-roots/core.ts';
import { deliveryQueueFromEnv } from '../shared/composition-roots/delivery-queue.ts';
import { RELAY_FAILURES_QUEUE_URL } from '../shared/config/deployment.ts';
import { countMetric, logger, MetricName, withObservability } from '../shared/observability/index.ts';
import type { LifecycleEvent } from '../shared/ports/lifecycle-publisher.ts';
import type { PoisonQueue } from '../shared/ports/poison-queue.ts';
import type { TaskChange } from '../shared/ports/task-changes.ts';

export interface RelayHandlerDeps {
  /** Where the changes go (the lifecycle publisher also takes the registry's events). */
  ports: () => RelayPorts;
  /** The relay's failure queue, where an undecodable record is described. */
  failures: () => PoisonQueue;
}

const defaultDeps: RelayHandlerDeps = {
  ports: () => ({
    executor: executorQueueFromEnv(),
    lifecycle: lifecyclePublisher(),
    heartbeats: { queue: heartbeatQueueFromEnv(), rules: heartbeatRules() },
    deliveries: deliveryQueueFromEnv(),
  }),
  failures: () => poisonQueueAt(RELAY_FAILURES_QUEUE_URL),
};

/** A record after the batch's failed one: left for the retry from that one, so the stream's order holds. */
class AfterFailedRecord extends Error {
  constructor() {
    super('an earlier record of the batch failed: retried from it, in order');
  }
}

/**
 * The description of an undecodable record on the failure queue: shaped as Lambda describes a batch it
 * gave up on (`requestContext.condition`, `DDBStreamBatchInfo`), one record long, with its keys; the
 * images stay in the stream (an item may be larger than an SQS message).
 */
const describeUndecodable = (record: DynamoDBRecord, error: string): string =>
  JSON.stringify({
    requestContext: { condition: 'UndecodableRecord' },
    error,
    DDBStreamBatchInfo: {
      streamArn: record.eventSourceARN,
      startSequenceNumber: record.dynamodb?.SequenceNumber,
      endSequenceNumber: record.dynamodb?.SequenceNumber,
      batchSize: 1,
    },
    record: { eventID: record.eventID, eventName: record.eventName, keys: record.dynamodb?.Keys },
  });

/** What a record brings to the batch: the task change it reports, or the registry's events. */
const decode = (record: DynamoDBRecord): { change?: TaskChange; events: LifecycleEvent[] } => {
  const change = taskChangeOf(record);
  if (change) return { change, events: [] };
  const registryChange = registryStreamChangeOf(record);
  return { events: registryChange ? registryEventsOf(registryChange) : [] };
};

export const createRelayHandler =
  (deps: RelayHandlerDeps = defaultDeps) =>
  async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const changes: TaskChange[] = [];
    const registryEvents: LifecycleEvent[] = [];
    let failed = false;
    let undecodable = 0;
    const decodeRecord = async (record: DynamoDBRecord): Promise<void> => {
      if (failed) throw new AfterFailedRecord();
      const sequence = record.dynamodb?.SequenceNumber;
      let decoded: ReturnType<typeof decode>;
      try {
        decoded = decode(record);
      } catch (e) {
        const error = (e as Error).message;
        try {
          await deps.failures().send(describeUndecodable(record, error), { reason: 'undecodable', error });
        } catch (sendError) {
          failed = true;
          logger.error('an undecodable stream record could not be described: the batch is retried from it', {
            sequence,
            error: sendError as Error,
          });
          throw sendError;
        }
        undecodable++;
        countMetric(MetricName.DlqArrivals);
        logger.error('cannot decode a stream record: described on the failure queue', { sequence, error });
        return;
      }
      if (decoded.change) changes.push(decoded.change);
      registryEvents.push(...decoded.events);
    };
    // one processor per batch (it keeps the batch's outcomes in itself); the records one at a time, in order
    const processor = new BatchProcessor(EventType.DynamoDBStreams);
    const decoded = await processPartialResponse(event, decodeRecord, processor, {
      processInParallel: false,
      // a batch whose first record failed is a failure at that record like any other, not a throw
      throwOnFullBatchFailure: false,
    });
    try {
      const ports = deps.ports();
      const result = await relayChanges(changes, ports);
      if (registryEvents.length) await ports.lifecycle.publish(registryEvents);
      logger.info('relayed', {
        ...result,
        registryEvents: registryEvents.length,
        records: event.Records.length,
        undecodable,
      });
    } catch (e) {
      logger.error('relay failed', { error: e as Error, changes: changes.length });
      const first = event.Records[0]?.dynamodb?.SequenceNumber;
      return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
    }
    // the first failed record alone (the processor lists the ones after it too): Lambda retries from it
    return { batchItemFailures: decoded.batchItemFailures.slice(0, 1).map((f) => ({ ...f })) };
  };

export const relayHandler = createRelayHandler();

export const handler = withObservability(relayHandler, { functionName: 'relay' });
