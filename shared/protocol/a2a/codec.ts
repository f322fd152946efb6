/**
 * The codec contract (one implementation per A2A wire version) and the
 * version-neutral dispatch on top of it: version negotiation from the
 * `A2A-Version` header and method resolution with helpful errors.
 */
import type { Message, TaskView } from '../../domain/task.ts';
import { A2AProtocolError } from './errors.ts';
import type { JsonRpcErrorObject } from './jsonrpc.ts';
import type {
  CancelTaskCommand,
  GetTaskCommand,
  ListTasksCommand,
  ListTasksResult,
  MethodLookup,
  Operation,
  ParsedRequest,
  ParseOptions,
  ProtocolOperation,
  SendMessageCommand,
  TaskEncodeOptions,
} from './operations.ts';
import { v1Codec } from './v1.ts';
import { v03Codec } from './v03.ts';

export type A2AVersion = '1.0' | '0.3';

/** Supported versions, preferred first. */
export const SUPPORTED_VERSIONS: readonly A2AVersion[] = ['1.0', '0.3'];

export const A2A_VERSION_HEADER = 'A2A-Version';

/** A JSON object ready for JSON.stringify (each codec exports its precise wire types). */
export type WireObject = object;

export interface A2ACodec extends MethodLookup {
  readonly version: A2AVersion;

  /** Each parser throws A2AProtocolError (-32602 with field violations, or a capability error). */
  parseSendMessage(params: unknown, options?: ParseOptions): SendMessageCommand;
  parseGetTask(params: unknown): GetTaskCommand;
  parseListTasks(params: unknown): ListTasksCommand;
  parseCancelTask(params: unknown): CancelTaskCommand;

  encodeTask(view: TaskView, opts: TaskEncodeOptions): WireObject;
  /** v1.0 `{task}` wrapper; v0.3 bare Task. */
  encodeSendResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  /**
   * SendMessage answered with a message and no task (digest §4.3): v1.0 `{message}` wrapper,
   * v0.3 bare Message (`kind: "message"`). `message` is the agent's reply as the task service
   * made it: role 'agent', contextId set, no taskId.
   */
  encodeSendReply(message: Message): WireObject;
  encodeGetResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  encodeCancelResult(view: TaskView, opts: TaskEncodeOptions): WireObject;
  encodeListResult(result: ListTasksResult, opts: TaskEncodeOptions): WireObject;
  /** The JSON-RPC `error` member, with version-appropriate `data`. */
  encodeError(err: A2AProtocolError): JsonRpcErrorObject;
}

/**
 * The wire version a request asks for. Only Major.Minor counts (a patch part is
 * ignored, "1" means 1.0); an absent or empty header means 0.3 (digest §1.2).
 * Returns undefined for versions this server does not speak.
 */
export function negotiateVersion(header: string | undefined | null): A2AVersion | undefined {
  const value = header?.trim() ?? '';
  if (value === '') return '0.3';
  const m = /^(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(value);
  if (!m) return undefined;
  const major = Number(m[1]);
  const minor = Number(m[2] ?? '0');
  if (major === 1 && minor === 0) return '1.0';
  if (major === 0 && minor === 3) return '0.3';
  return undefined;
}

export const codecFor = (version: A2AVersion): A2ACodec => (version === '1.0' ? v1Codec : v03Codec);

/** The codec for an `A2A-Version` header value; throws -32009 for unsupported versions. */
export function selectCodec(a2aVersionHeader: string | undefined | null): A2ACodec {
  const version = negotiateVersion(a2aVersionHeader);
  if (version === undefined) {
    throw A2AProtocolError.versionNotSupported(String(a2aVersionHeader).trim(), SUPPORTED_VERSIONS);
  }
  return codecFor(version);
}

/**
 * The codec to encode an error with when the request's version may be unusable:
 * the negotiated one, else v1.0 (VersionNotSupportedError only exists from 1.0 on).
 */
export function errorCodecFor(a2aVersionHeader: string | undefined | null): A2ACodec {
  return codecFor(negotiateVersion(a2aVersionHeader) ?? '1.0');
}

/**
 * Which agent card shape to serve: v1.0 unless v0.3 is asked for explicitly (see agent-card.ts), by
 * the query parameter `A2A-Version=0.3` (it wins: it is part of the URL a client was configured
 * with) or by the header `A2A-Version: 0.3`. Card fetchers send no header: absent means 1.0 here,
 * unlike for JSON-RPC requests; unknown versions get the v1.0 card too.
 */
export function cardVersionFor(
  a2aVersionHeader: string | undefined | null,
  a2aVersionQuery?: string | undefined | null,
): A2AVersion {
  const asked = a2aVersionQuery?.trim() ? a2aVersionQuery : a2aVersionHeader;
  return asked?.trim() && negotiateVersion(asked) === '0.3' ? '0.3' : '1.0';
}

const STREAMING_OPS: readonly ProtocolOperation[] = ['SendStreamingMessage', 'SubscribeToTask'];
const PUSH_OPS: readonly ProtocolOperation[] = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
];

/** The error for an operation that exists in the protocol but that this agent does not offer. */
function notOffered(op: ProtocolOperation, method: string): A2AProtocolError {
  if (STREAMING_OPS.includes(op)) {
    return A2AProtocolError.unsupportedOperation(
      `${method}: streaming is not supported by this agent (capabilities.streaming is false); ` +
        'send the message without streaming and poll the task',
      { method },
    );
  }
  if (PUSH_OPS.includes(op)) return A2AProtocolError.pushNotificationNotSupported(`${method}`);
  return A2AProtocolError.unsupportedOperation(
    `${method}: this agent has no extended agent card (capabilities.extendedAgentCard is false)`,
    { method },
  );
}

/**
 * The supported operation a method names, for this codec's version. Throws:
 * - -32601 for unknown methods, and for methods of the other A2A version (the
 *   message says which header/version makes them valid);
 * - -32004 / -32003 for protocol operations this agent does not offer (streaming,
 *   extended card / push notifications), as the spec's capability rules require.
 */
export function resolveOperation(codec: A2ACodec, method: string): Operation {
  const op = codec.operationOf(method);
  if (op) return op;
  const known = codec.protocolOperationOf(method);
  if (known) throw notOffered(known, method);

  const other = codecFor(codec.version === '1.0' ? '0.3' : '1.0');
  const otherOp = other.protocolOperationOf(method);
  if (otherOp) {
    const here = codec.methodOf(otherOp);
    if (codec.version === '1.0') {
      throw A2AProtocolError.methodNotFound(
        method,
        `"${method}" is an A2A v0.3 method name but the request declares A2A-Version: 1.0; ` +
          `${here ? `use ${here}, or ` : ''}omit the A2A-Version header (or send A2A-Version: 0.3) to call ${method}`,
        { requiredVersion: '0.3', ...(here ? { v1Method: here } : {}) },
      );
    }
    throw A2AProtocolError.methodNotFound(
      method,
      `"${method}" is an A2A v1.0 method; send the HTTP header A2A-Version: 1.0 to call it ` +
        '(requests without A2A-Version are treated as A2A v0.3' +
        `${here ? `, where this operation is "${here}")` : ', which has no such operation)'}`,
      { requiredVersion: '1.0', ...(here ? { v03Method: here } : {}) },
    );
  }
  throw A2AProtocolError.methodNotFound(method);
}

/** Resolve the method and parse its params into the operation's command. */
export function parseRequest(
  codec: A2ACodec,
  method: string,
  params: unknown,
  options?: ParseOptions,
): ParsedRequest {
  const operation = resolveOperation(codec, method);
  switch (operation) {
    case 'SendMessage':
      return { operation, command: codec.parseSendMessage(params, options) };
    case 'GetTask':
      return { operation, command: codec.parseGetTask(params) };
    case 'ListTasks':
      return { operation, command: codec.parseListTasks(params) };
    case 'CancelTask':
      return { operation, command: codec.parseCancelTask(params) };
  }
}
