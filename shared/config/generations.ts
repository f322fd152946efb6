/**
 * Task generations, A2A dev-1.1 (docs/generations.md): apart from ./a2a.ts because the card function
 * reads this one setting and none of the streams'.
 */
import { type Setting, switchOn } from './settings.ts';

/** The variable's name alone (shared/protocol/a2a/generations.ts exports it). */
export const GENERATIONS_ENV = 'A2A_GENERATIONS';

export const A2A_GENERATIONS = {
  name: GENERATIONS_ENV,
  doc: 'Task generations, A2A dev-1.1 (docs/generations.md).',
  format: () => switchOn(['on', 'true', '1'], '`on` (or `true`, `1`) turns them on; anything else is off'),
  default: false,
  readBy: ['agent-card', 'jsonrpc', 'rest', 'npm start'],
} satisfies Setting<boolean>;
