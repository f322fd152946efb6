/**
 * What authentication costs per request: the hub of `npm start` with the authorizer on (the same
 * functions/authorizer.ts API Gateway invokes, through the local gateway's emulation), a local OIDC
 * issuer, one registered tenant, one API key and one JWT.
 *
 * - A verdict: the authorizer handler invoked in-process, API key and JWT interleaved, its latency and
 *   the DynamoDB reads it makes (metered on its own client).
 * - A request: GetTask of a small task over JSON-RPC through three gateways in this process, interleaved
 *   round by round: the hub's (the real authorizer, no cache), one caching verdicts as API Gateway does
 *   (300 s), and one whose authorizer allows without checking anything (the baseline: everything but the
 *   verification).
 * - Dollars: the authorizer's invocation and duration (arm64 at its configured memory; the duration is the
 *   local mean, an estimate) and its reads, per million requests: uncached (every request a verdict) and
 *   with API Gateway's cache for a client sending one request a second (one verdict per TTL).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { FUNCTION_MEMORY_MB } from '../../infra/functions.ts';
import { type ApiHandler, type HttpGateway, startHttpGateway } from '../../local/http-gateway.ts';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { type LocalIssuer, startLocalIssuer } from '../../local/oidc-issuer.ts';
import { runAuthCommand } from '../../scripts/auth.ts';
import { DynamoAuthStore } from '../../shared/adapters/dynamodb/auth-store.ts';
import { DynamoUsage } from '../../shared/adapters/dynamodb/usage.ts';
import { DEFAULT_AUTH_CACHE_TTL_SECONDS } from '../../shared/contracts/gateway-responses.ts';
import { JSONRPC_PATH, ROUTES } from '../../shared/contracts/routes.ts';
import { reportIsolated, runIsolated, runsAsEntry } from './isolated.ts';
import { PRICES } from './prices.ts';

export interface VerdictFigures {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** DynamoDB read units per verdict (strongly consistent GetItems). */
  rru: number;
  getItems: number;
  roundTrips: number;
}

export interface RequestFigures {
  p50Ms: number;
  p99Ms: number;
}

export interface AuthDollars {
  lambdaRequests: number;
  lambdaDuration: number;
  dynamodb: number;
  total: number;
}

export interface AuthResult {
  rounds: number;
  memoryMb: number;
  cacheTtlSeconds: number;
  verdict: { apiKey: VerdictFigures; jwt: VerdictFigures };
  request: { noCheck: RequestFigures; uncached: RequestFigures; cached: RequestFigures };
  /** $ per million requests, by credential: every request a verdict, or one verdict per TTL at 1 request/s. */
  costPerMillionRequests: {
    apiKey: { uncached: AuthDollars; cached: AuthDollars };
    jwt: { uncached: AuthDollars; cached: AuthDollars };
  };
  /** Requests refused or failed during the measurement (0 in a normal run). */
  failures: number;
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : 0;
const figures = (values: number[]): RequestFigures & { meanMs: number } => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50Ms: round(percentile(sorted, 0.5), 2),
    p99Ms: round(percentile(sorted, 0.99), 2),
    meanMs: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), 3),
  };
};

const dollars = (meanMs: number, rru: number, memoryMb: number, share: number): AuthDollars => {
  const lambdaRequests = 1e6 * share * PRICES.lambda.perRequest;
  const lambdaDuration = 1e6 * share * (meanMs / 1000) * (memoryMb / 1024) * PRICES.lambda.perGbSecond;
  const dynamodb = 1e6 * share * rru * PRICES.dynamodb.perReadUnit;
  return {
    lambdaRequests: round(lambdaRequests, 4),
    lambdaDuration: round(lambdaDuration, 4),
    dynamodb: round(dynamodb, 4),
    total: round(lambdaRequests + lambdaDuration + dynamodb, 4),
  };
};

const authorizerEvent = (authorization: string): APIGatewayRequestAuthorizerEvent =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:local:000000000000:local/local/POST/a2a/jsonrpc',
    resource: JSONRPC_PATH,
    path: JSONRPC_PATH,
    httpMethod: 'POST',
    headers: { Authorization: authorization },
    multiValueHeaders: { Authorization: [authorization] },
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  }) as APIGatewayRequestAuthorizerEvent;

export const benchAuth = async (options: { rounds?: number } = {}): Promise<AuthResult> => {
  const rounds = options.rounds ?? 400;
  const issuer: LocalIssuer = await startLocalIssuer();
  let hub: LocalHub | undefined;
  const gateways: HttpGateway[] = [];
  try {
    hub = await startLocalHub({
      auth: { throttle: false },
      env: {
        AUTH_JWT_ISSUER: issuer.url,
        AUTH_JWT_AUDIENCE: issuer.audience,
        AUTH_JWT_JWKS_URL: issuer.jwksUrl,
        SYNAPSE_QUIET_EVENTS: '1',
      },
    });
    const admin = new DynamoDBClient({
      endpoint: hub.dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const store = new DynamoAuthStore(admin, hub.tableName);
    const printed: string[] = [];
    const out = (line: string) => printed.push(line);
    await runAuthCommand(['tenants', 'add', 'bench'], { keys: store, tenants: store, out });
    await runAuthCommand(['keys', 'create', '--tenant', 'bench', '--principal', 'bench-user'], {
      keys: store,
      tenants: store,
      out,
    });
    admin.destroy();
    const apiKey = printed.find((l) => l.startsWith('syn_'));
    if (!apiKey) throw new Error(`the admin CLI printed no key: ${printed.join(' | ')}`);
    const jwt = await issuer.token('bench-user', { tenant: 'bench' }, { expiresIn: 3600 });

    // the handler modules the hub loaded (one module cache): the authorizer, its client, jsonrpc
    const { authorizerHandler } = await import('../../functions/authorizer.ts');
    const { authDynamoClient } = await import('../../shared/composition-roots/authorizer.ts');
    // a response-streaming handler, invoked as such by the gateway (as the hub's own does)
    const jsonrpc = (await import('../../functions/jsonrpc.ts')).handler as unknown as ApiHandler;
    const usage = new DynamoUsage().attach(authDynamoClient());

    // --- verdicts, interleaved
    const credentials = { apiKey: `Bearer ${apiKey}`, jwt: `Bearer ${jwt}` } as const;
    let failures = 0;
    const verdict = async (authorization: string) => {
      const t0 = performance.now();
      const result = await authorizerHandler(authorizerEvent(authorization));
      const ms = performance.now() - t0;
      if (!result.usageIdentifierKey) failures++;
      return ms;
    };
    for (let i = 0; i < 20; i++) for (const c of Object.values(credentials)) await verdict(c);
    const times = { apiKey: [] as number[], jwt: [] as number[] };
    const reads = { apiKey: DynamoUsage.empty(), jwt: DynamoUsage.empty() };
    for (let i = 0; i < rounds; i++) {
      for (const kind of i % 2 ? (['jwt', 'apiKey'] as const) : (['apiKey', 'jwt'] as const)) {
        usage.reset();
        times[kind].push(await verdict(credentials[kind]));
        const t = usage.reset();
        reads[kind].readUnits += t.readUnits;
        reads[kind].roundTrips += t.roundTrips;
        reads[kind].requests += t.byOperation.GetItem ?? 0;
      }
    }
    const verdictOf = (kind: 'apiKey' | 'jwt'): VerdictFigures => {
      const f = figures(times[kind]);
      return {
        ...f,
        rru: round(reads[kind].readUnits / rounds),
        getItems: round(reads[kind].requests / rounds),
        roundTrips: round(reads[kind].roundTrips / rounds),
      };
    };

    // --- requests through three gateways, interleaved
    const routes = ROUTES.filter((r) => r.function === 'jsonrpc');
    const noCheck = await startHttpGateway({
      routes,
      handlers: { jsonrpc },
      authorizer: {
        handler: async () => ({
          principalId: 'bench/bench-user',
          policyDocument: {
            Version: '2012-10-17',
            Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
          },
          context: { tenant: 'bench', owner: 'bench-user', rights: 'read write', scheme: 'api-key' },
          usageIdentifierKey: 'bench',
        }),
      },
    });
    gateways.push(noCheck);
    const cached = await startHttpGateway({
      routes,
      handlers: { jsonrpc },
      authorizer: {
        handler: (event) => authorizerHandler(event),
        cacheTtlMs: DEFAULT_AUTH_CACHE_TTL_SECONDS * 1000,
      },
    });
    gateways.push(cached);
    const rpc = async (base: string, method: string, params: unknown) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${JSONRPC_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'a2a-version': '1.0',
          authorization: credentials.apiKey,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await res.json()) as { result?: { task?: { id: string }; id?: string }; error?: unknown };
      const ms = performance.now() - t0;
      if (res.status !== 200 || body.error) failures++;
      return { ms, body };
    };
    const sent = await rpc(hub.url, 'SendMessage', {
      message: { messageId: 'bench-auth-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    });
    const taskId = sent.body.result?.task?.id;
    if (!taskId) throw new Error(`no task: ${JSON.stringify(sent.body)}`);
    const targets = { noCheck: noCheck.url, uncached: hub.url, cached: cached.url } as const;
    for (let i = 0; i < 30; i++)
      for (const base of Object.values(targets)) await rpc(base, 'GetTask', { id: taskId });
    const latencies = { noCheck: [] as number[], uncached: [] as number[], cached: [] as number[] };
    const order = Object.keys(targets) as (keyof typeof targets)[];
    for (let i = 0; i < rounds; i++) {
      const turn = [...order.slice(i % 3), ...order.slice(0, i % 3)];
      for (const k of turn) latencies[k].push((await rpc(targets[k], 'GetTask', { id: taskId })).ms);
    }
    const request = {
      noCheck: figures(latencies.noCheck),
      uncached: figures(latencies.uncached),
      cached: figures(latencies.cached),
    };

    const memoryMb = (FUNCTION_MEMORY_MB as Record<string, number>).authorizer ?? 256;
    const apiKeyVerdict = verdictOf('apiKey');
    const jwtVerdict = verdictOf('jwt');
    const cachedShare = 1 / DEFAULT_AUTH_CACHE_TTL_SECONDS;
    return {
      rounds,
      memoryMb,
      cacheTtlSeconds: DEFAULT_AUTH_CACHE_TTL_SECONDS,
      verdict: { apiKey: apiKeyVerdict, jwt: jwtVerdict },
      request: {
        noCheck: { p50Ms: request.noCheck.p50Ms, p99Ms: request.noCheck.p99Ms },
        uncached: { p50Ms: request.uncached.p50Ms, p99Ms: request.uncached.p99Ms },
        cached: { p50Ms: request.cached.p50Ms, p99Ms: request.cached.p99Ms },
      },
      costPerMillionRequests: {
        apiKey: {
          uncached: dollars(apiKeyVerdict.meanMs, apiKeyVerdict.rru, memoryMb, 1),
          cached: dollars(apiKeyVerdict.meanMs, apiKeyVerdict.rru, memoryMb, cachedShare),
        },
        jwt: {
          uncached: dollars(jwtVerdict.meanMs, jwtVerdict.rru, memoryMb, 1),
          cached: dollars(jwtVerdict.meanMs, jwtVerdict.rru, memoryMb, cachedShare),
        },
      },
      failures,
    };
  } finally {
    for (const g of gateways) await g.stop(1000);
    await hub?.stop();
    await issuer.stop();
  }
};

export const printAuth = (r: AuthResult): void => {
  console.log('\nAuthentication: a verdict (authorizer in-process) and a GetTask through the gateway');
  console.table(r.verdict);
  console.table(r.request);
  console.log(`$ per million requests (authorizer ${r.memoryMb} MB, cache ${r.cacheTtlSeconds} s)`);
  console.table({
    'API key, uncached': r.costPerMillionRequests.apiKey.uncached,
    'API key, cached (1 req/s)': r.costPerMillionRequests.apiKey.cached,
    'JWT, uncached': r.costPerMillionRequests.jwt.uncached,
    'JWT, cached (1 req/s)': r.costPerMillionRequests.jwt.cached,
  });
};

/** The section in a process of its own (./isolated.ts). */
export const benchAuthIsolated = (): Promise<AuthResult> =>
  runIsolated<AuthResult>(import.meta.filename, 'AUTH_RESULT');

if (runsAsEntry(import.meta.url)) reportIsolated('AUTH_RESULT', await benchAuth());
