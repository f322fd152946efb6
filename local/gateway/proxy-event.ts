/**
 * The parts of the Lambda proxy (v1) event taken from the HTTP request: headers in the client's
 * spelling, query parameters, whether the body is text, API Gateway's requestTime.
 */
import type { IncomingMessage } from 'node:http';

const TEXT_TYPE =
  /^(text\/.*|application\/(json|xml|javascript|x-www-form-urlencoded|graphql)|.*\+(json|xml))$/;

export const isTextBody = (req: IncomingMessage): boolean => {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding !== 'identity') return false;
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return !type || TEXT_TYPE.test(type);
};

/** Header maps in the client's spelling: the last value in `headers`, all of them in `multiValueHeaders`. */
export const requestHeaders = (req: IncomingMessage, extra: Record<string, string>) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const spelling = new Map<string, string>();
  const add = (name: string, value: string) => {
    const key = spelling.get(name.toLowerCase()) ?? name;
    spelling.set(name.toLowerCase(), key);
    headers[key] = value;
    multiValueHeaders[key] = [...(multiValueHeaders[key] ?? []), value];
  };
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) add(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  for (const [name, value] of Object.entries(extra)) if (!spelling.has(name.toLowerCase())) add(name, value);
  return { headers, multiValueHeaders };
};

export const queryParameters = (search: URLSearchParams) => {
  if (search.size === 0) return { single: null, multi: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of search) {
    single[key] = value;
    multi[key] = [...(multi[key] ?? []), value];
  }
  return { single, multi };
};

/** `Date` → API Gateway's requestTime format, e.g. `09/Apr/2015:12:34:56 +0000`. */
export const requestTime = (d: Date) => {
  const [, day, month, year, time] = d.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
};
