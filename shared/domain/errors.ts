/**
 * Typed domain errors. Each carries a stable `code` so protocol codecs can map
 * it to a JSON-RPC code, an HTTP status or a p2p:nack code without string
 * matching on messages.
 */
import type { SynapseState } from './states.ts';

export type DomainErrorCode =
  | 'task_not_found'
  | 'task_not_cancelable'
  | 'invalid_transition'
  | 'conflict'
  | 'generation_mismatch'
  | 'duplicate'
  | 'validation'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'permission_denied'
  | 'rate_limited'
  | 'unavailable';

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  override get name(): string {
    return this.constructor.name;
  }
}

export class TaskNotFoundError extends DomainError {
  readonly code = 'task_not_found';
  constructor(readonly taskId: string) {
    super(`Task not found: ${taskId}`);
  }
}

export class InvalidTransitionError extends DomainError {
  readonly code: DomainErrorCode = 'invalid_transition';
  constructor(
    readonly taskId: string,
    readonly state: SynapseState,
    readonly event: string,
    message?: string,
  ) {
    super(message ?? `Event "${event}" is not allowed in state "${state}" (task ${taskId})`);
  }
}

/** Cancel on a task that has already finished. */
export class TaskNotCancelableError extends InvalidTransitionError {
  override readonly code = 'task_not_cancelable';
  constructor(taskId: string, state: SynapseState) {
    super(taskId, state, 'cancel', `Task ${taskId} is ${state} and cannot be canceled`);
  }
}

/** Another writer changed the task between our read and our conditional write, too often to retry. */
export class ConflictError extends DomainError {
  readonly code = 'conflict';
  constructor(
    readonly taskId: string,
    readonly attempts: number,
  ) {
    super(`Task ${taskId} was modified concurrently; gave up after ${attempts} attempt(s)`);
  }
}

/**
 * A message carried the task generation it was written against (A2A `ifGenerationMatch`, docs/generations.md)
 * and the task is at another one: nothing was written. `actual` is 0 for a message that makes a new task.
 */
export class GenerationMismatchError extends DomainError {
  readonly code = 'generation_mismatch';
  constructor(
    readonly taskId: string | undefined,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(
      `${taskId ? `Task ${taskId} is at generation ${actual}` : 'The message makes a new task (generation 0)'}, ` +
        `not ${expected}: nothing was written; read the task again and decide anew`,
    );
  }
}

/** The inbound message id was already applied; `taskId` is where it went. */
export class DuplicateMessageError extends DomainError {
  readonly code = 'duplicate';
  constructor(
    readonly messageId: string,
    readonly taskId: string,
    /** Content hash recorded with the first message, when known. */
    readonly fingerprint?: string,
  ) {
    super(`Message ${messageId} was already applied to task ${taskId}`);
  }
}

export class ValidationError extends DomainError {
  readonly code: DomainErrorCode = 'validation';
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class PayloadTooLargeError extends ValidationError {
  override readonly code = 'payload_too_large';
  constructor(
    readonly what: string,
    readonly sizeBytes: number,
    readonly limitBytes: number,
    /** What the sender can do about it, when there is something. */
    readonly hint?: string,
  ) {
    super(`${what} is ${sizeBytes} bytes; the limit is ${limitBytes} bytes${hint ? `: ${hint}` : ''}`, what);
  }
}

/**
 * The request may not go on as these credentials: `unauthenticated` (none, or they do not verify: HTTP
 * 401 with a challenge), `permission_denied` (valid, without the right or for another tenant: 403),
 * `rate_limited` (the client's throttle: 429).
 */
export class AuthError extends DomainError {
  constructor(
    readonly code: 'unauthenticated' | 'permission_denied' | 'rate_limited',
    message: string,
    /** RFC 6750 error code for the challenge: `invalid_token`, `insufficient_scope`… */
    readonly challenge?: string,
  ) {
    super(message);
  }
}

/**
 * A service the hub stands on (the table, a queue, the event bus) stayed throttled, failing or silent
 * through the SDK's retries: nothing was written half-way (a write landed whole, its answer lost, or not
 * at all), and the same request may be sent again: a retried messageId applies once (docs/reliability.md).
 * Answered as the protocol's retryable error: HTTP 503 with `Retry-After`.
 */
export class UnavailableError extends DomainError {
  readonly code = 'unavailable';
  constructor(
    /** What did not answer: `DynamoDB PutItem (ThrottlingException)`. */
    readonly what: string,
    /** How long the caller should wait before sending again. */
    readonly retryAfterSeconds = 1,
    options?: ErrorOptions,
  ) {
    super(`The hub could not reach ${what}; try again (a retried messageId applies once)`, options);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
