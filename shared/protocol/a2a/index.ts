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
export { type AgentCard, type AgentCardInput, buildAgentCard, cardETag } from './agent-card.ts';
export type { A2ACodec, A2AVersion } from './codec.ts';
export {
  A2A_ERROR_DOMAIN,
  A2AProtocolError,
  BAD_REQUEST_TYPE,
  ERROR_CODES,
  ERROR_INFO_TYPE,
  errorHeaders,
  fromDomainError,
  httpStatusOf,
  toProtocolError,
} from './errors.ts';
export {
  checkContentType,
  type EnvelopeResult,
  failure,
  isValidId,
  type JsonRpcId,
  type JsonRpcResponse,
  jsonRpcError,
  parseEnvelope,
  success,
} from './jsonrpc.ts';
export { JSONRPC_METHODS, parseRequest, resolveOperation } from './methods.ts';
export { PROTOCOL_OPERATIONS, PUSH_CONFIG_LIMITS, type SendMessageCommand } from './operations.ts';
export { v1Codec } from './v1.ts';
export { v03Codec } from './v03.ts';
export {
  A2A_VERSION_HEADER,
  cardVersionFor,
  errorCodecFor,
  negotiateVersion,
  SUPPORTED_VERSIONS,
  selectCodec,
} from './versions.ts';
