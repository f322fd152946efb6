/**
 * The rotation function's steps against a faked Secrets Manager (FakeSecret):
 * the first rotation fills the empty secret, the next keeps two keys published
 * (current signs until the new one is active, previous still verifies), every
 * step may run again, and nothing logged holds a key.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { createRotationHandler } from '../../../../functions/signing-key-rotation.ts';
import {
  JosePushSigner,
  parseKeySet,
  publicJwksOf,
  staticKeys,
} from '../../../../shared/adapters/keys/index.ts';
import {
  AWSCURRENT,
  AWSPENDING,
  RotationError,
  type RotationEvent,
  rotateSigningKeys,
} from '../../../../shared/adapters/keys/rotation.ts';
import type { SigningKeySet } from '../../../../shared/domain/push-signing.ts';
import {
  bodySha256,
  KEY_ACTIVATION_DELAY_SECONDS,
  signingKeyOf,
} from '../../../../shared/domain/push-signing.ts';
import { FakeSecret, ROTATION_STEPS, SECRET_ID } from './fake-secrets.ts';

const T0 = Date.UTC(2026, 11, 1);
const DAY = 86_400_000;

let secret: FakeSecret;
let now: number;
let logged: string[];
const log = {
  info: (message: string, details?: Record<string, unknown>) =>
    logged.push(JSON.stringify({ message, details })),
};
const step = (event: RotationEvent) => rotateSigningKeys(secret, event, { now: () => now, log });
const current = () => parseKeySet(secret.current(), 'current');
const signerAt = (set: SigningKeySet, at: number) =>
  new JosePushSigner({ keys: staticKeys(set), issuer: 'https://hub.example', now: () => at });

beforeEach(() => {
  secret = new FakeSecret();
  now = T0;
  logged = [];
});

describe('signing key rotation', () => {
  it('fills the empty secret on the first rotation with one key that signs at once', async () => {
    await assert.rejects(current(), /no keys yet/);
    await secret.rotate(step);
    const set = await current();
    assert.equal(set.keys.length, 1);
    assert.equal(set.keys[0]!.active_from, T0 / 1000);
    assert.equal(signingKeyOf(set, T0 / 1000).kid, set.keys[0]!.kid);
    assert.equal(set.keys[0]!.alg, 'ES256');
  });

  it('keeps two keys published: the previous one signs until the new one is active, and what it signed verifies', async () => {
    await secret.rotate(step);
    const first = await current();
    const [previous] = first.keys;
    const body = '{"statusUpdate":{}}';
    const signedBefore = await signerAt(first, now).sign({
      taskId: 't',
      body,
      audience: 'https://r.example',
    });

    now = T0 + 30 * DAY;
    await secret.rotate(step);
    const second = await current();
    assert.equal(second.keys.length, 2);
    const [next, kept] = second.keys;
    assert.equal(kept!.kid, previous!.kid, 'the previous key stays published');
    assert.notEqual(next!.kid, previous!.kid);
    assert.equal(next!.active_from, now / 1000 + KEY_ACTIVATION_DELAY_SECONDS);

    const jwks = createLocalJWKSet(publicJwksOf(second));
    // a token the previous key signed before the rotation still verifies
    const { payload } = await jwtVerify(signedBefore, jwks, { currentDate: new Date(T0 + 60_000) });
    assert.equal(payload.body_sha256, bodySha256(body));
    // right after the rotation the previous key still signs; once the new key is active, it does
    const during = await signerAt(second, now).sign({ taskId: 't', body, audience: 'https://r.example' });
    assert.equal(decodeProtectedHeader(during).kid, previous!.kid);
    const activeAt = now + KEY_ACTIVATION_DELAY_SECONDS * 1000;
    const after = await signerAt(second, activeAt).sign({ taskId: 't', body, audience: 'https://r.example' });
    assert.equal(decodeProtectedHeader(after).kid, next!.kid);
    await jwtVerify(during, jwks, { currentDate: new Date(now) });
    await jwtVerify(after, jwks, { currentDate: new Date(activeAt) });

    // the third rotation drops the first key: it has not signed for a month
    now = T0 + 60 * DAY;
    await secret.rotate(step);
    const third = await current();
    assert.deepEqual(
      third.keys.slice(1).map((k) => k.kid),
      [next!.kid],
    );
  });

  it('stages versions as Secrets Manager does: AWSPENDING, then AWSCURRENT; the old one AWSPREVIOUS', async () => {
    await secret.rotate(step);
    const token = await secret.rotate(step, 'token-2');
    assert.equal(token, 'token-2');
    const stages = Object.fromEntries([...secret.versions].map(([id, v]) => [id, [...v.stages].sort()]));
    // AWSPENDING may stay on the version that is current now (RotateSecret's documentation)
    assert.ok(stages['token-2']?.includes(AWSCURRENT));
    assert.ok(Object.values(stages).some((s) => s.includes('AWSPREVIOUS')));
    assert.ok(secret.calls.includes(`put token-2 ${AWSPENDING}`));
  });

  it('runs each step again without harm (Secrets Manager retries)', async () => {
    await secret.rotate(step);
    const token = secret.startRotation('token-r');
    const event = (s: RotationEvent['Step']): RotationEvent => ({
      Step: s,
      SecretId: SECRET_ID,
      ClientRequestToken: token,
    });
    await step(event('createSecret'));
    const pending = secret.versions.get(token)!.value;
    await step(event('createSecret'));
    assert.equal(secret.versions.get(token)!.value, pending, 'no second key generated');
    assert.equal(secret.calls.filter((c) => c.startsWith('put ')).length, 2, 'one put per rotation');
    for (const s of ['setSecret', 'testSecret', 'testSecret', 'finishSecret'] as const) await step(event(s));
    const after = secret.current();
    for (const s of ROTATION_STEPS) await step(event(s));
    assert.equal(secret.current(), after, 'a finished version is left alone');
    assert.ok(logged.some((l) => l.includes('current already')));
  });

  it('refuses a version that is not pending, a secret without rotation, and a pending set that drops the signing key', async () => {
    await secret.rotate(step);
    await assert.rejects(
      step({ Step: 'createSecret', SecretId: SECRET_ID, ClientRequestToken: 'unknown' }),
      /has no stage for rotation/,
    );
    secret.versions.set('odd', { value: '{"keys":[]}', stages: new Set(['CUSTOM']) });
    await assert.rejects(
      step({ Step: 'createSecret', SecretId: SECRET_ID, ClientRequestToken: 'odd' }),
      /is not AWSPENDING/,
    );
    const token = secret.startRotation('bad');
    const { keys } = await current();
    // a pending set that lost the key signing now: testSecret stops the rotation
    const other = new FakeSecret();
    await other.rotate((e) => rotateSigningKeys(other, e, { now: () => now }));
    await secret.putValue(SECRET_ID, token, other.current(), [AWSPENDING]);
    await assert.rejects(
      step({ Step: 'testSecret', SecretId: SECRET_ID, ClientRequestToken: token }),
      (e: Error) => e instanceof RotationError && e.message.includes(keys[0]!.kid),
    );
    secret.rotationEnabled = false;
    await assert.rejects(
      step({ Step: 'createSecret', SecretId: SECRET_ID, ClientRequestToken: token }),
      /not enabled for rotation/,
    );
  });

  it('refuses to rotate a current value that is not a key set (rather than drop it)', async () => {
    secret = new FakeSecret('not json');
    await assert.rejects(secret.rotate(step), /not valid JSON/);
  });

  it('logs versions and key ids, never a private key', async () => {
    await secret.rotate(step);
    now += 30 * DAY;
    await secret.rotate(step);
    const set = await current();
    const text = logged.join('\n');
    assert.ok(text.includes(set.keys[0]!.kid));
    for (const key of set.keys) assert.ok(!text.includes(String(key.d)), 'no private key logged');
    assert.doesNotMatch(text, /"d":/);
  });

  it('is what the rotation function runs (functions/signing-key-rotation.ts)', async () => {
    const handler = createRotationHandler(() => secret);
    const token = secret.startRotation('from-handler');
    for (const s of ROTATION_STEPS)
      await handler({ Step: s, SecretId: SECRET_ID, ClientRequestToken: token });
    assert.equal((await current()).keys.length, 1);
    assert.deepEqual([...secret.versions.get(token)!.stages], [AWSPENDING, AWSCURRENT]);
  });
});
