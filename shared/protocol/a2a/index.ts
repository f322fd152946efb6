/**
 * The A2A wire layer (pure: no AWS, no I/O). Typical JSON-RPC handler flow:
 *
 *   const header = event.headers['a2a-version'];
 *   let codec;
 *   try { codec = selectCodec(header); }
 *   catch (e) { return reply(null, jsonRpcError(errorCodecFor(header), toProtocolError(e))); }
 *   const env = parseEnvelope(body);
 *   if (!env.ok) return reply(env.id, jsonRpcError(codec, env.error));
 *   try {
 *     const req = parseRequest(codec, env.method, env.params);
 *     // one entry per operation, in a table typed `{ [Op in Operation]: … }`, so an operation
 *     // without one is a type error (shared/app/a2a/jsonrpc.ts's RUNNERS)
 *     return reply(env.id, undefined, await RUNNERS[req.operation](req.command, …));
 *     // SendMessage's entry: codec.encodeSendResult(view, { includeArtifacts: true, historyLength }),
 *     // or, when the agent answered with a message and made no task, codec.encodeSendReply(message)
 *   } catch (e) { return reply(env.id, jsonRpcError(codec, toProtocolError(e))); }
 *
 * where reply() builds `failure(id, error)` / `success(id, result)` and uses
 * `httpStatusOf(error.code)` as the HTTP status.
 */
export {
  type AgentCard,
  type AgentCardInput,
  type AgentExtension,
  type AgentInterface,
  type AgentSkill,
  buildAgentCard,
  cardETag,
  type V1AgentCapabilities,
  type V1AgentCard,
  type V03AgentCard,
} from './agent-card.ts';
export {
  clip,
  findBoundsViolation,
  MAX_ARRAY_ITEMS,
  MAX_LIST_ITEMS,
  MAX_PARAMS_DEPTH,
  MAX_PARTS,
  MAX_VIOLATIONS,
} from './bounds.ts';
export type { A2ACodec, A2AVersion, WireObject } from './codec.ts';
export {
  A2A_ERROR_DOMAIN,
  A2AProtocolError,
  type A2AProtocolErrorInit,
  AUTH_REALM,
  BAD_REQUEST_TYPE,
  type BadRequestDetail,
  ERROR_CODES,
  ERROR_INFO_TYPE,
  type ErrorCode,
  type ErrorInfoDetail,
  errorHeaders,
  type FieldViolation,
  fromDomainError,
  httpStatusOf,
  isA2AProtocolError,
  toProtocolError,
} from './errors.ts';
export {
  checkContentType,
  type EnvelopeResult,
  failure,
  isValidId,
  JSON_RPC_MEDIA_TYPES,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  jsonRpcError,
  parseEnvelope,
  success,
} from './jsonrpc.ts';
export {
  JSONRPC_METHODS,
  type MethodLookup,
  type MethodTable,
  methodLookup,
  parseRequest,
  resolveOperation,
  V1_METHODS,
  V03_METHODS,
} from './methods.ts';
export {
  type CancelTaskCommand,
  type CommandMap,
  type CreatePushConfigCommand,
  type GetTaskCommand,
  isSupportedOperation,
  LIST_PAGE_SIZE,
  type ListPushConfigsCommand,
  type ListTasksCommand,
  type ListTasksResult,
  type Operation,
  type ParsedRequest,
  type ParseOptions,
  PROTOCOL_OPERATIONS,
  type ProtocolOperation,
  PUSH_CONFIG_LIMITS,
  type PushConfigCommand,
  type PushConfigView,
  type PushNotificationConfig,
  projectTask,
  type SendMessageCommand,
  SUPPORTED_OPERATIONS,
  type TaskEncodeOptions,
  type TaskProjection,
} from './operations.ts';
export {
  type V1ErrorDetails,
  type V1ListTasksResponse,
  type V1Message,
  type V1Part,
  type V1SendMessageReply,
  type V1Task,
  v1Codec,
} from './v1.ts';
export {
  type V03ErrorData,
  type V03ListTasksResponse,
  type V03Message,
  type V03Part,
  type V03Task,
  v03Codec,
} from './v03.ts';
export { normalizeTimestamp } from './validation.ts';
export {
  A2A_VERSION_HEADER,
  cardVersionFor,
  codecFor,
  errorCodecFor,
  negotiateVersion,
  SUPPORTED_VERSIONS,
  selectCodec,
} from './versions.ts';
