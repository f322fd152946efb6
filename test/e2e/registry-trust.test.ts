/**
 * Signed agent cards in the registry end to end (docs/registry-trust.md): hub B (a child process: `npm
 * start`'s entry) signs its own card with its push-signing key; hub A trusts B's host with B's JWKS URL
 * (REGISTRY_TRUSTED_KEYS, plain http allowed for loopback). B's card published to A by URL is `verified`
 * with its kid; a tampered copy (another description, the same signatures) is `unverified`; a card
 * signed by an attacker whose header names a `jku` on the attacker's server is not verified, and that
 * server (a loopback HTTP server recording every request) receives nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { signCard } from '../../shared/protocol/a2a/card-signature.ts';
import {
  type ChildHub,
  freePort,
  idsIn,
  type Json,
  type RecordingServer,
  registryCall,
  shown,
  startChildHub,
  startRecordingServer,
} from './fixtures/registry.ts';

let hubA: LocalHub;
let hubB: ChildHub;
let attacker: RecordingServer;
let attackerJwks: { keys: Json[] } = { keys: [] };
/** A publisher whose key A's allowlist lists inline (`localhost`). */
let partner: Awaited<ReturnType<typeof generateKeyPair>>;

before(async () => {
  // the attacker's server answers its JWKS (so a registry that followed `jku` would verify the forgery)
  attacker = await startRecordingServer((path) => (path === '/jwks.json' ? attackerJwks : undefined));
  partner = await generateKeyPair('ES256', { extractable: true });
  const portB = await freePort();
  hubB = await startChildHub(portB);
  hubA = await startLocalHub({
    sweepIntervalMs: 60_000,
    env: {
      REGISTRY_TRUSTED_KEYS: JSON.stringify({
        '127.0.0.1': { jwksUrl: `http://127.0.0.1:${portB}/.well-known/jwks.json` },
        localhost: { keys: [{ ...(await exportJWK(partner.publicKey)), kid: 'partner-1', alg: 'ES256' }] },
      }),
      // the SSRF guard lets A fetch B's card and JWKS on loopback
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      REGISTRY_CATALOG_REFRESH_MS: '0',
    },
  });
});

after(async () => {
  await hubA?.stop();
  await hubB?.stop();
  await attacker?.close();
});

const call = (method: string, path: string, body?: unknown) =>
  registryCall(hubA.url, undefined, method, path, body);

const ok = async (method: string, path: string, body: unknown, status: number): Promise<Json> => {
  const reply = await call(method, path, body);
  assert.equal(reply.status, status, shown(reply));
  return reply.json;
};

const verificationOf = async (id: string, version: number) =>
  (await ok('GET', `/records/${id}/versions/${version}`, undefined, 200)).verification;

describe("B's signed card in A's registry", () => {
  let cardB: Json;
  let kidB: string;
  let id: string;

  before(async () => {
    cardB = await (await fetch(`${hubB.url}/.well-known/agent-card.json`)).json();
    assert.ok(Array.isArray(cardB.signatures) && cardB.signatures.length > 0, 'B signs its card');
    kidB = decodeProtectedHeader({ protected: cardB.signatures[0].protected }).kid as string;
    const jwks = (await (await fetch(`${hubB.url}/.well-known/jwks.json`)).json()) as { keys: Json[] };
    assert.ok(
      jwks.keys.some((k) => k.kid === kidB),
      'the kid is in B’s JWKS',
    );
  });

  it('published by URL, it is verified with the kid, by the allowlist entry of its host', async () => {
    const published = await ok(
      'POST',
      '/records',
      { cardUrl: `${hubB.url}/.well-known/agent-card.json` },
      201,
    );
    id = published.id;
    const verification = await verificationOf(id, 1);
    assert.equal(verification.status, 'verified', JSON.stringify(verification));
    assert.equal(verification.kid, kidB);
    assert.match(verification.trustedBy, /^127\.0\.0\.1 /);
    assert.ok(verification.trustedBy.includes('/.well-known/jwks.json'), verification.trustedBy);
  });

  it('approved, search shows it verified, and a `verified` filter finds it', async () => {
    await ok('POST', `/records/${id}:approve`, {}, 200);
    const reply = await call('POST', '/search', { query: { text: 'translator' } });
    const hit = reply.json.results.find((r: Json) => r.metadata.recordId === id);
    assert.equal(hit?.metadata.verified, true, shown(reply));
    assert.equal(hit.metadata.signature, 'verified');
    assert.equal(hit.metadata.signingKeyId, kidB);
    const verified = await call('POST', '/search', {
      query: { text: 'translator', filter: { verified: 'true' } },
    });
    assert.ok(idsIn(verified).includes(id), shown(verified));
    const unverified = await call('POST', '/search', {
      query: { text: 'translator', filter: { verified: 'false' } },
    });
    assert.equal(idsIn(unverified).includes(id), false);
  });

  it('a tampered copy published inline (another description, the same signatures) is unverified', async () => {
    const tampered = { ...cardB, description: `${cardB.description} — and it wires money too` };
    await ok('POST', `/records/${id}/versions`, { card: tampered }, 201);
    const verification = await verificationOf(id, 2);
    assert.equal(verification.status, 'unverified', JSON.stringify(verification));
    assert.match(verification.reason, new RegExp(`kid ${kidB}: the signature does not match`));
    // the untampered card inline, judged by the same entry (its interfaces' host), verifies: the edit is what failed
    await ok('POST', `/records/${id}/versions`, { card: cardB }, 201);
    assert.equal((await verificationOf(id, 3)).status, 'verified');
    assert.equal((await verificationOf(id, 1)).status, 'verified', 'version 1 is untouched');
  });

  it("a card signed by an attacker naming a jku on the attacker's server is not verified; the server gets nothing", async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const forged = async (name: string, kid: string) => {
      attackerJwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] };
      // it claims B's interfaces: the host A's allowlist trusts
      const { signatures: _s, ...unsigned } = { ...cardB, name };
      return signCard(unsigned, { key: privateKey, kid, alg: 'ES256', jku: `${attacker.url}/jwks.json` });
    };
    // a kid of its own: no trusted key has it, and the jku is not followed to find one
    const own = await ok('POST', '/records', { card: await forged('Impostor', 'attacker-1') }, 201);
    const ownVerification = await verificationOf(own.id, 1);
    assert.equal(ownVerification.status, 'unverified', JSON.stringify(ownVerification));
    assert.match(ownVerification.reason, /no trusted key has kid attacker-1/);
    assert.match(ownVerification.reason, /`jku`.*not honoured/);
    // B's kid: the trusted key is B's, which the attacker's signature does not match
    const borrowed = await ok('POST', '/records', { card: await forged('Impostor Two', kidB) }, 201);
    const borrowedVerification = await verificationOf(borrowed.id, 1);
    assert.equal(borrowedVerification.status, 'unverified', JSON.stringify(borrowedVerification));
    assert.match(borrowedVerification.reason, /does not match/);
    // approved, the forgeries are in the catalog as unverified
    await ok('POST', `/records/${own.id}:approve`, {}, 200);
    const entry = await ok('GET', `/agents/${own.id}`, undefined, 200);
    assert.equal(entry.metadata.verified, false);
    assert.equal(entry.metadata.signature, 'unverified');
    // whatever the registry does in the background has had its time
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(attacker.requests, [], 'the registry sent the attacker’s server no request');
  });

  it('a card signed with a member A2A does not define is verified: the signature covers the card as published', async () => {
    // docs/registry-trust.md: a member the schema does not know is kept as it is, so it is signed too
    const { signatures: _s, ...unsigned } = {
      ...cardB,
      name: 'Partner Agent',
      supportedInterfaces: [
        { url: 'http://localhost:9/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      'x-partner-tier': 'gold',
    };
    const signed = await signCard(unsigned, { key: partner.privateKey, kid: 'partner-1', alg: 'ES256' });
    const plain = await ok('POST', '/records', { card: { ...signed, 'x-partner-tier': undefined } }, 201);
    // without the extra member (absent from what was signed) it does not match: the control
    assert.equal((await verificationOf(plain.id, 1)).status, 'unverified');
    const published = await ok('POST', `/records/${plain.id}/versions`, { card: signed }, 201);
    const verification = await verificationOf(published.id, 2);
    assert.equal(verification.status, 'verified', JSON.stringify(verification));
    assert.equal(verification.kid, 'partner-1');
  });
});
