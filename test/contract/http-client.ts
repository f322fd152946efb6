/**
 * The HttpClient port's contract (shared/ports/http-client.ts): run against the in-memory twin in the unit
 * suite (test/unit/adapters/memory/http-client.test.ts) and the guarded client on a real HTTP server bound
 * to 127.0.0.1 in the integration suite (test/integration/adapters/http/guarded-client.test.ts). Each test
 * takes a fresh fixture: a scripted server at `base` (allowlisted for the fixture's clients; every other
 * private address refused, as docs/ssrf.md says) and what that server received.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HttpClient, HttpClientRequest, HttpClientResult } from '../../shared/ports/http-client.ts';

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** What the scripted server saw of one request; header names lower-case. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface HttpClientFixture {
  /** The scripted server's origin, without a trailing slash. */
  base: string;
  /** A client allowlisted for `base`, with these defaults. */
  client(defaults?: { maxBytes?: number; timeoutMs?: number }): HttpClient;
  /** Answers `method path` (path under `base`) with `answer`. */
  route(
    method: HttpClientRequest['method'],
    path: string,
    answer: (request: HttpClientRequest) => ScriptedAnswer | Promise<ScriptedAnswer>,
  ): void;
  /** The requests the server received, oldest first. */
  received(): readonly ReceivedRequest[];
}

const succeeded = (result: HttpClientResult) => {
  assert.ok(result.ok, `expected an answer, got ${result.ok ? '' : `${result.kind}: ${result.error}`}`);
  assert.ok(result.latencyMs >= 0);
  return result;
};

const failedWith = (result: HttpClientResult, kind: 'refused' | 'failed', error: RegExp) => {
  assert.equal(result.ok, false, `expected ${kind}, got an answer`);
  if (result.ok) return;
  assert.equal(result.kind, kind, result.error);
  assert.match(result.error, error);
  assert.ok(result.latencyMs >= 0);
};

export const httpClientContract = (name: string, setup: { fresh: () => HttpClientFixture }): void => {
  describe(`HttpClient contract: ${name}`, () => {
    it('a 200 comes back with its status, lower-case headers and body', async () => {
      const server = setup.fresh();
      const card = JSON.stringify({ name: 'Échos', skills: [] });
      server.route('GET', '/.well-known/agent-card.json', () => ({
        status: 200,
        headers: { 'Content-Type': 'application/json', 'X-Card-Version': '3' },
        body: card,
      }));
      const result = succeeded(
        await server.client().request({ method: 'GET', url: `${server.base}/.well-known/agent-card.json` }),
      );
      assert.equal(result.status, 200);
      assert.equal(result.body, card);
      assert.equal(result.headers['content-type'], 'application/json');
      assert.equal(result.headers['x-card-version'], '3');
      assert.deepEqual(
        server.received().map((r) => [r.method, r.path]),
        [['GET', '/.well-known/agent-card.json']],
      );
    });

    it('a 404 is an answer, not a failure', async () => {
      const server = setup.fresh();
      server.route('GET', '/missing', () => ({ status: 404, body: 'no card here' }));
      const result = succeeded(
        await server.client().request({ method: 'GET', url: `${server.base}/missing` }),
      );
      assert.equal(result.status, 404);
      assert.equal(result.body, 'no card here');
    });

    it("a POST's body arrives as sent, and the answer can depend on it", async () => {
      const server = setup.fresh();
      server.route('POST', '/a2a/jsonrpc', (request) => ({
        status: 200,
        body: JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(request.body ?? '{}').id, result: {} }),
      }));
      const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'ü-1' } });
      const result = succeeded(
        await server.client().request({
          method: 'POST',
          url: `${server.base}/a2a/jsonrpc`,
          headers: { 'content-type': 'application/json' },
          body,
        }),
      );
      assert.equal(result.status, 200);
      assert.equal(JSON.parse(result.body).id, 7);
      const [got] = server.received();
      assert.equal(got?.method, 'POST');
      assert.equal(got?.body, body);
      assert.equal(got?.headers['content-type'], 'application/json');
    });

    it("a request's headers arrive", async () => {
      const server = setup.fresh();
      server.route('GET', '/card?tenant=t1', () => ({ status: 204 }));
      const result = succeeded(
        await server.client().request({
          method: 'GET',
          url: `${server.base}/card?tenant=t1`,
          headers: { 'a2a-version': '1.0', accept: 'application/json', 'if-none-match': 'W/"abc"' },
        }),
      );
      assert.equal(result.status, 204);
      assert.equal(result.body, '');
      const [got] = server.received();
      assert.equal(got?.path, '/card?tenant=t1');
      assert.equal(got?.headers['a2a-version'], '1.0');
      assert.equal(got?.headers.accept, 'application/json');
      assert.equal(got?.headers['if-none-match'], 'W/"abc"');
    });

    it('a body over maxBytes (counted in bytes, not characters) fails; one of exactly maxBytes is read', async () => {
      const server = setup.fresh();
      server.route('GET', '/big', () => ({ status: 200, body: 'é'.repeat(600) })); // 1200 bytes
      server.route('GET', '/exact', () => ({ status: 200, body: 'x'.repeat(1000) }));
      const client = server.client({ maxBytes: 1000 });
      failedWith(
        await client.request({ method: 'GET', url: `${server.base}/big` }),
        'failed',
        /larger than 1000 bytes/,
      );
      assert.equal(
        succeeded(await client.request({ method: 'GET', url: `${server.base}/exact` })).body.length,
        1000,
      );
      // a request's own cap wins over the client's
      failedWith(
        await client.request({ method: 'GET', url: `${server.base}/exact`, maxBytes: 999 }),
        'failed',
        /larger than 999 bytes/,
      );
      assert.equal(
        succeeded(await client.request({ method: 'GET', url: `${server.base}/big`, maxBytes: 1200 })).body,
        'é'.repeat(600),
      );
    });

    it('a URL the guard refuses is refused and never sent', async () => {
      const server = setup.fresh();
      const client = server.client();
      failedWith(
        await client.request({ method: 'GET', url: 'http://10.0.0.7/.well-known/agent-card.json' }),
        'refused',
        /^URL refused: .*private address/,
      );
      failedWith(
        await client.request({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' }),
        'refused',
        /link-local address/,
      );
      failedWith(
        await client.request({ method: 'POST', url: 'file:///etc/passwd', body: '' }),
        'refused',
        /scheme "file"/,
      );
      assert.deepEqual(server.received(), []);
    });

    it('a redirect is returned as is, never followed', async () => {
      const server = setup.fresh();
      server.route('GET', '/moved', () => ({
        status: 302,
        headers: { location: `${server.base}/target` },
        body: '',
      }));
      server.route('GET', '/target', () => ({ status: 200, body: 'followed' }));
      const result = succeeded(await server.client().request({ method: 'GET', url: `${server.base}/moved` }));
      assert.equal(result.status, 302);
      assert.equal(result.headers.location, `${server.base}/target`);
      assert.deepEqual(
        server.received().map((r) => r.path),
        ['/moved'],
      );
    });

    it('an answer slower than the timeout fails', async () => {
      const server = setup.fresh();
      server.route(
        'GET',
        '/slow',
        () => new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: 'late' }), 1000)),
      );
      const result = await server.client({ timeoutMs: 5000 }).request({
        method: 'GET',
        url: `${server.base}/slow`,
        timeoutMs: 100,
      });
      failedWith(result, 'failed', /timed out after 100 ms/);
      assert.ok(result.latencyMs < 900, `gave up after ${result.latencyMs} ms`);
    });

    it('a malformed request fails naming the field, before anything is sent', async () => {
      const server = setup.fresh();
      server.route('GET', '/x', () => ({ status: 200 }));
      const client = server.client();
      failedWith(
        await client.request({ method: 'GET', url: `${server.base}/x`, body: 'hi' }),
        'failed',
        /^invalid request: body: a GET request carries no body/,
      );
      failedWith(
        await client.request({ method: 'DELETE' as 'GET', url: `${server.base}/x` }),
        'failed',
        /^invalid request: method: expected GET or POST, got "DELETE"/,
      );
      failedWith(
        await client.request({ method: 'GET', url: `${server.base}/x`, timeoutMs: -1 }),
        'failed',
        /^invalid request: timeoutMs:/,
      );
      failedWith(
        await client.request({ method: 'GET', url: `${server.base}/x`, maxBytes: 1.5 }),
        'failed',
        /^invalid request: maxBytes:/,
      );
      assert.deepEqual(server.received(), []);
    });
  });
};
