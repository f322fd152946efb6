/**
 * The Lambda proxy (v1) event API Gateway makes of an HTTP request: headers in the client's spelling
 * (with the X-Forwarded-* it adds), query parameters, the body (base64 unless a text type), the
 * request context.
 */
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT } from '../lambda-context.ts';

const TEXT_TYPE =
  /^(text\/.*|application\/(json|xml|javascript|x-www-form-urlencoded|graphql)|.*\+(json|xml))$/;

const isTextBody = (req: IncomingMessage): boolean => {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding !== 'identity') return false;
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return !type || TEXT_TYPE.test(type);
};

/** Header maps in the client's spelling: the last value in `headers`, all of them in `multiValueHeaders`. */
const requestHeaders = (req: IncomingMessage, extra: Record<string, string>) => {
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

const queryParameters = (search: URLSearchParams) => {
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
const requestTime = (d: Date) => {
  const [, day, month, year, time] = d.toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
};

/** A request on its route, as the gateway has it when it makes the event. */
export interface ProxyRequest {
  req: IncomingMessage;
  /** The route's resource path. */
  resource: string;
  /** The request's path (no trailing slash). */
  path: string;
  method: string;
  searchParams: URLSearchParams;
  body: Buffer;
  pathParameters: Record<string, string> | null;
  requestId: string;
  requestTimeEpoch: number;
  stage: string;
}

export const proxyEventOf = (r: ProxyRequest): APIGatewayProxyEvent => {
  const { req, path, method, stage } = r;
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const { headers, multiValueHeaders } = requestHeaders(req, {
    'X-Forwarded-For': sourceIp,
    'X-Forwarded-Port': String(req.socket.localPort ?? ''),
    'X-Forwarded-Proto': 'http',
  });
  const query = queryParameters(r.searchParams);
  const text = isTextBody(req);
  return {
    resource: r.resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: r.pathParameters,
    stageVariables: null,
    body: r.body.length === 0 ? null : r.body.toString(text ? 'utf8' : 'base64'),
    isBase64Encoded: r.body.length > 0 && !text,
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: 'local',
      authorizer: null,
      domainName: req.headers.host ?? 'localhost',
      extendedRequestId: r.requestId,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${stage}${path}`,
      protocol: `HTTP/${req.httpVersion}`,
      requestId: r.requestId,
      requestTime: requestTime(new Date(r.requestTimeEpoch)),
      requestTimeEpoch: r.requestTimeEpoch,
      resourceId: 'local',
      resourcePath: r.resource,
      stage,
    },
  };
};
