/**
 * Server-sent events framing (docs/streaming.md#the-wire), for every binding: one `data:`
 * line of compact JSON per event, an `id:` line with the task version the
 * event comes from (what a client sends back as `Last-Event-ID`), `event:
 * error` before an error that ends a stream (the a2a-js REST client needs it;
 * its JSON-RPC client ignores event names), and comment lines as keep-alives.
 */

export const SSE_CONTENT_TYPE = 'text/event-stream';

/** What a stream answers with (a2a-js sends the same; `X-Accel-Buffering` stops proxies buffering it). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': SSE_CONTENT_TYPE,
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

/**
 * The largest `data:` a stream sends: below the 4 MiB at which the a2a-js client aborts a stream.
 * Only a Task snapshot can get near it (a long history of large messages).
 */
export const MAX_SSE_DATA_BYTES = 4 * 1024 * 1024 - 64 * 1024;

export interface SseEvent {
  /** SSE `id:` (no line breaks; a number here). */
  id?: number;
  /** SSE `event:`; absent means the default `message`. */
  event?: string;
  /** The payload; line breaks (JSON never has raw ones) become further `data:` lines. */
  data: string;
}

const NO_BREAKS = /[\r\n\0]/g;

/** One event, terminated by its blank line. */
export const sseEvent = ({ id, event, data }: SseEvent): string => {
  let out = '';
  if (id !== undefined) out += `id: ${String(id).replace(NO_BREAKS, '')}\n`;
  if (event !== undefined) out += `event: ${event.replace(NO_BREAKS, '')}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
};

/** A comment: ignored by every SSE parser, it keeps idle connections (and API Gateway) from timing out. */
export const sseComment = (text = 'keepalive'): string => `: ${text.replace(NO_BREAKS, ' ')}\n\n`;

/**
 * The `Last-Event-ID` a client resumes with: a task version (non-negative integer), undefined when the
 * header is absent or empty, or 'invalid'.
 */
export const lastEventIdOf = (header: string | undefined): number | undefined | 'invalid' => {
  const value = header?.trim() ?? '';
  if (value === '') return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : 'invalid';
};
