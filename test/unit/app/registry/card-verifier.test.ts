/**
 * shared/app/registry/card-verifier.ts: a card is verified by its publisher domain's allowlist entry;
 * the HttpClient (a fake recording its requests) is asked for allowlisted JWKS URLs only, cached.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { CardVerifier } from '../../../../shared/app/registry/card-verifier.ts';
import { parseTrustAllowlist } from '../../../../shared/domain/registry/trust.ts';
import type {
  HttpClient,
  HttpClientRequest,
  HttpClientResult,
} from '../../../../shared/ports/http-client.ts';
import { signCard } from '../../../../shared/protocol/a2a/card-signature.ts';

const JWKS_URL = 'https://agents.example.com/.well-known/jwks.json';

const cardAt = (host: string) => ({
  name: 'A',
  description: 'a',
  supportedInterfaces: [{ url: `https://${host}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  version: '1',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

const keyPair = async (kid: string) => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    privateJwk: await exportJWK(privateKey),
    publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' },
  };
};

/** An HttpClient that serves `jwks` at JWKS_URL and records every request. */
const fakeHttp = (answer: () => HttpClientResult) => {
  const requests: HttpClientRequest[] = [];
  const http: HttpClient = {
    request: async (r) => {
      requests.push(r);
      return answer();
    },
  };
  return { http, requests };
};
const ok = (body: unknown): HttpClientResult => ({
  ok: true,
  status: 200,
  headers: {},
  body: JSON.stringify(body),
  latencyMs: 1,
});

describe('CardVerifier', () => {
  it('verifies with the allowlisted JWKS of the publisher host, fetched once and cached', async () => {
    const k = await keyPair('k1');
    let now = 0;
    const { http, requests } = fakeHttp(() => ok({ keys: [k.publicJwk] }));
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist({ 'agents.example.com': { jwksUrl: JWKS_URL } }, 'T'),
      http,
      now: () => now,
    });
    const signed = await signCard(cardAt('agents.example.com'), {
      key: k.privateJwk,
      kid: 'k1',
      alg: 'ES256',
    });
    assert.deepEqual(await verifier.verify(signed), {
      status: 'verified',
      kid: 'k1',
      trustedBy: `agents.example.com ${JWKS_URL}`,
    });
    await verifier.verify(signed);
    assert.deepEqual(
      requests.map((r) => [r.method, r.url]),
      [['GET', JWKS_URL]],
    );
    assert.ok(requests[0]!.maxBytes && requests[0]!.timeoutMs, 'a bounded, timed request');
    now += 5 * 60_000;
    await verifier.verify(signed);
    assert.equal(requests.length, 2, 'fetched again once the cache expired');
  });

  it('never fetches the jku a card names: an attacker key pointed to by jku stays unverified', async () => {
    const attacker = await keyPair('k1');
    const legit = await keyPair('k1');
    // the fake would serve the attacker's key at any URL but the allowlisted one
    const { http, requests } = fakeHttp(() => ok({ keys: [legit.publicJwk] }));
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist({ 'agents.example.com': { jwksUrl: JWKS_URL } }, 'T'),
      http: {
        request: async (r) => {
          if (r.url === JWKS_URL) return http.request(r);
          requests.push(r);
          return ok({ keys: [attacker.publicJwk] });
        },
      },
    });
    const forged = await signCard(cardAt('agents.example.com'), {
      key: attacker.privateJwk,
      kid: 'k1',
      alg: 'ES256',
      jku: 'https://evil.example/jwks.json',
    });
    const result = await verifier.verify(forged);
    assert.equal(result.status, 'unverified');
    assert.match((result as { reason: string }).reason, /does not match the card/);
    assert.deepEqual(
      requests.map((r) => r.url),
      [JWKS_URL],
      'only the allowlisted URL, never https://evil.example/jwks.json',
    );
  });

  it('answers unverified for a host no entry covers, without any request; unsigned without signatures', async () => {
    const k = await keyPair('k1');
    const { http, requests } = fakeHttp(() => ok({ keys: [k.publicJwk] }));
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist({ 'agents.example.com': { jwksUrl: JWKS_URL } }, 'T'),
      http,
    });
    const signed = await signCard(cardAt('elsewhere.example'), {
      key: k.privateJwk,
      kid: 'k1',
      alg: 'ES256',
    });
    const result = await verifier.verify(signed);
    assert.deepEqual(result, {
      status: 'unverified',
      reason:
        'no trusted keys for elsewhere.example: the trust allowlist (REGISTRY_TRUSTED_KEYS) has no entry for it',
    });
    // the card's URL decides, not its interfaces: fetched from the allowlisted host it is judged by that entry
    assert.equal(
      (await verifier.verify(signed, { publisherUrl: 'https://agents.example.com/card.json' })).status,
      'verified',
    );
    assert.deepEqual(await verifier.verify(cardAt('agents.example.com')), { status: 'unsigned' });
    assert.equal(requests.length, 1);
  });

  it('verifies with an inline key of a wildcard entry, with no request at all', async () => {
    const k = await keyPair('k9');
    const { http, requests } = fakeHttp(() => ok({ keys: [] }));
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist({ '*.example.org': { keys: [k.publicJwk] } }, 'T'),
      http,
    });
    const signed = await signCard(cardAt('a.example.org'), { key: k.privateJwk, kid: 'k9', alg: 'ES256' });
    assert.deepEqual(await verifier.verify(signed), {
      status: 'verified',
      kid: 'k9',
      trustedBy: '*.example.org (inline key)',
    });
    const other = await keyPair('k9');
    const wrong = await signCard(cardAt('a.example.org'), { key: other.privateJwk, kid: 'k9', alg: 'ES256' });
    assert.equal((await verifier.verify(wrong)).status, 'unverified');
    assert.equal(requests.length, 0);
  });

  it('says why when the JWKS cannot be read, and does not keep the failure', async () => {
    const k = await keyPair('k1');
    let answer: HttpClientResult = { ok: false, kind: 'refused', error: 'private address', latencyMs: 0 };
    const { http, requests } = fakeHttp(() => answer);
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist({ 'agents.example.com': { jwksUrl: JWKS_URL } }, 'T'),
      http,
    });
    const signed = await signCard(cardAt('agents.example.com'), {
      key: k.privateJwk,
      kid: 'k1',
      alg: 'ES256',
    });
    assert.deepEqual(await verifier.verify(signed), {
      status: 'unverified',
      reason: `the JWKS of agents.example.com (${JWKS_URL}) could not be read: refused: private address`,
    });
    answer = ok({ keys: [k.publicJwk] });
    assert.equal((await verifier.verify(signed)).status, 'verified');
    assert.equal(requests.length, 2);
  });

  it('keeps a bounded number of JWKS', async () => {
    const k = await keyPair('k1');
    const { http, requests } = fakeHttp(() => ok({ keys: [k.publicJwk] }));
    const hosts = ['a.example', 'b.example', 'c.example'];
    const verifier = new CardVerifier({
      allowlist: parseTrustAllowlist(
        Object.fromEntries(hosts.map((h) => [h, { jwksUrl: `https://${h}/jwks` }])),
        'T',
      ),
      http,
      maxCachedJwks: 2,
    });
    for (const h of [...hosts, 'a.example'])
      await verifier.verify(await signCard(cardAt(h), { key: k.privateJwk, kid: 'k1', alg: 'ES256' }));
    assert.deepEqual(
      requests.map((r) => r.url),
      [
        'https://a.example/jwks',
        'https://b.example/jwks',
        'https://c.example/jwks',
        'https://a.example/jwks',
      ],
      'a.example was evicted by c.example',
    );
  });
});
