/**
 * A2A JSON-RPC endpoint (POST /a2a/jsonrpc): hands the request to the
 * JSON-RPC binding over the A2A handler; this file only adapts API Gateway's event.
 *
 * A response-streaming handler (the route's STREAM transfer mode): a streaming
 * method's answer is written to the client event by event, every other answer
 * is a short body through the same stream. The invocation lasts as long as
 * the work a request started: a streamed send's inline agent run goes on (to
 * its hand-back time at most) when its client disconnects.
 */
import { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { type JsonRpcBinding, jsonRpcOver, type RpcStream } from '../shared/app/a2a/jsonrpc.ts';
import { STREAM_TIMING } from '../shared/app/a2a/stream.ts';
import { lowerCaseHeaders } from '../shared/http.ts';
import { appendTaskKeys, logger, metrics, withObservability } from '../shared/observability/index.ts';
import { STREAMING } from '../shared/routes.ts';
import { callerOf, taskEngine, taskService } from '../shared/wiring.ts';

/** API Gateway REST APIs give up after 29 s: a blocking send answers with the current task before that. */
const MAX_BLOCKING_MS = Number(process.env.BLOCKING_WAIT_MS ?? 25_000);

/** A stream closes this long before the function's time is up, or after STREAM_BUDGET_MS if that is sooner. */
const streamBudgetMs = (context: Context): number => {
  const remaining = context.getRemainingTimeInMillis() - STREAMING.closeMarginMs;
  const configured = Number(process.env.STREAM_BUDGET_MS);
  return Math.max(
    0,
    Number.isFinite(configured) && configured > 0 ? Math.min(configured, remaining) : remaining,
  );
};

const positive = (value: string | undefined): number | undefined => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

let rpcInstance: Promise<JsonRpcBinding> | undefined;
const rpc = () => {
  rpcInstance ??= taskService().then((tasks) =>
    jsonRpcOver(tasks, {
      store: taskEngine().store,
      timing: { heartbeatMs: positive(process.env.STREAM_HEARTBEAT_MS) ?? STREAM_TIMING.heartbeatMs },
      onStreamEnd: (summary) => logger.info('jsonrpc stream ended', { ...summary }),
    }),
  );
  return rpcInstance;
};

/**
 * The stream's chunks as a Readable for the response stream. A client that goes away destroys it:
 * the stream stops reading the task, and the destroy completes only once the work the request
 * started has ended (the invocation must not end under an inline run).
 */
const readableOf = (chunks: RpcStream, onEnd: () => void): Readable => {
  const iterator = chunks[Symbol.asyncIterator]();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new Readable({
    read() {
      iterator.next().then(
        (next) => {
          if (this.destroyed) return;
          if (next.done) {
            end();
            this.push(null);
          } else this.push(next.value);
        },
        (e: unknown) => this.destroy(e instanceof Error ? e : new Error(String(e))),
      );
    },
    destroy(error, callback) {
      chunks.close();
      Promise.resolve(iterator.return?.())
        .catch(() => undefined)
        .finally(() => {
          end();
          callback(error);
        });
    },
  });
};

/** A short body, kept open until `settled` (the work behind it) has ended. */
const bodyThen = (body: string, settled: Promise<void>): Readable =>
  Readable.from(
    (async function* () {
      yield body;
      await settled;
    })(),
  );

/** Metrics recorded while a stream was written (an inline run's) are published when it ends. */
const publishLateMetrics = () => {
  if (metrics.enabled) metrics.publishStoredMetrics();
};

export const jsonRpcHandler = async (
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<{ statusCode: number; headers: Record<string, string>; body: string | Readable }> => {
  const body =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  const { meta, stream, settled, ...response } = await (await rpc()).handle({
    body,
    headers: lowerCaseHeaders(event.headers),
    caller: callerOf(event),
    blockingBudgetMs: Math.max(0, Math.min(MAX_BLOCKING_MS, context.getRemainingTimeInMillis() - 2_000)),
    streamBudgetMs: streamBudgetMs(context),
  });
  appendTaskKeys({
    taskId: meta?.taskId,
    contextId: meta?.contextId,
    requestId: event.requestContext?.requestId,
  });
  logger.info('jsonrpc request', {
    method: meta?.method,
    errorCode: meta?.errorCode,
    statusCode: response.statusCode,
    ...(stream ? { streamed: true } : {}),
  });
  if (stream) return { ...response, body: readableOf(stream, publishLateMetrics) };
  if (settled) return { ...response, body: bodyThen(response.body, settled.finally(publishLateMetrics)) };
  return response;
};

export const handler = withObservability(jsonRpcHandler, {
  functionName: 'jsonrpc',
  streamifyResponse: true,
});
