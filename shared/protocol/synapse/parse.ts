/**
 * parseSynapseMessage: raw body (or an already parsed value) → a typed message, or the typed
 * refusal a p2p:nack carries:
 * - message_format_invalid (400): not UTF-8 JSON, over the size or nesting bounds outside the
 *   payload, not an envelope, an unsupported protocol_version, an unknown type, a task message
 *   without task_id;
 * - invalid_params (400): a known type whose payload is wrong (or over the bounds), or whose
 *   payload names another task than the envelope.
 * Both name the offending field(s) (`payload.task.type`). Order: the bounds pre-pass, then the
 * envelope, then the payload; nothing recursive ever sees a value the pre-pass refused.
 */
import type * as z from '../../validation/zod.ts';
import { findBoundsViolation, formatPath, MAX_MESSAGE_BYTES } from './bounds.ts';
import { PROTOCOL_VERSION_PATTERN, SynapseEnvelopeSchema, type SynapseMessage } from './envelope.ts';
import { formatError, paramsError, SynapseProtocolError } from './errors.ts';
import { describeValue, violationsOf } from './issues.ts';
import {
  isSynapseMessageType,
  MESSAGE_ID_PATTERN,
  MESSAGE_TYPES,
  NO_CONTROL,
  PAYLOAD_SCHEMAS,
  type SynapseMessageType,
} from './payloads.ts';

/** What a nack can answer when the message could not be read in full: the pieces that were valid. */
export interface ReplyTarget {
  message_id?: string;
  task_id?: string;
  correlation_id?: string;
  sender?: { agent_id: string; endpoint?: string };
  type?: SynapseMessageType;
}

export type ParseResult =
  | { ok: true; message: SynapseMessage }
  | { ok: false; error: SynapseProtocolError; replyTo: ReplyTarget };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw body as text, or the refusal. */
function decode(raw: string | Uint8Array): string | SynapseProtocolError {
  const bytes = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.byteLength;
  if (bytes > MAX_MESSAGE_BYTES) {
    return formatError('(message)', `is ${bytes} bytes; at most ${MAX_MESSAGE_BYTES} are accepted`);
  }
  if (typeof raw === 'string') return raw;
  try {
    return utf8.decode(raw);
  } catch {
    return formatError('(message)', 'is not UTF-8 text');
  }
}

/**
 * Parse one Synapse message. `raw` is the HTTP body (a string or its bytes) or a value already
 * parsed from JSON. Never throws.
 */
export function parseSynapseMessage(raw: unknown): ParseResult {
  let value: unknown = raw;
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    const text = decode(raw);
    if (text instanceof SynapseProtocolError) return refuse(text);
    try {
      value = JSON.parse(text);
    } catch {
      return refuse(formatError('(message)', 'is not JSON'));
    }
  }
  const bounds = findBoundsViolation(value);
  if (bounds && bounds.path[0] !== 'payload') {
    return refuse(formatError(formatPath(bounds.path), bounds.description), value);
  }
  if (!isPlainObject(value)) {
    return refuse(formatError('(message)', 'must be a JSON object (a Synapse envelope)'), value);
  }

  // The version and the type first: they decide how the rest is read.
  const version = value.protocol_version;
  if (typeof version !== 'string' || !PROTOCOL_VERSION_PATTERN.test(version)) {
    const description =
      version === undefined
        ? 'is required (a string such as "1.0")'
        : `${describeValue(version)} is not supported; this hub speaks 1.x (it writes "1.0")`;
    return refuse(formatError('protocol_version', description), value);
  }
  const type = value.type;
  if (!isSynapseMessageType(type)) {
    const description =
      type === undefined
        ? 'is required (a p2p:* message type)'
        : `${describeValue(type)} is not a Synapse message type`;
    return refuse(formatError('type', description), value);
  }

  const envelope = SynapseEnvelopeSchema.safeParse(value, { reportInput: true });
  if (!envelope.success) {
    return refuse(
      issuesError('message_format_invalid', envelope.error.issues, 'the envelope is not valid'),
      value,
    );
  }
  const headers = envelope.data;
  const info = MESSAGE_TYPES[type];
  if (info.taskScoped && headers.task_id === undefined) {
    return refuse(formatError('task_id', `is required for ${type} (a string)`), value);
  }

  if (bounds) {
    const field = formatPath(bounds.path);
    return refuse(paramsError(field, bounds.description), value);
  }
  const payload = PAYLOAD_SCHEMAS[type].safeParse(value.payload, { reportInput: true });
  if (!payload.success) {
    const issues = payload.error.issues.map((i) => ({ ...i, path: ['payload', ...i.path] }));
    return refuse(issuesError('invalid_params', issues, `the ${type} payload is not valid`), value);
  }

  if (info.payloadTaskId) {
    const [first, second] = info.payloadTaskId;
    const data = payload.data as Record<string, unknown>;
    const named = second === undefined ? data[first] : (data[first] as Record<string, unknown>)[second];
    if (named !== headers.task_id) {
      const field = ['payload', ...info.payloadTaskId].join('.');
      const description = `must equal the envelope's task_id (${describeValue(headers.task_id)})`;
      return refuse(paramsError(field, description), value);
    }
  }
  const { protocol_version, message_id, task_id, sender, recipient, timestamp, correlation_id, reply_to } =
    headers;
  // the envelope's own order, absent fields left out
  const message = Object.fromEntries(
    Object.entries({
      protocol_version,
      type,
      message_id,
      task_id,
      sender,
      recipient,
      timestamp,
      correlation_id,
      reply_to,
      payload: payload.data,
    }).filter(([, v]) => v !== undefined),
  );
  return { ok: true, message: message as SynapseMessage };
}

function refuse(error: SynapseProtocolError, value?: unknown): ParseResult {
  return { ok: false, error, replyTo: replyTargetOf(value) };
}

const isId = (v: unknown, pattern: RegExp, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max && pattern.test(v);

/** The envelope fields that are valid on their own, for a nack to name what it answers. */
export function replyTargetOf(value: unknown): ReplyTarget {
  if (!isPlainObject(value)) return {};
  const out: ReplyTarget = {};
  if (isId(value.message_id, MESSAGE_ID_PATTERN, 128)) out.message_id = value.message_id;
  if (isId(value.task_id, NO_CONTROL, 256)) out.task_id = value.task_id;
  if (isId(value.correlation_id, NO_CONTROL, 256)) out.correlation_id = value.correlation_id;
  if (isSynapseMessageType(value.type)) out.type = value.type;
  const sender = value.sender;
  if (isPlainObject(sender) && isId(sender.agent_id, NO_CONTROL, 256)) {
    out.sender = { agent_id: sender.agent_id };
  }
  return out;
}

function issuesError(
  code: 'message_format_invalid' | 'invalid_params',
  issues: readonly z.core.$ZodIssue[],
  summary: string,
): SynapseProtocolError {
  const { violations, total } = violationsOf(issues);
  const first = violations[0];
  const message = first
    ? `${summary}: ${first.field} ${first.description}${total > 1 ? ` (and ${total - 1} more)` : ''}`
    : summary;
  return new SynapseProtocolError(code, message, { violations, totalViolations: total });
}
