/**
 * Authentication without AWS: the principal check every operation makes (authorize, checkTenant,
 * rightsOf), API keys (format, hash at rest, constant-time check, revocation), the Authenticator's
 * bearer parsing and tenant registry, the JWT verifier against a real JWKS on 127.0.0.1
 * (local/oidc-issuer.ts), the authorizer context the functions read back (shared/adapters/lambda/auth-context.ts), and
 * log redaction (shared/observability/redact.ts) through the functions' own logger.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type JWTPayload,
  type JWTVerifyGetKey,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { type LocalIssuer, startLocalIssuer } from '../../../../local/oidc-issuer.ts';
import { JwtVerifier, type JwtVerifierConfig } from '../../../../shared/adapters/auth/jwt-verifier.ts';
import { contextOfPrincipal, principalOf } from '../../../../shared/adapters/lambda/auth-context.ts';
import { keyIdOf, looksLikeApiKey, newApiKey, verifyApiKey } from '../../../../shared/app/auth/api-keys.ts';
import { Authenticator, bearerOf } from '../../../../shared/app/auth/authenticator.ts';
import { jwtConfigFrom } from '../../../../shared/composition-roots/authorizer.ts';
import { AUTH_MODE_ENV } from '../../../../shared/config/auth.ts';
import { AuthError } from '../../../../shared/domain/errors.ts';
import { authorize, checkTenant, type Principal, rightsOf } from '../../../../shared/domain/principal.ts';
import { createObservability } from '../../../../shared/observability/index.ts';
import { REDACTED, redactSecrets } from '../../../../shared/observability/redact.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../../../shared/ports/api-key-store.ts';
import type { TenantRecord, TenantRegistry } from '../../../../shared/ports/tenant-registry.ts';
import type { TokenVerifier } from '../../../../shared/ports/token-verifier.ts';

/** Asserts `promise` rejects with an AuthError of `code` (and `challenge` when given); returns it. */
const refused = async (
  promise: Promise<unknown>,
  code: AuthError['code'],
  challenge?: string,
): Promise<AuthError> => {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof AuthError, `an AuthError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (challenge !== undefined) assert.equal(caught.challenge, challenge);
  return caught;
};

const principal = (over: Partial<Principal> = {}): Principal => ({
  tenant: 'acme',
  owner: 'alice',
  rights: ['read', 'write'],
  scheme: 'bearer',
  ...over,
});

/** An in-memory ApiKeyStore and TenantRegistry. */
class MemoryAuthStore implements ApiKeyStore, TenantRegistry {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly tenants = new Map<string, TenantRecord>();
  reads = 0;
  async getKey(keyId: string) {
    this.reads++;
    return this.keys.get(keyId);
  }
  async putKey(record: ApiKeyRecord) {
    if (this.keys.has(record.keyId)) throw new Error('exists');
    this.keys.set(record.keyId, record);
  }
  async revokeKey(keyId: string, at: string) {
    const k = this.keys.get(keyId);
    if (!k) return false;
    this.keys.set(keyId, { ...k, revokedAt: k.revokedAt ?? at });
    return true;
  }
  async listKeys(tenant?: string) {
    return [...this.keys.values()].filter((k) => tenant === undefined || k.tenant === tenant);
  }
  async getTenant(tenant: string) {
    return this.tenants.get(tenant);
  }
  async putTenant(record: TenantRecord) {
    this.tenants.set(record.tenant, record);
  }
  async listTenants() {
    return [...this.tenants.values()];
  }
}

describe('authorize, checkTenant, rightsOf', () => {
  it('yields the caller (tenant and owner only) when the right is held and the tenant is its own', () => {
    const p = principal();
    assert.deepEqual(authorize(p, 'read'), { tenant: 'acme', owner: 'alice' });
    assert.deepEqual(authorize(p, 'write', 'acme'), { tenant: 'acme', owner: 'alice' });
    assert.deepEqual(authorize(p, 'write', ''), { tenant: 'acme', owner: 'alice' }, 'empty: its own');
  });

  it('refuses another tenant outright, before the right is even looked at', () => {
    assert.throws(
      () => authorize(principal({ rights: [] }), 'read', 'globex'),
      (e: unknown) => e instanceof AuthError && e.code === 'permission_denied' && /globex/.test(e.message),
    );
    assert.throws(() => checkTenant(principal(), 'ACME'), AuthError, 'tenants are case-sensitive');
    assert.doesNotThrow(() => checkTenant(principal(), undefined));
    assert.doesNotThrow(() => checkTenant(principal(), ''));
    assert.doesNotThrow(() => checkTenant(principal(), 'acme'));
    // a long tenant name is clipped in the message
    assert.throws(
      () => checkTenant(principal(), 'x'.repeat(500)),
      (e: unknown) => e instanceof AuthError && e.message.length < 200 && e.message.includes('…'),
    );
  });

  it('refuses a missing right with insufficient_scope and says what the credentials grant', () => {
    assert.throws(
      () => authorize(principal({ rights: ['read'] }), 'write'),
      (e: unknown) =>
        e instanceof AuthError &&
        e.code === 'permission_denied' &&
        e.challenge === 'insufficient_scope' &&
        /grant: read/.test(e.message),
    );
    assert.throws(
      () => authorize(principal({ rights: [] }), 'read'),
      (e: unknown) => e instanceof AuthError && /grant: nothing/.test(e.message),
    );
  });

  it('rightsOf reads space- or comma-separated lists and arrays, ignoring unknown names', () => {
    assert.deepEqual(rightsOf('read write'), ['read', 'write']);
    assert.deepEqual(rightsOf('write,read'), ['read', 'write']);
    assert.deepEqual(rightsOf(' write , admin  '), ['write']);
    assert.deepEqual(rightsOf(['write', 'nope']), ['write']);
    assert.deepEqual(rightsOf('READ'), [], 'case-sensitive');
    assert.deepEqual(rightsOf(''), []);
    assert.deepEqual(rightsOf(undefined), []);
    assert.deepEqual(rightsOf('constructor __proto__ toString'), []);
  });
});

describe('API keys', () => {
  it('newApiKey: a syn_<id>_<secret> key, a record holding only the hash of the secret', () => {
    const now = new Date('2025-01-02T03:04:05.000Z');
    const { key, record } = newApiKey(
      { tenant: 'acme', principal: 'ci', rights: ['read'], description: 'pipeline' },
      now,
    );
    assert.match(key, /^syn_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$/);
    assert.ok(looksLikeApiKey(key));
    assert.equal(keyIdOf(key), record.keyId);
    assert.deepEqual(
      { ...record, secretHash: undefined },
      {
        keyId: record.keyId,
        secretHash: undefined,
        tenant: 'acme',
        principal: 'ci',
        rights: ['read'],
        createdAt: now.toISOString(),
        description: 'pipeline',
      },
    );
    assert.match(record.secretHash, /^[0-9a-f]{64}$/);
    const secret = key.slice(`syn_${record.keyId}_`.length);
    assert.ok(!JSON.stringify(record).includes(secret), 'the record cannot rebuild the key');
    assert.ok(!('description' in newApiKey({ tenant: 't', principal: 'p', rights: [] }).record));
    // fresh every time
    const a = newApiKey({ tenant: 't', principal: 'p', rights: [] });
    const b = newApiKey({ tenant: 't', principal: 'p', rights: [] });
    assert.notEqual(a.key, b.key);
    assert.notEqual(a.record.keyId, b.record.keyId);
  });

  it('looksLikeApiKey and keyIdOf', () => {
    assert.equal(looksLikeApiKey('eyJhbGciOi.x.y'), false);
    assert.equal(
      looksLikeApiKey('syn_anything'),
      true,
      'the prefix decides the path; the format is checked later',
    );
    assert.equal(keyIdOf('syn_short_secret'), undefined);
    assert.equal(keyIdOf(`syn_${'a'.repeat(16)}_${'b'.repeat(42)}`), undefined, 'secret too short');
    assert.equal(keyIdOf(`syn_${'a'.repeat(16)}_${'b'.repeat(43)}`), 'a'.repeat(16));
    assert.equal(keyIdOf(`syn_${'A'.repeat(16)}_${'b'.repeat(43)}`), undefined, 'ids are lower-case base32');
  });

  it('verifyApiKey: the principal of a valid key; unauthenticated (invalid_token) otherwise', async () => {
    const store = new MemoryAuthStore();
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read', 'write'] });
    await store.putKey(record);
    assert.deepEqual(await verifyApiKey(store, key), {
      tenant: 'acme',
      owner: 'ci',
      rights: ['read', 'write'],
      scheme: 'api-key',
    });

    // malformed: no store read needed to refuse it
    const reads = store.reads;
    await refused(verifyApiKey(store, 'syn_nope'), 'unauthenticated', 'invalid_token');
    assert.equal(store.reads, reads);
    // the right id, another secret
    const wrongSecret = `syn_${record.keyId}_${'A'.repeat(43)}`;
    await refused(verifyApiKey(store, wrongSecret), 'unauthenticated', 'invalid_token');
    // an unknown id (with a well-formed secret)
    const unknown = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    const e = await refused(verifyApiKey(store, unknown.key), 'unauthenticated', 'invalid_token');
    // the same message for unknown and wrong-secret: says nothing of why
    const e2 = await refused(verifyApiKey(store, wrongSecret), 'unauthenticated');
    assert.equal(e.message, e2.message);
    assert.ok(!e.message.includes(unknown.key) && !e.message.includes(record.keyId));
  });

  it('verifyApiKey: a revoked key, and a record whose hash is damaged, are refused without throwing otherwise', async () => {
    const store = new MemoryAuthStore();
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    await verifyApiKey(store, key);
    assert.equal(await store.revokeKey(record.keyId, new Date().toISOString()), true);
    await refused(verifyApiKey(store, key), 'unauthenticated', 'invalid_token');

    const damaged = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey({ ...damaged.record, secretHash: 'abc' });
    await refused(verifyApiKey(store, damaged.key), 'unauthenticated', 'invalid_token');
  });
});

describe('Authenticator', () => {
  const setup = async () => {
    const store = new MemoryAuthStore();
    await store.putTenant({ tenant: 'acme', usageKey: 'usage-acme', createdAt: '2025-01-01T00:00:00Z' });
    await store.putTenant({
      tenant: 'gone',
      usageKey: 'usage-gone',
      createdAt: '2025-01-01T00:00:00Z',
      disabledAt: '2025-02-01T00:00:00Z',
    });
    const tokens: string[] = [];
    const jwt: TokenVerifier = {
      verify: async (token) => {
        tokens.push(token);
        if (token === 'good.jwt.token') return principal({ tenant: 'acme', owner: 'bob' });
        if (token === 'stranger.jwt.token') return principal({ tenant: 'initech' });
        throw new AuthError('unauthenticated', 'bad token', 'invalid_token');
      },
    };
    return { store, tokens, jwt };
  };

  it('bearerOf: the credential of a Bearer header, any case and spacing; nothing else', () => {
    assert.equal(bearerOf('Bearer abc'), 'abc');
    assert.equal(bearerOf('bearer abc'), 'abc');
    assert.equal(bearerOf('BEARER   abc  '), 'abc');
    assert.equal(bearerOf('  Bearer\tabc'), 'abc');
    assert.equal(bearerOf(undefined), undefined);
    assert.equal(bearerOf(''), undefined);
    assert.equal(bearerOf('Bearer'), undefined);
    assert.equal(bearerOf('Bearer '), undefined);
    assert.equal(bearerOf('Basic dXNlcjpwYXNz'), undefined);
    assert.equal(bearerOf('Bearer a b'), undefined);
    assert.equal(bearerOf('abc'), undefined);
  });

  it('an API key of a registered tenant: the principal and the tenant usage key', async () => {
    const { store, jwt, tokens } = await setup();
    const { key, record } = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] });
    await store.putKey(record);
    const auth = new Authenticator({ apiKeys: store, tenants: store, jwt });
    assert.deepEqual(await auth.authenticate(`Bearer ${key}`), {
      principal: { tenant: 'acme', owner: 'ci', rights: ['read'], scheme: 'api-key' },
      usageKey: 'usage-acme',
    });
    assert.deepEqual(tokens, [], 'an API key never goes to the JWT verifier');
  });

  it('a JWT goes to the verifier; its tenant must be registered too', async () => {
    const { store, jwt, tokens } = await setup();
    const auth = new Authenticator({ apiKeys: store, tenants: store, jwt });
    const verdict = await auth.authenticate('Bearer good.jwt.token');
    assert.equal(verdict.principal.owner, 'bob');
    assert.equal(verdict.usageKey, 'usage-acme');
    await refused(auth.authenticate('bearer bad.jwt.token'), 'unauthenticated', 'invalid_token');
    const e = await refused(auth.authenticate('Bearer stranger.jwt.token'), 'permission_denied');
    assert.match(e.message, /initech.*not registered/);
    assert.deepEqual(tokens, ['good.jwt.token', 'bad.jwt.token', 'stranger.jwt.token']);
  });

  it('no or malformed credentials: unauthenticated; a disabled or unknown tenant: permission_denied', async () => {
    const { store, jwt } = await setup();
    const auth = new Authenticator({ apiKeys: store, tenants: store, jwt });
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'token-without-scheme'])
      await refused(auth.authenticate(header), 'unauthenticated');
    await refused(auth.authenticate('Bearer syn_malformed'), 'unauthenticated', 'invalid_token');

    const disabled = newApiKey({ tenant: 'gone', principal: 'ci', rights: ['read'] });
    await store.putKey(disabled.record);
    await refused(auth.authenticate(`Bearer ${disabled.key}`), 'permission_denied');
    const unregistered = newApiKey({ tenant: 'nobody', principal: 'ci', rights: ['read'] });
    await store.putKey(unregistered.record);
    await refused(auth.authenticate(`Bearer ${unregistered.key}`), 'permission_denied');
  });

  it('without a JWT verifier every JWT is refused (API keys only)', async () => {
    const { store } = await setup();
    const auth = new Authenticator({ apiKeys: store, tenants: store });
    const e = await refused(auth.authenticate('Bearer good.jwt.token'), 'unauthenticated', 'invalid_token');
    assert.match(e.message, /API keys only/);
  });
});

describe('JwtVerifier against a local OIDC issuer', () => {
  let issuer: LocalIssuer;
  let config: JwtVerifierConfig;
  let verifier: JwtVerifier;
  before(async () => {
    issuer = await startLocalIssuer({ audience: 'synapse-test' });
    config = { issuer: issuer.url, audience: issuer.audience, jwksUrl: issuer.jwksUrl };
    verifier = new JwtVerifier(config);
  });
  after(async () => issuer.stop());

  const invalid = async (token: string | Promise<string>, v: JwtVerifier = verifier, reason?: RegExp) => {
    const e = await refused(v.verify(await token), 'unauthenticated', 'invalid_token');
    if (reason) assert.match(e.message, reason);
    return e;
  };

  it('accepts ES256 and RS256: tenant from the claim, owner the sub, rights from the scope, expiresAt', async () => {
    for (const alg of ['ES256', 'RS256'] as const) {
      const before = Math.floor(Date.now() / 1000);
      const token = await issuer.token('alice', { tenant: 'acme', scope: 'tasks:read' }, { alg });
      const p = await verifier.verify(token);
      assert.equal(p.tenant, 'acme');
      assert.equal(p.owner, 'alice');
      assert.deepEqual(p.rights, ['read'], alg);
      assert.equal(p.scheme, 'bearer');
      assert.ok(p.expiresAt !== undefined && p.expiresAt >= before + 300 && p.expiresAt <= before + 302);
    }
  });

  it('maps tasks:read / tasks:write (scope string or scp array), deduplicated, ignoring other scopes', async () => {
    const write = await verifier.verify(
      await issuer.token('a', { tenant: 'acme', scope: 'openid tasks:write profile' }),
    );
    assert.deepEqual(write.rights, ['write']);
    const both = await verifier.verify(
      await issuer.token('a', { tenant: 'acme', scope: 'tasks:write tasks:read tasks:write' }),
    );
    assert.deepEqual([...both.rights].sort(), ['read', 'write']);
    assert.equal(both.rights.length, 2);
    const scp = await verifier.verify(await issuer.token('a', { tenant: 'acme', scp: ['tasks:read', 7] }));
    assert.deepEqual(scp.rights, ['read']);
    // the registry's review right only when the token names it (never by default)
    const reviewer = await verifier.verify(
      await issuer.token('a', { tenant: 'acme', scope: 'tasks:read registry:approve' }),
    );
    assert.deepEqual([...reviewer.rights].sort(), ['approve', 'read']);
  });

  it('default rights when the scope names none of ours: read and write, or the configured ones', async () => {
    const none = await verifier.verify(await issuer.token('a', { tenant: 'acme' }));
    assert.deepEqual(none.rights, ['read', 'write']);
    const other = await verifier.verify(await issuer.token('a', { tenant: 'acme', scope: 'openid email' }));
    assert.deepEqual(other.rights, ['read', 'write']);
    const readOnly = new JwtVerifier({ ...config, defaultRights: ['read'] });
    assert.deepEqual((await readOnly.verify(await issuer.token('a', { tenant: 'acme' }))).rights, ['read']);
    const nothing = new JwtVerifier({ ...config, defaultRights: [] });
    assert.deepEqual((await nothing.verify(await issuer.token('a', { tenant: 'acme' }))).rights, []);
  });

  it('a scope named like an Object.prototype member gives no right', async () => {
    for (const scope of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'constructor __proto__']) {
      const p = await new JwtVerifier({ ...config, defaultRights: [] }).verify(
        await issuer.token('a', { tenant: 'acme', scope }),
      );
      assert.deepEqual(p.rights, [], scope);
      for (const r of p.rights) assert.ok(r === 'read' || r === 'write');
    }
    // with default rights, such a scope names none of ours: the defaults apply, nothing else
    const p = await verifier.verify(
      await issuer.token('a', { tenant: 'acme', scope: '__proto__ constructor' }),
    );
    assert.deepEqual(p.rights, ['read', 'write']);
  });

  it('the tenant: the configured claim, else the default tenant, else permission_denied', async () => {
    const e = await refused(verifier.verify(await issuer.token('a')), 'permission_denied');
    assert.match(e.message, /no tenant/);
    await refused(verifier.verify(await issuer.token('a', { tenant: '' })), 'permission_denied');
    await refused(verifier.verify(await issuer.token('a', { tenant: 42 })), 'permission_denied');
    const withDefault = new JwtVerifier({ ...config, defaultTenant: 'fallback' });
    assert.equal((await withDefault.verify(await issuer.token('a'))).tenant, 'fallback');
    assert.equal((await withDefault.verify(await issuer.token('a', { tenant: 'acme' }))).tenant, 'acme');
    const org = new JwtVerifier({ ...config, tenantClaim: 'org_id' });
    assert.equal(
      (await org.verify(await issuer.token('a', { org_id: 'globex', tenant: 'acme' }))).tenant,
      'globex',
    );
    await refused(org.verify(await issuer.token('a', { tenant: 'acme' })), 'permission_denied');
  });

  it('refuses an expired token and one not valid yet', async () => {
    await invalid(issuer.token('a', { tenant: 'acme' }, { expiresIn: -60 }), verifier, /expired/);
    await invalid(issuer.token('a', { tenant: 'acme' }, { notBefore: 120 }), verifier, /"nbf"/);
    // within the clock tolerance (5 s) both still pass
    await verifier.verify(await issuer.token('a', { tenant: 'acme' }, { expiresIn: -2 }));
    await verifier.verify(await issuer.token('a', { tenant: 'acme' }, { notBefore: 2 }));
  });

  it('refuses a token issued in the future beyond the clock tolerance, and one older than the token age', async () => {
    const claims = { tenant: 'acme' };
    // a year ahead, its exp valid: jose alone accepts it (it checks iat only with maxTokenAge)
    await invalid(
      issuer.token('a', claims, { issuedAt: 365 * 86_400, expiresIn: 366 * 86_400 }),
      verifier,
      /"iat"/,
    );
    await invalid(issuer.token('a', claims, { issuedAt: 60 }), verifier, /"iat"/);
    // within the tolerance (5 s) it passes
    await verifier.verify(await issuer.token('a', claims, { issuedAt: 3 }));
    // older than the default token age (24 h) though exp is still ahead
    await invalid(issuer.token('a', claims, { issuedAt: -86_400 - 60 }), verifier, /issued too long ago/);
    await verifier.verify(await issuer.token('a', claims, { issuedAt: -86_400 + 60 }));
    // the age is a setting; 0 lifts it (a future iat is still refused)
    const hour = new JwtVerifier({ ...config, maxTokenAgeSeconds: 3600 });
    await invalid(issuer.token('a', claims, { issuedAt: -3700 }), hour, /issued too long ago/);
    const unbounded = new JwtVerifier({ ...config, maxTokenAgeSeconds: 0 });
    await unbounded.verify(await issuer.token('a', claims, { issuedAt: -30 * 86_400 }));
    await invalid(issuer.token('a', claims, { issuedAt: 600, expiresIn: 900 }), unbounded, /"iat"/);
    // so is the tolerance
    const lenient = new JwtVerifier({ ...config, clockToleranceSeconds: 120 });
    await lenient.verify(await issuer.token('a', claims, { issuedAt: 60 }));
  });

  it('refuses another audience or issuer', async () => {
    await invalid(issuer.token('a', { tenant: 'acme' }, { audience: 'someone-else' }), verifier, /"aud"/);
    await invalid(
      issuer.token('a', { tenant: 'acme' }, { issuer: 'https://evil.example' }),
      verifier,
      /"iss"/,
    );
  });

  it('refuses a forged signature (a key the JWKS does not publish, under a published kid), both algorithms', async () => {
    for (const alg of ['ES256', 'RS256'] as const)
      await invalid(issuer.token('a', { tenant: 'acme' }, { forged: true, alg }), verifier, /signature/);
    // a signature cut or tampered with
    const token = await issuer.token('a', { tenant: 'acme' });
    const [h, p, s] = token.split('.') as [string, string, string];
    await invalid(`${h}.${p}.${s.slice(0, -4)}AAAA`, verifier);
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const elevated = Buffer.from(JSON.stringify({ ...payload, tenant: 'globex' })).toString('base64url');
    await invalid(`${h}.${elevated}.${s}`, verifier, /signature/);
    await invalid(`${h}.${p}.`, verifier);
  });

  it('refuses alg none, HS256 with any secret, and an algorithm not configured', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { tenant: 'acme', sub: 'a', iss: issuer.url, aud: issuer.audience, exp: now + 300 };
    const none = new UnsecuredJWT(claims).encode();
    await invalid(none, verifier, /algorithm/);
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(crypto.getRandomValues(new Uint8Array(32)));
    await invalid(hs, verifier, /algorithm/);
    const esOnly = new JwtVerifier({ ...config, algorithms: ['ES256'] });
    await esOnly.verify(await issuer.token('a', { tenant: 'acme' }, { alg: 'ES256' }));
    await invalid(issuer.token('a', { tenant: 'acme' }, { alg: 'RS256' }), esOnly, /algorithm/);
  });

  it('refuses garbage', async () => {
    for (const token of ['garbage', 'a.b.c', 'eyJ.eyJ.x', '...', Buffer.from('{}').toString('base64url')])
      await invalid(token, verifier, /not a valid JWT/);
  });

  it('refuses a token without sub or exp (own key set: the local issuer always sets both)', async () => {
    // The issuer signs only with its own private keys, which it never hands out, and always sets sub and
    // exp; so these tokens are signed with a key of ours, published through jose's local JWKS.
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const keys: JWTVerifyGetKey = createLocalJWKSet({
      keys: [{ ...(await exportJWK(publicKey)), kid: 'mine', alg: 'ES256' }],
    });
    const own = new JwtVerifier(config, keys);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ tenant: 'acme', iss: issuer.url, aud: issuer.audience, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'mine' })
        .sign(privateKey);
    assert.equal((await own.verify(await sign({ sub: 'a', exp: now + 60, iat: now }))).owner, 'a', 'control');
    await invalid(sign({ exp: now + 60, iat: now }), own, /"sub"/);
    await invalid(sign({ sub: 'a', iat: now }), own, /"exp"/);
    // the token age needs iat; without an age bound a token may leave it out
    await invalid(sign({ sub: 'a', exp: now + 60 }), own, /"iat"/);
    const ageless = new JwtVerifier({ ...config, maxTokenAgeSeconds: 0 }, keys);
    assert.equal((await ageless.verify(await sign({ sub: 'a', exp: now + 60 }))).owner, 'a');
  });

  it('refuses a sub that is not a non-empty string', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] });
    const own = new JwtVerifier(config, keys);
    const now = Math.floor(Date.now() / 1000);
    for (const sub of ['', null, 123, { a: 1 }]) {
      const token = await new SignJWT({
        tenant: 'acme',
        iss: issuer.url,
        aud: issuer.audience,
        exp: now + 60,
        iat: now,
        sub,
      } as unknown as JWTPayload)
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .sign(privateKey);
      await invalid(token, own);
    }
    await invalid(issuer.token('', { tenant: 'acme' }));
  });

  it('AUTH_JWT_MAX_TOKEN_AGE_SECONDS and AUTH_JWT_CLOCK_TOLERANCE_SECONDS configure the verifier; bad values stop the start', () => {
    const base = {
      AUTH_JWT_ISSUER: 'https://i',
      AUTH_JWT_AUDIENCE: 'a',
      AUTH_JWT_JWKS_URL: 'https://i/jwks',
    };
    const none = jwtConfigFrom(base);
    assert.equal(none?.maxTokenAgeSeconds, undefined);
    assert.equal(none?.clockToleranceSeconds, undefined);
    const set = jwtConfigFrom({
      ...base,
      AUTH_JWT_MAX_TOKEN_AGE_SECONDS: '0',
      AUTH_JWT_CLOCK_TOLERANCE_SECONDS: '60',
    });
    assert.equal(set?.maxTokenAgeSeconds, 0);
    assert.equal(set?.clockToleranceSeconds, 60);
    for (const bad of ['-1', '1.5', 'a day', '301'])
      assert.throws(() => jwtConfigFrom({ ...base, AUTH_JWT_CLOCK_TOLERANCE_SECONDS: bad }), /0 to 300/);
    assert.throws(() => jwtConfigFrom({ ...base, AUTH_JWT_MAX_TOKEN_AGE_SECONDS: '1h' }), /whole number/);
  });

  it('refuses a token when the issuer keys cannot be fetched', async () => {
    const stopped = await startLocalIssuer();
    const token = await stopped.token('a', { tenant: 'acme' });
    await stopped.stop();
    const v = new JwtVerifier({ issuer: stopped.url, audience: stopped.audience, jwksUrl: stopped.jwksUrl });
    await invalid(token, v, /could not be fetched/);
  });
});

describe('auth context (shared/adapters/lambda/auth-context.ts)', () => {
  const withAuthMode = async (value: string | undefined, fn: () => void | Promise<void>) => {
    const saved = process.env[AUTH_MODE_ENV];
    if (value === undefined) delete process.env[AUTH_MODE_ENV];
    else process.env[AUTH_MODE_ENV] = value;
    try {
      await fn();
    } finally {
      if (saved === undefined) delete process.env[AUTH_MODE_ENV];
      else process.env[AUTH_MODE_ENV] = saved;
    }
  };
  const eventWith = (authorizer: Record<string, unknown> | null | undefined) => ({
    requestContext: { authorizer },
  });

  it('reads tenant, owner, rights, scheme and expiresAt from requestContext.authorizer', () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    assert.deepEqual(
      principalOf(
        eventWith({
          tenant: 'acme',
          owner: 'alice',
          rights: 'read write admin',
          scheme: 'api-key',
          expiresAt: exp,
          principalId: 'acme/alice',
        }),
      ),
      { tenant: 'acme', owner: 'alice', rights: ['read', 'write'], scheme: 'api-key', expiresAt: exp },
    );
    // API Gateway may hand context values over as strings
    const p = principalOf(eventWith({ tenant: 't', owner: 'o', rights: 'read', expiresAt: String(exp) }));
    assert.ok(!(p instanceof AuthError));
    assert.equal(p.expiresAt, exp);
    assert.equal(p.scheme, 'bearer', 'an unknown or missing scheme is taken for bearer');
    const noRights = principalOf(eventWith({ tenant: 't', owner: 'o', rights: 42 }));
    assert.ok(!(noRights instanceof AuthError));
    assert.deepEqual(noRights.rights, []);
    assert.ok(!('expiresAt' in noRights));
  });

  it('no authorizer context: an AuthError (unauthenticated) to answer with', async () => {
    await withAuthMode(undefined, () => {
      for (const event of [
        {},
        { requestContext: null },
        eventWith(null),
        eventWith(undefined),
        eventWith({}),
        eventWith({ tenant: 'acme' }),
        eventWith({ tenant: '', owner: 'alice' }),
        eventWith({ tenant: 'acme', owner: '' }),
        eventWith({ tenant: 1, owner: 'alice' }),
      ]) {
        const p = principalOf(event);
        assert.ok(p instanceof AuthError, JSON.stringify(event));
        assert.equal(p.code, 'unauthenticated');
      }
    });
    await withAuthMode('jwt', () => assert.ok(principalOf({}) instanceof AuthError));
  });

  it('AUTH_MODE=none: a request without context is the dev principal; a context still wins', async () => {
    await withAuthMode('none', () => {
      const saved = process.env.DEFAULT_TENANT;
      delete process.env.DEFAULT_TENANT;
      try {
        assert.deepEqual(principalOf({}), {
          tenant: 'default',
          owner: 'anonymous',
          rights: ['read', 'write', 'approve'],
          scheme: 'dev',
        });
        process.env.DEFAULT_TENANT = 'devland';
        const p = principalOf(eventWith(null));
        assert.ok(!(p instanceof AuthError));
        assert.equal(p.tenant, 'devland');
      } finally {
        if (saved === undefined) delete process.env.DEFAULT_TENANT;
        else process.env.DEFAULT_TENANT = saved;
      }
      const p = principalOf(eventWith({ tenant: 'acme', owner: 'alice', rights: 'read', scheme: 'bearer' }));
      assert.ok(!(p instanceof AuthError));
      assert.equal(p.owner, 'alice');
    });
  });

  it('an expired credential (a cached verdict past its token) is unauthenticated with invalid_token', () => {
    const now = Date.now();
    const ctx = { tenant: 'acme', owner: 'alice', rights: 'read', scheme: 'bearer' };
    const at = (expiresAt: unknown, nowMs = now) => principalOf(eventWith({ ...ctx, expiresAt }), nowMs);
    for (const expired of [Math.floor(now / 1000) - 1, String(Math.floor(now / 1000) - 100), now / 1000]) {
      const p = at(expired);
      assert.ok(p instanceof AuthError, String(expired));
      assert.equal(p.code, 'unauthenticated');
      assert.equal(p.challenge, 'invalid_token');
    }
    assert.ok(!(at(Math.floor(now / 1000) + 5) instanceof AuthError));
    assert.ok(at(1000, 1000 * 1000) instanceof AuthError, 'expiry is exactly at expiresAt');
    assert.ok(!(at(1001, 1000 * 1000) instanceof AuthError));
    // absent or nonsensical expiries are not expiries
    for (const v of [undefined, '', 'soon', 0, -5, null]) assert.ok(!(at(v) instanceof AuthError), String(v));
  });

  it('contextOfPrincipal round-trips through principalOf', () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    for (const p of [
      principal({ expiresAt: exp }),
      principal({ rights: ['read'], scheme: 'api-key' }),
      principal({ rights: [], scheme: 'synapse-peer' }),
      principal({ scheme: 'dev' }),
    ]) {
      const context = contextOfPrincipal(p);
      for (const value of Object.values(context))
        assert.ok(['string', 'number'].includes(typeof value), 'API Gateway passes strings and numbers only');
      assert.deepEqual(principalOf(eventWith({ ...context })), p);
    }
    assert.deepEqual(contextOfPrincipal(principal({ rights: ['read', 'write'] })).rights, 'read write');
    assert.ok(!('expiresAt' in contextOfPrincipal(principal())));
  });
});

describe('log redaction', () => {
  const jwtLike =
    'eyJhbGciOiJFUzI1NiIsImtpZCI6ImsifQ.eyJzdWIiOiJhbGljZSIsInRlbmFudCI6ImFjbWUifQ.c2lnbmF0dXJlLWJ5dGVz';
  const apiKey = newApiKey({ tenant: 'acme', principal: 'ci', rights: ['read'] }).key;

  it('redacts credential headers wherever they sit in a logged event', () => {
    const event = {
      httpMethod: 'POST',
      headers: {
        Authorization: `Bearer ${jwtLike}`,
        'x-api-key': 'usage-key-value',
        'X-Synapse-Signature': 'sig=abcdef',
        Cookie: 'session=secret-cookie',
        'content-type': 'application/json',
      },
      multiValueHeaders: { authorization: [`Bearer ${jwtLike}`], 'set-cookie': ['a=b'] },
      requestContext: { authorizer: { usageIdentifierKey: 'usage-secret', tenant: 'acme' } },
      body: JSON.stringify({ token: 'push-token-secret' }),
      nested: { deeper: { token: 'push-token-secret', password: 'hunter2', count: 3, ok: true } },
    };
    const text = JSON.stringify(event, redactSecrets);
    for (const secret of [
      jwtLike,
      'usage-key-value',
      'sig=abcdef',
      'secret-cookie',
      'usage-secret',
      'hunter2',
    ])
      assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    const out = JSON.parse(text);
    assert.equal(out.headers.Authorization, REDACTED);
    assert.equal(out.headers['x-api-key'], REDACTED);
    assert.equal(out.headers['X-Synapse-Signature'], REDACTED);
    assert.equal(out.headers.Cookie, REDACTED);
    assert.equal(out.multiValueHeaders.authorization, REDACTED, 'an array under a sensitive key');
    assert.equal(out.multiValueHeaders['set-cookie'], REDACTED);
    assert.equal(out.requestContext.authorizer.usageIdentifierKey, REDACTED);
    assert.equal(out.nested.deeper.token, REDACTED);
    // ordinary values untouched
    assert.equal(out.httpMethod, 'POST');
    assert.equal(out.headers['content-type'], 'application/json');
    assert.equal(out.requestContext.authorizer.tenant, 'acme');
    assert.equal(out.nested.deeper.count, 3);
    assert.equal(out.nested.deeper.ok, true);
  });

  it('cuts a bearer token, a JWT and an API key inside any string, and leaves ordinary strings alone', () => {
    const logged = {
      message: `request refused: header was Bearer ${jwtLike} (expired)`,
      detail: `the CLI printed ${apiKey} to the terminal`,
      bare: `jwt ${jwtLike}`,
      list: [`Bearer ${jwtLike}`],
      ordinary: 'task 3f2a1c0e-4b5d-4e6f-8a9b-0c1d2e3f4a5b moved to working',
      short: 'Bearer',
      n: 12,
      nothing: null,
    };
    const text = JSON.stringify(logged, redactSecrets);
    assert.ok(!text.includes(jwtLike), text);
    assert.ok(!text.includes(apiKey), text);
    const out = JSON.parse(text);
    assert.equal(out.message, `request refused: header was Bearer ${REDACTED} (expired)`);
    assert.equal(out.detail, `the CLI printed ${REDACTED} to the terminal`);
    assert.equal(out.bare, `jwt ${REDACTED}`);
    assert.equal(out.list[0], `Bearer ${REDACTED}`);
    assert.equal(out.ordinary, logged.ordinary);
    assert.equal(out.short, 'Bearer');
    assert.equal(out.n, 12);
    assert.equal(out.nothing, null);
  });

  it("the functions' logger prints no token (header map, message, error)", () => {
    const { logger } = createObservability({ serviceName: 'auth-test', logLevel: 'INFO' });
    const lines: string[] = [];
    const write = process.stdout.write;
    const writeErr = process.stderr.write;
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    try {
      logger.info('incoming', { headers: { Authorization: 'Bearer x.y.z' } });
      logger.info('event', { event: { multiValueHeaders: { Authorization: ['Bearer x.y.z'] } } });
      logger.warn(`refused Bearer ${jwtLike}`);
      logger.info('key', { note: `presented ${apiKey}` });
      logger.error('failed', new Error(`could not verify Bearer ${jwtLike}`));
    } finally {
      process.stdout.write = write;
      process.stderr.write = writeErr;
    }
    const text = lines.join('');
    assert.equal(lines.length, 5, text);
    for (const secret of ['x.y.z', jwtLike, apiKey]) assert.ok(!text.includes(secret), `${secret}: ${text}`);
    const first = JSON.parse(lines[0]!);
    assert.equal(first.message, 'incoming');
    assert.equal(first.headers.Authorization, REDACTED);
    assert.equal(first.service, 'auth-test');
  });
});
