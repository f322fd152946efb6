/**
 * The health probe against a scripted HttpClient: what it sends to each binding and version, which
 * answers count as TaskNotFound, the card's 304 / same / drifted / failed, and the status each mix gives.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cardUrlOf,
  MAX_ANSWER_BYTES,
  PROBE_USER_AGENT,
  probeAgent,
  V03_TASK_NOT_FOUND_TYPE,
} from '../../../../shared/app/registry/probe.ts';
import { cardDigest } from '../../../../shared/domain/registry/health.ts';
import type { CatalogEntry, RegistryCard } from '../../../../shared/domain/registry/record.ts';
import type {
  HttpClient,
  HttpClientRequest,
  HttpClientResult,
} from '../../../../shared/ports/http-client.ts';

const JSONRPC = 'https://agent.example/a2a/jsonrpc';
const REST = 'https://agent.example/a2a/rest';
const CARD_URL = 'https://agent.example/cards/weather.json';
const TASK_ID = 'probe-id-that-cannot-exist';
const NOW = new Date('2026-03-01T12:00:00.000Z');

type Interfaces = RegistryCard['supportedInterfaces'];

const card = (supportedInterfaces: Interfaces): RegistryCard => ({
  name: 'Weather',
  description: 'Forecasts',
  supportedInterfaces,
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'forecast', name: 'Forecast', description: 'A forecast', tags: ['weather'] }],
});

const V1_BOTH: Interfaces = [
  { url: JSONRPC, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: REST, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
];

const entryOf = (interfaces: Interfaces, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: 'rec-1',
  identifier: 'urn:air:acme:weather:forecaster',
  tenant: 'acme',
  owner: 'alice',
  visibility: 'public',
  state: 'APPROVED',
  version: 1,
  card: card(interfaces),
  cardUrl: CARD_URL,
  verification: { status: 'unsigned' },
  health: 'unknown',
  updatedAt: NOW.toISOString(),
  ...extra,
});

/** The card document as published (what the live digest is of). */
const PUBLISHED = { ...card(V1_BOTH), protocolVersion: '0.3.0' };

type Script = (req: HttpClientRequest) => HttpClientResult | Promise<HttpClientResult>;

/** An HttpClient that answers from a script and records every request. */
const scripted = (script: Script): HttpClient & { requests: HttpClientRequest[] } => {
  const requests: HttpClientRequest[] = [];
  return {
    requests,
    request: async (req) => {
      requests.push(req);
      return script(req);
    },
  };
};

const answer = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  latencyMs = 12,
): HttpClientResult => ({
  ok: true,
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
  latencyMs,
});

const noAnswer = (error = 'timed out after 100 ms', latencyMs = 100): HttpClientResult => ({
  ok: false,
  kind: 'failed',
  error,
  latencyMs,
});

const rpcTaskNotFound = (req: HttpClientRequest, code = -32001) => {
  const { id, params } = JSON.parse(req.body!) as { id: unknown; params: { id: string } };
  return answer(200, {
    jsonrpc: '2.0',
    id,
    error: {
      code,
      message: `Task not found: ${params.id}`,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: params.id },
        },
      ],
    },
  });
};

const restTaskNotFound = (taskId: string) =>
  answer(404, {
    error: {
      code: 404,
      status: 'NOT_FOUND',
      message: 'Task not found',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId },
        },
      ],
    },
  });

/** A healthy v1.0 agent serving PUBLISHED at CARD_URL, both bindings answering TaskNotFound. */
const healthyAgent: Script = (req) => {
  if (req.url === CARD_URL) return answer(200, PUBLISHED, { etag: 'W/"v1"' });
  if (req.method === 'POST' && req.url === JSONRPC) return rpcTaskNotFound(req);
  if (req.method === 'GET' && req.url === `${REST}/tasks/${TASK_ID}`) return restTaskNotFound(TASK_ID);
  return answer(404, 'Not Found', { 'content-type': 'text/plain' });
};

const probe = (http: HttpClient, entry = entryOf(V1_BOTH), extra: { cardEtag?: string } = {}) =>
  probeAgent({
    entry,
    liveCardDigest: cardDigest(PUBLISHED),
    http,
    now: () => NOW,
    timeoutMs: 2000,
    unknownTaskId: () => TASK_ID,
    ...extra,
  });

describe('probeAgent: a healthy v1.0 agent with both bindings', () => {
  it('is healthy: the card is the same, both interfaces answer TaskNotFound', async () => {
    const http = scripted(healthyAgent);
    const report = await probe(http);
    assert.equal(report.status, 'healthy');
    assert.equal(report.checkedAt, NOW.toISOString());
    assert.deepEqual(report.card, {
      status: 'same',
      url: CARD_URL,
      httpStatus: 200,
      etag: 'W/"v1"',
      digest: cardDigest(PUBLISHED),
      latencyMs: 12,
    });
    assert.deepEqual(
      report.interfaces.map((i) => [i.protocolBinding, i.ok, i.outcome, i.httpStatus, i.latencyMs]),
      [
        ['JSONRPC', true, 'task-not-found', 200, 12],
        ['HTTP+JSON', true, 'task-not-found', 404, 12],
      ],
    );
  });

  it('sends GetTask in each binding with A2A-Version 1.0, its User-Agent, a timeout and a bound', async () => {
    const http = scripted(healthyAgent);
    await probe(http);
    const [cardRequest, rpc, rest] = [
      http.requests.find((r) => r.url === CARD_URL)!,
      http.requests.find((r) => r.url === JSONRPC)!,
      http.requests.find((r) => r.url.startsWith(REST))!,
    ];
    assert.equal(http.requests.length, 3);
    for (const r of http.requests) {
      assert.equal(r.headers?.['user-agent'], PROBE_USER_AGENT);
      assert.match(PROBE_USER_AGENT, /^synapse-registry-probe\/\S+$/);
      assert.equal(r.timeoutMs, 2000);
    }
    assert.equal(cardRequest.method, 'GET');
    assert.equal(cardRequest.headers?.['if-none-match'], undefined);
    assert.equal(rpc.method, 'POST');
    assert.equal(rpc.headers?.['a2a-version'], '1.0');
    assert.equal(rpc.headers?.['content-type'], 'application/json');
    assert.equal(rpc.maxBytes, MAX_ANSWER_BYTES);
    const body = JSON.parse(rpc.body!) as Record<string, unknown>;
    assert.deepEqual(
      { ...body, id: typeof body.id },
      { jsonrpc: '2.0', id: 'string', method: 'GetTask', params: { id: TASK_ID } },
    );
    assert.equal(rest.method, 'GET');
    assert.equal(rest.url, `${REST}/tasks/${TASK_ID}`);
    assert.equal(rest.headers?.['a2a-version'], '1.0');
    assert.equal(rest.body, undefined);
  });

  it('asks for a fresh random id on every probe by default', async () => {
    const ids: string[] = [];
    const http = scripted((req) => {
      if (req.url === JSONRPC) ids.push((JSON.parse(req.body!) as { params: { id: string } }).params.id);
      return req.url === JSONRPC ? rpcTaskNotFound(req) : healthyAgent(req);
    });
    const entry = entryOf([V1_BOTH[0]!]);
    for (let n = 0; n < 2; n++)
      await probeAgent({ entry, liveCardDigest: cardDigest(PUBLISHED), http, now: () => NOW, timeoutMs: 50 });
    assert.equal(ids.length, 2);
    assert.notEqual(ids[0], ids[1]);
    assert.match(ids[0]!, /^[0-9a-f-]{36}$/);
  });

  it('puts the tenant of an interface in the REST path and the JSON-RPC params', async () => {
    const http = scripted((req) =>
      req.url === JSONRPC
        ? rpcTaskNotFound(req)
        : req.url === CARD_URL
          ? healthyAgent(req)
          : restTaskNotFound(TASK_ID),
    );
    await probe(
      http,
      entryOf([
        { ...V1_BOTH[0]!, tenant: 'team a' },
        { ...V1_BOTH[1]!, tenant: 'team a' },
      ]),
    );
    const rpc = http.requests.find((r) => r.url === JSONRPC)!;
    assert.deepEqual((JSON.parse(rpc.body!) as { params: unknown }).params, {
      id: TASK_ID,
      tenant: 'team a',
    });
    assert.ok(http.requests.some((r) => r.url === `${REST}/team%20a/tasks/${TASK_ID}`));
  });
});

describe('probeAgent: statuses', () => {
  it('one binding down (no answer): degraded', async () => {
    const http = scripted((req) =>
      req.url.startsWith(REST) ? noAnswer('connection refused') : healthyAgent(req),
    );
    const report = await probe(http);
    assert.equal(report.status, 'degraded');
    const rest = report.interfaces.find((i) => i.protocolBinding === 'HTTP+JSON')!;
    assert.deepEqual(
      { ok: rest.ok, outcome: rest.outcome, error: rest.error },
      { ok: false, outcome: 'failed', error: 'connection refused' },
    );
  });

  it('every binding down: unreachable, even when the card still answers', async () => {
    const http = scripted((req) => (req.url === CARD_URL ? healthyAgent(req) : noAnswer()));
    const report = await probe(http);
    assert.equal(report.card.status, 'same');
    assert.equal(report.status, 'unreachable');
  });

  it('a card that fails while both bindings answer: degraded', async () => {
    const http = scripted((req) => (req.url === CARD_URL ? answer(500, 'oops') : healthyAgent(req)));
    const report = await probe(http);
    assert.deepEqual(
      { status: report.card.status, httpStatus: report.card.httpStatus, error: report.card.error },
      { status: 'failed', httpStatus: 500, error: 'HTTP 500, expected 200' },
    );
    assert.equal(report.status, 'degraded');
  });

  it('a card that is not a JSON object fails the card check', async () => {
    for (const body of ['<html>hi</html>', '[1, 2]', 'null']) {
      const http = scripted((req) => (req.url === CARD_URL ? answer(200, body) : healthyAgent(req)));
      const report = await probe(http);
      assert.equal(report.card.status, 'failed', body);
      assert.equal(report.card.error, 'the card is not a JSON object');
    }
  });

  it('a URL the SSRF guard refuses is a failure that says so', async () => {
    const http = scripted((req) =>
      req.url === CARD_URL
        ? { ok: false, kind: 'refused', error: '10.0.0.1 is a private address', latencyMs: 1 }
        : healthyAgent(req),
    );
    const report = await probe(http);
    assert.equal(report.card.status, 'failed');
    assert.equal(report.card.error, 'refused: 10.0.0.1 is a private address');
  });
});

describe('probeAgent: the card', () => {
  it('sends the known ETag as If-None-Match; a 304 is unchanged and healthy', async () => {
    const http = scripted((req) =>
      req.url === CARD_URL && req.headers?.['if-none-match'] === 'W/"v1"'
        ? answer(304, '')
        : healthyAgent(req),
    );
    const report = await probe(http, undefined, { cardEtag: 'W/"v1"' });
    assert.deepEqual(report.card, {
      status: 'unchanged',
      url: CARD_URL,
      httpStatus: 304,
      etag: 'W/"v1"',
      latencyMs: 12,
    });
    assert.equal(report.status, 'healthy');
  });

  it('a 304 to a request that was not conditional is not a card', async () => {
    const http = scripted((req) => (req.url === CARD_URL ? answer(304, '') : healthyAgent(req)));
    const report = await probe(http);
    assert.equal(report.card.status, 'failed');
  });

  it('the same card in another key order and spacing is the same', async () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(PUBLISHED).reverse()), null, 2);
    const http = scripted((req) => (req.url === CARD_URL ? answer(200, reordered) : healthyAgent(req)));
    const report = await probe(http);
    assert.equal(report.card.status, 'same');
    assert.equal(report.status, 'healthy');
  });

  it('another card is drifted, with its digest, and the agent degraded', async () => {
    const edited = { ...PUBLISHED, description: 'Forecasts, and now stock tips' };
    const http = scripted((req) =>
      req.url === CARD_URL ? answer(200, edited, { etag: '"v2"' }) : healthyAgent(req),
    );
    const report = await probe(http, undefined, { cardEtag: 'W/"v1"' });
    assert.equal(report.card.status, 'drifted');
    assert.equal(report.card.digest, cardDigest(edited));
    assert.notEqual(report.card.digest, cardDigest(PUBLISHED));
    assert.equal(report.card.etag, '"v2"');
    assert.equal(report.status, 'degraded');
  });

  it('without a card URL, the well-known card of the first interface origin is fetched', async () => {
    const entry = entryOf(V1_BOTH, { cardUrl: undefined });
    assert.equal(cardUrlOf(entry), 'https://agent.example/.well-known/agent-card.json');
    const http = scripted((req) =>
      req.url === 'https://agent.example/.well-known/agent-card.json'
        ? answer(200, PUBLISHED)
        : healthyAgent(req),
    );
    const report = await probe(http, entry);
    assert.equal(report.card.status, 'same');
    assert.equal(report.card.url, 'https://agent.example/.well-known/agent-card.json');
  });
});

describe('probeAgent: answers that are not TaskNotFound', () => {
  it('a JSON-RPC result (a task for an id that cannot exist) is not ok', async () => {
    const http = scripted((req) =>
      req.url === JSONRPC
        ? answer(200, {
            jsonrpc: '2.0',
            id: (JSON.parse(req.body!) as { id: unknown }).id,
            result: { id: TASK_ID, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
          })
        : healthyAgent(req),
    );
    const report = await probe(http);
    const rpc = report.interfaces[0]!;
    assert.deepEqual(
      { ok: rpc.ok, outcome: rpc.outcome, error: rpc.error },
      { ok: false, outcome: 'unexpected', error: 'a task was returned for an id that cannot exist' },
    );
    assert.equal(report.status, 'degraded');
  });

  it('a REST 200 with a task is not ok', async () => {
    const http = scripted((req) =>
      req.url.startsWith(REST) ? answer(200, { id: TASK_ID, contextId: 'c' }) : healthyAgent(req),
    );
    const rest = (await probe(http)).interfaces[1]!;
    assert.equal(rest.ok, false);
    assert.equal(rest.outcome, 'unexpected');
  });

  it('another JSON-RPC error, a wrong id, or a page that is not JSON-RPC is not ok', async () => {
    const cases: [Script, RegExp][] = [
      [(req) => rpcTaskNotFound(req, -32601), /error -32601 .*expected -32001/],
      [
        () => answer(200, { jsonrpc: '2.0', id: 'someone-else', error: { code: -32001, message: 'x' } }),
        /id "someone-else" is not the request's/,
      ],
      [
        () => answer(200, '<html>Welcome</html>', { 'content-type': 'text/html' }),
        /without a JSON-RPC 2.0 response/,
      ],
    ];
    for (const [script, error] of cases) {
      const http = scripted((req) => (req.url === JSONRPC ? script(req) : healthyAgent(req)));
      const rpc = (await probe(http)).interfaces[0]!;
      assert.equal(rpc.ok, false);
      assert.match(rpc.error ?? '', error);
    }
  });

  it('a bare 404, or a google.rpc.Status 404 without the TASK_NOT_FOUND reason, is not TaskNotFound', async () => {
    const bodies = ['Not Found', { error: { code: 404, status: 'NOT_FOUND', message: 'no route' } }];
    for (const body of bodies) {
      const http = scripted((req) => (req.url.startsWith(REST) ? answer(404, body) : healthyAgent(req)));
      const rest = (await probe(http)).interfaces[1]!;
      assert.equal(rest.ok, false, JSON.stringify(body));
      assert.equal(rest.outcome, 'unexpected');
    }
  });

  it('a 401 with a WWW-Authenticate challenge is ok (auth required); a 401 without one or a 403 is not', async () => {
    const cases: [HttpClientResult, boolean][] = [
      [answer(401, { error: 'unauthenticated' }, { 'www-authenticate': 'Bearer realm="agent"' }), true],
      [answer(401, { error: 'unauthenticated' }), false],
      [answer(403, { error: 'forbidden' }), false],
    ];
    for (const [result, ok] of cases) {
      const http = scripted((req) => (req.url === CARD_URL ? healthyAgent(req) : result));
      const report = await probe(http);
      assert.deepEqual(
        report.interfaces.map((i) => i.ok),
        [ok, ok],
      );
      if (ok) assert.deepEqual([...new Set(report.interfaces.map((i) => i.outcome))], ['auth-required']);
      assert.equal(report.status, ok ? 'healthy' : 'unreachable');
    }
  });
});

describe('probeAgent: v0.3 interfaces, gRPC and timeouts', () => {
  it('a v0.3 JSON-RPC interface is asked tasks/get, without A2A-Version', async () => {
    const http = scripted((req) => (req.url === JSONRPC ? rpcTaskNotFound(req) : healthyAgent(req)));
    const report = await probe(
      http,
      entryOf([{ url: JSONRPC, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]),
    );
    const rpc = http.requests.find((r) => r.url === JSONRPC)!;
    const body = JSON.parse(rpc.body!) as { method: string; params: unknown };
    assert.equal(body.method, 'tasks/get');
    assert.deepEqual(body.params, { id: TASK_ID });
    assert.equal(rpc.headers?.['a2a-version'], undefined);
    assert.equal(report.interfaces[0]?.outcome, 'task-not-found');
    assert.equal(report.status, 'healthy');
  });

  it('a v0.3 HTTP+JSON interface is asked GET /v1/tasks/{id}; a problem+json or a2a-js body is TaskNotFound', async () => {
    const bodies = [
      { type: V03_TASK_NOT_FOUND_TYPE, title: 'Task Not Found', status: 404, detail: 'Task not found' },
      { code: -32001, message: 'Task not found' },
    ];
    for (const body of bodies) {
      const http = scripted((req) =>
        req.url === `${REST}/v1/tasks/${TASK_ID}` ? answer(404, body) : healthyAgent(req),
      );
      const report = await probe(
        http,
        entryOf([{ url: `${REST}/`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3.0' }]),
      );
      assert.equal(report.interfaces[0]?.outcome, 'task-not-found', JSON.stringify(body));
      assert.equal(http.requests.find((r) => r.url.startsWith(REST))?.headers?.['a2a-version'], undefined);
    }
  });

  it('gRPC and unknown bindings or versions are skipped: reported, not counted', async () => {
    const http = scripted(healthyAgent);
    const report = await probe(
      http,
      entryOf([
        ...V1_BOTH,
        { url: 'https://agent.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        {
          url: 'wss://agent.example/ws',
          protocolBinding: 'https://example.com/websocket',
          protocolVersion: '1.0',
        },
        { url: JSONRPC, protocolBinding: 'JSONRPC', protocolVersion: '2.0' },
      ]),
    );
    assert.deepEqual(
      report.interfaces.map((i) => i.outcome),
      ['task-not-found', 'task-not-found', 'skipped', 'skipped', 'skipped'],
    );
    assert.match(report.interfaces[2]?.error ?? '', /GRPC binding is not probed/);
    assert.match(report.interfaces[4]?.error ?? '', /protocol version 2.0/);
    assert.equal(report.status, 'healthy');
    assert.equal(http.requests.length, 3, 'nothing is sent to a skipped interface');
  });

  it('an agent with only gRPC interfaces is unknown while its card answers', async () => {
    const http = scripted(healthyAgent);
    const report = await probe(
      http,
      entryOf([{ url: 'https://agent.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' }]),
    );
    assert.equal(report.status, 'unknown');
  });

  it('requests run at once: the interfaces are probed together, and timeouts are failures', async () => {
    const TIMEOUT = 150;
    // the interface probes in flight together, counted rather than timed
    let inFlight = 0;
    let mostInFlight = 0;
    const http = scripted(async (req) => {
      if (req.url === CARD_URL) return healthyAgent(req);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, req.timeoutMs));
      inFlight--;
      return noAnswer(`timed out after ${req.timeoutMs} ms`, req.timeoutMs);
    });
    const report = await probeAgent({
      entry: entryOf(V1_BOTH),
      liveCardDigest: cardDigest(PUBLISHED),
      http,
      now: () => NOW,
      timeoutMs: TIMEOUT,
    });
    assert.equal(mostInFlight, 2, 'both interfaces at once');
    assert.deepEqual(
      report.interfaces.map((i) => [i.outcome, i.error, i.latencyMs]),
      [
        ['failed', 'timed out after 150 ms', 150],
        ['failed', 'timed out after 150 ms', 150],
      ],
    );
    assert.equal(report.status, 'unreachable');
  });
});
