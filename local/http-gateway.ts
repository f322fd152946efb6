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
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authorizerGate, type GatewayAuthorizer } from './gateway/authorizer.ts';
import { isTextBody, queryParameters, requestHeaders, requestTime } from './gateway/proxy-event.ts';
import { type DrainLimits, readBody } from './gateway/request-body.ts';
import { gatewayResponse, isProxyResult, json, writeResult } from './gateway/responses.ts';
import { compile, type GatewayRoute } from './gateway/routing.ts';
import { streamInvocation } from './gateway/streaming.ts';
import { consoleLog, createLambdaContext, LOCAL_ACCOUNT, type LocalLog } from './lambda-context.ts';
import { isStreamingHandler } from './lambda-streaming.ts';

export type { AuthorizerHandler, GatewayAuthorizer } from './gateway/authorizer.ts';
export type { GatewayRoute } from './gateway/routing.ts';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

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
