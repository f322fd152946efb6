/**
 * Authentication and tenant isolation end to end on the local runtime: the hub with its authorizer on
 * (local/http-gateway.ts, functions/authorizer.ts), a local OIDC issuer (local/oidc-issuer.ts), tenants
 * and API keys made with the admin CLI (scripts/auth.ts) on the hub's DynamoDB Local. Over both A2A
 * bindings (JSON-RPC 1.0 and HTTP+JSON): missing and bad credentials (401, nothing written), tenant and
 * owner isolation (another's task is exactly as unknown as a random id), naming another tenant (403),
 * rights (403 insufficient_scope), an unregistered tenant (403), a key revoked mid-session, the Synapse
 * requester API, the card's security schemes, the official @a2a-js/sdk client with a bearer JWT, and
 * the per-tenant throttle (429) on a second hub.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  createAuthenticatingFetchWithRetry,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { SignJWT, UnsecuredJWT } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { type LocalIssuer, startLocalIssuer } from '../../local/oidc-issuer.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { type AuthCli, authCli, type Reply, rest, rpc, taskItemCount, v1Message } from './fixtures/auth.ts';

let hub: LocalHub;
let issuer: LocalIssuer;
let cli: AuthCli;
let receiver: WebhookReceiver;

const PEER_KEY = { id: 'k1', secret: 'executor-x-shared-secret-of-32-chars!!' };
const EXECUTOR_X = '/executor-x';

/** The credentials of the principals (set in `before`). */
const who = {
  /** acme/alice, API key, read and write. */
  alice: '',
  aliceKeyId: '',
  /** acme/alice, API key, read only. */
  aliceRead: '',
  /** acme/bob, JWT. */
  bob: '',
  /** globex/carol, API key. */
  carol: '',
  /** globex/carol, JWT. */
  carolJwt: '',
};

const CHALLENGE = /^Bearer realm="synapse"/;

const jwtEnv = () => ({
  AUTH_JWT_ISSUER: issuer.url,
  AUTH_JWT_AUDIENCE: issuer.audience,
  AUTH_JWT_JWKS_URL: issuer.jwksUrl,
});

before(async () => {
  issuer = await startLocalIssuer();
  receiver = await startWebhookReceiver();
  hub = await startLocalHub({
    port: 0,
    host: '127.0.0.1',
    sweepIntervalMs: 60_000,
    // the throttle is the second hub's subject: here it must never get in the way
    auth: { throttle: { rateLimit: 10_000, burstLimit: 10_000 } },
    env: {
      ...jwtEnv(),
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      SYNAPSE_AGENT_ID: 'hub-a',
      SYNAPSE_PEERS: JSON.stringify([
        { peerId: 'executor-x', tenant: 'acme', endpoint: receiver.url(EXECUTOR_X), keys: [PEER_KEY] },
      ]),
    },
  });
  cli = authCli(hub);
  await cli.addTenant('acme');
  await cli.addTenant('globex');
  const alice = await cli.createKey('acme', 'alice');
  who.alice = alice.key;
  who.aliceKeyId = alice.keyId;
  who.aliceRead = (await cli.createKey('acme', 'alice', 'read')).key;
  who.carol = (await cli.createKey('globex', 'carol')).key;
  who.bob = await issuer.token('bob', { tenant: 'acme' });
  who.carolJwt = await issuer.token('carol', { tenant: 'globex' });
});

after(async () => {
  cli?.close();
  await hub?.stop();
  await issuer?.stop();
  await receiver?.close();
});

// ---- the two bindings, operation by operation ------------------------------------------------------

type Cred = string | undefined;
// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any;

interface Binding {
  name: 'JSON-RPC' | 'HTTP+JSON';
  send(c: Cred, text: string, o?: { taskId?: string; tenant?: string }): Promise<Reply>;
  stream(c: Cred, text: string, taskId: string): Promise<Reply>;
  get(c: Cred, id: string, tenant?: string): Promise<Reply>;
  list(c: Cred, q?: { pageSize?: number; pageToken?: string; tenant?: string }): Promise<Reply>;
  cancel(c: Cred, id: string): Promise<Reply>;
  subscribe(c: Cred, id: string): Promise<Reply>;
  createPush(c: Cred, taskId: string, configId: string): Promise<Reply>;
  getPush(c: Cred, taskId: string, configId: string): Promise<Reply>;
  listPush(c: Cred, taskId: string): Promise<Reply>;
  deletePush(c: Cred, taskId: string, configId: string): Promise<Reply>;
  extendedCard(c: Cred): Promise<Reply>;
  /** The task a send answered with. */
  sent(r: Reply): Json;
  /** The task a GetTask answered with. */
  got(r: Reply): Json;
  tasks(r: Reply): Json[];
  nextPageToken(r: Reply): string;
  configs(r: Reply): Json[];
  ok(r: Reply, what: string): void;
  notFound(r: Reply, what: string): void;
  invalidParams(r: Reply, what: string): void;
}

const pushUrl = () => receiver.url('/push');

const jsonRpc: Binding = {
  name: 'JSON-RPC',
  send: (c, text, o = {}) =>
    rpc(hub, c, 'SendMessage', {
      ...(o.tenant !== undefined ? { tenant: o.tenant } : {}),
      message: v1Message(text, o.taskId ? { taskId: o.taskId } : {}),
    }),
  stream: (c, text, taskId) => rpc(hub, c, 'SendStreamingMessage', { message: v1Message(text, { taskId }) }),
  get: (c, id, tenant) =>
    rpc(hub, c, 'GetTask', { id, historyLength: 100, ...(tenant !== undefined ? { tenant } : {}) }),
  list: (c, q = {}) => rpc(hub, c, 'ListTasks', { pageSize: 100, ...q }),
  cancel: (c, id) => rpc(hub, c, 'CancelTask', { id }),
  subscribe: (c, id) => rpc(hub, c, 'SubscribeToTask', { id }),
  createPush: (c, taskId, id) =>
    rpc(hub, c, 'CreateTaskPushNotificationConfig', { taskId, id, url: pushUrl(), token: 'tok' }),
  getPush: (c, taskId, id) => rpc(hub, c, 'GetTaskPushNotificationConfig', { taskId, id }),
  listPush: (c, taskId) => rpc(hub, c, 'ListTaskPushNotificationConfigs', { taskId }),
  deletePush: (c, taskId, id) => rpc(hub, c, 'DeleteTaskPushNotificationConfig', { taskId, id }),
  extendedCard: (c) => rpc(hub, c, 'GetExtendedAgentCard', undefined),
  sent: (r) => r.json?.result?.task,
  got: (r) => r.json?.result,
  tasks: (r) => r.json?.result?.tasks ?? [],
  nextPageToken: (r) => r.json?.result?.nextPageToken ?? '',
  configs: (r) => r.json?.result?.configs ?? [],
  ok: (r, what) => {
    assert.equal(r.status, 200, `${what}: ${r.text}`);
    assert.equal(r.json?.error, undefined, `${what}: ${r.text}`);
  },
  notFound: (r, what) => {
    assert.equal(r.status, 200, `${what}: ${r.text}`);
    assert.equal(r.json?.error?.code, -32001, `${what}: ${r.text}`);
    assert.ok(
      (r.json.error.data as Json[]).some((d) => d.reason === 'TASK_NOT_FOUND'),
      `${what}: ${r.text}`,
    );
    assert.equal(r.json.result, undefined);
  },
  invalidParams: (r, what) => {
    assert.equal(r.status, 200, `${what}: ${r.text}`);
    assert.equal(r.json?.error?.code, -32602, `${what}: ${r.text}`);
  },
};

const prefix = (tenant?: string) => (tenant ? `/${tenant}` : '');
const listQuery = (q: { pageSize?: number; pageToken?: string }) =>
  `?pageSize=${q.pageSize ?? 100}${q.pageToken ? `&pageToken=${encodeURIComponent(q.pageToken)}` : ''}`;

const httpJson: Binding = {
  name: 'HTTP+JSON',
  send: (c, text, o = {}) =>
    rest(hub, c, 'POST', `${prefix(o.tenant)}/message:send`, {
      message: v1Message(text, o.taskId ? { taskId: o.taskId } : {}),
    }),
  stream: (c, text, taskId) =>
    rest(hub, c, 'POST', '/message:stream', { message: v1Message(text, { taskId }) }),
  get: (c, id, tenant) => rest(hub, c, 'GET', `${prefix(tenant)}/tasks/${encodeURIComponent(id)}`),
  list: (c, q = {}) => rest(hub, c, 'GET', `${prefix(q.tenant)}/tasks${listQuery(q)}`),
  cancel: (c, id) => rest(hub, c, 'POST', `/tasks/${encodeURIComponent(id)}:cancel`),
  subscribe: (c, id) => rest(hub, c, 'GET', `/tasks/${encodeURIComponent(id)}:subscribe`),
  createPush: (c, taskId, id) =>
    rest(hub, c, 'POST', `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`, {
      id,
      url: pushUrl(),
      token: 'tok',
    }),
  getPush: (c, taskId, id) =>
    rest(hub, c, 'GET', `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${id}`),
  listPush: (c, taskId) =>
    rest(hub, c, 'GET', `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`),
  deletePush: (c, taskId, id) =>
    rest(hub, c, 'DELETE', `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${id}`),
  extendedCard: (c) => rest(hub, c, 'GET', '/extendedAgentCard'),
  sent: (r) => r.json?.task,
  got: (r) => r.json,
  tasks: (r) => r.json?.tasks ?? [],
  nextPageToken: (r) => r.json?.nextPageToken ?? '',
  configs: (r) => r.json?.configs ?? [],
  ok: (r, what) => assert.equal(r.status, 200, `${what}: ${r.text}`),
  notFound: (r, what) => {
    assert.equal(r.status, 404, `${what}: ${r.text}`);
    assert.equal(r.json?.error?.status, 'NOT_FOUND', `${what}: ${r.text}`);
    assert.ok(
      (r.json.error.details as Json[]).some((d) => d.reason === 'TASK_NOT_FOUND'),
      `${what}: ${r.text}`,
    );
  },
  invalidParams: (r, what) => {
    assert.equal(r.status, 400, `${what}: ${r.text}`);
    assert.equal(r.json?.error?.status, 'INVALID_ARGUMENT', `${what}: ${r.text}`);
  },
};

const BINDINGS = [jsonRpc, httpJson];

/** The answer with every id replaced, to compare two answers apart from the ids they name. */
const masked = (r: Reply, ids: string[]) => {
  let text = r.text;
  for (const id of ids) text = text.split(id).join('<id>');
  return { status: r.status, contentType: r.headers.get('content-type'), body: JSON.parse(text) };
};

/** An auth refusal as the gateway or a function answers it: status, body code (both bindings' shapes). */
const assertAuthError = (r: Reply, status: 401 | 403 | 429, what: string) => {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.error?.code, status, `${what}: ${r.text}`);
  if (status === 401) assert.match(r.headers.get('www-authenticate') ?? '', CHALLENGE, what);
};

const stateOf = (task: Json): string => task?.status?.state;

// ---- 1. no credentials --------------------------------------------------------------------------------

describe('no credentials', () => {
  for (const b of BINDINGS)
    it(`${b.name}: every operation is 401 with the Bearer challenge and a JSON body`, async () => {
      const id = crypto.randomUUID();
      for (const [what, r] of [
        ['send', await b.send(undefined, 'hello')],
        ['get', await b.get(undefined, id)],
        ['list', await b.list(undefined)],
        ['cancel', await b.cancel(undefined, id)],
        ['subscribe', await b.subscribe(undefined, id)],
        ['list push configs', await b.listPush(undefined, id)],
        ['extended card', await b.extendedCard(undefined)],
      ] as const) {
        assertAuthError(r, 401, what);
        assert.match(r.headers.get('content-type') ?? '', /json/, what);
        assert.equal(r.json.error.status, 'UNAUTHENTICATED', what);
      }
    });

  it('JSON-RPC v0.3 (no A2A-Version), an empty bearer and a Basic header are 401 too', async () => {
    const v03 = await fetch(`${hub.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
    });
    assert.equal(v03.status, 401);
    assert.match(v03.headers.get('www-authenticate') ?? '', CHALLENGE);
    for (const authorization of ['Bearer ', 'Basic YWxpY2U6c2VjcmV0', who.alice, `Token ${who.alice}`]) {
      const r = await rpc(hub, undefined, 'ListTasks', {}, { authorization });
      assertAuthError(r, 401, `Authorization: ${authorization.slice(0, 12)}`);
    }
  });

  it('the public card and the JWKS stay open (200 without credentials)', async () => {
    for (const path of [
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
      '/.well-known/jwks.json',
    ]) {
      const r = await fetch(`${hub.url}${path}`);
      assert.equal(r.status, 200, path);
      const body = (await r.json()) as Json;
      assert.ok(path.includes('jwks') ? Array.isArray(body.keys) && body.keys.length > 0 : body.name, path);
    }
  });

  for (const b of BINDINGS)
    it(`${b.name}: the extended card needs credentials, and answers with them`, async () => {
      assertAuthError(await b.extendedCard(undefined), 401, 'no credentials');
      for (const c of [who.alice, who.bob, who.aliceRead]) {
        const r = await b.extendedCard(c);
        assert.notEqual(r.status, 401, r.text);
        b.ok(r, 'extended card');
        const card = b.name === 'JSON-RPC' ? r.json.result : r.json;
        assert.ok(
          card.skills.some((s: Json) => s.id === 'operator-notes'),
          'the demo agent has an extended card',
        );
      }
    });
});

// ---- 2. bad credentials ---------------------------------------------------------------------------------

describe('bad credentials are refused with 401 and write nothing', () => {
  const badTokens = async (): Promise<[string, string][]> => {
    const claims = { tenant: 'acme' };
    const now = Math.floor(Date.now() / 1000);
    const revoked = await cli.createKey('acme', 'eve');
    await cli.revokeKey(revoked.keyId);
    return [
      ['expired', await issuer.token('bob', claims, { expiresIn: -120 })],
      ['not yet valid (nbf in 10 min)', await issuer.token('bob', claims, { notBefore: 600 })],
      [
        'issued a year in the future (exp valid)',
        await issuer.token('bob', claims, { issuedAt: 365 * 86_400, expiresIn: 366 * 86_400 }),
      ],
      [
        'issued 2 days ago (over the 24 h token age), exp still valid',
        await issuer.token('bob', claims, { issuedAt: -2 * 86_400 }),
      ],
      ['wrong audience', await issuer.token('bob', claims, { audience: 'someone-else' })],
      ['wrong issuer', await issuer.token('bob', claims, { issuer: 'http://127.0.0.1:9/not-the-issuer' })],
      ['forged signature (ES256)', await issuer.token('bob', claims, { forged: true })],
      ['forged signature (RS256)', await issuer.token('bob', claims, { forged: true, alg: 'RS256' })],
      [
        'alg none',
        new UnsecuredJWT(claims)
          .setSubject('bob')
          .setIssuer(issuer.url)
          .setAudience(issuer.audience)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .encode(),
      ],
      [
        'HS256 with a random secret',
        await new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
          .setSubject('bob')
          .setIssuer(issuer.url)
          .setAudience(issuer.audience)
          .setIssuedAt(now)
          .setExpirationTime(now + 300)
          .sign(randomBytes(32)),
      ],
      ['garbage', 'not-a-token'],
      ['three garbage segments', 'aaaa.bbbb.cccc'],
      ['a JWT with a flipped signature byte', flipSignature(who.bob)],
      [
        'an unknown API key of the right shape',
        `syn_${[...randomBytes(16)].map((x) => 'abcdefghijklmnopqrstuvwxyz234567'[x % 32]).join('')}_${randomBytes(32).toString('base64url')}`,
      ],
      [
        'a known key id with another secret',
        `syn_${who.aliceKeyId}_${randomBytes(32).toString('base64url')}`,
      ],
      ['a malformed API key', 'syn_short_secret'],
      ['a revoked API key', revoked.key],
    ];
  };

  for (const b of BINDINGS)
    it(`${b.name}: expired, not yet valid, wrong audience or issuer, forged, alg none, HS256, garbage, unknown or revoked keys`, async () => {
      const bad = await badTokens();
      const before = await taskItemCount(hub);
      for (const [what, token] of bad) {
        assertAuthError(await b.send(token, `sent with ${what}`), 401, what);
        assertAuthError(await b.list(token), 401, what);
      }
      assert.equal(await taskItemCount(hub), before, 'no task was written');
      // the control: the same claims, properly signed, are accepted
      const good = await b.send(await issuer.token('bob', { tenant: 'acme' }), 'hello');
      b.ok(good, 'a valid token');
      assert.equal(stateOf(b.sent(good)), 'TASK_STATE_COMPLETED');
      assert.equal(await taskItemCount(hub), before + 1);
    });
});

/**
 * The token with the first character of its signature changed (not the last: its low bits are padding,
 * so changing it may decode to the same signature).
 */
function flipSignature(jwt: string): string {
  const at = jwt.lastIndexOf('.') + 1;
  const flipped = jwt[at] === 'A' ? 'B' : 'A';
  return `${jwt.slice(0, at)}${flipped}${jwt.slice(at + 1)}`;
}

// ---- 3. tenant and owner isolation ----------------------------------------------------------------------

describe("tenant and owner isolation: alice's task is unknown to carol (globex) and bob (acme)", () => {
  /** alice's live task (`ask`: input required), its push config, and a second task for paging. */
  let taskId = '';
  let configId = '';
  let second = '';
  let snapshot: Json;

  const OTHERS = [
    ['carol (globex, API key)', () => who.carol],
    ['carol (globex, JWT)', () => who.carolJwt],
    ['bob (acme, JWT)', () => who.bob],
  ] as const;

  before(async () => {
    const asked = await jsonRpc.send(who.alice, 'ask');
    jsonRpc.ok(asked, 'ask');
    taskId = jsonRpc.sent(asked).id;
    assert.equal(stateOf(jsonRpc.sent(asked)), 'TASK_STATE_INPUT_REQUIRED');
    configId = crypto.randomUUID();
    jsonRpc.ok(await jsonRpc.createPush(who.alice, taskId, configId), 'alice makes a push config');
    const hello = await httpJson.send(who.alice, 'hello');
    httpJson.ok(hello, 'hello');
    second = httpJson.sent(hello).id;
    snapshot = jsonRpc.got(await jsonRpc.get(who.alice, taskId));
  });

  for (const b of BINDINGS)
    for (const [name, cred] of OTHERS)
      it(`${b.name}: ${name} gets "task not found" for every operation, exactly as for a random id`, async () => {
        const c = cred();
        const ops: [string, (task: string, config: string) => Promise<Reply>][] = [
          ['GetTask', (t) => b.get(c, t)],
          ['CancelTask', (t) => b.cancel(c, t)],
          ['SendMessage continuing it', (t) => b.send(c, 'forty-two', { taskId: t })],
          ['SendStreamingMessage continuing it', (t) => b.stream(c, 'forty-two', t)],
          ['SubscribeToTask', (t) => b.subscribe(c, t)],
          ['create push config', (t, k) => b.createPush(c, t, k)],
          ['get push config', (t, k) => b.getPush(c, t, k)],
          ['list push configs', (t) => b.listPush(c, t)],
          ['delete push config', (t, k) => b.deletePush(c, t, k)],
        ];
        for (const [what, op] of ops) {
          const theirs = await op(taskId, configId);
          const unknownTask = crypto.randomUUID();
          const unknownConfig = crypto.randomUUID();
          const unknown = await op(unknownTask, unknownConfig);
          b.notFound(theirs, `${what} of alice's task`);
          b.notFound(unknown, `${what} of a random id`);
          assert.deepEqual(
            masked(theirs, [taskId, configId]),
            masked(unknown, [unknownTask, unknownConfig]),
            `${what}: alice's task is answered as a random id is`,
          );
        }
        const listed = await b.list(c);
        b.ok(listed, 'ListTasks');
        const ids = b.tasks(listed).map((t) => t.id);
        assert.ok(!ids.includes(taskId) && !ids.includes(second), `${name} lists none of alice's tasks`);
      });

  for (const b of BINDINGS)
    it(`${b.name}: a page token of alice's ListTasks is refused for bob and carol`, async () => {
      const page = await b.list(who.alice, { pageSize: 1 });
      b.ok(page, 'alice, page 1');
      assert.equal(b.tasks(page).length, 1);
      const token = b.nextPageToken(page);
      assert.ok(token, 'alice has more than one task: a next page');
      const next = await b.list(who.alice, { pageSize: 1, pageToken: token });
      b.ok(next, 'alice, page 2');
      for (const [name, cred] of OTHERS) {
        const r = await b.list(cred(), { pageSize: 1, pageToken: token });
        b.invalidParams(r, `${name} presenting alice's page token`);
        assert.doesNotMatch(r.text, new RegExp(`${taskId}|${second}`));
      }
    });

  it("alice's task is unchanged by all of it: state, history, status time, its push config", async () => {
    for (const b of BINDINGS) {
      const now = b.got(await b.get(who.alice, taskId));
      assert.equal(stateOf(now), 'TASK_STATE_INPUT_REQUIRED', b.name);
      assert.equal(now.history.length, snapshot.history.length, b.name);
      assert.deepEqual(now.status, snapshot.status, b.name);
      assert.deepEqual(now.metadata, snapshot.metadata, b.name);
      const configs = b.configs(await b.listPush(who.alice, taskId));
      assert.deepEqual(
        configs.map((k) => k.id),
        [configId],
        `${b.name}: the config was neither deleted nor joined`,
      );
      const listed = b.tasks(await b.list(who.alice)).map((t) => t.id);
      assert.ok(listed.includes(taskId) && listed.includes(second), b.name);
    }
  });

  // ---- 4. naming another tenant ---------------------------------------------------------------------------

  it('JSON-RPC: alice naming tenant "globex" is HTTP 403 with error code 403, and nothing is written', async () => {
    const before = await taskItemCount(hub);
    for (const [what, r] of [
      ['ListTasks', await jsonRpc.list(who.alice, { tenant: 'globex' })],
      ['GetTask', await jsonRpc.get(who.alice, taskId, 'globex')],
      ['SendMessage', await jsonRpc.send(who.alice, 'hello', { tenant: 'globex' })],
    ] as const) {
      assertAuthError(r, 403, what);
      assert.equal(r.json.jsonrpc, '2.0');
      assert.equal(r.json.id, 7, what);
    }
    assert.equal(await taskItemCount(hub), before);
    // her own tenant, named, is fine
    const own = await jsonRpc.get(who.alice, taskId, 'acme');
    jsonRpc.ok(own, 'tenant acme');
    assert.equal(jsonRpc.got(own).id, taskId);
    jsonRpc.ok(await jsonRpc.list(who.alice, { tenant: '' }), 'an empty tenant is her own');
  });

  it('HTTP+JSON: /globex/tasks is 403 PERMISSION_DENIED for alice; /acme/tasks works', async () => {
    const before = await taskItemCount(hub);
    for (const [what, r] of [
      ['GET /globex/tasks', await httpJson.list(who.alice, { tenant: 'globex' })],
      ['GET /globex/tasks/{id}', await httpJson.get(who.alice, taskId, 'globex')],
      ['POST /globex/message:send', await httpJson.send(who.alice, 'hello', { tenant: 'globex' })],
    ] as const) {
      assertAuthError(r, 403, what);
      assert.equal(r.json.error.status, 'PERMISSION_DENIED', what);
    }
    assert.equal(await taskItemCount(hub), before);
    const listed = await httpJson.list(who.alice, { tenant: 'acme' });
    httpJson.ok(listed, '/acme/tasks');
    assert.ok(httpJson.tasks(listed).some((t) => t.id === taskId));
    const got = await httpJson.get(who.alice, taskId, 'acme');
    httpJson.ok(got, '/acme/tasks/{id}');
    assert.equal(httpJson.got(got).id, taskId);
  });

  it("carol naming acme is 403 whether or not the id exists: the refusal tells nothing about alice's tasks", async () => {
    for (const b of BINDINGS) {
      const theirs = await b.get(who.carol, taskId, 'acme');
      const random = crypto.randomUUID();
      const unknown = await b.get(who.carol, random, 'acme');
      assertAuthError(theirs, 403, b.name);
      assert.deepEqual(masked(theirs, [taskId]), masked(unknown, [random]), b.name);
    }
  });

  it('HTTP+JSON: a /{tenant} prefix and a body naming another tenant are refused, nothing written', async () => {
    const before = await taskItemCount(hub);
    const r = await rest(hub, who.alice, 'POST', '/acme/message:send', {
      tenant: 'globex',
      message: v1Message('hello'),
    });
    // docs/security.md: "a prefix and a body naming two tenants are 400"
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.error.status, 'INVALID_ARGUMENT', r.text);
    assert.equal(await taskItemCount(hub), before);
  });

  // ---- 5. rights --------------------------------------------------------------------------------------------

  for (const b of BINDINGS)
    it(`${b.name}: read-only credentials (API key --rights read, JWT scope tasks:read) read but cannot write`, async () => {
      const readJwt = await issuer.token('alice', { tenant: 'acme', scope: 'openid tasks:read' });
      for (const [name, c] of [
        ['API key --rights read', who.aliceRead],
        ['JWT scope tasks:read', readJwt],
      ] as const) {
        const got = await b.get(c, taskId);
        b.ok(got, `${name}: GetTask`);
        assert.equal(b.got(got).id, taskId, 'the same owner (alice) in the same tenant');
        const listed = await b.list(c);
        b.ok(listed, `${name}: ListTasks`);
        assert.ok(b.tasks(listed).some((t) => t.id === taskId));
        b.ok(await b.listPush(c, taskId), `${name}: list push configs`);
        const before = await taskItemCount(hub);
        for (const [what, r] of [
          ['SendMessage', await b.send(c, 'hello')],
          ['SendMessage continuing', await b.send(c, 'forty-two', { taskId })],
          ['CancelTask', await b.cancel(c, taskId)],
          ['create push config', await b.createPush(c, taskId, crypto.randomUUID())],
          ['delete push config', await b.deletePush(c, taskId, configId)],
        ] as const) {
          assertAuthError(r, 403, `${name}: ${what}`);
          assert.match(r.headers.get('www-authenticate') ?? '', CHALLENGE, `${name}: ${what}`);
          assert.match(
            r.headers.get('www-authenticate') ?? '',
            /error="insufficient_scope"/,
            `${name}: ${what}`,
          );
        }
        assert.equal(await taskItemCount(hub), before, `${name}: nothing written`);
      }
      // a write-only token cannot read
      const writeOnly = await issuer.token('alice', { tenant: 'acme', scope: 'tasks:write' });
      assertAuthError(await b.get(writeOnly, taskId), 403, 'JWT scope tasks:write: GetTask');
      const still = b.got(await b.get(who.alice, taskId));
      assert.equal(stateOf(still), 'TASK_STATE_INPUT_REQUIRED');
      assert.equal(still.history.length, snapshot.history.length);
    });

  // ---- 8. the Synapse requester API ----------------------------------------------------------------------

  it('/synapse/tasks: 401 without credentials; another tenant or owner gets 404 for the delegated task', async () => {
    const api = (c: Cred, method: string, path: string, body?: unknown) =>
      rest(hub, c, method, path, body, '/synapse/tasks');
    const delegation = { peer: 'executor-x', type: 'summarize', text: 'summarize this' };
    for (const [what, r] of [
      ['POST', await api(undefined, 'POST', '', delegation)],
      ['GET', await api(undefined, 'GET', `/${crypto.randomUUID()}`)],
      ['answer', await api(undefined, 'POST', `/${crypto.randomUUID()}/answer`, { text: 'x' })],
    ] as const) {
      assert.equal(r.status, 401, `${what}: ${r.text}`);
      assert.match(r.headers.get('www-authenticate') ?? '', CHALLENGE);
    }
    assert.equal(receiver.received(EXECUTOR_X).length, 0, 'nothing was delegated');

    const made = await api(who.alice, 'POST', '', delegation);
    assert.equal(made.status, 201, made.text);
    const delegated = made.json.task.id as string;
    assert.equal(made.json.synapse.peer, 'executor-x');
    await receiver.waitFor(EXECUTOR_X, 1);
    const mine = await api(who.alice, 'GET', `/${delegated}`);
    assert.equal(mine.status, 200, mine.text);
    assert.equal(mine.json.task.id, delegated);

    for (const [name, c] of [
      ['carol (globex)', who.carol],
      ['bob (acme)', who.bob],
    ] as const) {
      const random = crypto.randomUUID();
      for (const [what, theirs, unknown] of [
        ['GET', await api(c, 'GET', `/${delegated}`), await api(c, 'GET', `/${random}`)],
        [
          'answer',
          await api(c, 'POST', `/${delegated}/answer`, { text: 'x' }),
          await api(c, 'POST', `/${random}/answer`, { text: 'x' }),
        ],
        ['cancel', await api(c, 'POST', `/${delegated}/cancel`), await api(c, 'POST', `/${random}/cancel`)],
      ] as const) {
        assert.equal(theirs.status, 404, `${name} ${what}: ${theirs.text}`);
        assert.equal(theirs.json.error.code, 'task_not_found');
        assert.deepEqual(masked(theirs, [delegated]), masked(unknown, [random]), `${name} ${what}`);
      }
    }
    // a peer of acme is not carol's to delegate to; a read-only key may not delegate
    const foreignPeer = await api(who.carol, 'POST', '', delegation);
    assert.equal(foreignPeer.status, 400, foreignPeer.text);
    const readOnly = await api(who.aliceRead, 'POST', '', delegation);
    assert.equal(readOnly.status, 403, readOnly.text);
    assert.match(readOnly.headers.get('www-authenticate') ?? '', /insufficient_scope/);
    assert.equal(receiver.received(EXECUTOR_X).length, 1, 'only alice delegated');
    // an A2A task of alice's is not a requester task; still hers over A2A
    assert.equal((await api(who.alice, 'GET', `/${taskId}`)).status, 404);
    const after = await api(who.alice, 'GET', `/${delegated}`);
    assert.deepEqual(after.json.task.status, mine.json.task.status, 'the others changed nothing');
  });
});

// ---- 6. unregistered tenant -----------------------------------------------------------------------------

describe('an unregistered tenant', () => {
  for (const b of BINDINGS)
    it(`${b.name}: a valid JWT of tenant "initech" (not registered) or of no tenant is 403`, async () => {
      const before = await taskItemCount(hub);
      for (const [what, token] of [
        ['initech', await issuer.token('dave', { tenant: 'initech' })],
        ['no tenant claim', await issuer.token('dave')],
      ] as const) {
        for (const r of [await b.send(token, 'hello'), await b.list(token)]) {
          assertAuthError(r, 403, what);
          assert.equal(r.json.error.status, 'PERMISSION_DENIED', what);
        }
      }
      assert.equal(await taskItemCount(hub), before);
    });

  it('the CLI makes no key for it', async () => {
    const r = await cli.run('keys', 'create', '--tenant', 'initech', '--principal', 'dave');
    assert.equal(r.code, 1);
    assert.match(r.lines.join('\n'), /not registered/);
  });
});

// ---- 7. revoke mid-session ------------------------------------------------------------------------------

describe('a key revoked mid-session', () => {
  for (const b of BINDINGS)
    it(`${b.name}: the key works, keys revoke, the very next request is 401`, async () => {
      const { key, keyId } = await cli.createKey('globex', 'frank');
      const sent = await b.send(key, 'hello');
      b.ok(sent, 'before the revocation');
      const id = b.sent(sent).id as string;
      b.ok(await b.get(key, id), 'before the revocation');
      await cli.revokeKey(keyId);
      assertAuthError(await b.get(key, id), 401, 'right after the revocation');
      assertAuthError(await b.send(key, 'hello again'), 401, 'right after the revocation');
      const listed = await cli.run('keys', 'list', '--tenant', 'globex');
      assert.match(listed.lines.find((l) => l.startsWith(keyId)) ?? '', /REVOKED/);
      // revoking again or an unknown key
      assert.equal((await cli.run('keys', 'revoke', 'nosuchkeyid')).code, 1);
    });
});

// ---- 10. the card --------------------------------------------------------------------------------------

describe('the agent card declares the security schemes', () => {
  it('v1.0: securitySchemes oidc (openIdConnectSecurityScheme) and apiKey (httpAuthSecurityScheme Bearer), securityRequirements', async () => {
    const discovery = `${issuer.url}/.well-known/openid-configuration`;
    for (const headers of [{ 'A2A-Version': '1.0' }, {}] as Record<string, string>[]) {
      const card = (await (
        await fetch(`${hub.url}/.well-known/agent-card.json`, { headers })
      ).json()) as Json;
      assert.deepEqual(Object.keys(card.securitySchemes).sort(), ['apiKey', 'oidc']);
      assert.equal(card.securitySchemes.oidc.openIdConnectSecurityScheme.openIdConnectUrl, discovery);
      assert.equal(card.securitySchemes.apiKey.httpAuthSecurityScheme.scheme, 'Bearer');
      assert.deepEqual(card.securityRequirements, [
        { schemes: { oidc: { list: [] } } },
        { schemes: { apiKey: { list: [] } } },
      ]);
      assert.equal(card.security, undefined);
    }
    // the discovery URL the card names is the issuer's
    const doc = (await (await fetch(discovery)).json()) as Json;
    assert.equal(doc.issuer, issuer.url);
    assert.equal(doc.jwks_uri, issuer.jwksUrl);
  });

  it('v0.3 (?A2A-Version=0.3): securitySchemes type openIdConnect and http bearer, security', async () => {
    const card = (await (
      await fetch(`${hub.url}/.well-known/agent-card.json?A2A-Version=0.3`)
    ).json()) as Json;
    assert.equal(card.protocolVersion, '0.3.0');
    assert.equal(card.securitySchemes.oidc.type, 'openIdConnect');
    assert.equal(
      card.securitySchemes.oidc.openIdConnectUrl,
      `${issuer.url}/.well-known/openid-configuration`,
    );
    assert.equal(card.securitySchemes.apiKey.type, 'http');
    assert.equal(card.securitySchemes.apiKey.scheme, 'bearer');
    assert.deepEqual(card.security, [{ oidc: [] }, { apiKey: [] }]);
    assert.equal(card.securityRequirements, undefined);
  });
});

// ---- 11. the official client ----------------------------------------------------------------------------

const sdkMessage = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

for (const [transport, factory, path] of [
  ['JSONRPC', (f: typeof fetch) => new JsonRpcTransportFactory({ fetchImpl: f }), '/a2a/jsonrpc'],
  ['HTTP+JSON', (f: typeof fetch) => new RestTransportFactory({ fetchImpl: f }), '/a2a/rest'],
] as const)
  describe(`@a2a-js/sdk over ${transport} with a bearer JWT`, () => {
    let client: Client;
    const called: string[] = [];

    before(async () => {
      const token = await issuer.token('bob', { tenant: 'acme' });
      const recording: typeof fetch = (input, init) => {
        called.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      };
      const authenticated = createAuthenticatingFetchWithRetry(recording, {
        headers: async () => ({ Authorization: `Bearer ${token}` }),
        shouldRetryWithHeaders: async () => undefined,
      });
      // discovery from the card URL (public); the one transport gets the authenticated fetch
      client = await new ClientFactory({ transports: [factory(authenticated)] }).createFromUrl(hub.url);
    });

    it('sendMessage("hello") completes; getTask and listTasks find it; the extended card is read', async () => {
      const result = await client.sendMessage({
        tenant: '',
        message: sdkMessage('hello'),
        configuration: undefined,
        metadata: undefined,
      });
      assert.ok('status' in result, 'a task');
      const task = result as Task;
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
      assert.equal(got.id, task.id);
      assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
      const listed = await client.listTasks({
        tenant: '',
        contextId: '',
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 100,
        pageToken: '',
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      });
      assert.ok(listed.tasks.some((t) => t.id === task.id));
      // Client.getAgentCard fetches the extended card over the transport (authenticated)
      const card = await client.getAgentCard();
      assert.ok(card.skills.some((s) => s.id === 'operator-notes'));
      assert.ok(
        called.length >= 4 && called.every((u) => u.startsWith(`${hub.url}${path}`)),
        `every call went to ${path}: ${called.join(', ')}`,
      );
      // the task is bob's: alice (same tenant) and carol do not see it
      jsonRpc.notFound(await jsonRpc.get(who.alice, task.id), 'alice reading bob’s task');
      httpJson.notFound(await httpJson.get(who.carol, task.id), 'carol reading bob’s task');
    });

    it('without credentials the same client calls are refused', async () => {
      const anonymous = await new ClientFactory({ transports: [factory(fetch)] }).createFromUrl(hub.url);
      await assert.rejects(
        anonymous.sendMessage({
          tenant: '',
          message: sdkMessage('hello'),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      await assert.rejects(anonymous.getTask({ tenant: '', id: 'x', historyLength: undefined }));
    });
  });

// ---- 9. throttling (its own hub) ------------------------------------------------------------------------

describe('the per-tenant throttle (a second hub: rate 1/s, burst 2)', () => {
  let small: LocalHub;
  let smallCli: AuthCli;

  before(async () => {
    small = await startLocalHub({
      port: 0,
      host: '127.0.0.1',
      sweepIntervalMs: 60_000,
      auth: { throttle: { rateLimit: 1, burstLimit: 2 } },
      env: jwtEnv(),
    });
    // handler modules (and their clients) are shared by the hubs of one process (local/hub.ts): the
    // tenants are registered on both tables, so the authorizer finds them whichever it reads
    smallCli = authCli(small);
    await smallCli.addTenant('acme');
    await smallCli.addTenant('globex');
  });
  after(async () => {
    smallCli?.close();
    await small?.stop();
  });

  it('a burst from acme gets 429 with Retry-After and error code 429; globex is still served; acme again after Retry-After', async () => {
    const bob = await issuer.token('bob', { tenant: 'acme' });
    const carol = await issuer.token('carol', { tenant: 'globex' });
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0
          ? rpc(small, bob, 'ListTasks', { pageSize: 1 })
          : rest(small, bob, 'GET', '/tasks?pageSize=1'),
      ),
    );
    const served = burst.filter((r) => r.status === 200);
    const throttled = burst.filter((r) => r.status === 429);
    assert.equal(served.length + throttled.length, 6, burst.map((r) => r.status).join());
    assert.ok(served.length >= 1 && served.length <= 3, `served ${served.length}`);
    assert.ok(throttled.length >= 3, `throttled ${throttled.length}`);
    for (const r of throttled) {
      assertAuthError(r, 429, 'throttled');
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal(r.json.error.status, 'RESOURCE_EXHAUSTED');
    }
    // acme's bucket is empty; globex has its own
    assertAuthError(await rest(small, bob, 'GET', '/tasks?pageSize=1'), 429, 'acme, still over');
    const other = await rpc(small, carol, 'ListTasks', { pageSize: 1 });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.error, undefined);
    assert.equal((await rest(small, carol, 'GET', '/tasks?pageSize=1')).status, 200);
    // the public card is not throttled
    assert.equal((await fetch(`${small.url}/.well-known/agent-card.json`)).status, 200);
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal((await rest(small, bob, 'GET', '/tasks?pageSize=1')).status, 200, 'after Retry-After');
  });
});
