/**
 * Key sets as JSON: what parses, what is refused (and that no refusal quotes
 * a key), rotation of a set (two keys published; nothing that may still sign
 * dropped), the local hub's generated and persisted set.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { calculateJwkThumbprint } from 'jose';
import {
  generateSigningKey,
  InvalidKeySetError,
  LOCAL_KEYS_FILE,
  localKeySet,
  parseKeySet,
  serializeKeySet,
} from '../../../../shared/adapters/keys/index.ts';
import {
  activationOf,
  KEY_ACTIVATION_DELAY_SECONDS,
  rotatedKeySet,
  SigningKeysUnavailableError,
} from '../../../../shared/domain/push-signing.ts';

const NOW = 1_800_000_000;

describe('key sets', () => {
  it('round-trips a generated set; the kid is the RFC 7638 thumbprint', async () => {
    const key = await generateSigningKey();
    assert.equal(key.alg, 'ES256');
    assert.equal(key.kty, 'EC');
    assert.equal(key.crv, 'P-256');
    assert.equal(
      key.kid,
      await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: key.x, y: key.y } as never),
    );
    const set = await parseKeySet(serializeKeySet({ keys: [key] }), 'test');
    assert.deepEqual(set, { keys: [key] });
  });

  it('gives a key without kid its thumbprint and accepts a public-only key', async () => {
    const { kid, d: _d, ...rest } = await generateSigningKey();
    const set = await parseKeySet(JSON.stringify({ keys: [rest] }), 'test');
    assert.equal(set.keys[0]!.kid, kid);
    assert.equal(set.keys[0]!.d, undefined);
  });

  it('calls an empty set unavailable (the secret before its first rotation)', async () => {
    await assert.rejects(parseKeySet('{"keys":[]}', 'the secret'), SigningKeysUnavailableError);
  });

  it('refuses malformed sets without quoting them', async () => {
    const key = await generateSigningKey();
    const secret = String(key.d);
    const cases: [string, RegExp][] = [
      [`{"keys":[{"d":"${secret}"`, /not valid JSON/],
      [`{"d":"${secret}"}`, /not a JWK set/],
      [JSON.stringify({ keys: [{ ...key, alg: 'HS256' }] }), /alg must be one of/],
      [JSON.stringify({ keys: [{ ...key, alg: 'RS256' }] }), /needs kty RSA/],
      [JSON.stringify({ keys: [{ ...key, x: undefined }] }), /missing x/],
      [JSON.stringify({ keys: [{ ...key, use: 'enc' }] }), /use must be "sig"/],
      [JSON.stringify({ keys: [{ ...key, active_from: 'soon' }] }), /active_from/],
      [JSON.stringify({ keys: [key, key] }), /duplicate kid/],
      [JSON.stringify({ keys: [secret] }), /not a JWK object/],
    ];
    for (const [text, message] of cases) {
      await assert.rejects(parseKeySet(text, 'PUSH_SIGNING_KEYS'), (e: Error) => {
        assert.ok(e instanceof InvalidKeySetError, `${message}: ${e.name}`);
        assert.match(e.message, message);
        assert.match(e.message, /PUSH_SIGNING_KEYS/);
        assert.ok(!e.message.includes(secret), `the message quotes no key: ${e.message}`);
        return true;
      });
    }
  });

  it('rotates into two keys: the new one first, the signing one kept, older ones dropped', async () => {
    const a = await generateSigningKey();
    const b = await generateSigningKey({ activeFrom: activationOf({ keys: [a] }, NOW) });
    assert.equal(b.active_from, NOW + KEY_ACTIVATION_DELAY_SECONDS);
    const ab = rotatedKeySet({ keys: [a] }, b, NOW);
    assert.deepEqual(
      ab.keys.map((k) => k.kid),
      [b.kid, a.kid],
    );
    // a month later b is active: the next rotation keeps b and drops a
    const later = NOW + 30 * 86_400;
    const c = await generateSigningKey({ activeFrom: activationOf(ab, later) });
    assert.deepEqual(
      rotatedKeySet(ab, c, later).keys.map((k) => k.kid),
      [c.kid, b.kid],
    );
  });

  it('keeps a key that is not active yet and the one signing meanwhile, on a quick second rotation', async () => {
    const a = await generateSigningKey();
    const b = await generateSigningKey({ activeFrom: NOW + KEY_ACTIVATION_DELAY_SECONDS });
    const ab = rotatedKeySet({ keys: [a] }, b, NOW);
    const c = await generateSigningKey({ activeFrom: NOW + 60 + KEY_ACTIVATION_DELAY_SECONDS });
    assert.deepEqual(
      rotatedKeySet(ab, c, NOW + 60).keys.map((k) => k.kid),
      [c.kid, b.kid, a.kid],
    );
  });

  it('activates the first key of an empty set at once', () => {
    assert.equal(activationOf({ keys: [] }, NOW), NOW);
  });
});

describe('local key set', () => {
  it('is generated in memory without a data directory, a new one each time', async () => {
    const one = await localKeySet();
    const two = await localKeySet();
    assert.equal(one.generated, true);
    assert.equal(one.file, undefined);
    assert.notEqual(one.set.keys[0]!.kid, two.set.keys[0]!.kid);
    assert.deepEqual(await parseKeySet(one.text, 'text'), one.set);
  });

  it('is kept in the data directory (mode 0600) and read back on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'synapse-keys-'));
    try {
      const first = await localKeySet({ dataDir: dir });
      const file = join(dir, LOCAL_KEYS_FILE);
      assert.equal(first.file, file);
      assert.equal(first.generated, true);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const second = await localKeySet({ dataDir: dir });
      assert.equal(second.generated, false);
      assert.deepEqual(second.set, first.set);
      assert.equal(readFileSync(file, 'utf8').trim(), first.text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a damaged key file rather than replace it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'synapse-keys-'));
    try {
      writeFileSync(join(dir, LOCAL_KEYS_FILE), '{"keys": [oops');
      await assert.rejects(localKeySet({ dataDir: dir }), InvalidKeySetError);
      assert.equal(readFileSync(join(dir, LOCAL_KEYS_FILE), 'utf8'), '{"keys": [oops');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
