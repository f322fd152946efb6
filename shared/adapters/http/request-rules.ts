/**
 * The HttpClient port's rules both adapters keep, the guarded client and its in-memory twin alike (pure:
 * no I/O, so the twin can share them): what a request must be before anything is sent, the answer's
 * default cap, and what a refused or oversized answer is told.
 */
import type { HttpClientRequest } from '../../ports/http-client.ts';

/** A card (the registry accepts up to 64 KiB), a JWKS or a probe's answer fit with room to spare. */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024;

export const tooLargeError = (maxBytes: number): string =>
  `the answer's body is larger than ${maxBytes} bytes`;

export const refusedError = (reason: string): string => `URL refused: ${reason}`;

/** What is wrong with `request`, naming the field, or undefined. */
export const requestProblem = (request: HttpClientRequest): string | undefined => {
  if (request.method !== 'GET' && request.method !== 'POST')
    return `method: expected GET or POST, got ${JSON.stringify(request.method)}`;
  if (request.method === 'GET' && request.body !== undefined) return 'body: a GET request carries no body';
  if (request.timeoutMs !== undefined && !(Number.isInteger(request.timeoutMs) && request.timeoutMs > 0))
    return `timeoutMs: expected a positive whole number of milliseconds, got ${request.timeoutMs}`;
  if (request.maxBytes !== undefined && !(Number.isInteger(request.maxBytes) && request.maxBytes >= 0))
    return `maxBytes: expected a whole number of bytes, got ${request.maxBytes}`;
  return undefined;
};
