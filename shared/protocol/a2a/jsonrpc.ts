/**
 * JSON-RPC 2.0 envelope: parse a request body, build response objects.
 * Version-neutral; the `data` of an error member comes from the request's
 * codec (`errorData`) because it differs between A2A versions.
 */
import { A2AProtocolError } from './errors.ts';

export type JsonRpcId = string | number | null;

export type EnvelopeResult =
  | { ok: true; id: JsonRpcId; method: string; params: Record<string, unknown> | undefined }
  | { ok: false; error: A2AProtocolError; id: JsonRpcId };

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The JSON-RPC `error` member of a protocol error, with the codec's version of its details. */
export const jsonRpcError = <D>(
  codec: { errorData(err: A2AProtocolError): D },
  err: A2AProtocolError,
): JsonRpcErrorObject & { data: D } => ({
  code: err.code,
  message: err.message,
  data: codec.errorData(err),
});

export interface JsonRpcSuccess<T = unknown> {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: T;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse<T = unknown> = JsonRpcSuccess<T> | JsonRpcFailure;

/** The media types a JSON-RPC request body may be declared as (a2a-js sends application/json). */
export const JSON_RPC_MEDIA_TYPES = ['application/json', 'application/a2a+json'] as const;

/**
 * Checks a request's Content-Type before its body is read: `application/json` or
 * `application/a2a+json`, in any case, parameters (`; charset=utf-8`) ignored. Anything
 * else is -32005 ContentTypeNotSupportedError (curl's `-d` without `-H` sends
 * `application/x-www-form-urlencoded`: the error tells which type to send).
 *
 * A request with no Content-Type at all (or an empty one) is read as JSON: being lenient
 * costs nothing, since the body must still be a valid JSON-RPC request, and some minimal
 * clients send none. Returns undefined when the body may be read.
 */
export function checkContentType(header: string | undefined | null): A2AProtocolError | undefined {
  const mediaType = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === '' || (JSON_RPC_MEDIA_TYPES as readonly string[]).includes(mediaType)) return undefined;
  return A2AProtocolError.contentTypeNotSupported(mediaType, JSON_RPC_MEDIA_TYPES);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Longest string id accepted: ids are echoed in every answer (and logged), so they stay short.
 * UUIDs take 36 characters, the @a2a-js/sdk client sends integers.
 */
export const MAX_ID_LENGTH = 256;

/** A JSON-RPC id this server echoes: a string of at most MAX_ID_LENGTH characters, a finite number or null. */
export const isValidId = (v: unknown): v is JsonRpcId =>
  v === null ||
  (typeof v === 'string' && v.length <= MAX_ID_LENGTH) ||
  (typeof v === 'number' && Number.isFinite(v));

/**
 * Parse and validate a JSON-RPC 2.0 request envelope. Never throws.
 *
 * - body missing or not JSON → -32700, id null.
 * - not a single request object (batch arrays included: A2A defines no batch semantics),
 *   `jsonrpc` not exactly "2.0", `id` absent, of the wrong type or a string over
 *   MAX_ID_LENGTH characters, `method` missing or not a non-empty string → -32600. The id
 *   is echoed whenever it is itself valid.
 * - `params` present but not an object (arrays, primitives, null) → -32602.
 *
 * A request without `id` is a JSON-RPC notification. A2A defines no notifications (every
 * operation has a result the client needs), and a notification must not be answered, which
 * would leave the caller with nothing; we therefore answer it with -32600 and id null.
 */
export function parseEnvelope(body: string | undefined | null): EnvelopeResult {
  if (body === undefined || body === null || body.trim() === '') {
    return { ok: false, error: A2AProtocolError.parseError('empty body'), id: null };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    return {
      ok: false,
      error: A2AProtocolError.parseError(e instanceof Error ? e.message : undefined),
      id: null,
    };
  }
  if (Array.isArray(parsed)) {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest('batch requests are not supported; send one request object'),
      id: null,
    };
  }
  if (!isPlainObject(parsed)) {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest('the request must be a JSON object'),
      id: null,
    };
  }
  const hasId = Object.hasOwn(parsed, 'id');
  const id: JsonRpcId = hasId && isValidId(parsed.id) ? parsed.id : null;
  if (parsed.jsonrpc !== '2.0') {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest('"jsonrpc" must be exactly "2.0"'),
      id,
    };
  }
  if (!hasId) {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest(
        '"id" is required: A2A has no JSON-RPC notifications (requests without an id)',
      ),
      id: null,
    };
  }
  if (!isValidId(parsed.id)) {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest(
        `"id" must be a string (at most ${MAX_ID_LENGTH} characters), a number or null`,
      ),
      id: null,
    };
  }
  if (typeof parsed.method !== 'string' || parsed.method === '') {
    return {
      ok: false,
      error: A2AProtocolError.invalidRequest('"method" must be a non-empty string'),
      id,
    };
  }
  const { method } = parsed;
  if (Object.hasOwn(parsed, 'params') && !isPlainObject(parsed.params)) {
    return {
      ok: false,
      error: A2AProtocolError.invalidParams([
        { field: 'params', description: 'must be an object (by-name parameters)' },
      ]),
      id,
    };
  }
  const params = isPlainObject(parsed.params) ? parsed.params : undefined;
  return { ok: true, id, method, params };
}

export function success<T>(id: JsonRpcId, result: T): JsonRpcSuccess<T> {
  return { jsonrpc: '2.0', id, result };
}

/** `error` is the encoded error object (`jsonRpcError(codec, err)`). */
export function failure(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error };
}
