/**
 * The messages synapse sends (`send`, `send -i`, `chat`, `conformance`): a new task (in a context, when
 * given) or the next turn of a task.
 */
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

/**
 * The request of one turn. `returnImmediately` unless told otherwise, so that a task is followed (or
 * polled) by synapse, never waited on by the server.
 */
export const requestOf = (
  parts: Part[],
  ids: { contextId?: string | undefined; taskId?: string | undefined },
  {
    metadata,
    returnImmediately = true,
  }: { metadata?: Record<string, unknown>; returnImmediately?: boolean } = {},
): SendMessageRequest => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately,
  },
  metadata: undefined,
});
