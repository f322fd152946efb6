/** Publishes task lifecycle events (docs/events.md): EventBridge on AWS, an in-process bus locally. */

/** A task lifecycle event for integrations (docs/events.md). */
export interface LifecycleEvent {
  /** What an EventBridge rule matches on: LIFECYCLE_SOURCE unless given (the registry's: `synapse.registry`). */
  source?: string;
  /** `Task Created`, `Task State Changed`, `Task Completed`, … */
  detailType: string;
  /** Unique per committed change: `<taskId>:<version>`; consumers de-duplicate on it. */
  id: string;
  time: string;
  detail: Record<string, unknown>;
}

/** Publishes lifecycle events (EventBridge in production, an in-process bus locally). */
export interface LifecyclePublisher {
  publish(events: LifecycleEvent[]): Promise<void>;
}

/** The `source` of every lifecycle event: what an EventBridge rule matches on (docs/events.md). */
export const LIFECYCLE_SOURCE = 'synapse.tasks';
