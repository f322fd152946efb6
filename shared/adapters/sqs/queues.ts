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
  /**
   * Environment variable through which the queue's consumer gets its dead-letter queue's URL: a poison
   * message (not a message of the queue) is sent there at once, with the reason (docs/deliveries.md#poison-messages).
   */
  dlqUrlEnv: string;
  /** Age of the oldest message that raises the alarm, when not the visibility timeout (delayed messages). */
  oldestMessageAlarmSeconds?: number;
}

/** The delivery worker's way to its dead-letter queue. */
export const DELIVERY_DLQ_URL_ENV = 'DELIVERY_DLQ_URL';

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
  dlqUrlEnv: 'EXECUTOR_DLQ_URL',
};

/**
 * Heartbeat watches: one delayed message per running task, due when its run would next be declared lost
 * (shared/app/heartbeat/heartbeat.ts). A check is a read and at most one write or re-arm, so its own short timeout.
 */
export const HEARTBEAT_QUEUE: QueueDefinition = {
  name: 'heartbeat',
  consumerTimeoutSeconds: 30,
  // a failed check comes back after a backoff (adapters/sqs/retry.ts), or after this at the latest
  visibilityTimeoutSeconds: 60,
  // as the executor's: about 4 minutes of retries (throttling, an outage) before the DLQ
  maxReceiveCount: 8,
  batchSize: 10,
  urlEnv: 'HEARTBEAT_QUEUE_URL',
  dlqUrlEnv: 'HEARTBEAT_DLQ_URL',
  // every message is delayed (up to SQS's 900 s): only one older than its delay and a visibility is late
  oldestMessageAlarmSeconds: 960,
};

/**
 * Outbound deliveries (A2A push notifications; docs/deliveries.md): one message per attempt, a retry a
 * new delayed message the worker sends itself. Its dead-letter queue also takes, from the worker, each
 * delivery that gave up (DELIVERY_DLQ_URL_ENV), so a redrive gives it another round of attempts.
 */
export const DELIVERY_QUEUE: QueueDefinition = {
  name: 'delivery',
  // one POST (10 s at most) per record, the batch's in parallel, plus its reads and writes
  consumerTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 90,
  // records fail only when the table, the queue or the signing keys do (a failed POST is a new message)
  maxReceiveCount: 8,
  batchSize: 10,
  urlEnv: 'DELIVERY_QUEUE_URL',
  // the worker's own dead letters and the poison messages share the one variable
  dlqUrlEnv: DELIVERY_DLQ_URL_ENV,
  // a retry may wait up to 900 s (a receiver's Retry-After): only one older than that and a visibility is late
  oldestMessageAlarmSeconds: 990,
};

/**
 * The registry's health probes (docs/registry.md#health): a tick from the EventBridge schedule, and the
 * probes it spreads over the tick (each a message delayed up to 900 s, shared/domain/registry/probe-schedule.ts).
 * A probe is a card fetch and one request per interface, all at once, each with REGISTRY_PROBE_TIMEOUT_MS.
 */
export const REGISTRY_PROBE_QUEUE: QueueDefinition = {
  name: 'registry-probe',
  consumerTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 90,
  // a probe that keeps failing (the table, not the agent: an agent's failure is a report) is dropped to the
  // DLQ soon; the next period probes the agent again anyway
  maxReceiveCount: 3,
  batchSize: 10,
  urlEnv: 'REGISTRY_PROBE_QUEUE_URL',
  dlqUrlEnv: 'REGISTRY_PROBE_DLQ_URL',
  oldestMessageAlarmSeconds: 990,
};

/**
 * The relay's way to its failure queue (the stream's on-failure destination, STREAM_RELAY in
 * adapters/dynamodb/stream.ts), where it describes a stream record it cannot decode.
 */
export const RELAY_FAILURES_URL_ENV = 'RELAY_FAILURES_QUEUE_URL';

export const QUEUES: readonly QueueDefinition[] = [
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  DELIVERY_QUEUE,
  REGISTRY_PROBE_QUEUE,
];

export const deadLetterName = (q: QueueDefinition): string => `${q.name}-dlq`;
