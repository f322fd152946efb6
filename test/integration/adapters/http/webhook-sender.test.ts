/**
 * The webhook sender against a real receiver on 127.0.0.1 (started here, stopped after): deliveries
 * with headers and body through the allowlist, refusals that never connect, DNS pinning, redirects,
 * timeouts and the status classes.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { parseAllowlist, UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import { HttpWebhookSender } from '../../../../shared/adapters/http/webhook-sender.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Routes by path; every request and connection is counted. */
const routes = new Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>();
const received: Received[] = [];
let connections = 0;
let server: http.Server;
let port: number;
let base: string;

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const route = routes.get((req.url ?? '').split('?')[0] ?? '');
      if (route) route(req, res);
      else res.writeHead(204).end();
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
  connections = 0;
  server.closeAllConnections();
});

const local = (over: { timeoutMs?: number } = {}) =>
  new HttpWebhookSender({ guard: new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') }), ...over });

const body = JSON.stringify({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
});

describe('webhook sender: delivery to an allowlisted local receiver', () => {
  it('POSTs the body and headers as given', async () => {
    const result = await local().post({
      url: `${base}/hook?config=1`,
      body,
      headers: {
        'Content-Type': 'application/a2a+json',
        Authorization: 'Bearer secret-token',
        'X-A2A-Notification-Token': 'tok-1',
        Host: 'evil.example.com',
        'Content-Length': '1',
      },
    });
    assert.equal(result.outcome, 'delivered');
    assert.equal(result.status, 204);
    assert.equal(result.error, undefined);
    assert.equal(result.address, '127.0.0.1');
    assert.ok(result.latencyMs >= 0);
    assert.equal(received.length, 1);
    const [got] = received;
    assert.equal(got?.method, 'POST');
    assert.equal(got?.url, '/hook?config=1');
    assert.equal(got?.body, body);
    assert.equal(got?.headers['content-type'], 'application/a2a+json');
    assert.equal(got?.headers.authorization, 'Bearer secret-token');
    assert.equal(got?.headers['x-a2a-notification-token'], 'tok-1');
    assert.equal(got?.headers.host, `127.0.0.1:${port}`, 'a caller cannot set Host');
    assert.equal(got?.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(got?.headers['user-agent'], 'Synapse-A2A-Hub');
  });

  it('defaults Content-Type to application/json', async () => {
    assert.equal((await local().post({ url: `${base}/`, body })).outcome, 'delivered');
    assert.equal(received[0]?.headers['content-type'], 'application/json');
  });

  it('delivers to an allowlisted name through the system resolver (localhost:port)', async () => {
    const guard = new UrlGuard({ allowlist: parseAllowlist(`localhost:${port}`) });
    const result = await new HttpWebhookSender({ guard }).post({
      url: `http://localhost:${port}/named`,
      body,
    });
    assert.equal(result.outcome, 'delivered', result.error);
    assert.equal(received[0]?.headers.host, `localhost:${port}`);
  });

  it('connects to the vetted address only: DNS is asked once, a rebinding answer is never used', async () => {
    let lookups = 0;
    const resolve = async (): Promise<LookupAddress[]> => {
      lookups += 1;
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const guard = new UrlGuard({ allowlist: parseAllowlist('127.0.0.1/32'), allowHttp: true });
    const result = await new HttpWebhookSender({ guard, resolve }).post({
      url: `http://hook.example.com:${port}/pinned`,
      body,
    });
    assert.equal(result.outcome, 'delivered', result.error);
    assert.equal(result.address, '127.0.0.1');
    assert.equal(lookups, 1);
    assert.equal(received[0]?.headers.host, `hook.example.com:${port}`, 'Host stays the URL host');
  });
});

describe('webhook sender: refused destinations are never connected to', () => {
  it('refuses the local receiver without the allowlist', async () => {
    const sender = new HttpWebhookSender({ guard: new UrlGuard({ allowHttp: true }) });
    for (const url of [`${base}/`, `http://localhost:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`]) {
      const result = await sender.post({ url, body });
      assert.equal(result.outcome, 'final', url);
      assert.match(result.error ?? '', /^URL refused: /);
    }
    assert.equal(connections, 0);
    assert.equal(received.length, 0);
  });

  it('refuses a name that resolves to the receiver (injected DNS: 127.0.0.1)', async () => {
    const resolve = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
    const sender = new HttpWebhookSender({ guard: new UrlGuard({ allowHttp: true }), resolve });
    const result = await sender.post({ url: `http://hook.example.com:${port}/`, body });
    assert.equal(result.outcome, 'final');
    assert.equal(result.error, 'URL refused: resolves to a loopback address (127.0.0.1)');
    assert.equal(connections, 0);
  });
});

describe('webhook sender: what the receiver answers', () => {
  const answer = (status: number, headers: Record<string, string> = {}, text = '') => {
    routes.set(`/status/${status}`, (_req, res) => {
      res.writeHead(status, headers).end(text);
    });
    return `${base}/status/${status}`;
  };

  it('2xx is delivered', async () => {
    const result = await local().post({ url: answer(200, {}, '{"ok":true}'), body });
    assert.deepEqual([result.outcome, result.status, result.error], ['delivered', 200, undefined]);
  });

  it('302 is final: the redirect is not followed', async () => {
    const url = answer(302, { location: `${base}/elsewhere` });
    const result = await local().post({ url, body });
    assert.equal(result.outcome, 'final');
    assert.equal(result.status, 302);
    assert.equal(result.error, `redirect not followed (HTTP 302 to ${base}/elsewhere)`);
    assert.deepEqual(
      received.map((r) => r.url),
      ['/status/302'],
    );
  });

  it('429 with Retry-After: 7 is a retry after 7 s', async () => {
    const result = await local().post({ url: answer(429, { 'retry-after': '7' }), body });
    assert.deepEqual(
      { outcome: result.outcome, status: result.status, retryAfterSeconds: result.retryAfterSeconds },
      { outcome: 'retry', status: 429, retryAfterSeconds: 7 },
    );
  });

  it('503 with an HTTP-date Retry-After is a retry after the seconds until then', async () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const sender = new HttpWebhookSender({
      guard: new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') }),
      clock: { now: () => now },
    });
    const result = await sender.post({
      url: answer(503, { 'retry-after': 'Thu, 01 Jan 2026 00:02:00 GMT' }),
      body,
    });
    assert.deepEqual([result.outcome, result.status, result.retryAfterSeconds], ['retry', 503, 120]);
  });

  it('500 is a retry (no Retry-After: none reported)', async () => {
    const result = await local().post({ url: answer(500), body });
    assert.deepEqual([result.outcome, result.status, result.error], ['retry', 500, 'HTTP 500']);
    assert.equal('retryAfterSeconds' in result, false);
  });

  it('404 and 400 are final', async () => {
    for (const status of [404, 400, 401, 410]) {
      const result = await local().post({ url: answer(status), body });
      assert.deepEqual([result.outcome, result.status], ['final', status]);
    }
  });

  it('a failed answer keeps what the receiver said: a nack’s payload, a JSON error member, or the body’s start', async () => {
    const said = {
      type: 'p2p:nack',
      message_id: 'm-1',
      // a nack's envelope comes first: its payload may be kilobytes in
      sender: { agent_id: 'peer', endpoint: `https://peer.example/${'x'.repeat(3000)}` },
      payload: { code: 'permission_denied', message: 'refused', details: { reason: 'replayed' } },
    };
    routes.set('/refuses', (_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify(said, null, 2));
    });
    const result = await local().post({ url: `${base}/refuses`, body });
    assert.equal(result.outcome, 'final');
    assert.equal(
      result.error,
      'HTTP 403: {"code":"permission_denied","message":"refused","details":{"reason":"replayed"}}',
      'a nack’s payload',
    );
    routes.set('/rpc-error', (_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }));
    });
    const rpc = await local().post({ url: `${base}/rpc-error`, body });
    assert.equal(rpc.error, 'HTTP 500: {"code":-32603,"message":"boom"}', 'a JSON body’s error member');
    routes.set('/refuses-in-words', (_req, res) => {
      res.writeHead(502);
      res.end(`Bad\n   gateway ${'x'.repeat(400)}`);
    });
    const words = await local().post({ url: `${base}/refuses-in-words`, body });
    assert.match(words.error ?? '', /^HTTP 502: Bad gateway x+$/);
    assert.equal(words.error?.length, 'HTTP 502: '.length + 200, 'cut at 200 characters');
    const delivered = await local().post({ url: answer(204), body });
    assert.equal(delivered.error, undefined, 'an answer that succeeded keeps nothing');
  });
  it('a large response body is read up to the cap and dropped', async () => {
    routes.set('/big', (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const push = () => {
        while (res.write(chunk)) {}
        res.once('drain', push);
      };
      push();
    });
    const result = await local({ timeoutMs: 5000 }).post({ url: `${base}/big`, body });
    assert.equal(result.outcome, 'delivered');
    assert.ok(result.latencyMs < 4000, `${result.latencyMs} ms`);
  });

  it('a receiver that never answers times out: retry', async () => {
    routes.set('/slow', () => {});
    const result = await local({ timeoutMs: 200 }).post({ url: `${base}/slow`, body });
    assert.equal(result.outcome, 'retry');
    assert.equal(result.error, 'timed out after 200 ms');
    assert.ok(result.latencyMs >= 190 && result.latencyMs < 2000, `${result.latencyMs} ms`);
  });

  it('a receiver that answers 200 but trickles its body is delivered by the deadline', async () => {
    routes.set('/trickle', (_req, res) => {
      res.writeHead(200);
      res.write('.');
    });
    const result = await local({ timeoutMs: 200 }).post({ url: `${base}/trickle`, body });
    assert.equal(result.outcome, 'delivered');
    assert.ok(result.latencyMs < 2000);
  });

  it('a per-request timeout overrides the sender default', async () => {
    routes.set('/slow', () => {});
    const result = await local().post({ url: `${base}/slow`, body, timeoutMs: 100 });
    assert.deepEqual([result.outcome, result.error], ['retry', 'timed out after 100 ms']);
  });

  it('a connection dropped without an answer is a retry', async () => {
    routes.set('/drop', (req) => {
      req.socket.destroy();
    });
    const result = await local().post({ url: `${base}/drop`, body });
    assert.equal(result.outcome, 'retry');
    assert.match(result.error ?? '', /^connection failed: /);
  });

  it('a closed port is a retry', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await local().post({ url: `http://127.0.0.1:${closedPort}/`, body });
    assert.equal(result.outcome, 'retry');
    assert.match(result.error ?? '', /ECONNREFUSED/);
  });

  it('a header value that cannot be sent is final, nothing is sent', async () => {
    const result = await local().post({
      url: `${base}/`,
      body,
      headers: { authorization: 'Bearer a\r\nX: y' },
    });
    assert.equal(result.outcome, 'final');
    assert.match(result.error ?? '', /^invalid request: /);
    assert.equal(received.length, 0);
  });
});
