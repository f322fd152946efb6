/**
 * Invoking the route's function as API Gateway's Lambda proxy integration does: within the
 * integration timeout (504 past it), a malformed or failed answer a 502. Streamed routes (API
 * Gateway's STREAM transfer mode): a response-streaming handler (local/lambda-streaming.ts) is invoked
 * with a response stream whose prelude and chunks go to the client as they are written.
 */
import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { LocalLog } from '../lambda-context.ts';
import {
  isStreamingHandler,
  LocalResponseStream,
  type ResponsePrelude,
  type StreamingHandler,
} from '../lambda-streaming.ts';
import { isProxyResult, json, responseHeaders, writeResult } from './responses.ts';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** One invocation of a route's function, answering `res`. */
export interface Invocation {
  event: APIGatewayProxyEvent;
  context: Context;
  res: ServerResponse;
  requestId: string;
  /** The route's integration timeout. */
  timeoutMs: number;
  log: LocalLog;
  /** The function's name, for the log. */
  name: string;
}

/**
 * Invokes the handler: a response-streaming one (`awslambda.streamifyResponse`, told by its marker) with a
 * response stream, any other for its proxy result.
 */
export const invoke = (handler: ApiHandler, invocation: Invocation): Promise<void> =>
  isStreamingHandler(handler)
    ? streamInvocation(handler, invocation)
    : bufferedInvocation(handler, invocation);

/** The line a client that left before its answer gets: an event of the connection, not a failure. */
const DISCONNECTED = (name: string) => `${name}: the client disconnected before its answer`;

/** Whether the client is gone: its connection closed before an answer was written whole. */
const clientGone = (res: ServerResponse): boolean => res.destroyed && !res.writableFinished;

const bufferedInvocation = async (
  handler: ApiHandler,
  { event, context, res, requestId, timeoutMs, log, name }: Invocation,
): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  // async wrapper: a handler that throws synchronously is a failed invocation too
  const invocation = (async () => handler(event, context))();
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const result = await Promise.race([invocation, timeout]);
    if (result === 'timeout') {
      invocation.catch((e: unknown) => log(`${name} failed after its timeout`, e));
      if (clientGone(res)) return log(DISCONNECTED(name), undefined, 'info');
      return json(res, 504, { message: 'Endpoint request timed out' });
    }
    // nobody to answer: the function's work is done (or failed) all the same
    if (clientGone(res)) return log(DISCONNECTED(name), undefined, 'info');
    if (!isProxyResult(result)) {
      log(`${name} returned a malformed proxy response: ${JSON.stringify(result)}`);
      return json(res, 502, { message: 'Internal server error' });
    }
    writeResult(res, result, requestId);
  } catch (e) {
    // a buffered handler never sees the connection: what it throws is its own failure
    log(`${name} threw`, e);
    if (!clientGone(res)) json(res, 502, { message: 'Internal server error' });
  } finally {
    clearTimeout(timer);
  }
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
  { event, context, res, requestId, timeoutMs, log, name }: Invocation,
): Promise<void> => {
  let cutOff = false;
  let left = false;
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
    if (res.writableFinished) return;
    left = !cutOff;
    stream.destroy(new Error('the client closed the connection'));
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
    // the client left: the handler's stream broke under it (docs/streaming.md); nobody is there to answer
    if (left) log(DISCONNECTED(name), undefined, 'info');
    else if (!res.headersSent && !cutOff) {
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
