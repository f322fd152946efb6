/**
 * The JSON-RPC binding (shared/app/a2a/jsonrpc.ts) over the handler, with a fake task service: what is
 * decided before the task service is asked anything (content type, envelope,
 * bounds), and how unexpected failures are answered and logged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type JsonRpcBinding, jsonRpcOver, type RpcRequest } from '../../../../shared/app/a2a/jsonrpc.ts';
import type { TaskService } from '../../../../shared/app/tasks/task-service.ts';
import { TaskNotFoundError } from '../../../../shared/domain/errors.ts';
import { createObservability } from '../../../../shared/observability/index.ts';
import { userMessage, view } from '../../protocol/a2a/fixtures.ts';

type Impl = Record<string, (...args: unknown[]) => unknown>;

/** A task service that records every call and runs `impl` (a call to anything else throws). */
const fakeTasks = (impl: Impl = {}) => {
  const calls: string[] = [];
  const service = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (typeof name !== 'string' || name === 'then') return undefined;
        return async (...args: unknown[]) => {
          calls.push(name);
          const fn = impl[name];
          if (!fn) throw new Error(`unexpected task service call: ${name}`);
          return fn(...args);
        };
      },
    },
  ) as TaskService;
  return { service, calls };
};

const CALLER = { tenant: 't', owner: 'o', rights: ['read', 'write'] as const, scheme: 'api-key' as const };
const GET_TASK = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'x' } });

const request = (body: string | null, headers: Record<string, string | undefined> = {}): RpcRequest => ({
  body,
  headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
  principal: CALLER,
  blockingBudgetMs: 1000,
});

interface Reply {
  statusCode: number;
  body: { id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };
}
const handle = async (rpc: JsonRpcBinding, req: RpcRequest): Promise<Reply> => {
  const res = await rpc.handle(req);
  return { statusCode: res.statusCode, body: JSON.parse(res.body) };
};

const notFound = (_caller: unknown, id: unknown) => {
  throw new TaskNotFoundError(String(id));
};

describe('JSON-RPC binding: the request content type', () => {
  it('refuses a body that is not declared JSON with -32005 (HTTP 200), before reading it', async () => {
    const { service, calls } = fakeTasks();
    const rpc = jsonRpcOver(service);
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/jsonx',
    ]) {
      const v1 = await handle(rpc, request(GET_TASK, { 'content-type': type }));
      assert.equal(v1.statusCode, 200, type);
      assert.equal(v1.body.error?.code, -32005, type);
      assert.equal(v1.body.id, 3, 'the body is not parsed as a request, but its id is echoed');
      assert.match(v1.body.error?.message ?? '', /application\/json/);
      const info = (v1.body.error?.data as Array<Record<string, unknown>> | undefined)?.[0];
      assert.equal(info?.['@type'], 'type.googleapis.com/google.rpc.ErrorInfo');
      assert.equal(info?.reason, 'CONTENT_TYPE_NOT_SUPPORTED');
      assert.equal((info?.metadata as Record<string, string> | undefined)?.mediaType, type.split(';')[0]);
    }
    // a v0.3 request gets the v0.3 error shape
    const v03 = await handle(
      rpc,
      request(GET_TASK, { 'content-type': 'text/plain', 'a2a-version': undefined }),
    );
    assert.equal(v03.body.error?.code, -32005);
    assert.equal(
      (v03.body.error?.data as { reason?: string } | undefined)?.reason,
      'CONTENT_TYPE_NOT_SUPPORTED',
    );
    // the body does not matter, not even whether it is JSON
    const garbage = await handle(
      rpc,
      request('a=1&b=2', { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    assert.equal(garbage.body.error?.code, -32005);
    assert.equal(garbage.body.id, null, 'a body that is not JSON has no id to echo');
    assert.deepEqual(calls, [], 'the task service was not asked anything');
  });

  it('accepts application/json and application/a2a+json in any case, with parameters', async () => {
    const { service, calls } = fakeTasks({ read: notFound });
    const rpc = jsonRpcOver(service);
    for (const type of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      ' application/a2a+json ',
      'APPLICATION/A2A+JSON; charset="utf-8"',
    ]) {
      const r = await handle(rpc, request(GET_TASK, { 'content-type': type }));
      assert.equal(r.body.error?.code, -32001, type);
      assert.equal(r.body.id, 3);
    }
    assert.equal(calls.length, 6, 'each request reached the task service');
  });

  it('a request without Content-Type (or an empty one) is read as JSON', async () => {
    const { service, calls } = fakeTasks({ read: notFound });
    const rpc = jsonRpcOver(service);
    for (const type of [undefined, '', '  ']) {
      const r = await handle(rpc, request(GET_TASK, { 'content-type': type }));
      assert.equal(r.body.error?.code, -32001, JSON.stringify(type));
      assert.equal(r.body.id, 3);
    }
    assert.equal(calls.length, 3);
  });
});

describe('JSON-RPC binding: bounded responses', () => {
  it('a result too large for a Lambda response (6 MB) is answered with a small -32603 instead', async () => {
    const bigText = 'q'.repeat(64 * 1024);
    const history = Array.from({ length: 100 }, (_, i) =>
      userMessage({ messageId: `m${i}`, parts: [{ text: bigText }] }),
    );
    const { service } = fakeTasks({ read: async () => view({ history }) });
    const quiet = createObservability({ logLevel: 'SILENT' }).logger;
    const res = await jsonRpcOver(service, { logger: quiet }).handle(request(GET_TASK));
    assert.equal(res.statusCode, 500);
    assert.ok(res.body.length < 2048, `${res.body.length} bytes`);
    const body = JSON.parse(res.body) as Reply['body'];
    assert.equal(body.id, 3);
    assert.equal(body.error?.code, -32603);
    assert.match(body.error?.message ?? '', /too large.*historyLength/);
    // the same task with a short history is returned
    const small = fakeTasks({ read: async () => view({ history: history.slice(0, 10) }) });
    const ok = await jsonRpcOver(small.service).handle(request(GET_TASK));
    assert.equal(ok.statusCode, 200);
    assert.ok(ok.body.length > 10 * 64 * 1024);
  });

  it('method names are clipped in the request metadata used for logs', async () => {
    const { service } = fakeTasks();
    const res = await jsonRpcOver(service).handle(
      request(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'm'.repeat(100_000), params: {} })),
    );
    assert.ok((res.meta?.method?.length ?? 0) <= 100);
    assert.ok(res.body.length < 4096);
  });
});

/**
 * Runs `fn` and returns the JSON lines it wrote to stdout and stderr (the Powertools logger writes
 * ERROR lines with console.error, i.e. to stderr).
 */
const captureLogs = async <T>(
  fn: () => Promise<T>,
): Promise<{ result: T; lines: Record<string, unknown>[] }> => {
  const chunks: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((s) => s.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    const result = await fn();
    const lines = chunks
      .join('')
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { result, lines };
  } finally {
    streams.forEach((stream, i) => {
      stream.write = originals[i] as typeof stream.write;
    });
  }
};

describe('JSON-RPC binding: internal errors', () => {
  // the local default level (POWERTOOLS_LOG_LEVEL=WARN): only what matters gets through
  const warnLogger = () => createObservability({ logLevel: 'WARN' }).logger;

  it('-32603 is logged at ERROR with the error and its stack; the client only sees "Internal error"', async () => {
    const failure = new Error('dynamodb exploded at 10.1.2.3', { cause: new TypeError('socket hang up') });
    const { service } = fakeTasks({
      read: async () => {
        throw failure;
      },
    });
    const rpc = jsonRpcOver(service, { logger: warnLogger() });
    const { result: res, lines } = await captureLogs(() => rpc.handle(request(GET_TASK)));
    assert.equal(res.statusCode, 500);
    const body = JSON.parse(res.body) as Reply['body'];
    assert.equal(body.id, 3);
    assert.equal(body.error?.code, -32603);
    assert.equal(body.error?.message, 'Internal error');
    assert.doesNotMatch(res.body, /exploded|10\.1\.2\.3|socket|stack|at /);

    assert.equal(lines.length, 1, JSON.stringify(lines));
    const [line] = lines;
    assert.equal(line?.level, 'ERROR');
    assert.equal(line?.method, 'GetTask');
    const error = line?.error as { message: string; stack: string; cause?: { message: string } };
    assert.equal(error.message, 'dynamodb exploded at 10.1.2.3');
    assert.match(error.stack, /a2a\/jsonrpc\.test\.ts/);
    assert.equal(error.cause?.message, 'socket hang up');
  });

  it('a value thrown that is not an Error is logged too', async () => {
    const { service } = fakeTasks({
      read: async () => {
        throw 'a bare string';
      },
    });
    const { lines } = await captureLogs(() =>
      jsonRpcOver(service, { logger: warnLogger() }).handle(request(GET_TASK)),
    );
    assert.equal(lines.length, 1);
    assert.match(JSON.stringify(lines[0]?.error), /a bare string/);
  });

  it('a failure outside the operation (reading the request itself) is answered and logged as well', async () => {
    const { service, calls } = fakeTasks();
    const headers = new Proxy(
      {},
      {
        get: () => {
          throw new Error('headers unreadable');
        },
      },
    );
    const { result: res, lines } = await captureLogs(() =>
      jsonRpcOver(service, { logger: warnLogger() }).handle({ ...request(GET_TASK), headers }),
    );
    assert.equal(res.statusCode, 500);
    assert.equal((JSON.parse(res.body) as Reply['body']).error?.message, 'Internal error');
    assert.equal(lines[0]?.level, 'ERROR');
    assert.equal((lines[0]?.error as { message: string } | undefined)?.message, 'headers unreadable');
    assert.deepEqual(calls, []);
  });

  it('other errors are answered without logging at WARN and above', async () => {
    const { service } = fakeTasks({ read: notFound });
    const rpc = jsonRpcOver(service, { logger: warnLogger() });
    const { lines } = await captureLogs(async () => {
      await rpc.handle(request(GET_TASK));
      await rpc.handle(request('{"jsonrpc":"2.0","id":1,"method":"Nope"}'));
      await rpc.handle(request('not json'));
    });
    assert.deepEqual(lines, []);
  });
});
