/**
 * The Synapse message envelope (docs/synapse-protocol.md#the-envelope). The protocol names it
 * `UnifiedSynapseMessage` but does not define it where this project can read it, so this project
 * defines it:
 *
 * ```json
 * {
 *   "protocol_version": "1.0",
 *   "type": "p2p:task_request",
 *   "message_id": "0b9f8a52-5d7e-4f0e-9a51-2f1c3c1f7b10",
 *   "task_id": "task-xxx",
 *   "sender": { "agent_id": "agent-a", "endpoint": "https://a.example/synapse/callback" },
 *   "recipient": { "agent_id": "agent-b" },
 *   "timestamp": "2026-01-01T00:00:00Z",
 *   "correlation_id": "corr-xxx",
 *   "reply_to": "…the message_id answered…",
 *   "payload": { … }
 * }
 * ```
 *
 * snake_case throughout, like the protocol's payloads (`task_id`, `correlation_id`, `reply_to` are
 * already payload fields): one spelling per wire format, and a field means the same at
 * both levels.
 */
import * as z from '../../validation/zod.ts';
import {
  endpointSchema,
  freeObject,
  idSchema,
  MESSAGE_TYPES,
  messageIdSchema,
  object,
  opt,
  PAYLOAD_SCHEMAS,
  SYNAPSE_MESSAGE_TYPES,
  type SynapseMessageType,
  type SynapsePayload,
  timestampSchema,
} from './payloads.ts';

/**
 * The versions this hub reads: major 1, any minor (a minor version only adds optional fields or
 * message types; unknown fields are ignored, an unknown type is refused as such).
 */
export const PROTOCOL_VERSION_PATTERN = /^1\.(0|[1-9][0-9]{0,3})$/;

export const protocolVersionSchema = z.string().check(z.maxLength(16), z.regex(PROTOCOL_VERSION_PATTERN));

/** Who sends: its agent id (the peer id its keys are configured under) and where replies go. */
export const SenderSchema = object({
  agent_id: idSchema,
  /** The sender's Synapse endpoint (its `/synapse/callback`): where callbacks for this message go. */
  endpoint: endpointSchema,
});

/** Whom the message is for. */
export const RecipientSchema = object({
  agent_id: idSchema,
  endpoint: opt(endpointSchema),
});

/** Every envelope field but `protocol_version`, `type` and `payload`. */
const headerShape = {
  message_id: messageIdSchema,
  task_id: opt(idSchema),
  sender: SenderSchema,
  recipient: opt(RecipientSchema),
  timestamp: timestampSchema,
  correlation_id: opt(idSchema),
  reply_to: opt(messageIdSchema),
};

/**
 * The envelope of any message, its payload any JSON object: what is checked before the payload
 * (an error here is message_format_invalid; one in the payload, invalid_params).
 */
export const SynapseEnvelopeSchema = object({
  protocol_version: protocolVersionSchema,
  type: z.enum(SYNAPSE_MESSAGE_TYPES),
  ...headerShape,
  payload: freeObject,
});

/**
 * The whole message of one type: the envelope with that type's payload schema (and `task_id`
 * required when the type concerns a task). What it cannot say, the parser adds: the payload's task
 * id equals the envelope's, and the bounds of free-form values (bounds.ts).
 */
export const messageSchemaOf = <T extends SynapseMessageType>(type: T) =>
  object({
    protocol_version: protocolVersionSchema,
    type: z.literal(type),
    ...headerShape,
    ...(MESSAGE_TYPES[type].taskScoped ? { task_id: idSchema } : {}),
    payload: PAYLOAD_SCHEMAS[type],
  });

/** Any whole message, by its `type` (built on first use: only the JSON Schema generation needs it). */
let messageUnion: ReturnType<typeof buildMessageUnion> | undefined;
const buildMessageUnion = () =>
  z.discriminatedUnion(
    'type',
    SYNAPSE_MESSAGE_TYPES.map((t) => messageSchemaOf(t)) as unknown as [
      ReturnType<typeof messageSchemaOf<'p2p:task_request'>>,
      ...ReturnType<typeof messageSchemaOf<SynapseMessageType>>[],
    ],
  );
export const synapseMessageSchema = () => (messageUnion ??= buildMessageUnion());

export type SynapseSender = z.output<typeof SenderSchema>;
export type SynapseRecipient = z.output<typeof RecipientSchema>;

/** The envelope fields of a parsed message (all but `type` and `payload`). */
export type SynapseHeaders = { protocol_version: string } & z.output<z.ZodMiniObject<typeof headerShape>>;

/** A parsed message of type `T` (a union over the types when `T` is). */
export type SynapseMessage<T extends SynapseMessageType = SynapseMessageType> = {
  [K in T]: SynapseHeaders & { type: K; payload: SynapsePayload<K> };
}[T];
