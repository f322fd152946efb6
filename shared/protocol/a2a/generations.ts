/**
 * Task generations (A2A dev-1.1, a2aproject/A2A#1810; docs/generations.md): `Task.generation`, a message's
 * `ifGenerationMatch` and GetTask's `currentGeneration` long poll. Off unless A2A_GENERATIONS=on; when on,
 * the card declares this extension (not required: a client that ignores generations works as before), and
 * a request that activates it (A2A-Extensions) sees `generation` on its tasks.
 */
import type { AgentExtension } from '../../agent/api.ts';
import { A2A_GENERATIONS } from '../../config/generations.ts';
import { type Env, readSetting } from '../../config/settings.ts';

/** The one setting (docs/development.md): `on` (or `true`, `1`) turns generations on; anything else, off. */

export const generationsEnabled = (env?: Env): boolean => readSetting(A2A_GENERATIONS, env);

/** Where the card says generations are served (the PR names no URI; this one is the hub's choice). */
export const GENERATIONS_EXTENSION_URI = 'https://a2a-protocol.org/extensions/task-generation/v1';

export const GENERATIONS_EXTENSION: AgentExtension = {
  uri: GENERATIONS_EXTENSION_URI,
  description:
    'Task generations (A2A dev-1.1, a2aproject/A2A#1810): activated (A2A-Extensions), every Task carries ' +
    '`generation`, one more per change of the task; SendMessage honours configuration.ifGenerationMatch ' +
    '(TaskGenerationMismatchError -32010, HTTP 409) and GetTask long-polls with currentGeneration.',
  required: false,
};
