/** The messages `send -i` and `chat` send: a new task (in a context, when given) or the next turn of a task. */
import { randomUUID } from 'node:crypto';
import { type Part, Role, type SendMessageRequest } from '@a2a-js/sdk';
import type { Common } from './command.ts';
import type { WaitOptions } from './follow.ts';

export interface ChatOptions extends Common, WaitOptions {
  contextId?: string;
}

/** What ends a chat typed or piped. */
export const CHAT_QUIT = new Set(['/quit', '/exit']);

export const textPart = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

export const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** The request of one turn; `returnImmediately` so that a task is followed (or polled), never waited on by the server. */
export const requestOf = (
  parts: Part[],
  ids: { contextId?: string | undefined; taskId?: string | undefined },
): SendMessageRequest => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: true,
  },
  metadata: undefined,
});
