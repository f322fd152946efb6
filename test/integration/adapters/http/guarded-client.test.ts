/**
 * The guarded HttpClient (shared/adapters/http/guarded-client.ts) against a real server on 127.0.0.1
 * (started here, stopped after; allowlisted as the webhook sender's tests allowlist it): the port's
 * contract (test/contract/http-client.ts, which the in-memory twin runs too), then what only a socket
 * shows: the vetted addresses pinned (DNS asked once), names resolving to refused addresses, the cap
 * announced by Content-Length or crossed while streaming, headers the client keeps for itself, a closed
 * port, and the client the environment configures.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  GuardedHttpClient,
  guardedHttpClientFromEnv,
} from '../../../../shared/adapters/http/guarded-client.ts';
import { DEFAULT_MAX_ANSWER_BYTES } from '../../../../shared/adapters/http/request-rules.ts';
import { parseAllowlist, UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import type { HttpClientRequest } from '../../../../shared/ports/http-client.ts';
import {
  type HttpClientFixture,
  httpClientContract,
  type ReceivedRequest,
  type ScriptedAnswer,
} from '../../../contract/http-client.ts';

type Route = (request: HttpClientRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;
type RawRoute = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const routes = new Map<string, Route>();
/** Routes that write the answer themselves (streaming, lying about its length). */
const rawRoutes = new Map<string, RawRoute>();
const received: ReceivedRequest[] = [];
let connections = 0;
let server: http.Server;
let port: number;
let base: string;

const flat = (headers: http.IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
  );

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method, path, headers: flat(req.headers), body });
      const raw = rawRoutes.get(`${method} ${path}`);
      if (raw) return raw(req, res);
      const route = routes.get(`${method} ${path}`);
      if (!route) return res.writeHead(404).end();
      const answer = await route({
        method: method as HttpClientRequest['method'],
        url: `${base}${path}`,
        headers: flat(req.headers),
        ...(body ? { body } : {}),
      });
      if (res.destroyed) return;
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
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

const allowLoopback = () => new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') });

const fresh = (): HttpClientFixture => {
  routes.clear();
  rawRoutes.clear();
  received.length = 0;
  connections = 0;
  server.closeAllConnections();
  return {
    base,
    client: (defaults = {}) => new GuardedHttpClient({ guard: allowLoopback(), ...defaults }),
    route: (method, path, answer) => {
      routes.set(`${method} ${path}`, answer);
    },
    received: () => [...received],
  };
};

httpClientContract('guarded, on a local server', { fresh });

describe('GuardedHttpClient', () => {
  it('connects to the vetted address only: DNS is asked once, a rebinding answer is never used', async () => {
    const server = fresh();
    server.route('GET', '/card', () => ({ status: 200, body: 'pinned' }));
    let lookups = 0;
    const resolve = async (): Promise<LookupAddress[]> => {
      lookups += 1;
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const guard = new UrlGuard({ allowlist: parseAllowlist(`127.0.0.1, agent.example.com:${port}`) });
    const client = new GuardedHttpClient({ guard, resolve });
    const result = await client.request({ method: 'GET', url: `http://agent.example.com:${port}/card` });
    assert.ok(result.ok, !result.ok ? result.error : '');
    assert.equal(result.body, 'pinned');
    assert.equal(lookups, 1);
    assert.equal(received[0]?.headers.host, `agent.example.com:${port}`, 'Host stays the URL host');
  });

  it('refuses a name resolving to a private address, and never connects', async () => {
    fresh();
    const resolve = async (): Promise<LookupAddress[]> => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const client = new GuardedHttpClient({ guard: new UrlGuard({ allowHttp: true }), resolve });
    const result = await client.request({ method: 'GET', url: `http://agent.example.com:${port}/card` });
    assert.deepEqual(result.ok ? result : { kind: result.kind, error: result.error }, {
      kind: 'refused',
      error: 'URL refused: resolves to a loopback address (127.0.0.1)',
    });
    assert.equal(connections, 0);
  });

  it('a DNS failure is failed, not refused', async () => {
    fresh();
    const resolve = async (): Promise<LookupAddress[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND agent.example.com'), { code: 'ENOTFOUND' });
    };
    const client = new GuardedHttpClient({ guard: new UrlGuard(), resolve });
    const result = await client.request({ method: 'GET', url: 'https://agent.example.com/card' });
    assert.equal(!result.ok && result.kind, 'failed');
    assert.match(!result.ok ? result.error : '', /^DNS lookup failed: .*ENOTFOUND/);
  });

  it('refuses an answer whose Content-Length is over the cap without reading it', async () => {
    fresh();
    let wrote = 0;
    rawRoutes.set('GET /announced', (_req, res) => {
      res.writeHead(200, { 'content-length': String(10_000) });
      // the first part only: the client must not wait for the rest
      wrote = 100;
      res.write('x'.repeat(100));
    });
    const result = await new GuardedHttpClient({ guard: allowLoopback(), maxBytes: 1000 }).request({
      method: 'GET',
      url: `${base}/announced`,
      timeoutMs: 2000,
    });
    assert.equal(wrote, 100);
    assert.deepEqual(result.ok ? result : { kind: result.kind, error: result.error }, {
      kind: 'failed',
      error: "the answer's body is larger than 1000 bytes",
    });
    assert.ok(result.latencyMs < 1500, `waited ${result.latencyMs} ms`);
  });

  it('stops reading a chunked answer once it crosses the cap', async () => {
    fresh();
    let closed = false;
    rawRoutes.set('GET /stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('y'.repeat(512)), 5);
      res.on('close', () => {
        closed = true;
        clearInterval(timer);
      });
    });
    const result = await new GuardedHttpClient({ guard: allowLoopback() }).request({
      method: 'GET',
      url: `${base}/stream`,
      maxBytes: 4096,
      timeoutMs: 5000,
    });
    assert.match(!result.ok ? result.error : 'answered', /larger than 4096 bytes/);
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(closed, 'the connection was dropped');
  });

  it('an answer that breaks off before its end fails', async () => {
    fresh();
    rawRoutes.set('GET /cut', (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    const result = await new GuardedHttpClient({ guard: allowLoopback() }).request({
      method: 'GET',
      url: `${base}/cut`,
    });
    assert.equal(!result.ok && result.kind, 'failed');
    assert.match(!result.ok ? result.error : '', /broke off/);
  });

  it('sets Host, Content-Length and User-Agent itself; a caller cannot', async () => {
    const server = fresh();
    server.route('POST', '/rpc', () => ({ status: 200 }));
    const body = '{"a":"é"}';
    const result = await server.client().request({
      method: 'POST',
      url: `${base}/rpc`,
      headers: { host: 'evil.example.com', 'content-length': '1', connection: 'upgrade', 'x-probe': 'yes' },
      body,
    });
    assert.ok(result.ok);
    const [got] = received;
    assert.equal(got?.headers.host, `127.0.0.1:${port}`);
    assert.equal(got?.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(got?.headers['user-agent'], 'Synapse-A2A-Hub');
    assert.equal(got?.headers['x-probe'], 'yes');
    assert.equal(got?.body, body);
  });

  it('a header value with a line break fails as an invalid request, and nothing is sent', async () => {
    fresh();
    const result = await new GuardedHttpClient({ guard: allowLoopback() }).request({
      method: 'GET',
      url: `${base}/x`,
      headers: { 'x-evil': 'a\r\nx-injected: 1' },
    });
    assert.equal(!result.ok && result.kind, 'failed');
    assert.match(!result.ok ? result.error : '', /^invalid request: /);
    assert.equal(received.length, 0);
  });

  it('a closed port fails the connection', async () => {
    fresh();
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await new GuardedHttpClient({ guard: allowLoopback() }).request({
      method: 'GET',
      url: `http://127.0.0.1:${closedPort}/`,
    });
    assert.equal(!result.ok && result.kind, 'failed');
    assert.match(!result.ok ? result.error : '', /^connection failed: .*ECONNREFUSED/);
  });

  it('reaches an allowlisted name through the system resolver (localhost:port)', async () => {
    const server = fresh();
    server.route('GET', '/named', () => ({ status: 200, body: 'by name' }));
    const guard = new UrlGuard({ allowlist: parseAllowlist(`localhost:${port}`) });
    const result = await new GuardedHttpClient({ guard }).request({
      method: 'GET',
      url: `http://localhost:${port}/named`,
    });
    assert.ok(result.ok, !result.ok ? result.error : '');
    assert.equal(result.body, 'by name');
  });

  it('from the environment: PUSH_URL_ALLOWLIST lets the local server through, and nothing else does', async () => {
    const server = fresh();
    server.route('GET', '/env', () => ({ status: 200, body: 'allowed' }));
    const allowed = await guardedHttpClientFromEnv({ PUSH_URL_ALLOWLIST: `127.0.0.1:${port}` }).request({
      method: 'GET',
      url: `${base}/env`,
    });
    assert.equal(allowed.ok && allowed.body, 'allowed');
    const refused = await guardedHttpClientFromEnv({}).request({ method: 'GET', url: `${base}/env` });
    assert.equal(!refused.ok && refused.kind, 'refused');
    assert.match(!refused.ok ? refused.error : '', /loopback address/);
    assert.equal(received.length, 1);
  });

  it('caps answers at 256 KiB by default', async () => {
    const server = fresh();
    assert.equal(DEFAULT_MAX_ANSWER_BYTES, 256 * 1024);
    server.route('GET', '/big', () => ({ status: 200, body: 'z'.repeat(DEFAULT_MAX_ANSWER_BYTES + 1) }));
    server.route('GET', '/fits', () => ({ status: 200, body: 'z'.repeat(DEFAULT_MAX_ANSWER_BYTES) }));
    const client = server.client();
    const big = await client.request({ method: 'GET', url: `${base}/big` });
    assert.match(!big.ok ? big.error : 'answered', /larger than 262144 bytes/);
    const fits = await client.request({ method: 'GET', url: `${base}/fits` });
    assert.equal(fits.ok && fits.body.length, DEFAULT_MAX_ANSWER_BYTES);
  });
});
