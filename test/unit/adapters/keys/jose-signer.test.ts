/**
 * The jose push signer: the claims and header of a push JWT, verified with
 * jose against the signer's own JWKS; which key of a set signs; what the JWKS
 * leaves out (every private member).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { generateSigningKey, JosePushSigner, staticKeys } from '../../../../shared/adapters/keys/index.ts';
import type { SigningKeySet } from '../../../../shared/domain/push-signing.ts';
import {
  bodySha256,
  KEY_ACTIVATION_DELAY_SECONDS,
  PUSH_JWT_HEADER,
  PUSH_TOKEN_TTL_SECONDS,
  pushJwtHeaders,
  signingKeyOf,
} from '../../../../shared/domain/push-signing.ts';

const AUD = 'https://receiver.example/a2a/push';
const ISS = 'https://hub.example/prod';
const BODY = JSON.stringify({ statusUpdate: { taskId: 't-1', status: { state: 'TASK_STATE_COMPLETED' } } });
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

const signerOf = (set: SigningKeySet, now = NOW) =>
  new JosePushSigner({ keys: staticKeys(set), issuer: `${ISS}/`, now: () => now });

describe('push signer', () => {
  it('signs ES256 with kid and typ in the header and the push claims, verifiable through its JWKS', async () => {
    const key = await generateSigningKey();
    const signer = signerOf({ keys: [key] });
    const jwt = await signer.sign({ taskId: 't-1', body: BODY, audience: AUD });
    assert.equal(jwt.split('.').length, 3, 'compact JWS');
    assert.deepEqual(decodeProtectedHeader(jwt), { alg: 'ES256', kid: key.kid, typ: 'JWT' });

    const { payload } = await jwtVerify(jwt, createLocalJWKSet(await signer.jwks()), {
      issuer: ISS,
      audience: AUD,
      algorithms: ['ES256'],
      currentDate: new Date(NOW),
    });
    assert.equal(payload.iss, ISS, 'the trailing slash of the public URL is dropped');
    assert.equal(payload.aud, AUD);
    assert.equal(payload.taskId, 't-1');
    assert.equal(payload.iat, NOW / 1000);
    assert.equal(payload.exp, NOW / 1000 + PUSH_TOKEN_TTL_SECONDS);
    assert.equal(PUSH_TOKEN_TTL_SECONDS, 300);
    assert.match(String(payload.jti), /^[0-9a-f-]{36}$/);
    // SHA-256 of the exact body bytes, base64url without padding
    const expected = createHash('sha256').update(Buffer.from(BODY, 'utf8')).digest('base64url');
    assert.equal(payload.body_sha256, expected);
    assert.equal(payload.body_sha256, bodySha256(BODY));
    assert.equal(bodySha256(new TextEncoder().encode(BODY)), expected, 'bytes and string hash alike');
    assert.doesNotMatch(String(payload.body_sha256), /[=+/]/);
  });

  it('gives every attempt its own jti', async () => {
    const signer = signerOf({ keys: [await generateSigningKey()] });
    const input = { taskId: 't-1', body: BODY, audience: AUD };
    const jtis = new Set<unknown>();
    for (let i = 0; i < 20; i++) jtis.add(decodeJwt(await signer.sign(input)).jti);
    assert.equal(jtis.size, 20);
  });

  it('rejects a tampered token, another audience and an expired token', async () => {
    const signer = signerOf({ keys: [await generateSigningKey()] });
    const jwks = createLocalJWKSet(await signer.jwks());
    const jwt = await signer.sign({ taskId: 't-1', body: BODY, audience: AUD });
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const forged = Buffer.from(JSON.stringify({ ...claims, taskId: 't-2' })).toString('base64url');
    const at = { currentDate: new Date(NOW) };
    await assert.rejects(
      jwtVerify(`${header}.${forged}.${signature}`, jwks, at),
      errors.JWSSignatureVerificationFailed,
    );
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    await assert.rejects(
      jwtVerify(`${header}.${payload}.${flipped}`, jwks, at),
      errors.JWSSignatureVerificationFailed,
    );
    await assert.rejects(
      jwtVerify(jwt, jwks, { ...at, audience: 'https://attacker.example/' }),
      errors.JWTClaimValidationFailed,
    );
    await assert.rejects(
      jwtVerify(jwt, jwks, { currentDate: new Date(NOW + (PUSH_TOKEN_TTL_SECONDS + 1) * 1000) }),
      errors.JWTExpired,
    );
  });

  it('refuses to sign without a task id or an audience', async () => {
    const signer = signerOf({ keys: [await generateSigningKey()] });
    await assert.rejects(signer.sign({ taskId: '', body: BODY, audience: AUD }), /task id/);
    await assert.rejects(signer.sign({ taskId: 't', body: BODY, audience: '' }), /audience/);
  });

  it('publishes public keys only: kid, alg, use sig, and no private member', async () => {
    const keys = [await generateSigningKey(), await generateSigningKey({ alg: 'ES384' })];
    const jwks = await signerOf({ keys }).jwks();
    assert.equal(jwks.keys.length, 2);
    for (const [i, jwk] of jwks.keys.entries()) {
      assert.deepEqual(Object.keys(jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      assert.equal(jwk.kid, keys[i]!.kid);
      assert.equal(jwk.use, 'sig');
    }
    const text = JSON.stringify(jwks);
    for (const key of keys) assert.ok(!text.includes(String(key.d)), 'no private key in the JWKS');
    assert.doesNotMatch(text, /active_from|"d"/);
  });

  it('signs with the newest active key: a rotated-in key only once its activation time has come', async () => {
    const previous = await generateSigningKey();
    const next = await generateSigningKey({ activeFrom: NOW / 1000 + KEY_ACTIVATION_DELAY_SECONDS });
    const set = { keys: [next, previous] };
    const before = await signerOf(set).sign({ taskId: 't', body: BODY, audience: AUD });
    assert.equal(decodeProtectedHeader(before).kid, previous.kid);
    const after = await signerOf(set, NOW + KEY_ACTIVATION_DELAY_SECONDS * 1000).sign({
      taskId: 't',
      body: BODY,
      audience: AUD,
    });
    assert.equal(decodeProtectedHeader(after).kid, next.kid);
    // both verify through the one JWKS
    const jwks = createLocalJWKSet(await signerOf(set).jwks());
    await jwtVerify(before, jwks, { currentDate: new Date(NOW) });
    await jwtVerify(after, jwks, { currentDate: new Date(NOW + KEY_ACTIVATION_DELAY_SECONDS * 1000) });
  });

  it('never signs with a published public-only key; a lone new key signs at once', async () => {
    const privateKey = await generateSigningKey();
    const { d: _d, ...publicOnly } = await generateSigningKey();
    assert.equal(signingKeyOf({ keys: [publicOnly, privateKey] }, NOW / 1000).kid, privateKey.kid);
    assert.throws(() => signingKeyOf({ keys: [publicOnly] }, NOW / 1000), /no private key/);
    const lone = await generateSigningKey({ activeFrom: NOW / 1000 + 60 });
    assert.equal(signingKeyOf({ keys: [lone] }, NOW / 1000).kid, lone.kid);
  });

  it('puts the JWT in its own header, and in Authorization only when the config left it free', () => {
    assert.deepEqual(pushJwtHeaders('j.w.t', { authorizationTaken: true }), { [PUSH_JWT_HEADER]: 'j.w.t' });
    assert.deepEqual(pushJwtHeaders('j.w.t', { authorizationTaken: false }), {
      [PUSH_JWT_HEADER]: 'j.w.t',
      Authorization: 'Bearer j.w.t',
    });
  });
});
