/**
 * The registry's errors, in ARD's shape (`{ errorCode, message }`, spec/schemas/ard.openapi.yaml `Error`):
 * a code the HTTP binding maps to a status, a message safe to show, and for a refused card or filter every
 * problem found (`details`).
 */
export type RegistryErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'ABORTED'
  | 'PAYLOAD_TOO_LARGE';

export const STATUS_OF: Readonly<Record<RegistryErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 400,
  ABORTED: 409,
  PAYLOAD_TOO_LARGE: 413,
};

export class RegistryError extends Error {
  constructor(
    readonly errorCode: RegistryErrorCode,
    message: string,
    readonly details: readonly string[] = [],
  ) {
    super(message);
    this.name = 'RegistryError';
  }

  toJSON(): { errorCode: RegistryErrorCode; message: string; details?: readonly string[] } {
    return {
      errorCode: this.errorCode,
      message: this.message,
      ...(this.details.length ? { details: this.details } : {}),
    };
  }
}
