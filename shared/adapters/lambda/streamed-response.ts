/**
 * A binding's answer as a response-streaming Lambda function returns it
 * (`withObservability(…, { streamifyResponse: true })`): a stream's chunks as
 * a Readable written event by event, a short body as one chunk; either way the
 * invocation lasts until the work the request started (an inline agent run)
 * has ended, whether or not the client stayed.
 */
import { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { STREAMING } from '../../contracts/routes.ts';
import { metrics } from '../../observability/index.ts';

/** What either binding answers (JSON-RPC or HTTP+JSON). */
export interface BindingAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** A text/event-stream answer: the chunks to write after the headers. */
  stream?: AsyncIterable<string> & { close(): void };
  /** Work that goes on after a short answer: the invocation must not end before it. */
  settled?: Promise<void>;
}

export interface StreamedResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string | Readable;
}

/**
 * How long a stream may stay open: until STREAMING.closeMarginMs before the function's time is up, or
 * `configured` (STREAM_BUDGET_MS) if that is sooner.
 */
export const streamBudgetMs = (context: Context, configured: number | undefined): number => {
  const remaining = context.getRemainingTimeInMillis() - STREAMING.closeMarginMs;
  return Math.max(0, configured !== undefined ? Math.min(configured, remaining) : remaining);
};

/**
 * The stream's chunks as a Readable for the response stream. A client that goes away destroys it:
 * the stream stops reading the task, and the destroy completes only once the work the request
 * started has ended (the invocation must not end under an inline run).
 */
const readableOf = (chunks: NonNullable<BindingAnswer['stream']>, onEnd: () => void): Readable => {
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

/** The function's result for a binding's answer. */
export function streamedResult({ stream, settled, ...response }: BindingAnswer): StreamedResult {
  if (stream) return { ...response, body: readableOf(stream, publishLateMetrics) };
  if (settled) return { ...response, body: bodyThen(response.body, settled.finally(publishLateMetrics)) };
  return response;
}
