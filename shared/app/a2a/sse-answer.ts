/**
 * A task stream answered as server-sent events, for every binding: the
 * binding says how an event and an error are written as `data:` (a JSON-RPC
 * response with the request id, or a bare StreamResponse and a
 * google.rpc.Status), this module does the rest the same way for both.
 *
 * - The first item decides the answer: when the stream fails before it, the
 *   binding answers with a plain error (not a stream).
 * - After it, an error ends the stream with an `event: error`.
 * - A consumer that goes away closes the stream (it stops reading the task);
 *   the chunks end only once what the request started (an inline run) has.
 */

import type { Principal } from '../../domain/principal.ts';
import type { A2AVersion } from '../../protocol/a2a/codec.ts';
import { A2AProtocolError, ERROR_CODES, toProtocolError } from '../../protocol/a2a/index.ts';
import {
  type CommandMap,
  type ParsedRequest,
  STREAMING_OPERATIONS,
  type StreamEvent,
  type StreamingOperation,
} from '../../protocol/a2a/operations.ts';
import type { A2AHandler, StreamContext, TaskStream } from './handler.ts';
import { lastEventIdOf, MAX_SSE_DATA_BYTES, SSE_HEADERS, sseComment, sseEvent } from './sse.ts';
import type { StreamItem } from './stream.ts';

/** How long a stream stays open when the request does not say. */
export const DEFAULT_STREAM_BUDGET_MS = 60_000;

/**
 * A streamed answer: its chunks (SSE text), written as they come. Iterating it does the work; it ends
 * once what the request started has ended. `close()` is for a consumer that goes away early: the
 * stream stops reading the task (an inline run goes on to its end).
 */
export interface SseStream extends AsyncIterable<string> {
  close(): void;
}

/** What a binding writes in `data:`. */
export interface SseEncoding {
  /** An event, in the binding's and version's wire shape. */
  event(event: StreamEvent): string;
  /** The error that ends a stream (after `event: error`). */
  error(error: A2AProtocolError): string;
  /** A fault of ours (-32603), for the binding to log with its cause. */
  internal(error: A2AProtocolError): void;
}

/** A request of a streaming operation, whichever binding parsed it. */
export type StreamRequest = Extract<ParsedRequest, { operation: StreamingOperation }>;

export const isStreamRequest = (parsed: ParsedRequest): parsed is StreamRequest =>
  (STREAMING_OPERATIONS as readonly string[]).includes(parsed.operation);

export interface StreamOptions {
  principal: Principal;
  /** How long the stream may stay open (ms); default DEFAULT_STREAM_BUDGET_MS. */
  budgetMs?: number;
  /** The request's `Last-Event-ID` header: SubscribeToTask resumes after it (a send is not repeated to resume). */
  lastEventId?: string;
  /** The request's A2A version (a streamed send's inline push config is delivered in its shapes). */
  version?: A2AVersion;
  /** The extensions the request activated (how its events show tasks). */
  extensions?: readonly string[];
}

export type SseAnswer =
  | { kind: 'stream'; headers: Record<string, string>; stream: SseStream; first: StreamItem | undefined }
  | {
      kind: 'error';
      error: A2AProtocolError;
      /** The work the request started goes on (a streamed send's agent): the invocation must wait for it. */
      settled: Promise<void>;
    };

/** Where a stream of one operation starts. */
type StreamOpener<Op extends StreamingOperation> = (
  handler: A2AHandler,
  command: CommandMap[Op],
  options: StreamOptions,
  context: StreamContext,
) => TaskStream;

/** Each streaming operation's stream: an operation without one is a type error here. */
const OPENERS: { readonly [Op in StreamingOperation]: StreamOpener<Op> } = {
  SendStreamingMessage: (handler, command, options, context) =>
    handler.sendStreamingMessage(options.principal, command, context),
  SubscribeToTask: (handler, command, options, context) => {
    const after = lastEventIdOf(options.lastEventId);
    if (after === 'invalid') {
      throw A2AProtocolError.invalidParams([
        {
          field: 'Last-Event-ID',
          description: 'must be the id of an event of this stream: a task version, a non-negative integer',
        },
      ]);
    }
    return handler.subscribeToTask(options.principal, command, {
      ...context,
      ...(after !== undefined ? { afterVersion: after } : {}),
    });
  },
};

/** Where a task stream starts: the handler's operation, with the resume position. */
function openTaskStream(
  handler: A2AHandler,
  request: StreamRequest,
  options: StreamOptions,
  signal: AbortSignal,
): TaskStream {
  const context: StreamContext = {
    budgetMs: Math.max(0, options.budgetMs ?? DEFAULT_STREAM_BUDGET_MS),
    signal,
    ...(options.version ? { version: options.version } : {}),
    ...(options.extensions ? { extensions: options.extensions } : {}),
  };
  const open = OPENERS[request.operation] as StreamOpener<StreamingOperation>;
  return open(handler, request.command, options, context);
}

/** Opens the stream and reads its first item: a stream to answer with, or the request's error. */
export async function answerWithSse(
  handler: A2AHandler,
  request: StreamRequest,
  options: StreamOptions,
  encoding: SseEncoding,
): Promise<SseAnswer> {
  const abort = new AbortController();
  let stream: TaskStream;
  try {
    stream = openTaskStream(handler, request, options, abort.signal);
  } catch (e) {
    return { kind: 'error', error: toProtocolError(e), settled: Promise.resolve() };
  }
  const iterator = stream[Symbol.asyncIterator]();
  const encode = (item: StreamItem): string => {
    if (item.type === 'heartbeat') return sseComment();
    const data = encoding.event(item.event);
    const size = Buffer.byteLength(data, 'utf8');
    if (size > MAX_SSE_DATA_BYTES) {
      throw A2AProtocolError.internalError(
        `Internal error: a stream event is too large to send (${size} bytes, the limit is ` +
          `${MAX_SSE_DATA_BYTES}); ask for less of the task (historyLength)`,
      );
    }
    return sseEvent({ ...(item.id !== undefined ? { id: item.id } : {}), data });
  };
  let first: StreamItem | undefined;
  let firstChunk: string | undefined;
  try {
    const next = await iterator.next();
    if (!next.done) {
      first = next.value;
      firstChunk = encode(next.value);
    }
  } catch (e) {
    abort.abort();
    await iterator.return?.(undefined);
    return { kind: 'error', error: toProtocolError(e), settled: stream.settled };
  }
  const chunks = async function* (): AsyncGenerator<string, void> {
    let finished = firstChunk === undefined;
    try {
      if (firstChunk === undefined) return;
      yield firstChunk;
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          finished = true;
          return;
        }
        yield encode(next.value);
      }
    } catch (e) {
      finished = true;
      const error = toProtocolError(e);
      if (error.code === ERROR_CODES.INTERNAL_ERROR) encoding.internal(error);
      yield sseEvent({ event: 'error', data: encoding.error(error) });
    } finally {
      if (!finished) {
        abort.abort();
        await iterator.return?.(undefined);
      }
      // the invocation lasts as long as what the stream started (an inline run)
      await stream.settled;
    }
  };
  const body = chunks();
  return {
    kind: 'stream',
    headers: { ...SSE_HEADERS },
    stream: { [Symbol.asyncIterator]: () => body, close: () => abort.abort() },
    first,
  };
}

/** The task (and context) a stream's first item is about, for the logs. */
export function keysOfStreamItem(item: StreamItem | undefined): { taskId?: string; contextId?: string } {
  if (item?.type !== 'event') return {};
  const { event } = item;
  if (event.kind === 'task') return { taskId: event.view.head.taskId, contextId: event.view.head.contextId };
  if (event.kind === 'message') return event.message.contextId ? { contextId: event.message.contextId } : {};
  return { taskId: event.taskId, contextId: event.contextId };
}
