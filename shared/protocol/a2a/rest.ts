/**
 * The HTTP+JSON (REST) binding's wire rules that are not shapes: the HTTP
 * status and `google.rpc.Status` of each protocol error (A2A 1.0.1 §5.4),
 * and the error body (docs/rest.md#errors). Bodies are the v1.0 ProtoJSON
 * objects, translated by the v1.0 codec.
 */
import { A2AProtocolError, ERROR_CODES } from './errors.ts';
import { v1Codec } from './v1.ts';

/** The A2A media type (1.0.1 prefers it for HTTP+JSON; the TCK and older clients expect application/json). */
export const A2A_JSON = 'application/a2a+json';
export const PLAIN_JSON = 'application/json';

/** The media types a request body may be declared as. */
export const REST_MEDIA_TYPES = ['application/json', 'application/a2a+json'] as const;

interface Mapping {
  http: number;
  /** The gRPC code name (`google.rpc.Status.status`). */
  status: string;
}

const BY_CODE: Readonly<Record<number, Mapping>> = {
  [ERROR_CODES.PARSE_ERROR]: { http: 400, status: 'INVALID_ARGUMENT' },
  [ERROR_CODES.INVALID_REQUEST]: { http: 400, status: 'INVALID_ARGUMENT' },
  [ERROR_CODES.METHOD_NOT_FOUND]: { http: 404, status: 'NOT_FOUND' },
  [ERROR_CODES.INVALID_PARAMS]: { http: 400, status: 'INVALID_ARGUMENT' },
  [ERROR_CODES.INTERNAL_ERROR]: { http: 500, status: 'INTERNAL' },
  [ERROR_CODES.TASK_NOT_FOUND]: { http: 404, status: 'NOT_FOUND' },
  [ERROR_CODES.TASK_NOT_CANCELABLE]: { http: 400, status: 'FAILED_PRECONDITION' },
  [ERROR_CODES.PUSH_NOTIFICATION_NOT_SUPPORTED]: { http: 400, status: 'FAILED_PRECONDITION' },
  [ERROR_CODES.UNSUPPORTED_OPERATION]: { http: 400, status: 'FAILED_PRECONDITION' },
  [ERROR_CODES.CONTENT_TYPE_NOT_SUPPORTED]: { http: 400, status: 'INVALID_ARGUMENT' },
  [ERROR_CODES.INVALID_AGENT_RESPONSE]: { http: 500, status: 'INTERNAL' },
  [ERROR_CODES.EXTENDED_AGENT_CARD_NOT_CONFIGURED]: { http: 400, status: 'FAILED_PRECONDITION' },
  [ERROR_CODES.EXTENSION_SUPPORT_REQUIRED]: { http: 400, status: 'FAILED_PRECONDITION' },
  [ERROR_CODES.VERSION_NOT_SUPPORTED]: { http: 400, status: 'FAILED_PRECONDITION' },
  // the merged PR text says 412 Precondition Failed; 409 is gRPC ABORTED's canonical HTTP mapping
  // (what a transcoder emits) and what the dev-1.1 summary lists: docs/generations.md#the-error
  [ERROR_CODES.TASK_GENERATION_MISMATCH]: { http: 409, status: 'ABORTED' },
  [ERROR_CODES.CONFLICT]: { http: 409, status: 'ABORTED' },
  [ERROR_CODES.UNAUTHENTICATED]: { http: 401, status: 'UNAUTHENTICATED' },
  [ERROR_CODES.PERMISSION_DENIED]: { http: 403, status: 'PERMISSION_DENIED' },
  [ERROR_CODES.RATE_LIMITED]: { http: 429, status: 'RESOURCE_EXHAUSTED' },
  [ERROR_CODES.UNAVAILABLE]: { http: 503, status: 'UNAVAILABLE' },
};

/** The HTTP status and gRPC status name of a protocol error over HTTP+JSON. */
export const restStatusOf = (err: A2AProtocolError): Mapping =>
  BY_CODE[err.code] ?? { http: 500, status: 'INTERNAL' };

export interface RestErrorBody {
  error: { code: number; status: string; message: string; details: unknown };
}

/** The error body: `{"error": google.rpc.Status}` with the v1.0 typed details (ErrorInfo first). */
export const restErrorBody = (err: A2AProtocolError, http = restStatusOf(err).http): RestErrorBody => ({
  error: {
    code: http,
    status: restStatusOf(err).status,
    message: err.message,
    details: v1Codec.errorData(err),
  },
});

/** The media type of a header value, lower-cased, without parameters. */
const mediaTypeOf = (value: string): string => value.split(';')[0]?.trim().toLowerCase() ?? '';

/** The `q` parameter of one Accept entry (1 when absent, 0 when malformed). */
const qualityOf = (entry: string): number => {
  const q = /;\s*q\s*=\s*([0-9.]+)/i.exec(entry)?.[1];
  if (q === undefined) return 1;
  const n = Number(q);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0;
};

/**
 * The media type of a JSON answer (docs/rest.md, "Content type"): the one of application/a2a+json and
 * application/json that the client's `Accept` names with the higher quality (the first listed on a
 * tie); application/json when Accept names neither but takes any type (a wildcard range); else the
 * request's own Content-Type when it is one of the two; else application/json. A client is never
 * refused for its Accept: both are JSON, and one that accepts neither gets the common one.
 */
export const responseMediaType = (headers: Record<string, string | undefined>): string => {
  let best: { type: string; q: number } | undefined;
  let wildcard = false;
  for (const entry of (headers.accept ?? '').split(',')) {
    const type = mediaTypeOf(entry);
    const q = qualityOf(entry);
    if (q === 0) continue;
    if (type === '*/*' || type === 'application/*') wildcard = true;
    else if ((type === A2A_JSON || type === PLAIN_JSON) && (!best || q > best.q)) best = { type, q };
  }
  if (best) return best.type;
  if (wildcard) return PLAIN_JSON;
  return mediaTypeOf(headers['content-type'] ?? '') === A2A_JSON ? A2A_JSON : PLAIN_JSON;
};

/** A request body's media type is acceptable: JSON, any case, parameters ignored. */
export const isRestMediaType = (contentType: string | undefined): boolean =>
  (REST_MEDIA_TYPES as readonly string[]).includes(mediaTypeOf(contentType ?? ''));

/** The error for a request body of another media type (answered with HTTP 415). */
export const unsupportedMediaType = (contentType: string): A2AProtocolError =>
  A2AProtocolError.contentTypeNotSupported(mediaTypeOf(contentType).slice(0, 100), REST_MEDIA_TYPES);
