/**
 * A2A protocol errors: one error class carrying everything both wire
 * versions need (JSON-RPC code, message, ErrorInfo reason + metadata and
 * optional BadRequest field violations). Codecs decide how it looks on the
 * wire (v1.0: typed `data` array; v0.3: free-form `data` object).
 *
 * Codes (A2A §5.4), plus implementation-defined ones:
 *   -32010 TASK_GENERATION_MISMATCH  A2A dev-1.1 (a2aproject/A2A#1810): a
 *                    message's ifGenerationMatch is not the task's generation
 *                    (docs/generations.md); only used when generations are on.
 *   -32050 CONFLICT  the task was modified concurrently too often; the
 *                    request was not applied and may simply be retried.
 *   401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 429 RATE_LIMITED: A2A
 *                    standardizes no JSON-RPC code for these (they are
 *                    transport-level); the code is the HTTP status the
 *                    answer carries, the same whether API Gateway or the
 *                    function answers (docs/security.md#errors).
 *   503 UNAVAILABLE  the same for a service the hub stands on that stayed
 *                    throttled or failing through the SDK's retries: nothing
 *                    was written, send again after `Retry-After`
 *                    (docs/reliability.md).
 */
import {
  AuthError,
  ConflictError,
  type DomainError,
  DuplicateMessageError,
  GenerationMismatchError,
  InvalidTransitionError,
  isDomainError,
  PayloadTooLargeError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnavailableError,
  ValidationError,
} from '../../domain/errors.ts';
import { toA2AState } from '../../domain/states.ts';
import { clip } from '../../validation/text.ts';
import {
  MAX_DESCRIPTION_LENGTH,
  MAX_ERROR_MESSAGE_LENGTH,
  MAX_FIELD_PATH_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_VIOLATIONS,
} from './bounds.ts';

export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

export const ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
  /** A2A dev-1.1 TaskGenerationMismatchError (a2aproject/A2A#1810; docs/generations.md). */
  TASK_GENERATION_MISMATCH: -32010,
  /** Implementation-defined (range -32000…-32099): concurrent modification, retry the request. */
  CONFLICT: -32050,
  /** Implementation-defined, the HTTP status: no or invalid credentials (with a `WWW-Authenticate` challenge). */
  UNAUTHENTICATED: 401,
  /** Implementation-defined, the HTTP status: valid credentials without the right, or for another tenant. */
  PERMISSION_DENIED: 403,
  /** Implementation-defined, the HTTP status: the client's request rate is over its throttle. */
  RATE_LIMITED: 429,
  /** Implementation-defined, the HTTP status: a dependency stayed unavailable; retry after `Retry-After`. */
  UNAVAILABLE: 503,
} as const;

/** The realm of the hub's `WWW-Authenticate` challenges. */
export const AUTH_REALM = 'synapse';

/** google.rpc.BadRequest.FieldViolation (JSON names). */
export interface FieldViolation {
  /** Path of the offending field in the request params, e.g. `message.parts[0].text`. */
  field: string;
  description: string;
}

export interface A2AProtocolErrorInit {
  code: number;
  message: string;
  /** google.rpc.ErrorInfo reason, UPPER_SNAKE_CASE. */
  reason: string;
  /** google.rpc.ErrorInfo metadata: a map<string, string>. */
  metadata?: Record<string, string>;
  fieldViolations?: FieldViolation[];
  cause?: unknown;
}

export class A2AProtocolError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly metadata: Record<string, string>;
  readonly fieldViolations?: FieldViolation[];

  /** Every string is clipped and at most MAX_VIOLATIONS violations are kept: errors stay small (bounds.ts). */
  constructor(init: A2AProtocolErrorInit) {
    super(
      clip(init.message, MAX_ERROR_MESSAGE_LENGTH),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.code = init.code;
    this.reason = init.reason;
    this.metadata = Object.fromEntries(
      Object.entries(init.metadata ?? {}).map(([k, v]) => [k, clip(String(v), MAX_METADATA_VALUE_LENGTH)]),
    );
    if (init.fieldViolations && init.fieldViolations.length > 0) {
      this.fieldViolations = init.fieldViolations.slice(0, MAX_VIOLATIONS).map((v) => ({
        field: clip(v.field, MAX_FIELD_PATH_LENGTH),
        description: clip(v.description, MAX_DESCRIPTION_LENGTH),
      }));
    }
  }

  override get name(): string {
    return 'A2AProtocolError';
  }

  // ---- standard JSON-RPC errors -------------------------------------------------------------

  static parseError(detail?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.PARSE_ERROR,
      message: `Parse error: the request body is not valid JSON${detail ? ` (${detail})` : ''}`,
      reason: 'PARSE_ERROR',
    });
  }

  static invalidRequest(message: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.INVALID_REQUEST,
      message: `Invalid request: ${message}`,
      reason: 'INVALID_REQUEST',
    });
  }

  /** `hint` explains how the method would become valid (e.g. which A2A-Version it belongs to). */
  static methodNotFound(method: string, hint?: string, metadata?: Record<string, string>): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.METHOD_NOT_FOUND,
      message: `Method not found: ${method}${hint ? `. ${hint}` : ''}`,
      reason: 'METHOD_NOT_FOUND',
      metadata: { method, ...metadata },
    });
  }

  /**
   * Invalid params. With violations the message names the first offending field and
   * how many more there are; the first MAX_VIOLATIONS travel as google.rpc.BadRequest.
   * `total` is the number of problems found when `violations` holds only the first ones;
   * when more exist than are listed, ErrorInfo metadata `totalViolations` says how many.
   */
  static invalidParams(
    violations: FieldViolation[] | string,
    metadata?: Record<string, string>,
    total?: number,
  ): A2AProtocolError {
    const list = typeof violations === 'string' ? [] : violations;
    const count = Math.max(total ?? 0, list.length);
    let message: string;
    if (typeof violations === 'string') message = `Invalid params: ${violations}`;
    else {
      const [first] = list;
      message = first
        ? `Invalid params: ${clip(first.field, MAX_FIELD_PATH_LENGTH)}: ${clip(first.description, MAX_DESCRIPTION_LENGTH)}`
        : 'Invalid params';
      if (count > 1) message += ` (and ${count - 1} more problem${count > 2 ? 's' : ''})`;
    }
    const listed = Math.min(list.length, MAX_VIOLATIONS);
    return new A2AProtocolError({
      code: ERROR_CODES.INVALID_PARAMS,
      message,
      // a2a-js uses the same reason for malformed requests (RequestMalformedError).
      reason: 'INVALID_PARAMS',
      metadata: { ...metadata, ...(count > listed ? { totalViolations: String(count) } : {}) },
      fieldViolations: list,
    });
  }

  static internalError(message = 'Internal error', cause?: unknown): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.INTERNAL_ERROR,
      message,
      reason: 'INTERNAL_ERROR',
      cause,
    });
  }

  // ---- A2A errors ---------------------------------------------------------------------------

  static taskNotFound(taskId: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.TASK_NOT_FOUND,
      message: `Task not found: ${taskId}`,
      reason: 'TASK_NOT_FOUND',
      metadata: { taskId },
    });
  }

  /** `state` is the A2A v1.0 state name (TASK_STATE_*). */
  static taskNotCancelable(taskId: string, state?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.TASK_NOT_CANCELABLE,
      message: state
        ? `Task ${taskId} is in state ${state} and cannot be canceled`
        : `Task ${taskId} cannot be canceled`,
      reason: 'TASK_NOT_CANCELABLE',
      metadata: { taskId, ...(state ? { state } : {}) },
    });
  }

  static pushNotificationNotSupported(detail?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.PUSH_NOTIFICATION_NOT_SUPPORTED,
      message: `Push notifications are not supported by this agent${detail ? ` (${detail})` : ''}`,
      reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    });
  }

  static unsupportedOperation(message: string, metadata?: Record<string, string>): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.UNSUPPORTED_OPERATION,
      message,
      reason: 'UNSUPPORTED_OPERATION',
      ...(metadata ? { metadata } : {}),
    });
  }

  static contentTypeNotSupported(mediaType: string, supported?: readonly string[]): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.CONTENT_TYPE_NOT_SUPPORTED,
      message: `Content type not supported: ${mediaType}${supported?.length ? ` (supported: ${supported.join(', ')})` : ''}`,
      reason: 'CONTENT_TYPE_NOT_SUPPORTED',
      metadata: { mediaType, ...(supported?.length ? { supportedMediaTypes: supported.join(',') } : {}) },
    });
  }

  static invalidAgentResponse(detail?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.INVALID_AGENT_RESPONSE,
      message: `Invalid agent response${detail ? `: ${detail}` : ''}`,
      reason: 'INVALID_AGENT_RESPONSE',
    });
  }

  static extendedAgentCardNotConfigured(): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.EXTENDED_AGENT_CARD_NOT_CONFIGURED,
      message: 'Extended agent card is not configured',
      reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    });
  }

  static extensionSupportRequired(uris: readonly string[]): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.EXTENSION_SUPPORT_REQUIRED,
      message: `Extension support required: activate ${uris.join(', ')} with the A2A-Extensions header`,
      reason: 'EXTENSION_SUPPORT_REQUIRED',
      metadata: { extensions: uris.join(',') },
    });
  }

  static versionNotSupported(requested: string, supported: readonly string[]): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.VERSION_NOT_SUPPORTED,
      message:
        `A2A version "${requested}" is not supported; supported versions: ${supported.join(', ')} ` +
        '(send A2A-Version: 1.0, or omit the header for 0.3)',
      reason: 'VERSION_NOT_SUPPORTED',
      metadata: { requestedVersion: requested, supportedVersions: supported.join(',') },
    });
  }

  /**
   * TaskGenerationMismatchError (dev-1.1): `actual` is the task's generation (0: the message makes a new
   * task). Both travel in ErrorInfo metadata as decimal strings, so a client can retry against `actual`.
   */
  static taskGenerationMismatch(
    taskId: string | undefined,
    expected: number,
    actual: number,
  ): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.TASK_GENERATION_MISMATCH,
      message: taskId
        ? `Task ${taskId} is at generation ${actual}, not ${expected} (ifGenerationMatch): the message was not applied`
        : `ifGenerationMatch ${expected} does not match: the message makes a new task (generation 0) and was not applied`,
      reason: 'TASK_GENERATION_MISMATCH',
      metadata: {
        ...(taskId ? { taskId } : {}),
        expectedGeneration: String(expected),
        generation: String(actual),
      },
    });
  }

  /** 401: `challenge` is the RFC 6750 error code (`invalid_token`) when credentials were sent. */
  static unauthenticated(message: string, challenge?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.UNAUTHENTICATED,
      message,
      reason: 'UNAUTHENTICATED',
      metadata: challenge ? { challenge } : {},
    });
  }

  static permissionDenied(message: string, challenge?: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.PERMISSION_DENIED,
      message,
      reason: 'PERMISSION_DENIED',
      metadata: challenge ? { challenge } : {},
    });
  }

  static rateLimited(message: string): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.RATE_LIMITED,
      message,
      reason: 'RATE_LIMITED',
      metadata: { retryable: 'true' },
    });
  }

  static unavailable(message: string, retryAfterSeconds: number, cause?: unknown): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.UNAVAILABLE,
      message,
      reason: 'UNAVAILABLE',
      metadata: { retryable: 'true', retryAfterSeconds: String(retryAfterSeconds) },
      cause,
    });
  }

  /** Implementation-defined -32050: see the module comment. */
  static conflict(taskId: string, attempts?: number): A2AProtocolError {
    return new A2AProtocolError({
      code: ERROR_CODES.CONFLICT,
      message: `Task ${taskId} was modified concurrently and the request was not applied; retry the request`,
      reason: 'CONFLICT',
      metadata: {
        taskId,
        retryable: 'true',
        ...(attempts !== undefined ? { attempts: String(attempts) } : {}),
      },
    });
  }
}

/** What a transition event means to an A2A client, for error messages. */
const EVENT_PHRASES: Readonly<Record<string, string>> = {
  submit: 'a new message',
  info_provided: 'a new message',
  human_approve: 'a new message',
  human_reject: 'a new message',
  human_deciding: 'a new message',
  cancel: 'a cancel request',
  push_config: 'a push notification config',
};

/** Map a typed domain error to the protocol error a client should see. */
export function fromDomainError(e: DomainError): A2AProtocolError {
  if (e instanceof UnavailableError) return A2AProtocolError.unavailable(e.message, e.retryAfterSeconds, e);
  if (e instanceof AuthError) {
    if (e.code === 'unauthenticated') return A2AProtocolError.unauthenticated(e.message, e.challenge);
    if (e.code === 'permission_denied') return A2AProtocolError.permissionDenied(e.message, e.challenge);
    return A2AProtocolError.rateLimited(e.message);
  }
  // Subclasses first: TaskNotCancelableError is an InvalidTransitionError, PayloadTooLargeError a ValidationError.
  if (e instanceof TaskNotFoundError) return A2AProtocolError.taskNotFound(e.taskId);
  if (e instanceof TaskNotCancelableError) {
    return A2AProtocolError.taskNotCancelable(e.taskId, toA2AState(e.state));
  }
  if (e instanceof InvalidTransitionError) {
    const state = toA2AState(e.state);
    const what = Object.hasOwn(EVENT_PHRASES, e.event) ? EVENT_PHRASES[e.event] : `the "${e.event}" event`;
    const terminal = [
      'TASK_STATE_COMPLETED',
      'TASK_STATE_FAILED',
      'TASK_STATE_CANCELED',
      'TASK_STATE_REJECTED',
    ];
    const advice = terminal.includes(state)
      ? '; the task is terminal: start a new task in the same contextId instead'
      : '';
    return A2AProtocolError.unsupportedOperation(
      `Task ${e.taskId} is in state ${state} and cannot accept ${what}${advice}`,
      { taskId: e.taskId, state, event: e.event },
    );
  }
  if (e instanceof PayloadTooLargeError) {
    return A2AProtocolError.invalidParams(
      [
        {
          field: e.what,
          description: `is ${e.sizeBytes} bytes; the limit is ${e.limitBytes} bytes${e.hint ? `: ${e.hint}` : ''}`,
        },
      ],
      { field: e.what, sizeBytes: String(e.sizeBytes), limitBytes: String(e.limitBytes) },
    );
  }
  if (e instanceof ValidationError) {
    return A2AProtocolError.invalidParams([{ field: e.field ?? 'params', description: e.message }]);
  }
  if (e instanceof ConflictError) return A2AProtocolError.conflict(e.taskId, e.attempts);
  if (e instanceof GenerationMismatchError)
    return A2AProtocolError.taskGenerationMismatch(e.taskId, e.expected, e.actual);
  if (e instanceof DuplicateMessageError) {
    // The engine resolves duplicates itself (it returns the task the message went to); reaching here is a bug upstream.
    return A2AProtocolError.invalidParams(
      [
        {
          field: 'message.messageId',
          description: `message ${e.messageId} was already applied to task ${e.taskId}`,
        },
      ],
      { messageId: e.messageId, taskId: e.taskId },
    );
  }
  return A2AProtocolError.internalError('Internal error', e);
}

/**
 * Any thrown value → protocol error: protocol errors pass through, domain errors are
 * mapped, anything else becomes a -32603 whose message does not leak internals.
 */
export function toProtocolError(e: unknown): A2AProtocolError {
  if (e instanceof A2AProtocolError) return e;
  if (isDomainError(e)) return fromDomainError(e);
  return A2AProtocolError.internalError('Internal error', e);
}

/**
 * HTTP status for a JSON-RPC error response: JSON-RPC errors travel with HTTP 200,
 * except internal errors (-32603) which use 500 — the a2a-js server behaviour.
 */
export function httpStatusOf(code: number): number {
  if (code === ERROR_CODES.INTERNAL_ERROR) return 500;
  // auth, throttling and unavailability are transport-level: answered with their HTTP status
  return TRANSPORT_CODES.has(code) ? code : 200;
}

const TRANSPORT_CODES: ReadonlySet<number> = new Set([
  ERROR_CODES.UNAUTHENTICATED,
  ERROR_CODES.PERMISSION_DENIED,
  ERROR_CODES.RATE_LIMITED,
  ERROR_CODES.UNAVAILABLE,
]);

/**
 * The headers an error's answer carries beyond its body: the `WWW-Authenticate` challenge of a 401 (and
 * of a 403 for a missing scope, RFC 6750 §3.1), `Retry-After` of a 429.
 */
export function errorHeaders(error: A2AProtocolError): Record<string, string> {
  const challenge = error.metadata.challenge;
  if (
    error.code === ERROR_CODES.UNAUTHENTICATED ||
    (error.code === ERROR_CODES.PERMISSION_DENIED && challenge)
  ) {
    const quoted = error.message.replace(/["\\]/g, "'");
    return {
      'www-authenticate': `Bearer realm="${AUTH_REALM}"${challenge ? `, error="${challenge}", error_description="${quoted}"` : ''}`,
    };
  }
  if (error.code === ERROR_CODES.RATE_LIMITED) return { 'retry-after': '1' };
  if (error.code === ERROR_CODES.UNAVAILABLE)
    return { 'retry-after': error.metadata.retryAfterSeconds ?? '1' };
  return {};
}

// ---- typed details (google.rpc.*), shared by the codecs ------------------------------------------

export interface ErrorInfoDetail {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

export interface BadRequestDetail {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: FieldViolation[];
}

export function errorInfoOf(err: A2AProtocolError): ErrorInfoDetail {
  return {
    '@type': ERROR_INFO_TYPE,
    reason: err.reason,
    domain: A2A_ERROR_DOMAIN,
    ...(Object.keys(err.metadata).length > 0 ? { metadata: { ...err.metadata } } : {}),
  };
}

export function badRequestOf(err: A2AProtocolError): BadRequestDetail | undefined {
  if (!err.fieldViolations?.length) return undefined;
  return { '@type': BAD_REQUEST_TYPE, fieldViolations: err.fieldViolations.map((v) => ({ ...v })) };
}
