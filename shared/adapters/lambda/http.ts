/** Small helpers for API Gateway proxy events. */
import { PUBLIC_URL } from '../../config/deployment.ts';
import { readSetting } from '../../config/settings.ts';

type Headers = Record<string, string | undefined> | null | undefined;

export const lowerCaseHeaders = (headers: Headers): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

/**
 * The base URL clients reach us at: PUBLIC_URL when configured (custom domain),
 * else the API Gateway host and stage the request came through.
 */
export const publicUrlOf = (event: {
  headers: Headers;
  requestContext?: { stage?: string; domainName?: string };
}): string => {
  const configured = readSetting(PUBLIC_URL);
  if (configured) return configured.replace(/\/+$/, '');
  const headers = lowerCaseHeaders(event.headers);
  const host = event.requestContext?.domainName ?? headers.host ?? 'localhost';
  const proto = headers['x-forwarded-proto'] ?? 'https';
  const stage = event.requestContext?.stage;
  // execute-api URLs carry the stage in the path; custom domains map it away
  const stagePath = stage && host.includes('.execute-api.') ? `/${stage}` : '';
  return `${proto}://${host}${stagePath}`;
};

/** A query string parameter by name, case-insensitively (API Gateway keeps the client's spelling). */
export const queryParameter = (
  query: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined => {
  if (!query) return undefined;
  if (Object.hasOwn(query, name)) return query[name];
  const wanted = name.toLowerCase();
  const key = Object.keys(query).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : query[key];
};
