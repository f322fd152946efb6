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
  /** Consumer (function) timeout; the visibility timeout is kept at 6x this, as AWS advises. */
  consumerTimeoutSeconds: number;
  /** Environment variable through which functions get the queue URL. */
  urlEnv: string;
}

export const EXECUTOR_QUEUE: QueueDefinition = {
  name: 'executor',
  consumerTimeoutSeconds: 300,
  visibilityTimeoutSeconds: 1800,
  maxReceiveCount: 3,
  batchSize: 5,
  urlEnv: 'EXECUTOR_QUEUE_URL',
};

export const QUEUES: readonly QueueDefinition[] = [EXECUTOR_QUEUE];

export const deadLetterName = (q: QueueDefinition): string => `${q.name}-dlq`;
