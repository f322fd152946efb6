/**
 * Building messages to send: `createMessage` (any type, checked against the same schemas as an
 * inbound message, so this hub never sends what it would refuse), and the synchronous answers
 * `ack` and `nack`.
 */
import { clip } from '../../validation/text.ts';
import { MAX_TEXT_LENGTH } from './bounds.ts';
import { composeMessage, type MessageOptions } from './compose.ts';
import type { SynapseMessage, SynapseSender } from './envelope.ts';
import { SYNAPSE_ERRORS, type SynapseErrorCode, type SynapseProtocolError } from './errors.ts';
import { parseSynapseMessage, type ReplyTarget } from './parse.ts';
import { MESSAGE_TYPES, type SynapseMessageType, type SynapsePayloadInput } from './payloads.ts';

export type { MessageOptions };

const payloadTaskId = (type: SynapseMessageType, payload: unknown): string | undefined => {
  const path = MESSAGE_TYPES[type].payloadTaskId;
  if (!path || typeof payload !== 'object' || payload === null) return undefined;
  let v: unknown = payload;
  for (const key of path)
    v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' ? v : undefined;
};

/** A message of `type`, validated; throws the SynapseProtocolError an inbound copy would get. */
export function createMessage<T extends SynapseMessageType>(
  type: T,
  payload: SynapsePayloadInput<T>,
  options: MessageOptions,
): SynapseMessage<T> {
  const candidate = composeMessage(type, payload, {
    ...options,
    task_id: options.task_id ?? payloadTaskId(type, payload),
  });
  const parsed = parseSynapseMessage(candidate);
  if (!parsed.ok) throw parsed.error;
  return parsed.message as SynapseMessage<T>;
}

/** The envelope fields of an answer to `original`: to its sender, same task and correlation. */
export const replyOptions = (
  original: ReplyTarget | SynapseMessage | undefined,
  sender: SynapseSender,
): MessageOptions => ({
  sender,
  ...(original?.sender ? { recipient: { agent_id: original.sender.agent_id } } : {}),
  ...(original?.task_id !== undefined ? { task_id: original.task_id } : {}),
  ...(original?.correlation_id !== undefined ? { correlation_id: original.correlation_id } : {}),
  ...(original?.message_id !== undefined ? { reply_to: original.message_id } : {}),
});

export interface AckOptions {
  sender: SynapseSender;
  /** The message was received before: acknowledged again, with no effect. */
  duplicate?: boolean;
  /** The task's state after the message. */
  status?: SynapsePayloadInput<'p2p:ack'>['status'];
  message?: string;
  message_id?: string;
  timestamp?: Date | string;
}

/** The p2p:ack answering `original`. */
export function ack(original: SynapseMessage, options: AckOptions): SynapseMessage<'p2p:ack'> {
  const { sender, duplicate, status, message, message_id, timestamp } = options;
  return createMessage(
    'p2p:ack',
    { duplicate, status, message },
    { ...replyOptions(original, sender), message_id, timestamp },
  );
}

export interface NackOptions {
  /** Free-form details (for format errors: `{ field, violations }`). */
  details?: unknown;
  /** This hub. */
  sender: SynapseSender;
  /** What is answered: the message, or what could be read of it (ParseResult.replyTo). */
  inReplyTo?: ReplyTarget | SynapseMessage;
  message_id?: string;
  timestamp?: Date | string;
}

/** A p2p:nack and the HTTP status it is answered with. */
export interface Nack {
  status: number;
  message: SynapseMessage<'p2p:nack'>;
}

/**
 * The p2p:nack carrying `code` (one of the protocol's error codes), `message` and `details`, and its HTTP
 * status (SYNAPSE_ERRORS). Answers `inReplyTo` when given (its sender, task, correlation, message id).
 */
export function nack(code: SynapseErrorCode, message: string, options: NackOptions): Nack {
  const { details, sender, inReplyTo, message_id, timestamp } = options;
  const reply = replyOptions(inReplyTo, sender);
  return {
    status: SYNAPSE_ERRORS[code].status,
    message: createMessage(
      'p2p:nack',
      { code, message: clip(message, MAX_TEXT_LENGTH), ...(details !== undefined ? { details } : {}) },
      { ...reply, message_id, timestamp },
    ),
  };
}

/** The nack answering a refusal of the protocol layer (its code, message and field details). */
export const nackOf = (error: SynapseProtocolError, options: Omit<NackOptions, 'details'>): Nack =>
  nack(error.code, error.message, { ...options, details: error.details });
