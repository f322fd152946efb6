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
 *
 * This module composes the parts in local/gateway/: routing, the request body, the proxy event, the
 * authorizer, the invocation (buffered or streamed) and the answers.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizerGate, type GatewayAuthorizer } from './gateway/authorizer.ts';
import { type ApiHandler, invoke } from './gateway/invocation.ts';
import { proxyEventOf } from './gateway/proxy-event.ts';
import { type DrainLimits, readRequestBody } from './gateway/request-body.ts';
import { gatewayResponse, json } from './gateway/responses.ts';
import { compileRoutes, findRoute, type GatewayRoute, pathParametersOf } from './gateway/routing.ts';
import { consoleLog, createLambdaContext, type LocalLog } from './lambda-context.ts';

export type { AuthorizerHandler, GatewayAuthorizer } from './gateway/authorizer.ts';
export type { ApiHandler } from './gateway/invocation.ts';
export type { GatewayRoute } from './gateway/routing.ts';

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

/** What the gateway does with one request, from its route to the function's answer. */
const requestHandler = <F extends string>(options: HttpGatewayOptions<F>, log: LocalLog) => {
  const routes = compileRoutes(options.routes);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const drain: DrainLimits = {
    maxBytes: Math.max(maxBodyBytes, options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES),
    timeoutMs: options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
  };
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const streamTimeoutMs = options.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;
  const stage = options.stage ?? 'local';
  const authorize = options.authorizer ? authorizerGate(options.authorizer, stage, log) : undefined;

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestTimeEpoch = Date.now();
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const method = req.method ?? 'GET';

    const lookup = findRoute(routes, path, method);
    if (!lookup.found) {
      req.resume();
      return lookup.status === 404
        ? json(res, 404, { message: 'Not Found' })
        : json(res, 405, { message: 'Method Not Allowed' }, { allow: lookup.allow });
    }
    const { route } = lookup.found;

    // Over the limit: answer once the client has sent its body (many clients only read after writing it
    // all, and a connection closed on unread data resets). A body too big or too slow to drain is cut off.
    const read = await readRequestBody(req, maxBodyBytes, drain);
    if (!read.ok) {
      if (!read.drained) res.once('finish', () => req.socket.destroy());
      return json(res, 413, { message: 'Request Too Long' }, { connection: 'close' });
    }

    const handler = options.handlers[route.function];
    if (!handler) return json(res, 503, { message: `Function ${route.function} is not loaded yet` });

    let pathParameters: Record<string, string> | null;
    try {
      pathParameters = pathParametersOf(lookup.found, path);
    } catch {
      // a malformed percent-escape: refused at the gateway, as API Gateway does
      return json(res, 400, { message: 'Bad Request' });
    }
    const event = proxyEventOf({
      req,
      resource: route.path,
      path,
      method,
      searchParams: url.searchParams,
      body: read.body,
      pathParameters,
      requestId,
      requestTimeEpoch,
      stage,
    });
    if (authorize && !route.public) {
      const verdict = await authorize(event);
      if (!verdict.ok) return gatewayResponse(res, verdict.type);
      (event.requestContext as { authorizer: unknown }).authorizer = verdict.context;
    }
    const timeoutMs = route.stream ? streamTimeoutMs : defaultTimeoutMs;
    const context = createLambdaContext({ functionName: route.function, timeoutMs });
    return invoke(handler, { event, context, res, requestId, timeoutMs, log, name: route.function });
  };
};

const listen = (server: Server, port: number, host: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });

/** Stops accepting requests, waits up to `graceMs` for those in flight, then closes every connection. */
const stopServer = async (server: Server, inFlight: Set<Promise<unknown>>, graceMs: number) => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
  await Promise.race([Promise.allSettled([...inFlight]), grace]);
  server.closeAllConnections();
  await closed;
};

export const startHttpGateway = async <F extends string>(
  options: HttpGatewayOptions<F>,
): Promise<HttpGateway> => {
  const log = options.log ?? consoleLog;
  const handle = requestHandler(options, log);
  const inFlight = new Set<Promise<unknown>>();
  const server = createServer((req, res) => {
    const done = handle(req, res).catch((e: unknown) => {
      log('local gateway failed', e);
      if (!res.headersSent) json(res, 500, { message: 'Internal server error' });
      else res.destroy();
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  });
  await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    stop: (graceMs = 5000) => stopServer(server, inFlight, graceMs),
  };
};
