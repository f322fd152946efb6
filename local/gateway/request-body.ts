/**
 * Reading a request body up to the gateway's payload limit, and past it reading on (and throwing away)
 * so the client gets the 413 (docs/development.md).
 */
import type { IncomingMessage } from 'node:http';

export interface DrainLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** `drained`: the client sent the whole body and can read an answer; otherwise the gateway gave up on it. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; drained: boolean };

/**
 * Reads the body, keeping at most `limit` bytes. Past the limit it reads on without keeping anything,
 * to the body's end, unless the body goes past `drain.maxBytes` or takes longer than `drain.timeoutMs`
 * from the moment it went over the limit (`tooLong` says it is over from the start: its Content-Length).
 */
const readBody = (
  req: IncomingMessage,
  limit: number,
  drain: DrainLimits,
  tooLong: boolean,
): Promise<BodyResult> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: BodyResult) => {
      clearTimeout(timer);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      if (!result.ok && !result.drained) req.pause();
      resolve(result);
    };
    const goOver = () => {
      over = true;
      chunks.length = 0;
      timer = setTimeout(() => finish({ ok: false, drained: false }), drain.timeoutMs);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > limit) goOver();
      if (!over) chunks.push(chunk);
      else if (size > drain.maxBytes) finish({ ok: false, drained: false });
    };
    const onEnd = () =>
      finish(over ? { ok: false, drained: true } : { ok: true, body: Buffer.concat(chunks) });
    if (tooLong) goOver();
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });

/**
 * The body of a request to a route, within `limit` bytes. A body declared bigger than the drain allows is
 * not read at all: the gateway answers at once.
 */
export const readRequestBody = (
  req: IncomingMessage,
  limit: number,
  drain: DrainLimits,
): Promise<BodyResult> => {
  const declared = Number(req.headers['content-length'] ?? 0);
  return declared > drain.maxBytes
    ? Promise.resolve({ ok: false, drained: false })
    : readBody(req, limit, drain, declared > limit);
};
