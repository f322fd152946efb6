/**
 * Where the hub's parts are: what the CDK stack (infra/) or the local hub (local/hub.ts) wires into
 * the functions' environment, and the agent they run.
 */
import {
  DELIVERY_DLQ_URL_ENV,
  DELIVERY_QUEUE,
  EXECUTOR_QUEUE,
  HEARTBEAT_QUEUE,
  REGISTRY_PROBE_QUEUE,
  RELAY_FAILURES_URL_ENV,
} from '../adapters/sqs/queues.ts';
import { type Setting, text, url } from './settings.ts';

export const TABLE_NAME = {
  name: 'TABLE_NAME',
  doc: 'The task table: tasks, push configs, delivery log, API keys and tenants (docs/storage.md).',
  format: () => text('a table name'),
  defaultText: 'none: required',
  readBy: [
    'authorizer',
    'deliver',
    'executor',
    'heartbeat',
    'inspector',
    'jsonrpc',
    'registry',
    'registry-probe',
    'rest',
    'sweeper',
    'synapse',
  ],
} satisfies Setting<string>;

export const PUBLIC_URL = {
  name: 'PUBLIC_URL',
  doc: 'The base URL clients reach the hub at: the card, push JWT issuer, Synapse endpoint.',
  format: () => url(),
  defaultText: 'the API Gateway host and stage of the request (required by deliver)',
  readBy: ['agent-card', 'deliver', 'jsonrpc', 'jwks', 'registry', 'registry-probe', 'rest', 'synapse'],
} satisfies Setting<string>;

export const EXECUTOR_QUEUE_URL = {
  get name() {
    return EXECUTOR_QUEUE.urlEnv;
  },
  doc: 'The executor queue: runs of tasks, lease checks.',
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['executor', 'relay'],
} satisfies Setting<string>;

export const EXECUTOR_DLQ_URL = {
  get name() {
    return EXECUTOR_QUEUE.dlqUrlEnv;
  },
  doc: "The executor queue's dead-letter queue, where the executor sends a message that is not a run, with why.",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['executor'],
} satisfies Setting<string>;

export const REGISTRY_PROBE_QUEUE_URL = {
  get name() {
    return REGISTRY_PROBE_QUEUE.urlEnv;
  },
  doc: "The registry's probe queue: the schedule's ticks and the probes they spread (docs/registry.md#health).",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['registry-probe'],
} satisfies Setting<string>;

export const REGISTRY_PROBE_DLQ_URL = {
  get name() {
    return REGISTRY_PROBE_QUEUE.dlqUrlEnv;
  },
  doc: "The probe queue's dead-letter queue, where the probe function sends a message that is not a tick or a probe, with why.",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['registry-probe'],
} satisfies Setting<string>;

export const HEARTBEAT_QUEUE_URL = {
  get name() {
    return HEARTBEAT_QUEUE.urlEnv;
  },
  doc: 'The heartbeat queue: the watches of running tasks (docs/heartbeats.md).',
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['heartbeat', 'relay'],
} satisfies Setting<string>;

export const HEARTBEAT_DLQ_URL = {
  get name() {
    return HEARTBEAT_QUEUE.dlqUrlEnv;
  },
  doc: "The heartbeat queue's dead-letter queue, where the heartbeat function sends a message that is not a watch, with why.",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['heartbeat'],
} satisfies Setting<string>;

export const DELIVERY_QUEUE_URL = {
  get name() {
    return DELIVERY_QUEUE.urlEnv;
  },
  doc: 'The delivery queue; set, the hub delivers push notifications and the card says so (docs/deliveries.md).',
  format: () => url(),
  defaultText: 'unset: no push notifications',
  readBy: ['agent-card', 'deliver', 'jsonrpc', 'relay', 'rest', 'synapse'],
} satisfies Setting<string>;

export const DELIVERY_DLQ_URL = {
  name: DELIVERY_DLQ_URL_ENV,
  doc: "The delivery queue's dead-letter queue, where the worker hands a delivery that gave up, and a message that is not a delivery, with why.",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['deliver'],
} satisfies Setting<string>;

export const RELAY_FAILURES_QUEUE_URL = {
  name: RELAY_FAILURES_URL_ENV,
  doc: "The relay's failure queue (the stream's on-failure destination), where the relay describes a stream record it cannot decode, with why.",
  format: () => url(),
  defaultText: 'none: required',
  readBy: ['relay'],
} satisfies Setting<string>;

export const EVENT_BUS_NAME = {
  name: 'EVENT_BUS_NAME',
  doc: 'The EventBridge bus the relay publishes lifecycle events to (docs/events.md).',
  format: () => text('an event bus name'),
  defaultText: 'none: required',
  readBy: ['relay'],
} satisfies Setting<string>;

export const AGENT_MODULE = {
  name: 'AGENT_MODULE',
  doc: 'The agent module to run (a path, absolute or from the working directory; docs/agent-api.md).',
  format: () => text('a module path'),
  defaultText: 'the `#agent` import: the bundled agent, the demo agent locally',
  readBy: ['agent-card', 'executor', 'heartbeat', 'jsonrpc', 'rest', 'synapse', 'npm start'],
} satisfies Setting<string>;
