/**
 * The table's stream as task changes: decodes the new and old images of a
 * stream record with the store's own codec. The task's tenant and id are read
 * from its key (`T#<tenant>#<taskId>`, keys.ts), which must agree with its
 * tenant attribute. Records of other items (history chunks, bodies, replies)
 * and deletions (TTL) carry no change to relay.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { RegistryChange } from '../../ports/registry-store.ts';
import type { TaskChange } from '../../ports/task-changes.ts';
import { TASK_SK } from './keys.ts';
import { REGISTRY_EVENT_SKS, registryChangeOf } from './registry-store.ts';
import { decodeTask, type Item, isTaskItem } from './task-codec.ts';

type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

const itemOf = (image: Image | undefined): Item | undefined =>
  image ? unmarshall(image as unknown as Record<string, AttributeValue>) : undefined;

/** The change a stream record reports, or undefined when it is not a change of a task. */
export const taskChangeOf = (record: DynamoDBRecord): TaskChange | undefined => {
  const newItem = itemOf(record.dynamodb?.NewImage);
  const oldItem = itemOf(record.dynamodb?.OldImage);
  const sequence = String(record.dynamodb?.SequenceNumber ?? '');
  if (!newItem || !isTaskItem(newItem)) return undefined;
  const after = decodeTask(newItem);
  const before = oldItem && isTaskItem(oldItem) ? decodeTask(oldItem).head : undefined;
  // nothing changed for the task (a write that lost no race never repeats a version, but be safe)
  if (before && before.version >= after.head.version) return undefined;
  return {
    sequence,
    ...(before ? { before } : {}),
    after,
    events: after.recent.filter((e) => e.version > (before?.version ?? 0)),
  };
};

/**
 * How the relay consumes the stream, in one place: the CDK event source mapping and the local
 * runtime's poller both take their settings from here.
 */
export const STREAM_RELAY = {
  /** Records per invocation. */
  batchSize: 100,
  /**
   * Retries of a failing batch (after bisecting it) before it goes to the failure queue. Everything the
   * relay sends is harmless twice and an undecodable record is set aside at once, so what fails a batch is
   * SQS or EventBridge unavailable: it is worth waiting out. A batch given up is work never queued (a run,
   * a push, the Synapse message the next ones wait for), so more than the few retries that gave one up
   * under the chaos run's faults (docs/reliability.md#the-chaos-run).
   */
  maxRetryAttempts: 20,
  /** Split a failing batch in two to isolate the record that fails. */
  bisectBatchOnError: true,
  /** Records older than this are sent to the failure queue instead of being retried further. */
  maxRecordAgeSeconds: 6 * 3600,
  /** The relay's timeout. */
  timeoutSeconds: 60,
  /** Where batches that could not be relayed are described (Lambda's on-failure destination). */
  failureQueueName: 'relay-failures',
  /**
   * The records worth an invocation: new and changed task items, and the registry's records and catalog
   * entries (their lifecycle events). Bodies and history chunks (other sort keys) and deletions (TTL)
   * carry no change to relay; filtered out, they cost no invocation.
   */
  filter: { eventNames: ['INSERT', 'MODIFY'], sortKeys: [TASK_SK, ...REGISTRY_EVENT_SKS] },
} as const;

/** The local runtime's version of the event source mapping's filter. */
export const relayWants = (record: DynamoDBRecord): boolean =>
  (STREAM_RELAY.filter.eventNames as readonly string[]).includes(String(record.eventName)) &&
  (STREAM_RELAY.filter.sortKeys as readonly string[]).includes(String(record.dynamodb?.Keys?.sk?.S));

/** The registry change a stream record reports, or undefined when it is not one. */
export const registryStreamChangeOf = (record: DynamoDBRecord): RegistryChange | undefined =>
  registryChangeOf(itemOf(record.dynamodb?.NewImage), itemOf(record.dynamodb?.OldImage));
