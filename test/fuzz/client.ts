/**
 * Raw HTTP to the hub with node:http: any header (or none, or several of one
 * name), any bytes as the body, and the answer as status + bytes. fetch would
 * add a content type of its own and refuse some header values.
 */
import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}

export type HttpOutcome = { ok: true; answer: HttpAnswer } | { ok: false; error: string; ms: number };

export interface HttpClient {
  post(path: string, headers: Record<string, string | string[]>, body: Buffer): Promise<HttpOutcome>;
  close(): void;
}

export function httpClient(baseUrl: string, timeoutMs = 60_000): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const base = new URL(baseUrl);
  return {
    post: (path, headers, body) =>
      new Promise((resolve) => {
        const started = performance.now();
        const ms = () => Math.round(performance.now() - started);
        const req = request(
          {
            agent,
            host: base.hostname,
            port: base.port,
            method: 'POST',
            path,
            headers: { ...headers, 'content-length': String(body.length) },
            timeout: timeoutMs,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                ok: true,
                answer: {
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  body: Buffer.concat(chunks),
                  ms: ms(),
                },
              }),
            );
            res.on('error', (e) => resolve({ ok: false, error: `response: ${e.message}`, ms: ms() }));
          },
        );
        req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on('error', (e) => resolve({ ok: false, error: e.message, ms: ms() }));
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}
