/**
 * The local gateway's emulation of API Gateway's REQUEST authorizer (local/http-gateway.ts): the
 * identity source (Authorization) checked before the authorizer is called, its verdicts answered with
 * the hub's gateway responses (shared/contracts/gateway-responses.ts), the context handed to the route's
 * function, public routes, the verdict cache by header, and the per-usage-key throttle.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import {
  type AuthorizerHandler,
  type GatewayAuthorizer,
  type GatewayRoute,
  startHttpGateway,
} from '../../../local/http-gateway.ts';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '../../../shared/contracts/gateway-responses.ts';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** node:http rather than fetch: header values go as written (fetch trims them). */
const send = (url: string, headers: OutgoingHttpHeaders = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end();
  });

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

const assertGatewayResponse = (reply: Reply, type: GatewayResponseType) => {
  const expected = GATEWAY_RESPONSES[type];
  assert.equal(reply.status, expected.statusCode, JSON.stringify(reply.body));
  assert.deepEqual(reply.body, expected.body);
  for (const [name, value] of Object.entries(expected.headers))
    assert.equal(reply.headers[name.toLowerCase()], value, name);
};

const policy = (effect: 'Allow' | 'Deny', resource = '*') => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
});

/**
 * A fake authorizer, deciding by the credential: `deny`, `unauthorized` (throws API Gateway's
 * `Unauthorized`), `broken` (throws anything else), `no-usage` (Allow without a usage key),
 * `mixed` (Allow and Deny), and `user-<name>` (Allow, usage key `usage-<name>`).
 */
const fakeAuthorizer = () => {
  const calls: APIGatewayRequestAuthorizerEvent[] = [];
  const handler: AuthorizerHandler = async (event) => {
    calls.push(event);
    const header = Object.entries(event.headers ?? {}).find(
      ([k]) => k.toLowerCase() === 'authorization',
    )?.[1];
    const credential = header?.replace(/^Bearer /, '') ?? '';
    if (credential === 'deny') return { principalId: 'denied', policyDocument: policy('Deny') };
    if (credential === 'unauthorized') throw new Error('Unauthorized');
    if (credential === 'broken') throw new Error('the table is gone');
    if (credential === 'no-usage')
      return { principalId: 'acme/nobody', policyDocument: policy('Allow'), context: { tenant: 'acme' } };
    if (credential === 'mixed') {
      const both = policy('Allow');
      both.Statement.push({ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: '*' });
      return { principalId: 'acme/mixed', policyDocument: both, usageIdentifierKey: 'usage-mixed' };
    }
    const user = /^user-(.+)$/.exec(credential)?.[1];
    if (!user) throw new Error('Unauthorized');
    const result: APIGatewayAuthorizerResult = {
      principalId: `acme/${user}`,
      policyDocument: policy('Allow', event.methodArn),
      context: {
        tenant: 'acme',
        owner: user,
        rights: 'read write',
        scheme: 'api-key',
        expiresAt: 4102444800,
      },
      usageIdentifierKey: `usage-${user}`,
    };
    return result;
  };
  return { calls, handler };
};

const ROUTES: GatewayRoute<'api' | 'card'>[] = [
  { method: 'GET', path: '/tasks/{id}', function: 'api' },
  { method: 'GET', path: '/card', function: 'card', public: true },
];

/** A gateway whose `api` function records the events it got and answers 200. */
const startWith = async (authorizer: Omit<GatewayAuthorizer, 'handler'>) => {
  const fake = fakeAuthorizer();
  const events: APIGatewayProxyEvent[] = [];
  const logged: string[] = [];
  const gateway = await startHttpGateway({
    routes: ROUTES,
    handlers: {
      api: async (event) => {
        events.push(event);
        return { statusCode: 200, body: JSON.stringify({ ok: true }) };
      },
      card: async (event) => {
        events.push(event);
        return { statusCode: 200, body: JSON.stringify({ card: true }) };
      },
    },
    host: '127.0.0.1',
    port: 0,
    log: (message) => logged.push(message),
    authorizer: { ...authorizer, handler: fake.handler },
  });
  return { gateway, calls: fake.calls, events, logged };
};

describe('local gateway: authorizer verdicts', () => {
  let g: Awaited<ReturnType<typeof startWith>>;
  let url: string;
  before(async () => {
    g = await startWith({});
    url = `${g.gateway.url}/tasks/t-1`;
  });
  after(async () => g.gateway.stop(1000));

  it('no Authorization header (or a blank one): 401 with the challenge, the authorizer not called', async () => {
    const calls = g.calls.length;
    assertGatewayResponse(await send(url), 'UNAUTHORIZED');
    assertGatewayResponse(await send(url, { authorization: '   ' }), 'UNAUTHORIZED');
    assertGatewayResponse(await send(url, { authorization: '' }), 'UNAUTHORIZED');
    const reply = await send(url);
    assert.match(String(reply.headers['www-authenticate']), /^Bearer realm="/);
    assert.equal(g.calls.length, calls);
    assert.equal(g.events.length, 0, 'the function never ran');
  });

  it("the authorizer throwing 'Unauthorized': 401 with the challenge", async () => {
    assertGatewayResponse(await send(url, bearer('unauthorized')), 'UNAUTHORIZED');
    assertGatewayResponse(await send(url, bearer('what-is-this')), 'UNAUTHORIZED');
    assert.equal(g.events.length, 0);
  });

  it('a Deny policy (or an Allow with a Deny): 403', async () => {
    assertGatewayResponse(await send(url, bearer('deny')), 'ACCESS_DENIED');
    assertGatewayResponse(await send(url, bearer('mixed')), 'ACCESS_DENIED');
    assert.equal(g.events.length, 0);
  });

  it('an Allow without usageIdentifierKey: 403 INVALID_API_KEY', async () => {
    assertGatewayResponse(await send(url, bearer('no-usage')), 'INVALID_API_KEY');
    assert.equal(g.events.length, 0);
  });

  it('the authorizer failing otherwise: 500 AUTHORIZER_FAILURE, logged', async () => {
    assertGatewayResponse(await send(url, bearer('broken')), 'AUTHORIZER_FAILURE');
    assert.ok(g.logged.includes('authorizer threw'), g.logged.join('\n'));
    assert.equal(g.events.length, 0);
  });

  it('Allow: the function sees the context and principalId in requestContext.authorizer', async () => {
    const reply = await send(url, bearer('user-alice'));
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { ok: true });
    const event = g.events.at(-1)!;
    assert.deepEqual(event.requestContext.authorizer, {
      tenant: 'acme',
      owner: 'alice',
      rights: 'read write',
      scheme: 'api-key',
      expiresAt: 4102444800,
      principalId: 'acme/alice',
    });
    assert.deepEqual(event.pathParameters, { id: 't-1' });
    // what the authorizer was given: a REQUEST event with the method ARN and the request's headers
    const call = g.calls.at(-1)!;
    assert.equal(call.type, 'REQUEST');
    assert.equal(call.methodArn, 'arn:aws:execute-api:local:123456789012:local/local/GET/tasks/t-1');
    assert.equal(call.headers?.authorization, 'Bearer user-alice');
    assert.equal(call.httpMethod, 'GET');
    assert.deepEqual(call.pathParameters, { id: 't-1' });
    assert.equal(call.requestContext.authorizer, undefined);
  });

  it('a public route calls no authorizer, with or without credentials', async () => {
    const calls = g.calls.length;
    const anonymous = await send(`${g.gateway.url}/card`);
    assert.equal(anonymous.status, 200);
    assert.deepEqual(anonymous.body, { card: true });
    assert.equal(g.events.at(-1)!.requestContext.authorizer, null);
    const withHeader = await send(`${g.gateway.url}/card`, bearer('deny'));
    assert.equal(withHeader.status, 200);
    assert.equal(g.calls.length, calls);
  });

  it('no cache by default: the authorizer is called for every request', async () => {
    const calls = g.calls.length;
    for (let i = 0; i < 3; i++) assert.equal((await send(url, bearer('user-bob'))).status, 200);
    assert.equal(g.calls.length, calls + 3);
  });
});

describe('local gateway: verdict cache', () => {
  it('cacheTtlMs > 0: one call for requests with the same header, a new one for another header', async () => {
    const g = await startWith({ cacheTtlMs: 60_000 });
    try {
      const url = `${g.gateway.url}/tasks/t-1`;
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      assert.equal((await send(`${g.gateway.url}/tasks/t-2`, bearer('user-alice'))).status, 200);
      assert.equal(g.calls.length, 1, 'the verdict serves any route');
      assert.equal(g.events.length, 2);
      assert.deepEqual(g.events[1]!.requestContext.authorizer, g.events[0]!.requestContext.authorizer);
      assert.equal((await send(url, bearer('user-bob'))).status, 200);
      assert.equal(g.calls.length, 2);
      // a refusal is cached too
      assertGatewayResponse(await send(url, bearer('unauthorized')), 'UNAUTHORIZED');
      assertGatewayResponse(await send(url, bearer('unauthorized')), 'UNAUTHORIZED');
      assert.equal(g.calls.length, 3);
      assertGatewayResponse(await send(url, bearer('deny')), 'ACCESS_DENIED');
      assertGatewayResponse(await send(url, bearer('deny')), 'ACCESS_DENIED');
      assert.equal(g.calls.length, 4);
      // a failure is not: the next request asks again
      assertGatewayResponse(await send(url, bearer('broken')), 'AUTHORIZER_FAILURE');
      assertGatewayResponse(await send(url, bearer('broken')), 'AUTHORIZER_FAILURE');
      assert.equal(g.calls.length, 6);
    } finally {
      await g.gateway.stop(1000);
    }
  });

  it('cacheTtlMs 0: the authorizer is called each time', async () => {
    const g = await startWith({ cacheTtlMs: 0 });
    try {
      const url = `${g.gateway.url}/tasks/t-1`;
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      assert.equal(g.calls.length, 2);
    } finally {
      await g.gateway.stop(1000);
    }
  });

  it('a cached verdict expires after cacheTtlMs', async () => {
    const g = await startWith({ cacheTtlMs: 150 });
    try {
      const url = `${g.gateway.url}/tasks/t-1`;
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      assert.equal(g.calls.length, 2);
    } finally {
      await g.gateway.stop(1000);
    }
  });
});

describe('local gateway: throttle per usage key', () => {
  it('{rateLimit: 1, burstLimit: 2}: the third quick request is a 429 with Retry-After; another key is unaffected', async () => {
    const g = await startWith({ throttle: { rateLimit: 1, burstLimit: 2 } });
    try {
      const url = `${g.gateway.url}/tasks/t-1`;
      const started = Date.now();
      const first = await send(url, bearer('user-alice'));
      const second = await send(url, bearer('user-alice'));
      const third = await send(url, bearer('user-alice'));
      // the bucket refills at 1 a second: only meaningful if the three went out within that second
      assert.ok(Date.now() - started < 1000, 'the three requests took over a second (machine overloaded?)');
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      assertGatewayResponse(third, 'THROTTLED');
      assert.equal(third.headers['retry-after'], '1');
      assert.equal(g.events.length, 2, 'a throttled request never reaches the function');
      // another usage key has its own bucket
      assert.equal((await send(url, bearer('user-bob'))).status, 200);
      assert.equal((await send(url, bearer('user-bob'))).status, 200);
      // and the bucket refills
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
    } finally {
      await g.gateway.stop(1000);
    }
  });

  it('cached verdicts are throttled too', async () => {
    const g = await startWith({ cacheTtlMs: 60_000, throttle: { rateLimit: 1, burstLimit: 1 } });
    try {
      const url = `${g.gateway.url}/tasks/t-1`;
      assert.equal((await send(url, bearer('user-alice'))).status, 200);
      assertGatewayResponse(await send(url, bearer('user-alice')), 'THROTTLED');
      assert.equal(g.calls.length, 1);
    } finally {
      await g.gateway.stop(1000);
    }
  });
});
