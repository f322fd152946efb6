/**
 * Response streaming in the local runtime: the `awslambda` stand-in (local/lambda-streaming.ts) and the
 * gateway's streamed routes (local/http-gateway.ts). Status and headers come from the prelude, chunks
 * reach the client as they are written (the client reads the first while the handler still waits),
 * a client that leaves breaks the handler's stream, the streamed integration timeout, and middy's
 * `streamifyResponse` through withObservability (a Readable body and a plain string body).
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable, type Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type ApiHandler, type HttpGateway, startHttpGateway } from '../../local/http-gateway.ts';
import { installLambdaStreaming, isStreamingHandler } from '../../local/lambda-streaming.ts';
import { createObservability, withObservability } from '../../shared/observability/index.ts';

installLambdaStreaming();
const lambda = (globalThis as unknown as { awslambda: typeof awslambda }).awslambda;

type StreamFn = (event: APIGatewayProxyEvent, stream: Writable) => Promise<void>;
const streaming = (fn: StreamFn) =>
  lambda.streamifyResponse(async (event: APIGatewayProxyEvent, stream: Writable) =>
    fn(event, stream),
  ) as unknown as ApiHandler;

/** Resolves once `open()` is called: lets a test hold a handler midway. */
const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { opened, open };
};

/** A request whose response chunks are handed over one by one, as they arrive. */
const open = (
  url: string,
  method = 'POST',
): Promise<{ res: IncomingMessage; chunks: AsyncIterator<Buffer> }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false }, (res) =>
      resolve({ res, chunks: res[Symbol.asyncIterator]() }),
    );
    req.on('error', reject);
    req.end();
  });

const quiet = createObservability({ logLevel: 'SILENT', metricsEnabled: false });

let gw: HttpGateway;
let handler: ApiHandler = async () => ({ statusCode: 200, body: '' });
const logged: string[] = [];
/** The same lines with their error and level, as the gateway logged them. */
const lines: { message: string; error: unknown; level: string }[] = [];

before(async () => {
  gw = await startHttpGateway({
    routes: [
      { method: 'POST', path: '/stream', function: 'fn', stream: true },
      { method: 'POST', path: '/buffered', function: 'fn' },
    ],
    // looked up on each request: the handler as the test set it, streaming marker included
    handlers: {
      get fn() {
        return handler;
      },
    },
    timeoutMs: 300,
    streamTimeoutMs: 1500,
    log: (message, error, level = 'error') => {
      logged.push(message);
      lines.push({ message, error, level });
    },
  });
});

/** Sends a request and closes its connection once `leave` resolves, before any answer. */
const leaveEarly = (url: string, leave: Promise<void>): Promise<void> =>
  new Promise((resolve) => {
    const req = httpRequest(url, { method: 'POST', agent: false });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.end();
    void leave.then(() => {
      req.destroy();
      resolve();
    });
  });

/** Resolves once the gateway has logged a line matching `pattern` (or fails after 5 s). */
const loggedLine = async (pattern: RegExp) => {
  for (let i = 0; i < 100; i++) {
    const line = lines.find((l) => pattern.test(l.message));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing logged matches ${pattern}: ${JSON.stringify(logged)}`);
};
after(() => gw.stop());

describe('the awslambda stand-in', () => {
  test('marks a streamified handler as the runtime does, and leaves other globals alone', () => {
    const marked = lambda.streamifyResponse(async () => {});
    assert.ok(isStreamingHandler(marked));
    assert.ok(!isStreamingHandler(async () => {}));
    const g = globalThis as unknown as { awslambda: Record<string, unknown> };
    g.awslambda.Other = 1;
    installLambdaStreaming();
    assert.equal(g.awslambda.Other, 1, 'installing again keeps what is there');
    delete g.awslambda.Other;
  });
});

describe('local gateway: streamed responses', () => {
  test('status and headers from the prelude, then each chunk as it is written (no buffering)', async () => {
    const held = gate();
    let finished = false;
    handler = streaming(async (_event, stream) => {
      const out = lambda.HttpResponseStream.from(stream, {
        statusCode: 201,
        headers: { 'content-type': 'text/event-stream', 'x-one': '1', 'content-length': '99' },
      });
      out.write('data: first\n\n');
      await held.opened;
      out.write('data: second\n\n');
      out.end();
      finished = true;
    });
    const { res, chunks } = await open(`${gw.url}/stream`);
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    assert.equal(res.headers['x-one'], '1');
    assert.equal(res.headers['content-length'], undefined, 'framing is the gateway’s: chunked');
    assert.equal(res.headers['transfer-encoding'], 'chunked');
    assert.match(String(res.headers['x-amzn-requestid']), /^[0-9a-f-]{36}$/);
    const first = await chunks.next();
    assert.equal(String(first.value), 'data: first\n\n');
    assert.equal(finished, false, 'the first chunk arrived while the handler still ran');
    held.open();
    let rest = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest += String(next.value);
    assert.equal(rest, 'data: second\n\n');
  });

  test('without a prelude: 200 with the content type the stream was given', async () => {
    handler = streaming(async (_event, stream) => {
      (stream as Writable & { setContentType(t: string): void }).setContentType('text/plain');
      stream.end('hello');
    });
    const { res, chunks } = await open(`${gw.url}/stream`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(String((await chunks.next()).value), 'hello');
  });

  test('a client that goes away breaks the handler’s stream', async () => {
    const broken = gate();
    handler = streaming(async (_event, stream) => {
      stream.on('error', () => broken.open());
      stream.on('close', () => broken.open());
      stream.write('data: one\n\n');
      // writes until the stream breaks
      for (let i = 0; i < 200 && !stream.destroyed; i++) {
        stream.write('data: more\n\n');
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    const { res, chunks } = await open(`${gw.url}/stream`);
    await chunks.next();
    res.destroy();
    await broken.opened;
  });

  test('the streamed integration timeout: a started stream is cut off, one not started is a 504', async () => {
    let handlerDone = false;
    handler = streaming(async (_event, stream) => {
      stream.write('data: one\n\n');
      await new Promise((r) => setTimeout(r, 3000));
      handlerDone = true;
    });
    const { chunks } = await open(`${gw.url}/stream`);
    await chunks.next();
    await assert.rejects(
      (async () => {
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
          // nothing more comes
        }
        throw new Error('ended cleanly');
      })(),
      /aborted|ended cleanly|ECONNRESET/,
    );
    // cut off at the 1.5 s timeout, while the handler still waited (not at its end)
    assert.equal(handlerDone, false);
    handler = streaming(async () => {
      await new Promise((r) => setTimeout(r, 2500));
    });
    const { res } = await open(`${gw.url}/stream`);
    assert.equal(res.statusCode, 504);
  });

  test('a streaming handler that throws before writing → 502; a buffered one on a streamed route answers as usual', async () => {
    handler = streaming(async () => {
      throw new Error('boom');
    });
    const { res } = await open(`${gw.url}/stream`);
    assert.equal(res.statusCode, 502);
    assert.ok(logged.some((m) => m.includes('fn threw')));
    handler = async () => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'plain' });
    const plain = await open(`${gw.url}/stream`);
    assert.equal(plain.res.headers['content-length'], '5');
    assert.equal(String((await plain.chunks.next()).value), 'plain');
  });
});

describe('a client that leaves before its answer (a disconnect, not a failure)', () => {
  test('streamed: the handler’s stream breaks, and the gateway logs the disconnect at info, with no stack and no 502', async () => {
    const started = gate();
    const failed = gate();
    handler = streaming(async (_event, stream) => {
      started.open();
      await new Promise((r) => stream.on('close', r));
      // the write fails, as the A2A handlers' do when their stream is gone
      await new Promise<void>((resolve, reject) =>
        stream.write('data: late\n\n', (e) => {
          failed.open();
          if (e) reject(e);
          else resolve();
        }),
      );
    });
    const before = lines.length;
    await leaveEarly(`${gw.url}/stream`, started.opened);
    await failed.opened;
    const line = await loggedLine(/^fn: the client disconnected before its answer$/);
    assert.deepEqual([line.level, line.error], ['info', undefined]);
    assert.ok(!lines.slice(before).some((l) => l.message === 'fn threw'), 'not a handler failure');
  });

  test('buffered: the answer the function made is not written, and the disconnect is logged at info', async () => {
    const started = gate();
    const answered = gate();
    handler = async () => {
      started.open();
      await new Promise((r) => setTimeout(r, 150));
      answered.open();
      return { statusCode: 200, body: 'made for nobody' };
    };
    const before = lines.length;
    await leaveEarly(`${gw.url}/buffered`, started.opened);
    await answered.opened;
    await new Promise((r) => setTimeout(r, 20));
    const late = lines.slice(before);
    assert.ok(
      late.some((l) => /^fn: the client disconnected/.test(l.message) && l.level === 'info'),
      JSON.stringify(late),
    );
    assert.ok(!late.some((l) => l.level === 'error'), 'nothing logged as a failure');
  });
});

describe('withObservability({streamifyResponse: true}) in the local runtime', () => {
  test('a Readable body is streamed, a string body answered, through middy and the stand-in', async () => {
    const held = gate();
    const fn = withObservability(
      async (event: APIGatewayProxyEvent) => {
        if (event.path === '/stream') {
          return {
            statusCode: 200,
            headers: { 'content-type': 'text/event-stream' },
            body: Readable.from(
              (async function* () {
                yield 'data: a\n\n';
                await held.opened;
                yield 'data: b\n\n';
              })(),
            ),
          };
        }
        return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' };
      },
      { functionName: 'fn', streamifyResponse: true, observability: quiet },
    );
    assert.ok(isStreamingHandler(fn));
    handler = fn as unknown as ApiHandler;
    const { res, chunks } = await open(`${gw.url}/stream`);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    assert.equal(String((await chunks.next()).value), 'data: a\n\n');
    held.open();
    assert.equal(String((await chunks.next()).value), 'data: b\n\n');
    assert.equal((await chunks.next()).done, true);
    const short = await open(`${gw.url}/buffered`);
    assert.equal(short.res.statusCode, 200);
    assert.equal(String((await short.chunks.next()).value), '{"ok":true}');
  });

  test('without the awslambda global the handler is a buffered one: the Readable body read to its end', async () => {
    const g = globalThis as unknown as { awslambda: Record<string, unknown> };
    const saved = g.awslambda.streamifyResponse;
    delete g.awslambda.streamifyResponse;
    try {
      const fn = withObservability(
        async () => ({
          statusCode: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: Readable.from(['data: a\n\n', 'data: b\n\n']),
        }),
        { functionName: 'fn', streamifyResponse: true, observability: quiet },
      );
      assert.ok(!isStreamingHandler(fn));
      const result = (await (fn as unknown as ApiHandler)(
        {} as APIGatewayProxyEvent,
        { getRemainingTimeInMillis: () => 1000 } as never,
      )) as APIGatewayProxyResult;
      assert.equal(result.body, 'data: a\n\ndata: b\n\n');
    } finally {
      g.awslambda.streamifyResponse = saved;
    }
  });
});
