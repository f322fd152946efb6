/**
 * Ports for outbound deliveries (A2A push notifications, and later Synapse callbacks): the check a
 * push URL passes when a config is created, and the sender the delivery worker posts through.
 * Adapters: shared/adapters/http/url-guard.ts and webhook-sender.ts (docs/ssrf.md).
 */

export interface WebhookRequest {
  /** The URL to POST to; checked again (with DNS) before connecting. */
  url: string;
  /** The JSON text of the body, sent byte for byte as given (signatures may cover it). */
  body: string;
  /**
   * Request headers (`authorization`, `x-a2a-notification-token`, `content-type`, …). Content-Type
   * defaults to `application/json`; Host, Content-Length and hop-by-hop headers are the sender's own.
   */
  headers?: Readonly<Record<string, string>>;
  /** Overrides the sender's timeout (connect + response) for this request, in milliseconds. */
  timeoutMs?: number;
}

/**
 * `delivered`: the receiver answered 2xx. `retry`: try again later (connection error, timeout, 5xx, 429).
 * `final`: do not try again (other 4xx, 3xx — redirects are never followed — or a refused URL).
 */
export type DeliveryOutcome = 'delivered' | 'retry' | 'final';

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** From the receiver's Retry-After (seconds or HTTP date), capped; only on a `retry` outcome. */
  retryAfterSeconds?: number;
  /** From the start of the attempt (DNS included) to its outcome. */
  latencyMs: number;
  /** What went wrong, for logs and delivery records (absent when delivered). */
  error?: string;
  /** The vetted address the request was sent to, when a connection was made. */
  address?: string;
}

/** POSTs one delivery to a webhook (node:http(s) with the SSRF guard in production and locally). */
export interface WebhookSender {
  post(request: WebhookRequest): Promise<DeliveryResult>;
}
