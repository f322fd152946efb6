/**
 * JSON-RPC method names per A2A version, and the operation a method names:
 * helpful errors for the other version's names and for operations this agent
 * does not offer. The HTTP+JSON binding has routes instead.
 */
import type { A2ACodec, A2AVersion } from './codec.ts';
import { A2AProtocolError } from './errors.ts';
import {
  type CommandMap,
  isSupportedOperation,
  type Operation,
  type ParsedRequest,
  type ParseOptions,
  PROTOCOL_OPERATIONS,
  type ProtocolOperation,
} from './operations.ts';

/** A version's JSON-RPC method names; operations missing from the table do not exist in that version. */
export type MethodTable = Readonly<Partial<Record<ProtocolOperation, string>>>;

export const V1_METHODS = {
  SendMessage: 'SendMessage',
  SendStreamingMessage: 'SendStreamingMessage',
  GetTask: 'GetTask',
  ListTasks: 'ListTasks',
  CancelTask: 'CancelTask',
  SubscribeToTask: 'SubscribeToTask',
  CreateTaskPushNotificationConfig: 'CreateTaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'GetTaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigs',
  DeleteTaskPushNotificationConfig: 'DeleteTaskPushNotificationConfig',
  GetExtendedAgentCard: 'GetExtendedAgentCard',
} as const satisfies MethodTable;

/** v0.3 JSON-RPC method names; v0.3 has no ListTasks. */
export const V03_METHODS = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
} as const satisfies MethodTable;

export interface MethodLookup {
  /** The supported operation `method` names, if any. */
  operationOf(method: string): Operation | undefined;
  /** Any A2A operation `method` names in this version, implemented here or not. */
  protocolOperationOf(method: string): ProtocolOperation | undefined;
  methodOf(op: ProtocolOperation): string | undefined;
}

export function methodLookup(table: MethodTable): MethodLookup {
  const byMethod = new Map<string, ProtocolOperation>();
  for (const op of PROTOCOL_OPERATIONS) {
    const method = table[op];
    if (method !== undefined) byMethod.set(method, op);
  }
  return {
    operationOf: (method) => {
      const op = byMethod.get(method);
      return op !== undefined && isSupportedOperation(op) ? op : undefined;
    },
    protocolOperationOf: (method) => byMethod.get(method),
    methodOf: (op) => table[op],
  };
}

/** The JSON-RPC methods of each version. */
export const JSONRPC_METHODS: Readonly<Record<A2AVersion, MethodLookup>> = {
  '1.0': methodLookup(V1_METHODS),
  '0.3': methodLookup(V03_METHODS),
};

const PUSH_OPS: readonly ProtocolOperation[] = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
];

/** The error for an operation that exists in the protocol but that this agent does not offer. */
function notOffered(op: ProtocolOperation, method: string): A2AProtocolError {
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
 * - -32004 / -32003 for protocol operations this agent does not offer (the extended
 *   card; push notifications unless `options.pushNotifications`), as the spec's capability
 *   rules require.
 */
export function resolveOperation(codec: A2ACodec, method: string, options: ParseOptions = {}): Operation {
  const methods = JSONRPC_METHODS[codec.version];
  const op = methods.operationOf(method);
  // push-config operations exist only where push notifications are offered: refused before their params
  if (op && PUSH_OPS.includes(op) && !options.pushNotifications) throw notOffered(op, method);
  if (op) return op;
  const known = methods.protocolOperationOf(method);
  if (known) throw notOffered(known, method);

  const other = JSONRPC_METHODS[codec.version === '1.0' ? '0.3' : '1.0'];
  const otherOp = other.protocolOperationOf(method);
  if (otherOp) {
    const here = methods.methodOf(otherOp);
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

/** How each operation's params become its command: an operation without a parser is a type error here. */
const PARSERS: {
  readonly [Op in Operation]: (codec: A2ACodec, params: unknown, options?: ParseOptions) => CommandMap[Op];
} = {
  SendMessage: (codec, params, options) => codec.parseSendMessage(params, options),
  SendStreamingMessage: (codec, params, options) => codec.parseSendMessage(params, options),
  SubscribeToTask: (codec, params) => codec.parseSubscribeToTask(params),
  GetTask: (codec, params, options) => codec.parseGetTask(params, options),
  ListTasks: (codec, params) => codec.parseListTasks(params),
  CancelTask: (codec, params) => codec.parseCancelTask(params),
  GetExtendedAgentCard: (codec, params) => codec.parseGetExtendedAgentCard(params),
  CreateTaskPushNotificationConfig: (codec, params) => codec.parseCreatePushConfig(params),
  GetTaskPushNotificationConfig: (codec, params) => codec.parsePushConfigRef(params, 'get'),
  ListTaskPushNotificationConfigs: (codec, params) => codec.parseListPushConfigs(params),
  DeleteTaskPushNotificationConfig: (codec, params) => codec.parsePushConfigRef(params, 'delete'),
};

/** Resolve the method and parse its params into the operation's command. */
export function parseRequest(
  codec: A2ACodec,
  method: string,
  params: unknown,
  options?: ParseOptions,
): ParsedRequest {
  const operation = resolveOperation(codec, method, options);
  // the operation with its own parser's command: a member of ParsedRequest (a union the compiler
  // cannot correlate with PARSERS' entry for it)
  return { operation, command: PARSERS[operation](codec, params, options) } as ParsedRequest;
}
