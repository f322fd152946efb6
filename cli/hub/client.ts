/**
 * A small client of the hub's own HTTP APIs (the Synapse requester API, the registry: docs/synapse-protocol.md,
 * docs/registry.md), for `synapse p2p` and `synapse registry`. The hub is `--hub <url>` (or A2ACLI_HUB), else
 * where the agent card (`-a`) was found. Credentials go in `Authorization: Bearer`, as the hub takes both its
 * API keys and tokens (docs/security.md). What the hub refuses becomes the error envelope (a2a-cli SPEC §9.4,
 * Appendix B): its own error code under the `SYNAPSE_` prefix (vendor codes keep a prefix of their own, never
 * `A2ACLI_ERR_`), its message, and its HTTP status as `a2aCode` (the transport-level code); exit 1. A refused
 * credential is the spec's own A2ACLI_ERR_AUTH_FAILED or A2ACLI_ERR_CREDENTIALS_MISSING (exit 4), a hub that
 * cannot be reached A2ACLI_ERR_UNREACHABLE (exit 3).
 */
import type { Argv } from 'yargs';
import { type AgentOptions, baseFetch, cardLocationOf, WELL_KNOWN_CARD_PATH } from '../agent.ts';
import { CliError, VendorError } from '../errors.ts';
import { PROGRAM } from '../output.ts';

export interface HubOptions extends AgentOptions {
  hub?: string;
}

/** `--hub`, for the command groups of the hub's own APIs. */
export const hubOption = <T>(y: Argv<T>) =>
  y.option('hub', {
    type: 'string',
    describe: 'the hub’s base URL (or A2ACLI_HUB); default: where the agent card (-a) is',
  });

/** The hub's base URL, without a trailing slash. */
export function hubUrlOf(options: HubOptions): string {
  let base: string;
  if (options.hub) {
    if (!/^https?:\/\//i.test(options.hub))
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `--hub ${JSON.stringify(options.hub)} is not an http(s) URL`,
        'give the hub’s base URL: --hub http://127.0.0.1:8080',
      );
    base = options.hub;
  } else if (options.agentCard) {
    const where = cardLocationOf(options.agentCard);
    if (!('url' in where))
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        'a card file does not say where its hub is',
        'give the hub’s base URL: --hub http://127.0.0.1:8080',
      );
    // the card is served at the deployment's root (an API Gateway stage keeps its path)
    base = where.url.endsWith(WELL_KNOWN_CARD_PATH)
      ? where.url.slice(0, -WELL_KNOWN_CARD_PATH.length)
      : new URL(where.url).origin;
  } else {
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      'no hub: give --hub (or A2ACLI_HUB), or the hub’s agent card with -a',
      `${PROGRAM} p2p show <id> --hub http://127.0.0.1:8080`,
    );
  }
  return base.replace(/\/+$/, '');
}

/** The hub's error body, in any of its shapes: its code and message. */
const refusalOf = (status: number, text: string): { code: string; message: string } => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { code: `HTTP_${status}`, message: `the hub answered HTTP ${status}` };
  }
  const b = body as {
    error?: { code?: unknown; status?: unknown; message?: unknown };
    errorCode?: unknown;
    message?: unknown;
    details?: unknown;
  };
  // the Synapse API's {error: {code, message}}; the gateway's JSON-RPC body {error: {code: n, status, message}}
  if (typeof b.error === 'object' && b.error !== null) {
    const code = typeof b.error.code === 'string' ? b.error.code : b.error.status;
    if (typeof code === 'string')
      return { code, message: String(b.error.message ?? `the hub answered HTTP ${status}`) };
  }
  // the registry's (ARD's) {errorCode, message, details}
  if (typeof b.errorCode === 'string') {
    const details = Array.isArray(b.details) ? `: ${b.details.join('; ')}` : '';
    return { code: b.errorCode, message: `${String(b.message ?? '')}${details}` };
  }
  return { code: `HTTP_${status}`, message: `the hub answered HTTP ${status}` };
};

/** `task_not_found` → `SYNAPSE_TASK_NOT_FOUND`. */
export const vendorCode = (hubCode: string): string =>
  `SYNAPSE_${hubCode.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}`;

export class HubClient {
  readonly base: string;
  private readonly send: typeof fetch;

  constructor(private readonly options: HubOptions) {
    this.base = hubUrlOf(options);
    this.send = baseFetch(options);
  }

  /** The hub's JSON answer to a request; its refusal as an error. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query?: Record<string, string | undefined>,
  ): Promise<unknown> {
    const url = new URL(`${this.base}${path}`);
    for (const [name, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const credential = this.options.bearer ?? this.options.apiKey;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.send(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (e) {
      const code = (e as { cause?: { code?: string } }).cause?.code;
      throw new CliError(
        'A2ACLI_ERR_UNREACHABLE',
        `cannot reach the hub at ${this.base}${code ? ` (${code})` : ''}`,
        'is the hub running, and is --hub (or A2ACLI_HUB) right?',
      );
    }
    const text = await response.text();
    if (!response.ok) throw this.refusal(response.status, text);
    try {
      return JSON.parse(text);
    } catch {
      throw new VendorError(
        vendorCode('invalid_answer'),
        `the hub answered HTTP ${response.status} with a body that is not JSON`,
        1,
        'is --hub the hub’s base URL?',
        response.status,
      );
    }
  }

  private refusal(status: number, text: string): Error {
    const { code, message } = refusalOf(status, text);
    if (status === 401 || status === 403) {
      const given = Boolean(this.options.bearer ?? this.options.apiKey);
      return new VendorError(
        given || status === 403 ? 'A2ACLI_ERR_AUTH_FAILED' : 'A2ACLI_ERR_CREDENTIALS_MISSING',
        `the hub refused the request (${code}): ${message}`,
        4,
        given ? 'check the key or token, and the rights it grants' : 'give --api-key or --bearer',
        status,
      );
    }
    return new VendorError(
      vendorCode(code),
      message,
      1,
      status === 404
        ? 'check the id, and that --hub is the hub that holds it'
        : 'run again with --debug to see the request and the answer',
      status,
    );
  }
}
