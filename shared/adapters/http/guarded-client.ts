/**
 * HttpClient on node:http(s), behind the SSRF guard (docs/ssrf.md): the registry's fetches of a card
 * URL, a JWKS URL or an agent's interfaces, all URLs a caller chose. One request:
 * 1. the URL is checked without DNS, its host name resolved and every address checked (one refused
 *    address refuses the request: `refused`);
 * 2. the connection goes to those vetted addresses only (shared/adapters/http/vetted-connection.ts, as
 *    the webhook sender does); TLS SNI, certificate check and Host stay the URL's host name;
 * 3. the answer is read up to `maxBytes` (a longer one is `failed`, announced by Content-Length or
 *    found while reading) and returned as text.
 * Redirects are never followed: a 3xx is returned as is (its Location is the caller's to judge, through
 * this client again). One deadline covers DNS, connect and the whole answer.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { Env } from '../../config/settings.ts';
import type { HttpClient, HttpClientRequest, HttpClientResult } from '../../ports/http-client.ts';
import { DEFAULT_MAX_ANSWER_BYTES, refusedError, requestProblem, tooLargeError } from './request-rules.ts';
import { type PushTarget, type UrlGuard, urlGuardFromEnv } from './url-guard.ts';

import {
  DEFAULT_TIMEOUT_MS,
  errorMessage,
  OWN_HEADERS,
  pinnedLookup,
  type Resolver,
  systemResolver,
  vetDestination,
} from './vetted-connection.ts';

/** The same default as the webhook sender's: one outbound request's DNS, connect and answer. */
export const DEFAULT_HTTP_TIMEOUT_MS = DEFAULT_TIMEOUT_MS;

export interface GuardedHttpClientOptions {
  guard: UrlGuard;
  /** DNS, connect and the whole answer, when a request gives none; default 10 s. */
  timeoutMs?: number;
  /** The most bytes of an answer's body read, when a request gives none; default 256 KiB. */
  maxBytes?: number;
  /** Default: the system resolver. Tests inject one. */
  resolve?: Resolver;
  userAgent?: string;
  /** Extra CA certificates to trust for https (a local CA in development); default: Node's bundle. */
  ca?: https.RequestOptions['ca'];
}

type Answer =
  | { ok: true; status: number; headers: Record<string, string>; body: string }
  | { ok: false; kind: 'failed'; error: string };

export class GuardedHttpClient implements HttpClient {
  private readonly guard: UrlGuard;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly resolve: Resolver;
  private readonly userAgent: string;
  private readonly ca: https.RequestOptions['ca'];

  constructor(options: GuardedHttpClientOptions) {
    this.guard = options.guard;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.resolve = options.resolve ?? systemResolver;
    this.userAgent = options.userAgent ?? 'Synapse-A2A-Hub';
    this.ca = options.ca;
  }

  async request(request: HttpClientRequest): Promise<HttpClientResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const invalid = requestProblem(request);
    if (invalid) return { ok: false, kind: 'failed', error: `invalid request: ${invalid}`, latencyMs: 0 };
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const deadline = started + timeoutMs;

    const vetted = await vetDestination(this.guard, request.url, this.resolve, deadline, timeoutMs);
    if (!vetted.ok) {
      return vetted.kind === 'refused'
        ? { ok: false, kind: 'refused', error: refusedError(vetted.reason), latencyMs: elapsed() }
        : { ok: false, kind: 'failed', error: vetted.error, latencyMs: elapsed() };
    }
    const answer = await this.send(
      vetted.target,
      vetted.addresses,
      request,
      timeoutMs,
      Math.max(0, deadline - performance.now()),
    );
    return { ...answer, latencyMs: elapsed() };
  }

  private send(
    target: PushTarget,
    addresses: readonly LookupAddress[],
    request: HttpClientRequest,
    timeoutMs: number,
    budgetMs: number,
  ): Promise<Answer> {
    const maxBytes = request.maxBytes ?? this.maxBytes;
    return new Promise((resolve) => {
      let settled = false;
      let req: http.ClientRequest | undefined;
      const settle = (answer: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req?.destroy();
        resolve(answer);
      };
      const fail = (error: string) => settle({ ok: false, kind: 'failed', error });
      const tooLarge = () => fail(tooLargeError(maxBytes));
      const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), budgetMs);

      const headers: Record<string, string | number> = { 'user-agent': this.userAgent };
      for (const [name, value] of Object.entries(request.headers ?? {})) {
        const key = name.toLowerCase();
        if (!OWN_HEADERS.has(key)) headers[key] = value;
      }
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);

      try {
        const options: https.RequestOptions = {
          method: request.method,
          host: target.host,
          port: target.port,
          path: `${target.url.pathname}${target.url.search}`,
          headers,
          // Every connection is new and goes to the vetted addresses; TLS verifies the URL's host name.
          lookup: pinnedLookup(addresses),
          agent: false,
        };
        req =
          target.url.protocol === 'https:'
            ? https.request(this.ca ? { ...options, ca: this.ca } : options)
            : http.request(options);
      } catch (err) {
        fail(`invalid request: ${errorMessage(err)}`);
        return;
      }
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const announced = Number(res.headers['content-length']);
        if (Number.isFinite(announced) && announced > maxBytes) {
          tooLarge();
          return;
        }
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > maxBytes) tooLarge();
          else chunks.push(chunk);
        });
        res.on('end', () =>
          settle({
            ok: true,
            status,
            headers: flatHeaders(res.headers),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (err) => fail(`the answer broke off: ${errorMessage(err)}`));
        res.on('close', () => {
          if (!res.complete) fail('the answer broke off before its end');
        });
      });
      req.on('error', (err) => fail(`connection failed: ${errorMessage(err)}`));
      req.end(request.body);
    });
  }
}

/** Lower-case names (Node's already are); a repeated header's values joined with ", " (RFC 9110 §5.3). */
const flatHeaders = (headers: http.IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
};

/**
 * The client as the environment configures it: the SSRF guard's exceptions are the push URLs' ones
 * (PUSH_URL_ALLOWLIST, PUSH_URL_ALLOW_HTTP; docs/ssrf.md), read by `urlGuardFromEnv`.
 */
export const guardedHttpClientFromEnv = (
  env?: Env,
  options: Omit<GuardedHttpClientOptions, 'guard'> = {},
): GuardedHttpClient => new GuardedHttpClient({ guard: urlGuardFromEnv(env), ...options });
