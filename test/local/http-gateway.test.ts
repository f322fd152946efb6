import assert from 'node:assert/strict';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  type ApiHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpGateway,
  startHttpGateway,
} from '../../local/http-gateway.ts';
import { ROUTES } from '../../shared/contracts/routes.ts';
import { type Run, run, waitForOutput } from './fixtures/process.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

/** node:http rather than fetch: it sends repeated headers as separate lines and streams bodies. */
const send = (
  url: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: Buffer | string; chunks?: Buffer[] } = {},
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end(options.body);
  });

type Call = { event: APIGatewayProxyEvent; context: Context; remaining: number };

const fake = (
  result: APIGatewayProxyResult | ((e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>),
) => {
  const calls: Call[] = [];
  const handler: ApiHandler = async (event, context) => {
    calls.push({ event, context, remaining: context.getRemainingTimeInMillis() });
    return typeof result === 'function' ? result(event) : result;
  };
  return { calls, handler };
};

describe('local HTTP gateway', () => {
  const echo = fake({ statusCode: 200, body: '{"ok":true}' });
  const card = fake({ statusCode: 200, body: '{"name":"card"}' });
  const task = fake({ statusCode: 200, body: '' });
  const files = fake({ statusCode: 200, body: '' });
  const handlers: Record<string, ApiHandler> = {
    jsonrpc: echo.handler,
    'agent-card': card.handler,
    task: task.handler,
    files: files.handler,
  };
  let gw: HttpGateway;

  before(async () => {
    gw = await startHttpGateway({
      routes: [
        ...ROUTES,
        { method: 'GET', path: '/tasks/{id}', function: 'task' },
        { method: 'GET', path: '/tasks/{id}/events', function: 'task' },
        { method: 'GET', path: '/files/{path+}', function: 'files' },
        { method: 'GET', path: '/files/readme', function: 'agent-card' },
        { method: 'POST', path: '/dynamic', function: 'dynamic' },
      ],
      handlers,
      port: 0,
      timeoutMs: 2000,
      // the JSON-RPC route streams (ROUTES): its integration timeout is the streamed one
      streamTimeoutMs: 2500,
      log: () => {},
    });
  });
  after(() => gw.stop());

  test('binds 127.0.0.1 on an ephemeral port', () => {
    assert.match(gw.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(gw.port, 0);
  });

  test('turns a POST into an API Gateway REST proxy event', async () => {
    const before = Date.now();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'é' } });
    const reply = await send(`${gw.url}/a2a/jsonrpc?x=1&x=2&y=a%20b`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'X-Multi': ['a', 'b'] },
      body,
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.text, '{"ok":true}');
    const { event, context, remaining } = echo.calls.at(-1)!;
    assert.equal(event.httpMethod, 'POST');
    assert.equal(event.path, '/a2a/jsonrpc');
    assert.equal(event.resource, '/a2a/jsonrpc');
    assert.equal(event.body, body);
    assert.equal(event.isBase64Encoded, false);
    assert.equal(event.headers['A2A-Version'], '1.0');
    assert.equal(event.headers['Content-Type'], 'application/json');
    assert.equal(event.headers['X-Multi'], 'b');
    assert.deepEqual(event.multiValueHeaders['X-Multi'], ['a', 'b']);
    assert.equal(event.headers['X-Forwarded-For'], '127.0.0.1');
    assert.equal(event.headers['X-Forwarded-Proto'], 'http');
    assert.deepEqual(event.queryStringParameters, { x: '2', y: 'a b' });
    assert.deepEqual(event.multiValueQueryStringParameters, { x: ['1', '2'], y: ['a b'] });
    assert.equal(event.pathParameters, null);
    assert.equal(event.stageVariables, null);
    const rc = event.requestContext;
    assert.equal(rc.stage, 'local');
    assert.equal(rc.httpMethod, 'POST');
    assert.equal(rc.resourcePath, '/a2a/jsonrpc');
    assert.equal(rc.path, '/local/a2a/jsonrpc');
    assert.equal(rc.identity.sourceIp, '127.0.0.1');
    assert.match(rc.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(reply.headers['x-amzn-requestid'], rc.requestId);
    assert.ok(rc.requestTimeEpoch >= before && rc.requestTimeEpoch <= Date.now());
    assert.match(rc.requestTime!, /^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    assert.equal(context.functionName, 'jsonrpc');
    assert.match(context.awsRequestId, /^[0-9a-f-]{36}$/);
    assert.ok(remaining > 2000 && remaining <= 2500, `remaining ${remaining}: the streamed route's timeout`);
  });

  test('a GET without query or body gets nulls, as in API Gateway', async () => {
    const reply = await send(`${gw.url}/.well-known/agent-card.json`);
    assert.equal(reply.status, 200);
    const { event } = card.calls.at(-1)!;
    assert.equal(event.queryStringParameters, null);
    assert.equal(event.multiValueQueryStringParameters, null);
    assert.equal(event.body, null);
    assert.equal(event.isBase64Encoded, false);
  });

  test('a non-text body arrives base64-encoded', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await send(`${gw.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    const { event } = echo.calls.at(-1)!;
    assert.equal(event.isBase64Encoded, true);
    assert.deepEqual(Buffer.from(event.body!, 'base64'), bytes);
  });

  test('+json content types count as text', async () => {
    await send(`${gw.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json; charset=utf-8' },
      body: '{"a":1}',
    });
    const { event } = echo.calls.at(-1)!;
    assert.equal(event.isBase64Encoded, false);
    assert.equal(event.body, '{"a":1}');
  });

  test('path parameters, greedy ones, and static routes before parameterised ones', async () => {
    await send(`${gw.url}/tasks/abc%20d`);
    assert.deepEqual(task.calls.at(-1)!.event.pathParameters, { id: 'abc d' });
    assert.equal(task.calls.at(-1)!.event.resource, '/tasks/{id}');
    await send(`${gw.url}/tasks/t1/events`);
    assert.equal(task.calls.at(-1)!.event.resource, '/tasks/{id}/events');
    await send(`${gw.url}/files/a/b/c.txt`);
    assert.deepEqual(files.calls.at(-1)!.event.pathParameters, { path: 'a/b/c.txt' });
    const cardCalls = card.calls.length;
    await send(`${gw.url}/files/readme`);
    assert.equal(card.calls.length, cardCalls + 1, 'the static /files/readme wins over /files/{path+}');
  });

  test('unknown path → 404 Not Found, known path with another method → 405 with Allow', async () => {
    const calls = echo.calls.length + card.calls.length;
    const missing = await send(`${gw.url}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(JSON.parse(missing.text), { message: 'Not Found' });
    assert.match(String(missing.headers['content-type']), /application\/json/);
    const wrong = await send(`${gw.url}/a2a/jsonrpc`);
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.allow, 'POST');
    assert.equal(echo.calls.length + card.calls.length, calls);
  });

  test('a route whose handler is not (yet) in the map answers 503, and picks it up once added', async () => {
    const early = await send(`${gw.url}/dynamic`, { method: 'POST' });
    assert.equal(early.status, 503);
    handlers.dynamic = async () => ({ statusCode: 202, body: 'later' });
    const late = await send(`${gw.url}/dynamic`, { method: 'POST' });
    assert.equal(late.status, 202);
    assert.equal(late.text, 'later');
  });
});

describe('local HTTP gateway: responses', () => {
  let gw: HttpGateway;
  let handler: ApiHandler = async () => ({ statusCode: 200, body: '' });
  const logged: string[] = [];

  before(async () => {
    gw = await startHttpGateway({
      routes: [{ method: 'POST', path: '/fn', function: 'fn' }],
      handlers: { fn: (e, c) => handler(e, c) },
      timeoutMs: 300,
      log: (m) => logged.push(m),
    });
  });
  after(() => gw.stop());

  test('writes status, headers merged with multiValueHeaders, and body; JSON by default', async () => {
    handler = async () => ({
      statusCode: 201,
      headers: { 'X-One': '1', 'Set-Cookie': 'ignored=1', 'X-Num': 7 },
      multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
      body: 'héllo',
    });
    const reply = await send(`${gw.url}/fn`, { method: 'POST' });
    assert.equal(reply.status, 201);
    assert.equal(reply.headers['x-one'], '1');
    assert.equal(reply.headers['x-num'], '7');
    assert.deepEqual(reply.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(reply.headers['content-type'], 'application/json');
    assert.equal(reply.headers['content-length'], String(Buffer.byteLength('héllo')));
    assert.equal(reply.text, 'héllo');
  });

  test('decodes an isBase64Encoded body and keeps the content type', async () => {
    const bytes = Buffer.from([0, 255, 1, 254, 0x89, 0x50]);
    handler = async () => ({
      statusCode: 200,
      headers: { 'Content-Type': 'image/png' },
      isBase64Encoded: true,
      body: bytes.toString('base64'),
    });
    const reply = await send(`${gw.url}/fn`, { method: 'POST' });
    assert.equal(reply.headers['content-type'], 'image/png');
    assert.deepEqual(reply.body, bytes);
  });

  test('a handler that throws (async or not) → 502 Internal server error', async () => {
    handler = async () => {
      throw new Error('boom');
    };
    const reply = await send(`${gw.url}/fn`, { method: 'POST' });
    assert.equal(reply.status, 502);
    assert.deepEqual(JSON.parse(reply.text), { message: 'Internal server error' });
    handler = () => {
      throw new Error('sync boom');
    };
    assert.equal((await send(`${gw.url}/fn`, { method: 'POST' })).status, 502);
    assert.ok(logged.some((m) => m.includes('fn threw')));
  });

  test('a malformed proxy result → 502', async () => {
    handler = async () => ({ body: 'no status' }) as unknown as APIGatewayProxyResult;
    assert.equal((await send(`${gw.url}/fn`, { method: 'POST' })).status, 502);
    handler = async () =>
      ({ statusCode: 200, body: { not: 'a string' } }) as unknown as APIGatewayProxyResult;
    assert.equal((await send(`${gw.url}/fn`, { method: 'POST' })).status, 502);
  });

  test('a handler slower than the integration timeout → 504', async () => {
    let handlerFinished = false;
    handler = () =>
      new Promise((resolve) =>
        setTimeout(() => {
          handlerFinished = true;
          resolve({ statusCode: 200, body: '' });
        }, 600),
      );
    const reply = await send(`${gw.url}/fn`, { method: 'POST' });
    assert.equal(reply.status, 504);
    assert.deepEqual(JSON.parse(reply.text), { message: 'Endpoint request timed out' });
    assert.equal(
      handlerFinished,
      false,
      'answered at the 300 ms timeout, before the 600 ms handler finished',
    );
  });
});

describe('local HTTP gateway: body limit', () => {
  test('bodies over the limit get 413 without calling the handler (declared and chunked)', async () => {
    let calls = 0;
    const gw = await startHttpGateway({
      routes: [{ method: 'POST', path: '/fn', function: 'fn' }],
      handlers: {
        fn: async (e) => {
          calls++;
          return { statusCode: 200, body: String(e.body?.length ?? 0) };
        },
      },
      maxBodyBytes: 1024,
    });
    try {
      const atLimit = await send(`${gw.url}/fn`, { method: 'POST', body: 'x'.repeat(1024) });
      assert.equal(atLimit.status, 200);
      assert.equal(atLimit.text, '1024');
      const over = await send(`${gw.url}/fn`, { method: 'POST', body: 'x'.repeat(1025) });
      assert.equal(over.status, 413);
      assert.deepEqual(JSON.parse(over.text), { message: 'Request Too Long' });
      // no Content-Length: counted while streaming
      const chunked = await send(`${gw.url}/fn`, {
        method: 'POST',
        headers: { 'transfer-encoding': 'chunked' },
        chunks: [Buffer.alloc(600, 'a'), Buffer.alloc(600, 'b')],
      });
      assert.equal(chunked.status, 413);
      assert.equal(calls, 1);
    } finally {
      await gw.stop();
    }
  });

  test('the default limit is API Gateway’s 10 MB', async () => {
    assert.equal(DEFAULT_MAX_BODY_BYTES, 10 * 1024 * 1024);
    let calls = 0;
    const gw = await startHttpGateway({
      routes: [{ method: 'POST', path: '/fn', function: 'fn' }],
      handlers: {
        fn: async (e) => {
          calls++;
          return { statusCode: 200, body: String(e.body?.length ?? 0) };
        },
      },
    });
    try {
      const full = await send(`${gw.url}/fn`, {
        method: 'POST',
        body: Buffer.alloc(DEFAULT_MAX_BODY_BYTES, 'a'),
      });
      assert.equal(full.text, String(DEFAULT_MAX_BODY_BYTES));
      const over = await send(`${gw.url}/fn`, {
        method: 'POST',
        body: Buffer.alloc(DEFAULT_MAX_BODY_BYTES + 1, 'a'),
      });
      assert.equal(over.status, 413);
      assert.equal(calls, 1);
    } finally {
      await gw.stop();
    }
  });
});

interface Upload {
  status?: number;
  text?: string;
  /** An error the client saw at any point (EPIPE, ECONNRESET), even after the answer. */
  error?: string;
}

/** node:http as a plain client uses it: write the whole body (Content-Length), then read the answer. */
const upload = (url: string, size: number): Promise<Upload> =>
  new Promise((resolve) => {
    const result: Upload = {};
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-length': size }, agent: false },
      (res) => {
        result.status = res.statusCode;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          result.text = text;
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      result.error ??= e.code ?? e.message;
    });
    // after the answer and the socket's end, so a late EPIPE is seen too
    req.on('close', () => setImmediate(() => resolve(result)));
    req.end(Buffer.alloc(size, 'a'));
  });

const fetchUpload = async (url: string, size: number): Promise<Upload> => {
  try {
    const res = await fetch(url, { method: 'POST', body: Buffer.alloc(size, 'a') });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? String(e) };
  }
};

const TOO_LONG: Upload = { status: 413, text: JSON.stringify({ message: 'Request Too Long' }) };

describe('local HTTP gateway: over-limit uploads', { concurrency: true }, () => {
  // in another process: a client sharing the gateway's event loop never sees the reset a real one gets
  const startGateway = async (
    env: Record<string, string>,
  ): Promise<{ url: string; stop: () => Promise<void> }> => {
    const r: Run = run('test/local/fixtures/gateway-main.ts', env);
    const [, url] = await waitForOutput(r, /listening on (http:\/\/\S+)/);
    return {
      url: `${url}/fn`,
      stop: async () => {
        r.child.kill('SIGTERM');
        await r.exited;
      },
    };
  };

  test('a client that sends its whole declared body first reads the 413 (no EPIPE or reset)', async () => {
    const gw = await startGateway({ GATEWAY_MAX_BODY_BYTES: String(64 * 1024) });
    try {
      for (let i = 0; i < 4; i++) {
        assert.deepEqual(await upload(gw.url, 16 * 1024 * 1024), TOO_LONG, `node:http, upload ${i}`);
        assert.deepEqual(await fetchUpload(gw.url, 16 * 1024 * 1024), TOO_LONG, `fetch, upload ${i}`);
      }
      assert.deepEqual(await upload(gw.url, 1000), { status: 200, text: '1000' }, 'and it still serves');
    } finally {
      await gw.stop();
    }
  });

  test('the same at the default 10 MB limit, just over it', async () => {
    const gw = await startGateway({});
    try {
      for (let i = 0; i < 3; i++) {
        assert.deepEqual(
          await upload(gw.url, DEFAULT_MAX_BODY_BYTES + 1024 * 1024),
          TOO_LONG,
          `node:http ${i}`,
        );
        assert.deepEqual(
          await fetchUpload(gw.url, DEFAULT_MAX_BODY_BYTES + 1024 * 1024),
          TOO_LONG,
          `fetch ${i}`,
        );
      }
    } finally {
      await gw.stop();
    }
  });

  test('a body far beyond what the gateway drains ends with the connection closed', async () => {
    const gw = await startHttpGateway({
      routes: [{ method: 'POST', path: '/fn', function: 'fn' }],
      handlers: { fn: async () => ({ statusCode: 200, body: '' }) },
      maxBodyBytes: 1024,
      maxDrainBytes: 1024 * 1024,
      log: () => {},
    });
    try {
      // chunked, so nothing announces the size: the client would send 64 MiB if let
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const outcome = await new Promise<{ sent: number; status?: number }>((resolve) => {
        let sent = 0;
        let status: number | undefined;
        const req = httpRequest(
          `${gw.url}/fn`,
          { method: 'POST', headers: { 'transfer-encoding': 'chunked' }, agent: false },
          (res) => {
            status = res.statusCode;
            res.resume();
          },
        );
        req.on('error', () => {});
        req.on('close', () => resolve({ sent, ...(status ? { status } : {}) }));
        const write = () => {
          while (!req.destroyed && sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', write);
          }
          if (!req.destroyed) req.end();
        };
        write();
      });
      assert.ok(
        outcome.sent < 64 * 1024 * 1024,
        `the gateway closed the connection (sent ${outcome.sent} bytes)`,
      );
    } finally {
      await gw.stop(0);
    }
  });

  test('a client that stalls mid-body gets the 413 and its connection closed', async () => {
    const gw = await startHttpGateway({
      routes: [{ method: 'POST', path: '/fn', function: 'fn' }],
      handlers: { fn: async () => ({ statusCode: 200, body: '' }) },
      maxBodyBytes: 1024,
      drainTimeoutMs: 200,
      log: () => {},
    });
    try {
      const { port } = new URL(gw.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (d: string) => {
          text += d;
        });
        socket.on('error', () => {});
        socket.on('close', () => resolve(text));
        // 1 MB announced, 100 bytes sent, then nothing: the socket stays open until the gateway closes it
        socket.write('POST /fn HTTP/1.1\r\nHost: local\r\nContent-Length: 1000000\r\n\r\n');
        socket.write('x'.repeat(100));
        setTimeout(() => reject(new Error('the gateway kept the stalled connection open')), 15_000).unref();
      });
      assert.match(answer, /^HTTP\/1\.1 413 /);
      assert.match(answer, /\{"message":"Request Too Long"\}$/);
    } finally {
      await gw.stop(0);
    }
  });
});

describe('local HTTP gateway: lifecycle', () => {
  test('a taken port rejects with EADDRINUSE', async () => {
    const first = await startHttpGateway({ routes: [], handlers: {} });
    try {
      await assert.rejects(startHttpGateway({ routes: [], handlers: {}, port: first.port }), {
        code: 'EADDRINUSE',
      });
    } finally {
      await first.stop();
    }
  });

  test('stop() lets a request in flight finish, then refuses connections', async () => {
    const gw = await startHttpGateway({
      routes: [{ method: 'GET', path: '/slow', function: 'slow' }],
      handlers: {
        slow: () =>
          new Promise((resolve) => setTimeout(() => resolve({ statusCode: 200, body: 'done' }), 200)),
      },
    });
    const pending = send(`${gw.url}/slow`);
    await new Promise((r) => setTimeout(r, 50));
    await gw.stop();
    const reply = await pending;
    assert.equal(reply.status, 200);
    assert.equal(reply.text, 'done');
    await assert.rejects(send(`${gw.url}/slow`), { code: 'ECONNREFUSED' });
  });
});
