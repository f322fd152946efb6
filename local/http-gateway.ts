/**
 * A local stand-in for the API Gateway REST API: turns each HTTP request into
 * the Lambda proxy (v1) event the deployed function gets and writes the proxy
 * result back, so `functions/*.ts` run unchanged.
 *
 * Deliberate differences from AWS:
 * - An unknown path answers 404 `{"message":"Not Found"}` and a known path with
 *   another method 405 (with `Allow`); AWS answers 403 `{"message":"Missing
 *   Authentication Token"}` for both, which only confuses someone trying the hub.
 * - Handlers run in this process: the integration timeout answers 504 like AWS,
 *   but the handler itself keeps running to its end.
 * - Bodies are base64-encoded for non-text content types (as if the API had
 *   `binaryMediaTypes: ['*\/*']` minus text); AWS decides by the API's binaryMediaTypes.
 * - With an `authorizer` (the REQUEST authorizer of every non-public route, as on AWS: identity source
 *   the Authorization header, the verdict cached for `cacheTtlMs` by that header, the usage key's
 *   throttle): its verdicts are answered with the same gateway responses (shared/contracts/gateway-responses.ts).
 *   The cache is off by default here (AWS: 300 s): a key revoked on a local hub is refused at once,
 *   where on AWS the admin CLI flushes the stage's authorizer cache (docs/security.md#api-keys).
 *
 * Streamed routes (`stream: true`, API Gateway's STREAM transfer mode): a
 * response-streaming handler (local/lambda-streaming.ts) is invoked with a
 * response stream; the status and headers of its prelude are sent with its
 * first write and every chunk is written to the client as it comes (chunked,
 * no buffering). Their integration timeout is `streamTimeoutMs` (5 minutes);
 * past it a response not started yet is a 504, a started one is cut off. A
 * client that goes away destroys the handler's response stream, as AWS closes
 * it. A buffered handler on a streamed route answers as on any other route.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '../shared/contracts/gateway-responses.ts';
import { consoleLog, createLambdaContext, LOCAL_ACCOUNT, type LocalLog } from './lambda-context.ts';
import {
  isStreamingHandler,
  LocalResponseStream,
  type ResponsePrelude,
  type StreamingHandler,
} from './lambda-streaming.ts';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface GatewayRoute<F extends string = string> {
  method: string;
  /** API Gateway resource path; `{name}` and a final `{name+}` are path parameters. */
  path: string;
  function: F;
  /** STREAM transfer mode: the integration timeout is streamTimeoutMs and responses are streamed. */
  stream?: boolean;
  /** No authorizer on this route (shared/contracts/routes.ts). */
  public?: true;
}

export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayAuthorizer {
  handler: AuthorizerHandler;
  /** How long a verdict is reused for the same Authorization header (default 0: not cached). */
  cacheTtlMs?: number;
  /** Requests per second and burst per usage key (API Gateway's usage plan throttle). */
  throttle?: { rateLimit: number; burstLimit: number };
}

export interface HttpGatewayOptions<F extends string = string> {
  routes: readonly GatewayRoute<F>[];
  /**
   * Looked up on every request, so a caller may fill it after the port is bound. A handler made a
   * response-streaming one (`awslambda.streamifyResponse`, told by its marker) is invoked as such.
   */
  handlers: Partial<Record<F, ApiHandler>>;
  port?: number;
  host?: string;
  /** API Gateway's payload limit is 10 MB. */
  maxBodyBytes?: number;
  /**
   * A body over the limit is still read (and thrown away) before the 413, so a client that writes its
   * whole body before it reads gets the answer instead of EPIPE or a reset; but at most this many bytes
   * of it (100 MiB by default) and for at most `drainTimeoutMs` (10 s): past either the gateway answers
   * and closes the connection at once.
   */
  maxDrainBytes?: number;
  drainTimeoutMs?: number;
  /** API Gateway's default integration timeout is 29 s. */
  timeoutMs?: number;
  /** The integration timeout of streamed routes (the hub's: 5 minutes). */
  streamTimeoutMs?: number;
  stage?: string;
  log?: LocalLog;
  /** The authorizer of every route not marked `public`; without one no route is authorized (dev mode). */
  authorizer?: GatewayAuthorizer;
}

export interface HttpGateway {
  url: string;
  port: number;
  server: Server;
  /** Stops accepting requests and waits (up to `graceMs`) for those in flight. */
  stop(graceMs?: number): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 29_000;
export const DEFAULT_STREAM_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_DRAIN_BYTES = 100 * 1024 * 1024;
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

interface CompiledRoute<F extends string> {
  route: GatewayRoute<F>;
  pattern: RegExp;
  params: string[];
  /** Static routes win over parameterised ones, greedy ones come last (as in API Gateway). */
  rank: number;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const compile = <F extends string>(route: GatewayRoute<F>): CompiledRoute<F> => {
  const params: string[] = [];
  let rank = 0;
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([^}+]+)(\+)?\}$/.exec(segment);
      if (!param) return escapeRegExp(segment);
      params.push(param[1]!);
      rank += param[2] ? 1000 : 1;
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), params, rank };
};

const TEXT_TYPE =
  /^(text\/.*|application\/(json|xml|javascript|x-www-form-urlencoded|graphql)|.*\+(json|xml))$/;

const isTextBody = (req: IncomingMessage): boolean => {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding !== 'identity') return false;
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return !type || TEXT_TYPE.test(type);
};

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

/** Header maps in the client's spelling: the last value in `headers`, all of them in `multiValueHeaders`. */
const requestHeaders = (req: IncomingMessage, extra: Record<string, string>) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const spelling = new Map<string, string>();
  const add = (name: string, value: string) => {
    const key = spelling.get(name.toLowerCase()) ?? name;
    spelling.set(name.toLowerCase(), key);
    headers[key] = value;
    multiValueHeaders[key] = [...(multiValueHeaders[key] ?? []), value];
  };
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) add(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  for (const [name, value] of Object.entries(extra)) if (!spelling.has(name.toLowerCase())) add(name, value);
  return { headers, multiValueHeaders };
};

const queryParameters = (search: URLSearchParams) => {
  if (search.size === 0) return { single: null, multi: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of search) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  return { single, multi };
};

/** `Date` → API Gateway's requestTime format, e.g. `09/Apr/2015:12:34:56 +0000`. */
const requestTime = (d: Date) => {
  const [, day, month, year, time] = d.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
};

interface DrainLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** `drained`: the client sent the whole body and can read an answer; otherwise the gateway gave up on it. */
type BodyResult = { ok: true; body: Buffer } | { ok: false; drained: boolean };

/**
 * Reads the body, keeping at most `limit` bytes. Past the limit it reads on without keeping anything,
 * to the body's end, unless the body goes past `drain.maxBytes` or takes longer than `drain.timeoutMs`
 * from the moment it went over the limit (`tooLong` says it is over from the start: its Content-Length).
 */
const readBody = (
  req: IncomingMessage,
  limit: number,
  drain: DrainLimits,
  tooLong: boolean,
): Promise<BodyResult> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: BodyResult) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      if (!result.ok && !result.drained) req.pause();
      resolve(result);
    };
    const goOver = () => {
      over = true;
      chunks.length = 0;
      timer = setTimeout(() => finish({ ok: false, drained: false }), drain.timeoutMs);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > limit) goOver();
      if (!over) chunks.push(chunk);
      else if (size > drain.maxBytes) finish({ ok: false, drained: false });
    };
    const onEnd = () =>
      finish(over ? { ok: false, drained: true } : { ok: true, body: Buffer.concat(chunks) });
    if (tooLong) goOver();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });

const isProxyResult = (value: unknown): value is APIGatewayProxyResult => {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    Number.isInteger(r.statusCode) &&
    (r.statusCode as number) >= 100 &&
    (r.statusCode as number) <= 599 &&
    (r.body === undefined || r.body === null || typeof r.body === 'string')
  );
};

/** API Gateway merges both maps; for a name present in both, only the multi-value entries count. */
const responseHeaders = (result: APIGatewayProxyResult): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    names.set(name.toLowerCase(), name);
    out[name] = values.map(String);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (!names.has(name.toLowerCase())) out[name] = [String(value)];
  }
  return out;
};

const writeResult = (res: ServerResponse, result: APIGatewayProxyResult, requestId: string) => {
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  const headers = responseHeaders(result);
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  // REST APIs answer application/json when the function sets no content type
  if (!has('content-type')) headers['Content-Type'] = ['application/json'];
  for (const name of Object.keys(headers)) {
    if (['content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase()))
      delete headers[name];
  }
  res.writeHead(result.statusCode, {
    ...headers,
    'Content-Length': String(body.length),
    'x-amzn-RequestId': requestId,
  });
  res.end(body);
};

/** Prelude headers as API Gateway sends them: multi-value entries win, framing headers are its own. */
const preludeHeaders = (prelude: ResponsePrelude | undefined, contentType: string | undefined) => {
  const headers = responseHeaders({
    statusCode: 200,
    body: '',
    ...(prelude?.headers ? { headers: prelude.headers } : {}),
    ...(prelude?.multiValueHeaders ? { multiValueHeaders: prelude.multiValueHeaders } : {}),
  });
  if (prelude?.cookies?.length)
    headers['Set-Cookie'] = [...(headers['Set-Cookie'] ?? []), ...prelude.cookies];
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (!has('content-type')) headers['Content-Type'] = [contentType ?? 'application/json'];
  for (const name of Object.keys(headers)) {
    if (['content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase()))
      delete headers[name];
  }
  return headers;
};

/**
 * Invokes a streaming handler: its prelude and chunks go to `res` as they are written. Resolves when the
 * invocation ends (the handler may go on after the client left or the timeout cut it off).
 */
const streamInvocation = async (
  handler: StreamingHandler,
  event: APIGatewayProxyEvent,
  context: Context,
  res: ServerResponse,
  requestId: string,
  timeoutMs: number,
  log: LocalLog,
  name: string,
): Promise<void> => {
  let cutOff = false;
  const stream = new LocalResponseStream({
    start: (prelude, contentType) => {
      if (cutOff || res.headersSent) return;
      res.writeHead(prelude?.statusCode ?? 200, {
        ...preludeHeaders(prelude, contentType),
        'x-amzn-RequestId': requestId,
      });
      // the status and headers go now, not with the first body bytes
      res.flushHeaders();
    },
    write: (chunk, done) => {
      if (cutOff || res.destroyed) return done(new Error('the client connection is closed'));
      if (res.write(chunk)) done();
      else res.once('drain', () => done());
    },
    end: (done) => {
      if (cutOff || res.destroyed) return done();
      res.end(done);
    },
  });
  // the handler learns of a broken stream from its writes (and pipeline); no 'error' listener is needed
  stream.on('error', () => {});
  // the client went away (or the timeout cut it off): the handler's writes fail from now on
  res.on('close', () => {
    if (!res.writableFinished) stream.destroy(new Error('the client closed the connection'));
  });
  const timer = setTimeout(() => {
    cutOff = true;
    if (!res.headersSent) json(res, 504, { message: 'Endpoint request timed out' });
    else res.destroy();
    stream.destroy(new Error('the integration timed out'));
  }, timeoutMs);
  try {
    await (async () => handler(event, stream, context))();
    // a handler that returns without ending its stream: API Gateway ends the response with the invocation
    if (!stream.writableEnded && !stream.destroyed) stream.end();
  } catch (e) {
    if (!res.headersSent && !cutOff) {
      log(`${name} threw`, e);
      json(res, 502, { message: 'Internal server error' });
    } else if (!res.destroyed && !res.writableFinished) {
      // failed midway: the client sees the connection end early, as from API Gateway
      res.destroy();
    }
    // a stream cut off (the client gone, the timeout) ends its invocation with that error: not a fault
  } finally {
    clearTimeout(timer);
  }
};

const gatewayResponse = (res: ServerResponse, type: GatewayResponseType) => {
  const answer = GATEWAY_RESPONSES[type];
  json(res, answer.statusCode, answer.body, answer.headers);
};

/** A token bucket per usage key, as API Gateway's usage plan throttles each key. */
const tokenBuckets = (limits: { rateLimit: number; burstLimit: number }) => {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string, now = Date.now()): boolean => {
    const bucket = buckets.get(key) ?? { tokens: limits.burstLimit, at: now };
    bucket.tokens = Math.min(
      limits.burstLimit,
      bucket.tokens + ((now - bucket.at) / 1000) * limits.rateLimit,
    );
    bucket.at = now;
    buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  };
};

type Verdict = { ok: true; context: Record<string, unknown> } | { ok: false; type: GatewayResponseType };

/** What API Gateway does with a REQUEST authorizer before it invokes the route's function. */
const authorizerGate = (authorizer: GatewayAuthorizer, stage: string, log: LocalLog) => {
  const cache = new Map<string, { until: number; result: APIGatewayAuthorizerResult | 'unauthorized' }>();
  const ttl = authorizer.cacheTtlMs ?? 0;
  const admit = authorizer.throttle ? tokenBuckets(authorizer.throttle) : () => true;
  const verdictOf = async (
    event: Omit<APIGatewayRequestAuthorizerEvent, 'type' | 'methodArn'>,
    authorization: string,
    method: string,
    path: string,
  ): Promise<APIGatewayAuthorizerResult | 'unauthorized' | 'failed'> => {
    const cached = cache.get(authorization);
    if (cached && cached.until > Date.now()) return cached.result;
    const methodArn = `arn:aws:execute-api:local:${LOCAL_ACCOUNT}:local/${stage}/${method}${path}`;
    try {
      const result = await authorizer.handler(
        { ...event, type: 'REQUEST', methodArn } as APIGatewayRequestAuthorizerEvent,
        createLambdaContext({ functionName: 'authorizer', timeoutMs: 10_000 }),
      );
      if (ttl > 0) cache.set(authorization, { until: Date.now() + ttl, result });
      return result;
    } catch (e) {
      if (e instanceof Error && e.message === 'Unauthorized') {
        if (ttl > 0) cache.set(authorization, { until: Date.now() + ttl, result: 'unauthorized' });
        return 'unauthorized';
      }
      log('authorizer threw', e);
      return 'failed';
    }
  };
  return async (
    event: Omit<APIGatewayRequestAuthorizerEvent, 'type' | 'methodArn'>,
    method: string,
    path: string,
  ): Promise<Verdict> => {
    const authorization = Object.entries(event.headers ?? {}).find(
      ([k]) => k.toLowerCase() === 'authorization',
    )?.[1];
    // an identity source missing from the request: API Gateway answers 401 without calling the authorizer
    if (!authorization?.trim()) return { ok: false, type: 'UNAUTHORIZED' };
    const result = await verdictOf(event, authorization, method, path);
    if (result === 'unauthorized') return { ok: false, type: 'UNAUTHORIZED' };
    if (result === 'failed') return { ok: false, type: 'AUTHORIZER_FAILURE' };
    const allowed =
      result.policyDocument.Statement.some((st) => 'Effect' in st && st.Effect === 'Allow') &&
      !result.policyDocument.Statement.some((st) => 'Effect' in st && st.Effect === 'Deny');
    if (!allowed) return { ok: false, type: 'ACCESS_DENIED' };
    if (!result.usageIdentifierKey) return { ok: false, type: 'INVALID_API_KEY' };
    if (!admit(result.usageIdentifierKey)) return { ok: false, type: 'THROTTLED' };
    return { ok: true, context: { ...result.context, principalId: result.principalId } };
  };
};

export const startHttpGateway = async <F extends string>(
  options: HttpGatewayOptions<F>,
): Promise<HttpGateway> => {
  const routes = options.routes.map(compile).sort((a, b) => a.rank - b.rank);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const drain: DrainLimits = {
    maxBytes: Math.max(maxBodyBytes, options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES),
    timeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
  };
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const stage = options.stage ?? 'local';
  const log = options.log ?? consoleLog;
  const inFlight = new Set<Promise<unknown>>();
  const authorize = options.authorizer ? authorizerGate(options.authorizer, stage, log) : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestTimeEpoch = Date.now();
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    const onPath = routes.filter((r) => r.pattern.test(path));
    if (onPath.length === 0) {
      req.resume();
      return json(res, 404, { message: 'Not Found' });
    }
    const match = onPath.find((r) => r.route.method === method || r.route.method === 'ANY');
    if (!match) {
      req.resume();
      const allow = [...new Set(onPath.map((r) => r.route.method))].join(', ');
      return json(res, 405, { message: 'Method Not Allowed' }, { allow });
    }

    // Over the limit: answer once the client has sent its body (many clients only read after writing it
    // all, and a connection closed on unread data resets). A body too big or too slow to drain is cut off.
    const declared = Number(req.headers['content-length'] ?? 0);
    const read =
      declared > drain.maxBytes
        ? ({ ok: false, drained: false } as const)
        : await readBody(req, maxBodyBytes, drain, declared > maxBodyBytes);
    if (!read.ok) {
      if (!read.drained) res.once('finish', () => req.socket.destroy());
      return json(res, 413, { message: 'Request Too Long' }, { connection: 'close' });
    }

    const handler = options.handlers[match.route.function];
    if (!handler) return json(res, 503, { message: `Function ${match.route.function} is not loaded yet` });

    const groups = match.pattern.exec(path)!.slice(1);
    let pathParameters: Record<string, string> | null = null;
    try {
      pathParameters = match.params.length
        ? Object.fromEntries(match.params.map((name, i) => [name, decodeURIComponent(groups[i]!)]))
        : null;
    } catch {
      // a malformed percent-escape: refused at the gateway, as API Gateway does
      return json(res, 400, { message: 'Bad Request' });
    }
    const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    const { headers, multiValueHeaders } = requestHeaders(req, {
      'X-Forwarded-For': sourceIp,
      'X-Forwarded-Port': String(req.socket.localPort ?? ''),
      'X-Forwarded-Proto': 'http',
    });
    const query = queryParameters(url.searchParams);
    const text = isTextBody(req);
    const event: APIGatewayProxyEvent = {
      resource: match.route.path,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters,
      stageVariables: null,
      body: read.body.length === 0 ? null : read.body.toString(text ? 'utf8' : 'base64'),
      isBase64Encoded: read.body.length > 0 && !text,
      requestContext: {
        accountId: LOCAL_ACCOUNT,
        apiId: 'local',
        authorizer: null,
        domainName: req.headers.host ?? 'localhost',
        extendedRequestId: requestId,
        httpMethod: method,
        identity: {
          accessKey: null,
          accountId: null,
          apiKey: null,
          apiKeyId: null,
          caller: null,
          clientCert: null,
          cognitoAuthenticationProvider: null,
          cognitoAuthenticationType: null,
          cognitoIdentityId: null,
          cognitoIdentityPoolId: null,
          principalOrgId: null,
          sourceIp,
          user: null,
          userAgent: req.headers['user-agent'] ?? null,
          userArn: null,
        },
        path: `/${stage}${path}`,
        protocol: `HTTP/${req.httpVersion}`,
        requestId,
        requestTime: requestTime(new Date(requestTimeEpoch)),
        requestTimeEpoch,
        resourceId: 'local',
        resourcePath: match.route.path,
        stage,
      },
    };
    if (authorize && !match.route.public) {
      const verdict = await authorize(
        {
          resource: event.resource,
          path,
          httpMethod: method,
          headers,
          multiValueHeaders,
          pathParameters,
          queryStringParameters: query.single,
          multiValueQueryStringParameters: query.multi,
          stageVariables: null,
          requestContext: { ...event.requestContext, authorizer: undefined },
        },
        method,
        path,
      );
      if (!verdict.ok) return gatewayResponse(res, verdict.type);
      (event.requestContext as { authorizer: unknown }).authorizer = verdict.context;
    }
    const timeoutMs = match.route.stream ? streamTimeoutMs : defaultTimeoutMs;
    const context = createLambdaContext({ functionName: match.route.function, timeoutMs });
    if (isStreamingHandler(handler)) {
      return streamInvocation(handler, event, context, res, requestId, timeoutMs, log, match.route.function);
    }

    let timer: NodeJS.Timeout | undefined;
    // async wrapper: a handler that throws synchronously is a failed invocation too
    const invocation = (async () => handler(event, context))();
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([invocation, timeout]);
      if (result === 'timeout') {
        invocation.catch((e: unknown) => log(`${match.route.function} failed after its timeout`, e));
        return json(res, 504, { message: 'Endpoint request timed out' });
      }
      if (!isProxyResult(result)) {
        log(`${match.route.function} returned a malformed proxy response: ${JSON.stringify(result)}`);
        return json(res, 502, { message: 'Internal server error' });
      }
      writeResult(res, result, requestId);
    } catch (e) {
      log(`${match.route.function} threw`, e);
      json(res, 502, { message: 'Internal server error' });
    } finally {
      clearTimeout(timer);
    }
  };

  const server = createServer((req, res) => {
    const done = handle(req, res).catch((e: unknown) => {
      log('local gateway failed', e);
      if (!res.headersSent) json(res, 500, { message: 'Internal server error' });
      else res.destroy();
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    server,
    stop: async (graceMs = 5000) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      server.closeAllConnections();
      await closed;
    },
  };
};
