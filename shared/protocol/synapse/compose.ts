/**
 * An envelope around a payload, unchecked: what the delivery worker sends its callbacks with (their
 * payloads are built by shared/app/synapse/callbacks.ts, whose tests parse every one with the inbound
 * schemas), so a function that only sends loads none of the schemas. Anything else builds messages
 * with `createMessage` (./build.ts), which checks them.
 */
import { randomUUID } from 'node:crypto';
import type { SynapseMessage, SynapseRecipient, SynapseSender } from './envelope.ts';
import type { SynapseMessageType, SynapsePayloadInput } from './payloads.ts';

/** The version this hub writes. */
export const SYNAPSE_PROTOCOL_VERSION = '1.0';

export interface MessageOptions {
  /** This hub: its agent id and its Synapse endpoint. */
  sender: SynapseSender;
  recipient?: SynapseRecipient;
  /** Default (createMessage): the payload's task id (`task.id` of a request, `task_id` otherwise). */
  task_id?: string;
  correlation_id?: string;
  /** The message id this message answers. */
  reply_to?: string;
  /** Default: a random UUID. A retry of the same message keeps its id. */
  message_id?: string;
  /** Default: now. */
  timestamp?: Date | string;
}

/** The message of `type` with `payload`, its envelope filled from `options` (absent fields left out). */
export function composeMessage<T extends SynapseMessageType>(
  type: T,
  payload: SynapsePayloadInput<T>,
  options: MessageOptions,
): SynapseMessage<T> {
  const timestamp = options.timestamp ?? new Date();
  const candidate = {
    protocol_version: SYNAPSE_PROTOCOL_VERSION,
    type,
    message_id: options.message_id ?? randomUUID(),
    ...(options.task_id !== undefined ? { task_id: options.task_id } : {}),
    sender: options.sender,
    ...(options.recipient !== undefined ? { recipient: options.recipient } : {}),
    timestamp: typeof timestamp === 'string' ? timestamp : timestamp.toISOString(),
    ...(options.correlation_id !== undefined ? { correlation_id: options.correlation_id } : {}),
    ...(options.reply_to !== undefined ? { reply_to: options.reply_to } : {}),
    payload,
  };
  return candidate as unknown as SynapseMessage<T>;
}
