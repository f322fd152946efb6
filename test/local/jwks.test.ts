/**
 * Signed pushes against the running local hub (real functions): a receiver
 * verifies the hub's JWT through GET /.well-known/jwks.json with jose's
 * createRemoteJWKSet + jwtVerify and checks the body hash, as
 * docs/push-signing.md tells receivers to; a tampered body or token is
 * refused. The keys persist under --data-dir; a rotated key set publishes two
 * keys and what the previous key signed still verifies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import {
  JosePushSigner,
  LOCAL_KEYS_FILE,
  parseKeySet,
  rotateSigningKeys,
  SIGNING_KEYS_ENV,
  signerFromEnv,
  staticKeys,
} from '../../shared/adapters/keys/index.ts';
import { JWKS_PATH } from '../../shared/contracts/routes.ts';
import {
  bodySha256,
  KEY_ACTIVATION_DELAY_SECONDS,
  PUSH_JWT_HEADER,
  pushJwtHeaders,
} from '../../shared/domain/push-signing.ts';
import { FakeSecret } from '../unit/adapters/keys/fake-secrets.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** A push receiver as docs/push-signing.md describes it: 204 when the push verifies, 401 with the reason otherwise. */
const startReceiver = async (hubUrl: string) => {
  const jwks = createRemoteJWKSet(new URL(`${hubUrl}${JWKS_PATH}`));
  const seen = new Set<string>();
  const accepted: { taskId: unknown; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const refuse = (reason: string) => {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end(reason);
      };
      try {
        const token = req.headers[PUSH_JWT_HEADER.toLowerCase()];
        if (typeof token !== 'string') return refuse('no token');
        const { payload } = await jwtVerify(token, jwks, {
          issuer: hubUrl,
          audience: receiverUrl,
          algorithms: ['ES256'],
          maxTokenAge: '5m',
        });
        if (payload.body_sha256 !== bodySha256(raw)) return refuse('body hash mismatch');
        if (!payload.jti || seen.has(payload.jti)) return refuse('replayed');
        seen.add(payload.jti);
        accepted.push({ taskId: payload.taskId, body: raw.toString('utf8') });
        res.writeHead(204);
        res.end();
      } catch (e) {
        refuse(`invalid token: ${(e as { code?: string }).code ?? String(e)}`);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a/push`;
  return { url: receiverUrl, accepted, stop: () => new Promise<void>((r) => server.close(() => r())) };
};

const post = async (url: string, body: string, headers: Record<string, string>) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
};

const push = (taskId: string) =>
  JSON.stringify({
    statusUpdate: { taskId, contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } },
  });

const getJwks = async (hub: LocalHub) => {
  const res = await fetch(`${hub.url}${JWKS_PATH}`);
  assert.equal(res.status, 200);
  return { res, text: await res.text() };
};

describe('push JWTs verified through the local hub JWKS', () => {
  let dataDir: string;
  let hub: LocalHub;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let firstJwks: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'synapse-jwks-'));
    hub = await startLocalHub({ dataDir });
    receiver = await startReceiver(hub.url);
  });
  after(async () => {
    await receiver?.stop();
    await hub?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('serves the public JWKS, public and cacheable, with ETag / 304', async () => {
    const { res, text } = await getJwks(hub);
    firstJwks = text;
    assert.equal(res.headers.get('cache-control'), 'public, max-age=300');
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const jwks = JSON.parse(text) as { keys: Record<string, unknown>[] };
    assert.equal(jwks.keys.length, 1);
    assert.deepEqual(Object.keys(jwks.keys[0]!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(jwks.keys[0]!.alg, 'ES256');
    assert.equal(jwks.keys[0]!.use, 'sig');
    const etag = res.headers.get('etag');
    assert.ok(etag);
    const again = await fetch(`${hub.url}${JWKS_PATH}`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
  });

  test('a receiver accepts a signed push and refuses a tampered body, a tampered token, another audience, a replay', async () => {
    // the signer a delivery worker of this hub builds from its environment
    const signer = signerFromEnv();
    const body = push('task-1');
    const jwt = await signer.sign({ taskId: 'task-1', body, audience: receiver.url });
    const headers = pushJwtHeaders(jwt, { authorizationTaken: true });

    assert.deepEqual(await post(receiver.url, body, headers), { status: 204, text: '' });
    assert.deepEqual(receiver.accepted, [{ taskId: 'task-1', body }]);

    const fresh = async () =>
      pushJwtHeaders(await signer.sign({ taskId: 'task-1', body, audience: receiver.url }), {
        authorizationTaken: true,
      });
    const tamperedBody = body.replace('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED');
    assert.deepEqual(await post(receiver.url, tamperedBody, await fresh()), {
      status: 401,
      text: 'body hash mismatch',
    });

    const [h, p, s] = (await fresh())[PUSH_JWT_HEADER]!.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, body_sha256: bodySha256(tamperedBody) })).toString(
      'base64url',
    );
    const tampered = await post(receiver.url, tamperedBody, { [PUSH_JWT_HEADER]: `${h}.${forged}.${s}` });
    assert.deepEqual(tampered, { status: 401, text: 'invalid token: ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

    const elsewhere = await signer.sign({ taskId: 'task-1', body, audience: 'https://other.example/push' });
    assert.deepEqual(await post(receiver.url, body, { [PUSH_JWT_HEADER]: elsewhere }), {
      status: 401,
      text: 'invalid token: ERR_JWT_CLAIM_VALIDATION_FAILED',
    });

    assert.deepEqual(await post(receiver.url, body, headers), { status: 401, text: 'replayed' });
    assert.equal(receiver.accepted.length, 1);
  });

  test('keeps its keys in the data directory: a restart publishes the same JWKS', async () => {
    assert.equal(statSync(join(dataDir, LOCAL_KEYS_FILE)).mode & 0o777, 0o600);
    await receiver.stop();
    await hub.stop();
    hub = await startLocalHub({ dataDir });
    receiver = await startReceiver(hub.url);
    assert.equal((await getJwks(hub)).text, firstJwks);
  });
});

describe('a rotated key set on the local hub', () => {
  const secret = new FakeSecret();
  // the first rotation a month ago, the second one now
  let now = Date.now() - 30 * 86_400_000;
  const rotate = () => secret.rotate((e) => rotateSigningKeys(secret, e, { now: () => now }));
  let hub: LocalHub;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  after(async () => {
    await receiver?.stop();
    await hub?.stop();
  });

  test('publishes the new and the previous key; what the previous key signed verifies, and the new key signs once active', async () => {
    await rotate();
    const first = await parseKeySet(secret.current(), 'first');
    now = Date.now();
    await rotate();
    const second = await parseKeySet(secret.current(), 'second');
    assert.equal(second.keys.length, 2);

    // the hub serves the secret's value as its key set
    hub = await startLocalHub({ env: { [SIGNING_KEYS_ENV]: secret.current() } });
    receiver = await startReceiver(hub.url);
    const jwks = JSON.parse((await getJwks(hub)).text) as { keys: { kid: string }[] };
    assert.deepEqual(
      jwks.keys.map((k) => k.kid),
      second.keys.map((k) => k.kid),
    );
    assert.equal(jwks.keys[1]!.kid, first.keys[0]!.kid);

    const body = push('task-2');
    // signed by a signer that had the set from before the rotation cached
    const before = await new JosePushSigner({ keys: staticKeys(first), issuer: hub.url }).sign({
      taskId: 'task-2',
      body,
      audience: receiver.url,
    });
    assert.equal(decodeProtectedHeader(before).kid, first.keys[0]!.kid);
    assert.equal((await post(receiver.url, body, { [PUSH_JWT_HEADER]: before })).status, 204);

    // the hub itself still signs with the previous key until the new one is active
    const during = await signerFromEnv().sign({ taskId: 'task-2', body, audience: receiver.url });
    assert.equal(decodeProtectedHeader(during).kid, first.keys[0]!.kid);
    assert.equal((await post(receiver.url, body, { [PUSH_JWT_HEADER]: during })).status, 204);

    // and with the new key once it is (same set, a clock past the activation delay)
    const later = (second.keys[0]!.active_from ?? 0) * 1000;
    assert.equal(later, Math.floor(now / 1000) * 1000 + KEY_ACTIVATION_DELAY_SECONDS * 1000);
    const after = await new JosePushSigner({
      keys: staticKeys(second),
      issuer: hub.url,
      now: () => later,
    }).sign({
      taskId: 'task-2',
      body,
      audience: receiver.url,
    });
    assert.equal(decodeProtectedHeader(after).kid, second.keys[0]!.kid);
    const { payload } = await jwtVerify(after, createRemoteJWKSet(new URL(`${hub.url}${JWKS_PATH}`)), {
      issuer: hub.url,
      audience: receiver.url,
      currentDate: new Date(later),
    });
    assert.equal(payload.body_sha256, bodySha256(body));
  });
});
