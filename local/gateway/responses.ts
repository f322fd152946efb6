/**
 * Writing answers: the gateway's own JSON answers and gateway responses, and a function's proxy result
 * as API Gateway turns it into an HTTP response.
 */
import type { ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '../../shared/contracts/gateway-responses.ts';

export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

export const isProxyResult = (value: unknown): value is APIGatewayProxyResult => {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    Number.isInteger(r.statusCode) &&
    (r.statusCode as number) >= 100 &&
    (r.statusCode as number) <= 599 &&
    (r.body === undefined || r.body === null || typeof r.body === 'string')
  );
};

/** API Gateway merges both maps; for a name present in both, only the multi-value entries count. */
export const responseHeaders = (result: APIGatewayProxyResult): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  const names = new Map<string, string>();
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    names.set(name.toLowerCase(), name);
    out[name] = values.map(String);
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    if (!names.has(name.toLowerCase())) out[name] = [String(value)];
  }
  return out;
};

export const writeResult = (res: ServerResponse, result: APIGatewayProxyResult, requestId: string) => {
  const body = result.isBase64Encoded
    ? Buffer.from(result.body ?? '', 'base64')
    : Buffer.from(result.body ?? '', 'utf8');
  const headers = responseHeaders(result);
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  // REST APIs answer application/json when the function sets no content type
  if (!has('content-type')) headers['Content-Type'] = ['application/json'];
  for (const name of Object.keys(headers)) {
    if (['content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase()))
      delete headers[name];
  }
  res.writeHead(result.statusCode, {
    ...headers,
    'Content-Length': String(body.length),
    'x-amzn-RequestId': requestId,
  });
  res.end(body);
};

export const gatewayResponse = (res: ServerResponse, type: GatewayResponseType) => {
  const answer = GATEWAY_RESPONSES[type];
  json(res, answer.statusCode, answer.body, answer.headers);
};
