/**
 * The in-memory HttpClient (shared/adapters/memory/http-client.ts): the port's contract
 * (test/contract/http-client.ts, which the guarded client runs on a real server too), then its own
 * scripting: routes, the record of requests, an unknown URL, a responder that throws, no guard.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllowlist, UrlGuard } from '../../../../shared/adapters/http/url-guard.ts';
import { InMemoryHttpClient, type Responder } from '../../../../shared/adapters/memory/http-client.ts';
import type { HttpClientRequest } from '../../../../shared/ports/http-client.ts';
import { type HttpClientFixture, httpClientContract } from '../../../contract/http-client.ts';

const BASE = 'http://127.0.0.1:8080';

/** One route table for every client a test makes; `received` is what all of them sent. */
const fresh = (): HttpClientFixture => {
  const routes: [HttpClientRequest['method'], string, Responder][] = [];
  const clients: InMemoryHttpClient[] = [];
  return {
    base: BASE,
    client: (defaults = {}) => {
      const client = new InMemoryHttpClient({
        guard: new UrlGuard({ allowlist: parseAllowlist('127.0.0.1') }),
        ...defaults,
      });
      for (const [method, path, answer] of routes) client.route(method, `${BASE}${path}`, answer);
      clients.push(client);
      return client;
    },
    route: (method, path, answer) => {
      routes.push([method, path, answer]);
      for (const client of clients) client.route(method, `${BASE}${path}`, answer);
    },
    received: () =>
      clients.flatMap((c) =>
        c.requests.map((r) => {
          const url = new URL(r.url);
          return {
            method: r.method,
            path: `${url.pathname}${url.search}`,
            headers: r.headers ?? {},
            body: r.body ?? '',
          };
        }),
      ),
  };
};

httpClientContract('in memory', { fresh });

describe('InMemoryHttpClient', () => {
  it('records every request sent, headers copied, and answers by method and normalized URL', async () => {
    const client = new InMemoryHttpClient().respond('GET', 'https://agent.example.com', {
      status: 200,
      body: 'root',
    });
    const headers = { accept: 'application/json' };
    const result = await client.request({ method: 'GET', url: 'https://AGENT.example.com:443/', headers });
    assert.ok(result.ok);
    assert.equal(result.body, 'root');
    headers.accept = 'text/plain';
    assert.deepEqual(client.requests, [
      { method: 'GET', url: 'https://AGENT.example.com:443/', headers: { accept: 'application/json' } },
    ]);
    // same URL, other method: no route
    const post = await client.request({ method: 'POST', url: 'https://agent.example.com/', body: '{}' });
    assert.deepEqual(post.ok ? post : { kind: post.kind, error: post.error }, {
      kind: 'failed',
      error: 'connection failed: no route for POST https://agent.example.com/',
    });
    assert.equal(client.requests.length, 2);
  });

  it('an unknown URL fails', async () => {
    const result = await new InMemoryHttpClient().request({
      method: 'GET',
      url: 'https://nowhere.example.net/x',
    });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.kind, 'failed');
    assert.match(!result.ok ? result.error : '', /no route for GET https:\/\/nowhere\.example\.net\/x/);
  });

  it('a responder that throws is a connection failure with its message', async () => {
    const client = new InMemoryHttpClient().route('GET', 'https://agent.example.com/card', () => {
      throw new Error('ECONNRESET socket hang up');
    });
    const result = await client.request({ method: 'GET', url: 'https://agent.example.com/card' });
    assert.deepEqual(result.ok ? result : { kind: result.kind, error: result.error }, {
      kind: 'failed',
      error: 'connection failed: ECONNRESET socket hang up',
    });
  });

  it('without a guard lets every URL through; a route replaced answers anew', async () => {
    const client = new InMemoryHttpClient().respond('GET', 'http://10.0.0.7/card', {
      status: 200,
      body: 'a',
    });
    const first = await client.request({ method: 'GET', url: 'http://10.0.0.7/card' });
    assert.equal(first.ok && first.body, 'a');
    client.respond('GET', 'http://10.0.0.7/card', { status: 500, body: 'b' });
    const second = await client.request({ method: 'GET', url: 'http://10.0.0.7/card' });
    assert.equal(second.ok && second.status, 500);
  });

  it('caps answers at 256 KiB by default', async () => {
    const url = 'https://agent.example.com/big';
    const client = new InMemoryHttpClient().respond('GET', url, {
      status: 200,
      body: 'x'.repeat(256 * 1024 + 1),
    });
    const result = await client.request({ method: 'GET', url });
    assert.match(!result.ok ? result.error : 'answered', /larger than 262144 bytes/);
  });
});
