/**
 * How tasks run: how long they may (docs/state-machine.md), and which skills Synapse peers carry out
 * (docs/synapse-protocol.md#the-bridge-to-a2a).
 */
import { DEFAULT_MAX_REQUEST_DEADLINE_SECONDS } from '../app/tasks/deadlines.ts';
import { DEFAULT_TASK_TIMEOUT_SECONDS } from '../app/tasks/task-engine.ts';
import { jsonObject, type Setting, wholeNumber } from './settings.ts';

export const TASK_TIMEOUT_SECONDS = {
  name: 'TASK_TIMEOUT_SECONDS',
  doc: "A new task's deadline when neither the request nor the agent sets one; past it the sweeper expires it.",
  format: () => wholeNumber(1, undefined, 'seconds'),
  default: DEFAULT_TASK_TIMEOUT_SECONDS,
  readBy: ['executor', 'heartbeat', 'jsonrpc', 'rest', 'sweeper', 'synapse'],
} satisfies Setting<number>;

export const TASK_MAX_DEADLINE_SECONDS = {
  name: 'TASK_MAX_DEADLINE_SECONDS',
  doc: 'The longest deadline a request may ask for (metadata `synapse.deadlineSeconds`).',
  format: () => wholeNumber(1, undefined, 'seconds'),
  default: DEFAULT_MAX_REQUEST_DEADLINE_SECONDS,
  readBy: ['jsonrpc', 'rest', 'synapse'],
} satisfies Setting<number>;

export const SYNAPSE_REMOTE_SKILLS = {
  name: 'SYNAPSE_REMOTE_SKILLS',
  doc: 'Skills carried out by Synapse peers: new A2A tasks for them are delegated (needs DELIVERY_QUEUE_URL).',
  format: () =>
    jsonObject(
      'a JSON object {"<skill id>": "<peer id>" | {"peer": "<peer id>", "type"?: "<task type>"}} (checked by shared/app/synapse/bridge.ts)',
    ),
  defaultText: 'none',
  readBy: ['jsonrpc', 'rest', 'synapse'],
} satisfies Setting<string>;
