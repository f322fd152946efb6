/**
 * The Synapse P2P error codes (docs/synapse-protocol.md#error-codes) with their HTTP statuses, as data,
 * and the typed error the protocol layer returns. A `p2p:nack` carries one of these codes; the endpoint
 * answers with its status.
 */
import { clip } from '../../validation/text.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_VIOLATIONS } from './bounds.ts';

export interface SynapseErrorInfo {
  /** The HTTP status a synchronous answer carrying this code has. */
  status: number;
  /** What the code means, in English. */
  description: string;
}

/** The protocol's error table, in its order. */
export const SYNAPSE_ERRORS = {
  message_format_invalid: {
    status: 400,
    description: 'the message is not a Synapse message (not JSON, not an envelope, unknown version or type)',
  },
  capability_lacking: { status: 403, description: 'the agent cannot handle this kind of task' },
  agent_not_ready: { status: 503, description: 'the agent is not ready (try again later)' },
  task_not_found: { status: 404, description: 'no such task' },
  task_already_completed: { status: 409, description: 'the task has already finished' },
  execution_timeout: { status: 504, description: 'the task ran out of time' },
  execution_failed: { status: 500, description: 'the task failed' },
  permission_denied: {
    status: 403,
    description: 'the sender may not do this (unknown peer, missing or invalid signature, replay)',
  },
  invalid_params: { status: 400, description: 'a known message type whose payload is not valid' },
  rate_limited: { status: 429, description: 'too many messages; try again later' },
} as const satisfies Record<string, SynapseErrorInfo>;

export type SynapseErrorCode = keyof typeof SYNAPSE_ERRORS;

export const SYNAPSE_ERROR_CODES = Object.keys(SYNAPSE_ERRORS) as SynapseErrorCode[];

export const isSynapseErrorCode = (code: unknown): code is SynapseErrorCode =>
  typeof code === 'string' && Object.hasOwn(SYNAPSE_ERRORS, code);

/** The HTTP status of `code`; 500 for a code this hub does not know (a peer's own code). */
export const httpStatusOf = (code: string): number =>
  isSynapseErrorCode(code) ? SYNAPSE_ERRORS[code].status : 500;

/** One thing wrong with one field of a message: `payload.task.type`, "is required (a string)". */
export interface FieldViolation {
  field: string;
  description: string;
}

export interface SynapseProtocolErrorOptions {
  /** The offending fields (at most MAX_VIOLATIONS are kept). */
  violations?: readonly FieldViolation[];
  /** How many violations there were in all (violations may hold fewer). */
  totalViolations?: number;
  /** Other details for the nack (e.g. a signature refusal's `reason`). */
  details?: Record<string, unknown>;
}

/**
 * A refusal by the protocol layer: the code (and so the HTTP status), a one-line message, and for
 * format errors the offending field(s). `details` is what a nack carries (docs/synapse-protocol.md).
 */
export class SynapseProtocolError extends Error {
  readonly code: SynapseErrorCode;
  readonly status: number;
  /** The first offending field, when there is one. */
  readonly field: string | undefined;
  readonly violations: readonly FieldViolation[];
  readonly totalViolations: number;
  readonly #details: Record<string, unknown> | undefined;

  constructor(code: SynapseErrorCode, message: string, options: SynapseProtocolErrorOptions = {}) {
    super(clip(message, MAX_DESCRIPTION_LENGTH * 2));
    this.name = 'SynapseProtocolError';
    this.code = code;
    this.status = SYNAPSE_ERRORS[code].status;
    this.violations = (options.violations ?? []).slice(0, MAX_VIOLATIONS);
    this.totalViolations = Math.max(options.totalViolations ?? 0, this.violations.length);
    this.field = this.violations[0]?.field;
    this.#details = options.details;
  }

  /**
   * The `details` of the nack answering this error: for format errors
   * `{ field, violations, total_violations? }`, plus any other details given.
   */
  get details(): Record<string, unknown> | undefined {
    if (this.violations.length === 0) return this.#details;
    return {
      ...this.#details,
      field: this.field,
      violations: this.violations.map((v) => ({ field: v.field, description: v.description })),
      ...(this.totalViolations > this.violations.length ? { total_violations: this.totalViolations } : {}),
    };
  }
}

/** message_format_invalid naming `field`. */
export const formatError = (field: string, description: string): SynapseProtocolError =>
  new SynapseProtocolError('message_format_invalid', `${field} ${description}`, {
    violations: [{ field, description }],
  });

/** invalid_params naming `field`. */
export const paramsError = (field: string, description: string): SynapseProtocolError =>
  new SynapseProtocolError('invalid_params', `${field} ${description}`, {
    violations: [{ field, description }],
  });
