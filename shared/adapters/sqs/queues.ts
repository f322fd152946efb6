/**
 * Queue definitions, in one place: the CDK stack and the local runtime both
 * create their queues (and dead-letter queues) from these.
 */
export interface QueueDefinition {
  /** Logical name; the deployed name gets a stack-specific prefix. */
  name: string;
  /** How long a received message stays invisible; must exceed the consumer's timeout. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message is moved to the dead-letter queue `${name}-dlq`. */
  maxReceiveCount: number;
  /** Event source mapping batch size. */
  batchSize: number;
  /** Consumer (function) timeout; the visibility timeout must exceed it so a running batch stays hidden. */
  consumerTimeoutSeconds: number;
  /** Environment variable through which functions get the queue URL. */
  urlEnv: string;
}

export const EXECUTOR_QUEUE: QueueDefinition = {
  name: 'executor',
  // Lambda's maximum: an agent may work up to 15 minutes per run
  consumerTimeoutSeconds: 900,
  // a record in flight stays hidden for the whole run; failed records come back sooner (adapters/sqs/retry.ts)
  visibilityTimeoutSeconds: 960,
  // with the 2 s doubling backoff, 8 receives span about 4 minutes: long enough to ride out throttling
  maxReceiveCount: 8,
  batchSize: 5,
  urlEnv: 'EXECUTOR_QUEUE_URL',
};

export const QUEUES: readonly QueueDefinition[] = [EXECUTOR_QUEUE];

export const deadLetterName = (q: QueueDefinition): string => `${q.name}-dlq`;
