/**
 * The chaos run's callers: every request is sent again on 503 (the hub's "nothing written, send again",
 * docs/reliability.md#the-sdk) after its Retry-After (capped small), with the same body — so the same
 * messageId — up to a bound; every HTTP status a caller saw is counted, and any 5xx other than 503 kept
 * with what was asked.
 */

/** How many times a request is sent at most (the first send and its retries on 503). */
export const MAX_SENDS = 10;
/** The longest wait honoured from a Retry-After. */
const RETRY_AFTER_CAP_MS = 1000;
const REQUEST_TIMEOUT_MS = 30_000;
const STREAM_TIMEOUT_MS = 90_000;

export interface Unexpected5xx {
  status: number;
  what: string;
  body: string;
}

export class Observed {
  /** Every HTTP status answered, by status (`network` for a request that got no answer). */
  readonly statuses = new Map<string, number>();
  readonly unexpected5xx: Unexpected5xx[] = [];
  /** The 4xx answers, with what was asked: what the workload's own races met (a cancel after the end). */
  readonly refused: Unexpected5xx[] = [];
  /** Requests still answered 503 after MAX_SENDS sends. */
  gaveUp = 0;
  /** Sends that were retries of a 503. */
  retries = 0;
  /** For each messageId sent more than once: the task ids its answers named. */
  readonly retriedMessages = new Map<string, Set<string>>();

  saw(status: number | 'network', what: string, body = ''): void {
    const key = String(status);
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
    if (typeof status === 'number' && status >= 500 && status !== 503)
      this.unexpected5xx.push({ status, what, body: body.slice(0, 300) });
    if (typeof status === 'number' && status >= 400 && status < 500)
      this.refused.push({ status, what, body: body.slice(0, 300) });
  }

  /** A messageId that was sent again got `taskId` in an answer. */
  answeredRetried(messageId: string, taskId: string | undefined): void {
    if (!taskId) return;
    const ids = this.retriedMessages.get(messageId) ?? new Set<string>();
    ids.add(taskId);
    this.retriedMessages.set(messageId, ids);
  }
}

export interface Answer {
  status: number;
  body: unknown;
  /** How many times it was sent. */
  sends: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const retryAfterMs = (header: string | null): number => {
  const seconds = Number(header);
  return Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 200, RETRY_AFTER_CAP_MS);
};

/**
 * Sends the request until it is answered with anything but 503 (or MAX_SENDS times); a request that got
 * no answer at all (connection reset) is sent again too, counted as `network`.
 */
export const request = async (
  observed: Observed,
  url: string,
  init: { method: string; body?: unknown; headers?: Record<string, string> },
): Promise<Answer> => {
  const what = `${init.method} ${new URL(url).pathname}`;
  for (let sends = 1; ; sends++) {
    if (sends > 1) observed.retries++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: init.method,
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...init.headers },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (e) {
      observed.saw('network', what);
      if (sends >= MAX_SENDS) throw new Error(`${what}: no answer after ${sends} sends: ${String(e)}`);
      await sleep(200);
      continue;
    }
    const text = await res.text();
    observed.saw(res.status, what, text);
    if (res.status === 503 && sends < MAX_SENDS) {
      await sleep(retryAfterMs(res.headers.get('retry-after')));
      continue;
    }
    if (res.status === 503) observed.gaveUp++;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: res.status, body, sends };
  }
};

export interface StreamEvent {
  event: string;
  data: unknown;
}

export interface StreamAnswer {
  status: number;
  /** The events of the stream (a JSON-RPC event's `result`, or its `error`), or the error answered before it. */
  events: StreamEvent[];
  body?: unknown;
  sends: number;
}

/** Parses `text/event-stream` frames (`event:`, `data:`; comments and `id:` skipped). */
const frames = (text: string): StreamEvent[] =>
  text
    .split(/\n\n/)
    .map((frame) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length === 0) return undefined;
      try {
        return { event, data: JSON.parse(data.join('\n')) as unknown };
      } catch {
        return { event, data: data.join('\n') };
      }
    })
    .filter((e): e is StreamEvent => e !== undefined);

/** A streamed send: sent again while it is answered 503 before its first event; read to its end. */
export const stream = async (
  observed: Observed,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<StreamAnswer> => {
  const what = `POST ${new URL(url).pathname} (stream)`;
  for (let sends = 1; ; sends++) {
    if (sends > 1) observed.retries++;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'A2A-Version': '1.0',
          ...headers,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
      });
      text = await res.text();
    } catch (e) {
      observed.saw('network', what);
      if (sends >= MAX_SENDS) throw new Error(`${what}: no answer after ${sends} sends: ${String(e)}`);
      await sleep(200);
      continue;
    }
    observed.saw(res.status, what, text);
    if (res.status === 503 && sends < MAX_SENDS) {
      await sleep(retryAfterMs(res.headers.get('retry-after')));
      continue;
    }
    if (res.status === 503) observed.gaveUp++;
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      return { status: res.status, events: [], body: parsed, sends };
    }
    return { status: res.status, events: frames(text), sends };
  }
};
