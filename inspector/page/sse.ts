/**
 * Server-sent events over fetch: EventSource cannot send the Authorization header, so the stream of an
 * A2A `SubscribeToTask` is read from the response body with a small line parser (the WHATWG rules:
 * `data:` lines joined by newlines, dispatched on a blank line; comments and other fields ignored).
 */

import type { StreamResponse } from './a2a.ts';
import { A2A_ENDPOINT, ApiError, headers, rpcBody } from './api.ts';

/** Feeds text chunks; calls `onData` with each event's data. */
export function sseParser(onData: (data: string) => void): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  return (chunk) => {
    buffer += chunk;
    let nl = buffer.search(/\r\n|\r|\n/);
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      const sep = buffer.startsWith('\r\n', nl) ? 2 : 1;
      buffer = buffer.slice(nl + sep);
      if (line === '') {
        if (data.length > 0) onData(data.join('\n'));
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      nl = buffer.search(/\r\n|\r|\n/);
    }
  };
}

/**
 * Subscribes to a task's stream until it ends, the signal aborts, or it fails (thrown). Each event's
 * JSON-RPC result is handed to `onEvent`; a JSON-RPC error in the stream is thrown.
 */
export async function subscribeToTask(
  id: string,
  onEvent: (r: StreamResponse) => void,
  signal: AbortSignal,
): Promise<void> {
  const res = await fetch(A2A_ENDPOINT, {
    method: 'POST',
    headers: headers({
      'Content-Type': 'application/json',
      'A2A-Version': '1.0',
      Accept: 'text/event-stream',
    }),
    body: rpcBody('SubscribeToTask', { id }),
    signal,
    cache: 'no-store',
  });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !type.includes('text/event-stream') || !res.body) {
    let message = `The stream could not be opened (HTTP ${res.status})`;
    try {
      const body = (await res.json()) as { error?: { message?: string } };
      if (body?.error?.message) message = body.error.message;
    } catch {
      // not JSON
    }
    throw new ApiError(message, res.status);
  }
  let failure: ApiError | undefined;
  const feed = sseParser((data) => {
    try {
      const msg = JSON.parse(data) as { result?: StreamResponse; error?: { message: string; code: number } };
      if (msg.error) failure = new ApiError(msg.error.message, 200, msg.error.code);
      else if (msg.result) onEvent(msg.result);
    } catch {
      // a line that is not JSON: skipped
    }
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    feed(value);
    if (failure) {
      await reader.cancel();
      throw failure;
    }
  }
}
