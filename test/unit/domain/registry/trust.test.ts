/** shared/domain/registry/trust.ts and shared/config/registry-trust.ts: the allowlist's format, errors and matching. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REGISTRY_TRUSTED_KEYS } from '../../../../shared/config/registry-trust.ts';
import { readSetting } from '../../../../shared/config/settings.ts';
import {
  EMPTY_TRUST_ALLOWLIST,
  parseTrustAllowlist,
  publisherHostOf,
  trustEntryFor,
  withOwnHost,
} from '../../../../shared/domain/registry/trust.ts';

const publicKey = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1' };
const V = 'REGISTRY_TRUSTED_KEYS';

describe('the trust allowlist', () => {
  it('reads exact and wildcard domains, JWKS URLs and inline keys', () => {
    const list = readSetting(REGISTRY_TRUSTED_KEYS, {
      [V]: JSON.stringify({
        'Agents.Example.com': { jwksUrl: 'https://agents.example.com/.well-known/jwks.json' },
        '*.example.org': { keys: [publicKey] },
        '*.deep.example.org': { jwksUrl: 'https://deep.example.org/jwks.json' },
      }),
    });
    assert.deepEqual(trustEntryFor(list, 'agents.example.com'), {
      domain: 'agents.example.com',
      entry: { jwksUrl: 'https://agents.example.com/.well-known/jwks.json' },
    });
    assert.equal(trustEntryFor(list, 'other.example.com'), undefined);
    assert.equal(trustEntryFor(list, 'a.b.example.org')?.domain, '*.example.org', 'any depth below');
    assert.equal(
      trustEntryFor(list, 'x.deep.example.org')?.domain,
      '*.deep.example.org',
      'the longest suffix wins',
    );
    assert.equal(trustEntryFor(list, 'example.org'), undefined, 'not the domain itself');
    assert.equal(trustEntryFor(list, 'evilexample.org'), undefined);
  });

  it('is empty when unset', () => {
    const list = readSetting(REGISTRY_TRUSTED_KEYS, {});
    assert.equal(trustEntryFor(list, 'agents.example.com'), undefined);
  });

  it('names the variable, the domain and the member in each error', () => {
    const bad = (json: unknown, pattern: RegExp) =>
      assert.throws(() => readSetting(REGISTRY_TRUSTED_KEYS, { [V]: JSON.stringify(json) }), pattern);
    assert.throws(
      () => readSetting(REGISTRY_TRUSTED_KEYS, { [V]: '{not json' }),
      /REGISTRY_TRUSTED_KEYS must be a JSON object: .*, got "{not json"/,
    );
    bad([], /REGISTRY_TRUSTED_KEYS must be a JSON object of domains, got an array/);
    bad(
      { 'a.example': { jwksUrl: 'http://a.example/jwks' } },
      /REGISTRY_TRUSTED_KEYS: "a.example".jwksUrl must be an https URL/,
    );
    bad({ 'a.example': {} }, /"a.example" must have exactly one of `jwksUrl` and `keys`/);
    bad(
      { 'a.example': { keys: [{ ...publicKey, d: 'secret' }] } },
      /"a.example".keys\[0\] holds private key material \(d\)/,
    );
    bad({ 'a.example': { keys: [{ kty: 'EC' }] } }, /keys\[0\].kid must be set/);
    bad({ 'a.example': { keys: [publicKey], extra: 1 } }, /unknown member `extra`/);
    bad({ '*.com': { keys: [publicKey] } }, /"\*.com" is not a domain/);
    bad({ 'https://a.example': { keys: [publicKey] } }, /is not a host name/);
  });

  it('allows plain http JWKS URLs on the loopback only', () => {
    const list = parseTrustAllowlist(
      { '127.0.0.1': { jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' } },
      V,
    );
    assert.ok(trustEntryFor(list, '127.0.0.1'));
  });
});

describe('publisherHostOf', () => {
  const card = {
    supportedInterfaces: [{ url: 'https://Agent.Example.com/a2a' }, { url: 'https://other.example/a2a' }],
  };
  it('is the host the card was fetched from, else its first interface', () => {
    assert.equal(
      publisherHostOf(card, 'https://cards.example.net/.well-known/agent-card.json'),
      'cards.example.net',
    );
    assert.equal(publisherHostOf(card), 'agent.example.com');
    assert.equal(
      publisherHostOf({ supportedInterfaces: [{ url: 'grpc.example.com:443' }] }),
      'grpc.example.com',
    );
    assert.equal(publisherHostOf({}), undefined);
  });
});

describe("the hub's own host", () => {
  it('is trusted by its own JWKS, unless the operator names that host already', () => {
    const own = withOwnHost(
      EMPTY_TRUST_ALLOWLIST,
      'https://Hub.Example.com/prod',
      'https://hub.example.com/prod/.well-known/jwks.json',
    );
    assert.deepEqual(trustEntryFor(own, 'hub.example.com'), {
      domain: 'hub.example.com',
      entry: { jwksUrl: 'https://hub.example.com/prod/.well-known/jwks.json' },
    });
    assert.equal(trustEntryFor(own, 'other.example.com'), undefined);
    const configured = parseTrustAllowlist(
      { 'hub.example.com': { jwksUrl: 'https://keys.example.com/jwks' } },
      'X',
    );
    assert.equal(
      withOwnHost(configured, 'https://hub.example.com', 'https://hub.example.com/.well-known/jwks.json'),
      configured,
    );
  });
});
