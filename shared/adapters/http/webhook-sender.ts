/**
 * WebhookSender on node:http(s), behind the SSRF guard (docs/ssrf.md). One attempt:
 * 1. the URL is checked again without DNS (the policy may have changed since the config was stored);
 * 2. the host name is resolved (every address) and every address is checked; one refused address
 *    refuses the delivery;
 * 3. the connection goes to those vetted addresses only: the request's `lookup` hands them back
 *    instead of asking DNS again, so a rebinding between check and connect cannot happen; TLS SNI,
 *    certificate check and Host stay the URL's host name.
 * Redirects are not followed. One deadline covers DNS, connect and the response; the response body is
 * read up to a cap and discarded, but for its first bytes when the answer is a failure: what they say goes
 * with the error into the delivery log (a Synapse peer's nack says why it refused).
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { DeliveryResult, WebhookRequest, WebhookSender } from '../../ports/webhook-sender.ts';
import type { PushTarget, UrlGuard } from './url-guard.ts';
import {
  DEFAULT_TIMEOUT_MS,
  errorMessage,
  header,
  OWN_HEADERS,
  pinnedLookup,
  type Resolver,
  systemResolver,
  vetDestination,
} from './vetted-connection.ts';

export const MAX_RESPONSE_BYTES = 64 * 1024;
/** How much of a failed answer's body the error keeps (read from its first 16 KB, spaces collapsed). */
export const ERROR_BODY_CHARS = 200;
const ERROR_BODY_BYTES = 16 * 1024;
/** SQS's longest DelaySeconds: a longer Retry-After cannot be honoured by one delayed message anyway. */
export const MAX_RETRY_AFTER_SECONDS = 900;

export interface WebhookSenderOptions {
  guard: UrlGuard;
  /** DNS, connect and response together; default 10 s. */
  timeoutMs?: number;
  /** Response bytes read before the connection is dropped; default 64 KiB. */
  maxResponseBytes?: number;
  /** Cap on a receiver's Retry-After; default 900 s. */
  maxRetryAfterSeconds?: number;
  /** Default: the system resolver. Tests inject one. */
  resolve?: Resolver;
  clock?: Clock;
  userAgent?: string;
  /** Extra CA certificates to trust for https (a local CA in development); default: Node's bundle. */
  ca?: https.RequestOptions['ca'];
}

export class HttpWebhookSender implements WebhookSender {
  private readonly guard: UrlGuard;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly resolve: Resolver;
  private readonly clock: Clock;
  private readonly userAgent: string;
  private readonly ca: https.RequestOptions['ca'];

  constructor(options: WebhookSenderOptions) {
    this.guard = options.guard;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS;
    this.resolve = options.resolve ?? systemResolver;
    this.clock = options.clock ?? systemClock;
    this.userAgent = options.userAgent ?? 'Synapse-A2A-Hub';
    this.ca = options.ca;
  }

  async post(request: WebhookRequest): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const deadline = started + timeoutMs;

    const vetted = await vetDestination(this.guard, request.url, this.resolve, deadline, timeoutMs);
    if (!vetted.ok) {
      return vetted.kind === 'refused'
        ? { outcome: 'final', latencyMs: elapsed(), error: `URL refused: ${vetted.reason}` }
        : { outcome: 'retry', latencyMs: elapsed(), error: vetted.error };
    }
    const { target, addresses } = vetted;

    const answer = await this.send(target, addresses, request, Math.max(0, deadline - performance.now()));
    return { ...answer, latencyMs: elapsed() };
  }

  private send(
    target: PushTarget,
    addresses: readonly LookupAddress[],
    request: WebhookRequest,
    budgetMs: number,
  ): Promise<Omit<DeliveryResult, 'latencyMs'>> {
    return new Promise((resolve) => {
      let settled = false;
      let status: number | undefined;
      let retryAfter: string | undefined;
      let location: string | undefined;
      let address: string | undefined;
      let req: http.ClientRequest | undefined;

      const settle = (result: Omit<DeliveryResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req?.destroy();
        resolve(address ? { ...result, address } : result);
      };
      const kept: Buffer[] = [];
      let keptBytes = 0;
      const answered = () =>
        settle(this.classify(status!, retryAfter, location, Buffer.concat(kept).toString('utf8')));
      const timer = setTimeout(() => {
        if (status !== undefined) answered();
        else settle({ outcome: 'retry', error: `timed out after ${request.timeoutMs ?? this.timeoutMs} ms` });
      }, budgetMs);

      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        'user-agent': this.userAgent,
      };
      for (const [name, value] of Object.entries(request.headers ?? {})) {
        const key = name.toLowerCase();
        if (!OWN_HEADERS.has(key)) headers[key] = value;
      }
      headers['content-length'] = Buffer.byteLength(request.body);

      try {
        const options: https.RequestOptions = {
          method: 'POST',
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
        settle({ outcome: 'final', error: `invalid request: ${errorMessage(err)}` });
        return;
      }
      req.on('socket', (socket) => {
        socket.on('connect', () => {
          address = socket.remoteAddress;
        });
      });
      req.on('response', (res) => {
        status = res.statusCode ?? 0;
        retryAfter = header(res.headers['retry-after']);
        location = header(res.headers.location);
        address ??= res.socket?.remoteAddress;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          if (keptBytes < ERROR_BODY_BYTES) {
            kept.push(chunk.subarray(0, ERROR_BODY_BYTES - keptBytes));
            keptBytes += Math.min(chunk.length, ERROR_BODY_BYTES - keptBytes);
          }
          read += chunk.length;
          if (read >= this.maxResponseBytes) answered();
        });
        res.on('end', answered);
        res.on('error', answered);
        res.on('close', answered);
      });
      req.on('error', (err) => {
        if (status !== undefined) answered();
        else settle({ outcome: 'retry', error: `connection failed: ${errorMessage(err)}` });
      });
      req.end(request.body);
    });
  }

  private classify(
    status: number,
    retryAfter: string | undefined,
    location: string | undefined,
    body: string,
  ): Omit<DeliveryResult, 'latencyMs'> {
    if (status >= 200 && status < 300) return { outcome: 'delivered', status };
    const said = whatWasSaid(body);
    const failed = `HTTP ${status}${said ? `: ${said}` : ''}`;
    if (status === 429 || status >= 500) {
      const seconds = parseRetryAfter(retryAfter, this.clock.now(), this.maxRetryAfterSeconds);
      return {
        outcome: 'retry',
        status,
        error: failed,
        ...(seconds === undefined ? {} : { retryAfterSeconds: seconds }),
      };
    }
    if (status >= 300 && status < 400) {
      const to = location ? ` to ${location.slice(0, 200)}` : '';
      return { outcome: 'final', status, error: `redirect not followed (HTTP ${status}${to})` };
    }
    return { outcome: 'final', status, error: failed };
  }
}

/**
 * Retry-After as seconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3), at most `cap`;
 * undefined when absent or unreadable. A date in the past means 0.
 */
export const parseRetryAfter = (value: string | undefined, now: Date, cap: number): number | undefined => {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text), cap);
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), cap);
};

/**
 * What a failed answer said, on one line: where a JSON body keeps the why (a JSON-RPC or google.rpc
 * `error`, a p2p:nack's `payload`: its code, message and details), else the body's start.
 */
const whatWasSaid = (body: string): string => {
  let said = body;
  try {
    const json = JSON.parse(body) as { error?: unknown; type?: unknown; payload?: unknown } | null;
    const why = json?.error ?? (json?.type === 'p2p:nack' ? json.payload : undefined);
    if (why !== undefined) said = JSON.stringify(why);
  } catch {
    // not JSON, or cut short by the read: its start as it is
  }
  return said.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
};
