/**
 * What a `synapse` failure says and how it exits (a2a-cli SPEC §9.4, §9.6, Appendix B and E): a protocol
 * failure keeps A2A's own error name (`TaskNotFoundError` …) and its wire code; anything else is one of the
 * CLI's own `A2ACLI_ERR_*` codes. A task's outcome (FAILED, REJECTED, INPUT_REQUIRED) is never an error.
 */
import { A2AError, isJsonRpcError, isRestError } from '@a2a-js/sdk/errors';

/** The CLI's own codes and the exit each carries (Appendix E). */
export const CLI_ERRORS = {
  A2ACLI_ERR_USAGE: 2,
  A2ACLI_ERR_CARD_NOT_FOUND: 3,
  A2ACLI_ERR_CARD_INVALID: 1,
  A2ACLI_ERR_UNREACHABLE: 3,
  A2ACLI_ERR_CREDENTIALS_MISSING: 4,
  A2ACLI_ERR_AUTH_FAILED: 4,
  A2ACLI_ERR_TIMEOUT: 5,
  A2ACLI_ERR_INTERNAL: 1,
} as const;
export type CliErrorCode = keyof typeof CLI_ERRORS;

/** A failure the CLI itself names. */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
    readonly hint: string | null = null,
    /** The transport-level code behind it (an HTTP status), when there is one. */
    readonly a2aCode: string | number | null = null,
  ) {
    super(message);
  }
}

/**
 * A failure a service other than an A2A agent named (the hub's own APIs: cli/hub/): its code keeps its own
 * prefix, as §9.4 asks of vendor codes, and its exit is one of §9.6's.
 */
export class VendorError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
    readonly hint: string | null = null,
    readonly wireCode: string | number | null = null,
  ) {
    super(message);
  }
}

/** The error envelope (Appendix B). */
export interface ErrorEnvelope {
  error: { code: string; message: string; hint: string | null; a2aCode: string | number | null };
}

/** Any thrown value as the envelope and the exit code that goes with it. */
export function envelopeOf(e: unknown): { envelope: ErrorEnvelope; exitCode: number } {
  if (e instanceof CliError) {
    return {
      envelope: { error: { code: e.code, message: e.message, hint: e.hint, a2aCode: e.a2aCode } },
      exitCode: CLI_ERRORS[e.code],
    };
  }
  if (e instanceof VendorError) {
    return {
      envelope: { error: { code: e.code, message: e.message, hint: e.hint, a2aCode: e.wireCode } },
      exitCode: e.exitCode,
    };
  }
  if (e instanceof A2AError) {
    const a2aCode = isJsonRpcError(e) ? e.envelopeCode : isRestError(e) ? e.statusCode : null;
    return {
      envelope: {
        error: {
          code: e.name,
          message: e.message,
          hint: 'run again with --debug to see the request and the answer',
          a2aCode,
        },
      },
      exitCode: 1,
    };
  }
  const cause = (e as { cause?: { code?: string } } | undefined)?.cause;
  if (e instanceof TypeError && cause?.code !== undefined) {
    return envelopeOf(
      new CliError(
        'A2ACLI_ERR_UNREACHABLE',
        `${e.message} (${cause.code})`,
        'check the agent card reference',
      ),
    );
  }
  return envelopeOf(new CliError('A2ACLI_ERR_INTERNAL', e instanceof Error ? e.message : String(e)));
}
