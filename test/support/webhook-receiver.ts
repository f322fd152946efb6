/**
 * A push notification receiver for tests: an HTTP server on 127.0.0.1 (a free port), started and
 * stopped by the test. Each path answers from its script (statuses, optional headers and delays, in
 * order; the last one repeats; 204 when none), records every request, and can verify the hub's JWT
 * against a JWKS as a real receiver would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { bodySha256, PUSH_JWT_HEADER } from '../../shared/domain/push-signing.ts';

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What it was answered. */
  status: number;
}

export interface WebhookReceiver {
  /** The URL of a path on this receiver. */
  url(path: string): string;
  /** Answers for a path, in order (the last repeats). */
  script(path: string, answers: readonly (number | Answer)[]): void;
  /** The requests a path received, oldest first (all paths when none is named). */
  received(path?: string): ReceivedPush[];
  /** Resolves once `path` has received `count` requests (fails after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedPush[]>;
  close(): Promise<void>;
}

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const scripts = new Map<string, Answer[]>();
  const served = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const n = served.get(path) ?? 0;
      served.set(path, n + 1);
      const script = scripts.get(path) ?? [];
      const answer = script[Math.min(n, script.length - 1)] ?? { status: 204 };
      const respond = () => {
        received.push({ path, headers: req.headers, body, status: answer.status });
        for (const wake of waiters) wake();
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers).end();
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs).unref();
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const of = (path?: string) => received.filter((r) => path === undefined || r.path === path);

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    script: (path, answers) =>
      void scripts.set(
        path,
        answers.map((a) => (typeof a === 'number' ? { status: a } : a)),
      ),
    received: of,
    waitFor: (path, count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (of(path).length < count) return;
          cleanup();
          resolve(of(path));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${path} received ${of(path).length} of ${count} request(s) in ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * What a receiver checks of the hub's JWT (docs/push-signing.md): the signature by a key of the JWKS,
 * the audience (its own URL), the lifetime, the task, and the body's SHA-256. Throws when any fails.
 */
export const verifyPush = async (
  push: Pick<ReceivedPush, 'headers' | 'body'>,
  jwks: JSONWebKeySet,
  expect: { audience: string; taskId: string; issuer?: string },
): Promise<JWTPayload> => {
  const token = push.headers[PUSH_JWT_HEADER.toLowerCase()];
  if (typeof token !== 'string') throw new Error(`no ${PUSH_JWT_HEADER} header`);
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    audience: expect.audience,
    ...(expect.issuer ? { issuer: expect.issuer } : {}),
  });
  if (payload.taskId !== expect.taskId) throw new Error(`the token is for task ${String(payload.taskId)}`);
  if (payload.body_sha256 !== bodySha256(push.body)) throw new Error('the body is not the one signed');
  return payload;
};
