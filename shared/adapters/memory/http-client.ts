/**
 * HttpClient in memory: a scripted responder. Routes are a method and a URL (the URL as the parser
 * normalizes it, query included) answered by a function; every request sent is recorded; a URL
 * without a route is `failed`, as no server answering would be. The port's rules the guarded client
 * keeps hold here too (test/contract/http-client.ts runs both): a URL the guard refuses is `refused`
 * and never recorded, an answer over `maxBytes` is `failed`, a 3xx is returned as is, a responder
 * slower than the timeout is `failed`. What only a socket shows (DNS pinning, the resolved addresses'
 * check, TLS) is tested on the real adapter.
 */
import type { HttpClient, HttpClientRequest, HttpClientResult } from '../../ports/http-client.ts';
import type { PushUrlGuard } from '../../ports/push-url-guard.ts';
import {
  DEFAULT_MAX_ANSWER_BYTES,
  refusedError,
  requestProblem,
  tooLargeError,
} from '../http/request-rules.ts';

/** A scripted answer; headers' names are given lower-case. */
export interface ScriptedResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Answers one request; a throw is a connection failure with its message. */
export type Responder = (request: HttpClientRequest) => ScriptedResponse | Promise<ScriptedResponse>;

export interface InMemoryHttpClientOptions {
  /** Checks every URL first (a refused one is `refused`); default: every URL is let through. */
  guard?: PushUrlGuard;
  /** When a request gives none; default 10 s (as the guarded client's). */
  timeoutMs?: number;
  /** When a request gives none; default 256 KiB (as the guarded client's). */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class InMemoryHttpClient implements HttpClient {
  /** Every request sent (that passed the guard), oldest first. */
  readonly requests: HttpClientRequest[] = [];
  readonly #routes = new Map<string, Responder>();
  readonly #guard: PushUrlGuard | undefined;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(options: InMemoryHttpClientOptions = {}) {
    this.#guard = options.guard;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  }

  /** Answers `method url` with `responder` from now on (replacing an earlier route). */
  route(method: HttpClientRequest['method'], url: string, responder: Responder): this {
    this.#routes.set(routeKey(method, url), responder);
    return this;
  }

  /** Answers `method url` with this response every time. */
  respond(method: HttpClientRequest['method'], url: string, response: ScriptedResponse): this {
    return this.route(method, url, () => response);
  }

  async request(request: HttpClientRequest): Promise<HttpClientResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (error: string): HttpClientResult => ({
      ok: false,
      kind: 'failed',
      error,
      latencyMs: elapsed(),
    });
    const invalid = requestProblem(request);
    if (invalid) return { ok: false, kind: 'failed', error: `invalid request: ${invalid}`, latencyMs: 0 };
    const verdict = this.#guard?.check(request.url);
    if (verdict && !verdict.ok) {
      return { ok: false, kind: 'refused', error: refusedError(verdict.reason), latencyMs: elapsed() };
    }
    this.requests.push({ ...request, ...(request.headers ? { headers: { ...request.headers } } : {}) });
    const responder = this.#routes.get(routeKey(request.method, request.url));
    if (!responder) return failed(`connection failed: no route for ${request.method} ${request.url}`);

    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    let response: ScriptedResponse | 'timeout';
    try {
      response = await Promise.race([Promise.resolve().then(() => responder(request)), timedOut]);
    } catch (err) {
      return failed(`connection failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
    if (response === 'timeout') return failed(`timed out after ${timeoutMs} ms`);

    const maxBytes = request.maxBytes ?? this.#maxBytes;
    const body = response.body ?? '';
    if (Buffer.byteLength(body) > maxBytes) return failed(tooLargeError(maxBytes));
    const headers = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return { ok: true, status: response.status, headers, body, latencyMs: elapsed() };
  }
}

/** A URL as the parser normalizes it (a path-less URL gets its `/`); an unreadable one as given. */
const routeKey = (method: string, url: string): string => {
  try {
    return `${method} ${new URL(url).href}`;
  } catch {
    return `${method} ${url}`;
  }
};
