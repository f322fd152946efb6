/**
 * Outbound HTTP requests to URLs a caller chose (a card URL, a JWKS URL, an agent's interfaces): every one
 * goes through the SSRF guard (docs/ssrf.md) and reads a bounded answer. Adapter:
 * shared/adapters/http/guarded-client.ts.
 */

export interface HttpClientRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Lower-case names. */
  headers?: Readonly<Record<string, string>>;
  /** The request body's text (POST). */
  body?: string;
  /** Connect and answer, in milliseconds; the client's default otherwise. */
  timeoutMs?: number;
  /** The most bytes of the answer's body read; a longer body is an error. */
  maxBytes?: number;
}

export type HttpClientResult =
  | {
      ok: true;
      status: number;
      /** Lower-case names. */
      headers: Readonly<Record<string, string>>;
      body: string;
      latencyMs: number;
    }
  | {
      ok: false;
      /** `refused`: the guard refused the URL or an address it resolves to; `failed`: no answer (timeout, connection, too large). */
      kind: 'refused' | 'failed';
      error: string;
      latencyMs: number;
    };

export interface HttpClient {
  request(request: HttpClientRequest): Promise<HttpClientResult>;
}
