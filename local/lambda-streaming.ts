/**
 * A stand-in for what the Lambda Node.js runtime provides for response
 * streaming: the global `awslambda` with `streamifyResponse` (marks a handler
 * as a streaming one, as the runtime does) and `HttpResponseStream.from` (the
 * status and headers of an HTTP response, sent before its body). middy's
 * `streamifyResponse: true` calls `awslambda.streamifyResponse` when a
 * function module is loaded, so the stand-in must be installed before the
 * handlers are imported (local/hub.ts does it; tests that import a function
 * directly call installLambdaStreaming first). Without it a function built
 * with `streamifyResponse` is a buffered one (shared/observability).
 *
 * Difference from AWS: there the prelude travels as JSON followed by 8 NUL
 * bytes ahead of the body on the wire between Lambda and API Gateway; here the
 * gateway (local/http-gateway.ts) reads it from the stream object.
 */
import { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** The property the runtime's streamifyResponse sets on a handler (value `response`). */
export const STREAMING_HANDLER = Symbol.for('aws.lambda.runtime.handler.streaming');

/** What `HttpResponseStream.from(stream, prelude)` is given: the HTTP response's status and headers. */
export interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  cookies?: string[];
}

/** Where a LocalResponseStream goes: the local gateway's HTTP response. */
export interface ResponseSink {
  /** Called once, before the first chunk (or at the end of an empty body). */
  start(prelude: ResponsePrelude | undefined, contentType: string | undefined): void;
  /** Writes a chunk; `done` once it may take the next one (backpressure). */
  write(chunk: Buffer, done: (error?: Error | null) => void): void;
  end(done: () => void): void;
}

/** The response stream a streaming handler writes to, as the runtime hands it over. */
export class LocalResponseStream extends Writable {
  private prelude: ResponsePrelude | undefined;
  private contentType: string | undefined;
  private started = false;

  constructor(private readonly sink: ResponseSink) {
    super();
  }

  setContentType(contentType: string): void {
    this.contentType = contentType;
  }

  /** What HttpResponseStream.from records. */
  setPrelude(prelude: ResponsePrelude): void {
    this.prelude = prelude;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.sink.start(this.prelude, this.contentType);
  }

  override _write(
    chunk: Buffer | string,
    encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    this.start();
    this.sink.write(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.start();
    this.sink.end(() => done());
  }
}

const HttpResponseStream = {
  from(stream: Writable, prelude: ResponsePrelude): Writable {
    if (stream instanceof LocalResponseStream) stream.setPrelude(prelude);
    return stream;
  },
};

export type StreamingHandler = (
  event: unknown,
  responseStream: Writable,
  context: Context,
) => Promise<unknown>;

const streamifyResponse = <H extends object>(handler: H): H => {
  (handler as Record<symbol, unknown>)[STREAMING_HANDLER] = 'response';
  return handler;
};

/**
 * Installs the stand-in, unless the `awslambda` global streams already (the real runtime's, or the
 * stand-in installed before). Other libraries keep their own things on that global too (the AWS SDK's
 * `InvokeStore`): they are left as they are.
 */
export const installLambdaStreaming = (): void => {
  const g = globalThis as { awslambda?: Record<string, unknown> };
  g.awslambda ??= {};
  if (typeof g.awslambda.streamifyResponse === 'function') return;
  g.awslambda.streamifyResponse = streamifyResponse;
  g.awslambda.HttpResponseStream = HttpResponseStream;
};

/** Whether a handler was made a streaming one (by the runtime's or this streamifyResponse). */
export const isStreamingHandler = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' &&
  (handler as unknown as Record<symbol, unknown>)[STREAMING_HANDLER] === 'response';
