/**
 * The admin CLI of tenants and API keys (scripts/auth.ts runAuthCommand) on an in-memory store and a
 * fake API Gateway: tenants registered once with their usage plan key, keys created only for registered
 * tenants and known rights, printed once and kept only as a hash, revocation flushing the authorizer
 * cache, and the usage message on bad input.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AuthCliDeps, runAuthCommand, type UsageGateway } from '../../../scripts/auth.ts';
import { keyIdOf, verifyApiKey } from '../../../shared/app/auth/api-keys.ts';
import { AuthError } from '../../../shared/domain/errors.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../../shared/ports/api-key-store.ts';
import type { TenantRecord, TenantRegistry } from '../../../shared/ports/tenant-registry.ts';

class MemoryAuthStore implements ApiKeyStore, TenantRegistry {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly tenants = new Map<string, TenantRecord>();
  async getKey(keyId: string) {
    return this.keys.get(keyId);
  }
  async putKey(record: ApiKeyRecord) {
    if (this.keys.has(record.keyId)) throw new Error(`key ${record.keyId} exists`);
    this.keys.set(record.keyId, structuredClone(record));
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
    this.tenants.set(record.tenant, structuredClone(record));
  }
  async listTenants() {
    return [...this.tenants.values()];
  }
}

class FakeGateway implements UsageGateway {
  readonly created: { tenant: string; value: string }[] = [];
  flushes = 0;
  failCreate = false;
  async createTenantKey(tenant: string, value: string) {
    if (this.failCreate) throw new Error('TooManyRequestsException');
    this.created.push({ tenant, value });
  }
  async flushAuthorizerCache() {
    this.flushes++;
  }
}

const NOW = new Date('2025-03-04T05:06:07.000Z');

const cli = (options: { gateway?: boolean } = {}) => {
  const store = new MemoryAuthStore();
  const gateway = new FakeGateway();
  let lines: string[] = [];
  const deps: AuthCliDeps = {
    keys: store,
    tenants: store,
    ...(options.gateway === false ? {} : { gateway }),
    out: (line) => lines.push(line),
    now: () => NOW,
  };
  const run = async (...argv: string[]) => {
    lines = [];
    const code = await runAuthCommand(argv, deps);
    return { code, lines, text: lines.join('\n') };
  };
  return { store, gateway, run };
};

/** `keys create` for a registered tenant; the printed key and its record. */
const createKey = async (c: ReturnType<typeof cli>, ...extra: string[]) => {
  const out = await c.run('keys', 'create', '--tenant', 'acme', '--principal', 'ci', ...extra);
  assert.equal(out.code, 0, out.text);
  const key = out.lines.find((l) => l.startsWith('syn_'));
  assert.ok(key, out.text);
  const record = c.store.keys.get(keyIdOf(key)!);
  assert.ok(record, 'stored under the id in the key');
  return { key, record, out };
};

describe('auth CLI: tenants', () => {
  it('tenants add: a usage key created through the gateway, the same value recorded; idempotent', async () => {
    const c = cli();
    const first = await c.run('tenants', 'add', 'acme');
    assert.equal(first.code, 0);
    assert.deepEqual(first.lines, ['tenant acme registered (usage plan key created)']);
    assert.equal(c.gateway.created.length, 1);
    const { tenant, value } = c.gateway.created[0]!;
    assert.equal(tenant, 'acme');
    assert.ok(value.length >= 20, 'API Gateway wants API key values of at least 20 characters');
    assert.deepEqual(c.store.tenants.get('acme'), {
      tenant: 'acme',
      usageKey: value,
      createdAt: NOW.toISOString(),
    });

    const second = await c.run('tenants', 'add', 'acme');
    assert.equal(second.code, 0);
    assert.match(second.text, /already registered \(since 2025-03-04T05:06:07.000Z\)/);
    assert.equal(c.gateway.created.length, 1, 'no second usage plan key');
    assert.equal(c.store.tenants.get('acme')?.usageKey, value, 'the usage key is kept');

    await c.run('tenants', 'add', 'globex');
    assert.notEqual(c.gateway.created[1]!.value, value, 'each tenant its own usage key');
  });

  it('tenants add without a gateway (local hub): the usage key is only recorded', async () => {
    const c = cli({ gateway: false });
    const out = await c.run('tenants', 'add', 'acme');
    assert.equal(out.code, 0);
    assert.deepEqual(out.lines, ['tenant acme registered']);
    assert.ok(c.store.tenants.get('acme')?.usageKey);
    assert.equal(c.gateway.created.length, 0);
  });

  it('tenants add: a tenant is not recorded when its usage plan key could not be created', async () => {
    const c = cli();
    c.gateway.failCreate = true;
    await assert.rejects(c.run('tenants', 'add', 'acme'), /TooManyRequests/);
    assert.equal(c.store.tenants.size, 0);
  });

  it('tenants add refuses a missing or malformed name', async () => {
    const c = cli();
    for (const bad of [[], ['.acme'], ['_acme'], ['has space'], ['a/b'], ['x'.repeat(65)], ['é']]) {
      const out = await c.run('tenants', 'add', ...bad);
      assert.equal(out.code, 1, `${JSON.stringify(bad)}: ${out.text}`);
      assert.match(out.text, /^error: tenants add <tenant>/);
    }
    assert.equal(c.store.tenants.size, 0);
    assert.equal(c.gateway.created.length, 0);
    assert.equal((await c.run('tenants', 'add', 'x'.repeat(64))).code, 0);
    assert.equal((await c.run('tenants', 'add', 'A1.b_c-d')).code, 0);
  });

  it('tenants list', async () => {
    const c = cli();
    await c.run('tenants', 'add', 'acme');
    await c.store.putTenant({ tenant: 'gone', usageKey: 'u', createdAt: 'then', disabledAt: 'later' });
    const out = await c.run('tenants', 'list');
    assert.equal(out.code, 0);
    assert.deepEqual(out.lines, [`acme  since ${NOW.toISOString()}`, 'gone  since then  disabled later']);
    assert.ok(!out.text.includes(c.gateway.created[0]!.value), 'the usage key is not listed');
  });
});

describe('auth CLI: keys', () => {
  const withTenant = async () => {
    const c = cli();
    assert.equal((await c.run('tenants', 'add', 'acme')).code, 0);
    return c;
  };

  it('keys create refuses an unregistered tenant', async () => {
    const c = await withTenant();
    const out = await c.run('keys', 'create', '--tenant', 'globex', '--principal', 'ci');
    assert.equal(out.code, 1);
    assert.match(out.text, /^error: tenant globex is not registered: npm run auth -- tenants add globex/);
    assert.equal(c.store.keys.size, 0);
    assert.ok(!out.text.includes('syn_'));
  });

  it('keys create refuses rights naming none of read, write, and missing options', async () => {
    const c = await withTenant();
    for (const rights of ['admin', 'READ', '', 'tasks:read']) {
      const out = await c.run('keys', 'create', '--tenant', 'acme', '--principal', 'ci', '--rights', rights);
      assert.equal(out.code, 1, rights);
      assert.match(out.text, /^error: --rights: (unknown|names none of read, write)/);
    }
    for (const argv of [
      ['keys', 'create'],
      ['keys', 'create', '--tenant', 'acme'],
      ['keys', 'create', '--principal', 'ci'],
    ]) {
      const out = await c.run(...argv);
      assert.equal(out.code, 1, argv.join(' '));
      assert.match(out.text, /^error: keys create --tenant T --principal P/);
    }
    assert.equal(c.store.keys.size, 0);
  });

  it('keys create: prints the key once; the record holds only its hash', async () => {
    const c = await withTenant();
    const { key, record, out } = await createKey(c, '--rights', 'read', '--description', 'ci pipeline');
    assert.match(key, /^syn_[a-z2-7]{16}_[A-Za-z0-9_-]{43}$/);
    assert.equal(out.lines.length, 3);
    assert.equal(out.lines[0], `key ${record.keyId} for ci in acme (read):`);
    assert.match(out.lines[2]!, /cannot be shown again/);
    assert.equal(out.lines.filter((l) => l.includes(key)).length, 1, 'printed once');

    const secret = key.slice(`syn_${record.keyId}_`.length);
    assert.deepEqual(record, {
      keyId: record.keyId,
      secretHash: createHash('sha256').update(secret).digest('hex'),
      tenant: 'acme',
      principal: 'ci',
      rights: ['read'],
      createdAt: NOW.toISOString(),
      description: 'ci pipeline',
    });
    const stored = JSON.stringify(record);
    assert.ok(!stored.includes(secret), 'the secret is nowhere in the record');
    assert.ok(!stored.includes(key));
    // the printed key is the one that verifies
    assert.deepEqual(await verifyApiKey(c.store, key), {
      tenant: 'acme',
      owner: 'ci',
      rights: ['read'],
      scheme: 'api-key',
    });
  });

  it('keys create: read and write by default; a list with an unknown name is refused', async () => {
    const c = await withTenant();
    assert.deepEqual((await createKey(c)).record.rights, ['read', 'write']);
    assert.deepEqual((await createKey(c, '--rights', 'write')).record.rights, ['write']);
    assert.deepEqual((await createKey(c, '--rights', 'write read')).record.rights, ['read', 'write']);
    // a typo is refused rather than silently granting less
    const before = c.store.keys.size;
    const partial = await c.run(
      'keys',
      'create',
      '--tenant',
      'acme',
      '--principal',
      'ci',
      '--rights',
      'read,wrte',
    );
    assert.equal(partial.code, 1);
    assert.match(partial.text, /^error: --rights: unknown wrte/);
    assert.equal(c.store.keys.size, before);
  });

  it('keys list: ids, owners, rights, revocation; never a secret', async () => {
    const c = await withTenant();
    await c.run('tenants', 'add', 'globex');
    const a = await createKey(c, '--description', 'first');
    const b = await c.run('keys', 'create', '--tenant', 'globex', '--principal', 'bot', '--rights', 'read');
    const bKey = b.lines.find((l) => l.startsWith('syn_'))!;
    await c.run('keys', 'revoke', a.record.keyId);
    const all = await c.run('keys', 'list');
    assert.equal(all.code, 0);
    assert.equal(all.lines.length, 2);
    assert.ok(
      all.lines.includes(
        `${a.record.keyId}  acme/ci  read,write  created ${NOW.toISOString()}  REVOKED ${NOW.toISOString()}  first`,
      ),
      all.text,
    );
    assert.ok(
      all.lines.includes(`${keyIdOf(bKey)}  globex/bot  read  created ${NOW.toISOString()}`),
      all.text,
    );
    for (const key of [a.key, bKey]) assert.ok(!all.text.includes(key.slice(22)), 'no secret listed');
    assert.ok(!all.text.includes(a.record.secretHash), 'no hash listed either');
    const globex = await c.run('keys', 'list', '--tenant', 'globex');
    assert.deepEqual(globex.lines.length, 1);
    assert.match(globex.lines[0]!, /globex\/bot/);
  });

  it('keys revoke: marks the key revoked, flushes the authorizer cache; the key is refused from then on', async () => {
    const c = await withTenant();
    const { key, record } = await createKey(c);
    await verifyApiKey(c.store, key);
    const out = await c.run('keys', 'revoke', record.keyId);
    assert.equal(out.code, 0);
    assert.deepEqual(out.lines, [`key ${record.keyId} revoked (authorizer cache flushed)`]);
    assert.equal(c.gateway.flushes, 1);
    assert.equal(c.store.keys.get(record.keyId)?.revokedAt, NOW.toISOString());
    await assert.rejects(
      verifyApiKey(c.store, key),
      (e: unknown) => e instanceof AuthError && e.code === 'unauthenticated',
    );
  });

  it('keys revoke errors on an unknown or missing id, flushing nothing', async () => {
    const c = await withTenant();
    const unknown = await c.run('keys', 'revoke', 'abcdefghijklmnop');
    assert.equal(unknown.code, 1);
    assert.deepEqual(unknown.lines, ['error: no key abcdefghijklmnop']);
    const missing = await c.run('keys', 'revoke');
    assert.equal(missing.code, 1);
    assert.match(missing.text, /^error: keys revoke <key id>/);
    assert.equal(c.gateway.flushes, 0);
  });

  it('keys revoke without a gateway (local hub): no flush to do', async () => {
    const c = cli({ gateway: false });
    await c.run('tenants', 'add', 'acme');
    const { record } = await createKey(c);
    const out = await c.run('keys', 'revoke', record.keyId);
    assert.deepEqual(out.lines, [`key ${record.keyId} revoked`]);
  });
});

describe('auth CLI: usage', () => {
  it('prints the usage and exits 1 on an unknown or incomplete command', async () => {
    const c = cli();
    for (const argv of [
      [],
      ['tenants'],
      ['keys'],
      ['keys', 'delete', 'x'],
      ['tenant', 'add', 'acme'],
      ['help'],
    ]) {
      const out = await c.run(...argv);
      assert.equal(out.code, 1, argv.join(' '));
      assert.deepEqual(out.lines, [
        'error: usage: tenants add|list, keys create|list|revoke (docs/security.md)',
      ]);
    }
    assert.equal(c.store.tenants.size + c.store.keys.size + c.gateway.created.length + c.gateway.flushes, 0);
  });

  it('an unknown option or an option without its value is bad input too (usage, exit code 1)', async () => {
    const c = cli();
    for (const argv of [
      ['keys', 'list', '--bogus'],
      ['keys', 'create', '--tenant'],
      ['tenants', 'add', '-acme'],
    ]) {
      const out = await c.run(...argv);
      assert.equal(out.code, 1);
      assert.match(out.text, /^error: /);
    }
  });
});
