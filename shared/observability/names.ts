/**
 * Observability names shared by the runtime (Powertools) and the CDK stack
 * (dashboard, alarms). No Powertools import here, so `infra/` can use it
 * without loading the runtime libraries at synth time.
 */

/** CloudWatch namespace of the custom (EMF) metrics. */
export const METRICS_NAMESPACE = 'Synapse';

/** Default `service` dimension / log key (POWERTOOLS_SERVICE_NAME). */
export const DEFAULT_SERVICE_NAME = 'synapse';

/** Custom metric names; all are counts but DeliveryLatency (milliseconds). */
export const MetricName = {
  /** A task head was created (first message of a task). */
  TasksCreated: 'TasksCreated',
  /** A transition was applied; dimension `EventType` (plus `service`). */
  Transitions: 'Transitions',
  /** A conditional write lost a race (the task moved on first). */
  ConflictsLost: 'ConflictsLost',
  /** A delivery (callback, push) failed and was re-sent with a delay. */
  DeliveriesRetried: 'DeliveriesRetried',
  /** A push notification was acknowledged (2xx) by its receiver. */
  DeliveriesSucceeded: 'DeliveriesSucceeded',
  /** A push notification gave up (attempts exhausted, or refused) and went to the dead-letter queue. */
  DeliveriesFailed: 'DeliveriesFailed',
  /** Milliseconds from the start of a push attempt (DNS included) to its outcome; not a count. */
  DeliveryLatency: 'DeliveryLatency',
  /** A message gave up and reached a dead-letter queue. */
  DlqArrivals: 'DlqArrivals',
  /** The sweeper expired a task whose deadline, timeout or heartbeat passed. */
  TasksExpired: 'TasksExpired',
  /** A heartbeat watch found a run lost (silent past the limit, or past its lease): run again or failed. */
  HeartbeatsLost: 'HeartbeatsLost',
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** Dimension names. `service` is the dimension Powertools adds to every metric. */
export const MetricDimension = {
  Service: 'service',
  EventType: 'EventType',
} as const;
