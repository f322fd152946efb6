/** shared/protocol/a2a/card-signature.ts: the canonical form (A2A v1.0 §8.4.1, RFC 8785), signing and verification. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  type CardSignatureHeader,
  canonicalCardPayload,
  sdkCardPayload,
  signCard,
  verifyCardSignatures,
} from '../../../../shared/protocol/a2a/card-signature.ts';

const card = {
  name: 'Recipe Agent',
  description: 'Helps with recipes',
  supportedInterfaces: [
    { url: 'https://agents.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'cook', name: 'Cook', description: 'Cooks', tags: ['food'] }],
};

const keyPair = async (kid: string) => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return {
    kid,
    privateJwk: await exportJWK(privateKey),
    publicJwk: { ...(await exportJWK(publicKey)), kid },
  };
};

/** A trust store of these public keys, recording each header it was asked about. */
const storeOf = (...keys: JWK[]) => {
  const asked: CardSignatureHeader[] = [];
  const keyFor = async (header: CardSignatureHeader) => {
    asked.push(header);
    const jwk = keys.find((k) => k.kid === header.kid);
    return jwk ? { key: jwk, trustedBy: 'agents.example.com (inline key)' } : undefined;
  };
  return { keyFor, asked };
};

describe('canonicalCardPayload', () => {
  it('is the A2A §8.4.1 example: required fields kept empty, set optionals kept at false, empty repeated fields left out', () => {
    const example = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    assert.equal(
      canonicalCardPayload(example),
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('drops `signatures`, nulls and the defaults of implicit-presence fields at every depth, keeps Struct params as they are', () => {
    const payload = canonicalCardPayload({
      ...card,
      signatures: [{ protected: 'x', signature: 'y' }],
      documentationUrl: '',
      iconUrl: null,
      securitySchemes: {},
      securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
      supportedInterfaces: [{ ...card.supportedInterfaces[0], tenant: '' }],
      capabilities: {
        extensions: [{ uri: 'urn:x', description: '', required: false, params: { empty: [], blank: '' } }],
      },
      skills: [{ ...card.skills[0], examples: [], inputModes: [], tags: [] }],
    });
    const parsed = JSON.parse(payload);
    assert.equal(parsed.signatures, undefined);
    assert.equal(parsed.documentationUrl, '', 'an optional field set to its default is kept');
    assert.equal('iconUrl' in parsed, false, 'null is unset');
    assert.equal('securitySchemes' in parsed, false);
    assert.deepEqual(parsed.securityRequirements, [{ schemes: { apiKey: {} } }]);
    assert.deepEqual(parsed.supportedInterfaces[0], card.supportedInterfaces[0]);
    assert.deepEqual(parsed.capabilities, {
      extensions: [{ uri: 'urn:x', params: { empty: [], blank: '' } }],
    });
    assert.deepEqual(parsed.skills[0], { ...card.skills[0], tags: [] });
  });

  it('reads proto (snake_case) names as their JSON names, and signs members it does not know as they are', () => {
    const snake = canonicalCardPayload({
      ...card,
      default_input_modes: card.defaultInputModes,
      defaultInputModes: undefined,
      x_vendor: { a: [] },
    });
    assert.deepEqual(JSON.parse(snake).defaultInputModes, ['text/plain']);
    assert.deepEqual(JSON.parse(snake).x_vendor, { a: [] });
  });

  it('serializes by RFC 8785: sorted keys (by UTF-16 code units), ES6 numbers, minimal string escapes', () => {
    // RFC 8785 §3.2.2.3 number examples and §3.2.3 sorting example
    const payload = canonicalCardPayload({
      name: 'n',
      x: {
        // biome-ignore lint/correctness/noPrecisionLoss: RFC 8785's own example: JCS writes the double it parses to
        numbers: [333333333.33333329, 1e30, 4.5, 0.002, 1e-27],
        '\u20ac': 1,
        '\r': 2,
        '\ud83d\ude00': 3,
        '1': 4,
      },
      s: '\u20ac$\u000f\nA\'B"\\\\"/',
    });
    assert.equal(
      payload,
      '{"name":"n","s":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","x":{"\\r":2,"1":4,"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"€":1,"😀":3}}',
    );
  });
});

describe('signCard / verifyCardSignatures', () => {
  it('round-trips: one signature with alg, typ JOSE, kid (and jku) in the protected header', async () => {
    const k = await keyPair('k1');
    const signed = await signCard(card, {
      key: k.privateJwk,
      kid: 'k1',
      alg: 'ES256',
      jku: 'https://agents.example.com/jwks.json',
    });
    assert.equal(signed.signatures.length, 1);
    const header = JSON.parse(Buffer.from(signed.signatures[0]!.protected, 'base64url').toString());
    assert.deepEqual(header, {
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'k1',
      jku: 'https://agents.example.com/jwks.json',
    });
    const { keyFor } = storeOf(k.publicJwk);
    assert.deepEqual(await verifyCardSignatures(signed, keyFor), {
      status: 'verified',
      kid: 'k1',
      trustedBy: 'agents.example.com (inline key)',
    });
    // a round trip through JSON (key order, whitespace) keeps it verified
    const reparsed = JSON.parse(JSON.stringify(signed, null, 2));
    assert.equal((await verifyCardSignatures(reparsed, keyFor)).status, 'verified');
  });

  it('answers unsigned for a card without signatures', async () => {
    assert.deepEqual(await verifyCardSignatures(card, storeOf().keyFor), { status: 'unsigned' });
    assert.deepEqual(await verifyCardSignatures({ ...card, signatures: [] }, storeOf().keyFor), {
      status: 'unsigned',
    });
  });

  it('refuses a tampered card, a wrong key, an unknown kid, each with its reason', async () => {
    const k = await keyPair('k1');
    const other = await keyPair('k1');
    const signed = await signCard(card, { key: k.privateJwk, kid: 'k1', alg: 'ES256' });

    const tampered = {
      ...signed,
      supportedInterfaces: [{ ...card.supportedInterfaces[0], url: 'https://evil.example/a2a' }],
    };
    const t = await verifyCardSignatures(tampered, storeOf(k.publicJwk).keyFor);
    assert.equal(t.status, 'unverified');
    assert.match((t as { reason: string }).reason, /kid k1: the signature does not match the card/);

    const w = await verifyCardSignatures(signed, storeOf(other.publicJwk).keyFor);
    assert.equal(w.status, 'unverified');
    assert.match((w as { reason: string }).reason, /does not match/);

    const u = await verifyCardSignatures(signed, storeOf((await keyPair('k2')).publicJwk).keyFor);
    assert.deepEqual(u, { status: 'unverified', reason: 'signature 1: no trusted key has kid k1' });
  });

  it('never takes a key from the card: a jku, x5u or embedded jwk is named in the reason, the trust store alone answers', async () => {
    const attacker = await keyPair('evil');
    const signed = await signCard(card, {
      key: attacker.privateJwk,
      kid: 'evil',
      alg: 'ES256',
      jku: 'https://evil.example/jwks.json',
    });
    const { keyFor, asked } = storeOf((await keyPair('k1')).publicJwk);
    const result = await verifyCardSignatures(signed, keyFor);
    assert.equal(result.status, 'unverified');
    assert.match(
      (result as { reason: string }).reason,
      /no trusted key has kid evil \(the signer's `jku` is not honoured/,
    );
    assert.equal(
      asked[0]!.jku,
      'https://evil.example/jwks.json',
      'the store sees the header, and may ignore it',
    );

    // an unprotected `jwk` carrying the attacker's own key does not verify either
    const embedded = {
      ...signed,
      signatures: [{ ...signed.signatures[0]!, header: { jwk: attacker.publicJwk } }],
    };
    const r2 = await verifyCardSignatures(embedded, keyFor);
    assert.match((r2 as { reason: string }).reason, /`jku`, `jwk` is not honoured/);
  });

  it('verifies when one of several signatures does (key rotation), and refuses alg none / HS256', async () => {
    const old = await keyPair('old');
    const current = await keyPair('new');
    const both = await signCard(await signCard(card, { key: old.privateJwk, kid: 'old', alg: 'ES256' }), {
      key: current.privateJwk,
      kid: 'new',
      alg: 'ES256',
    });
    assert.deepEqual(await verifyCardSignatures(both, storeOf(current.publicJwk).keyFor), {
      status: 'verified',
      kid: 'new',
      trustedBy: 'agents.example.com (inline key)',
    });
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'new', typ: 'JOSE' })).toString('base64url');
    const r = await verifyCardSignatures(
      { ...card, signatures: [{ protected: none, signature: '' }] },
      storeOf(current.publicJwk).keyFor,
    );
    assert.deepEqual(r, {
      status: 'unverified',
      reason: 'signature 1: kid new: alg none is not accepted (asymmetric algorithms only)',
    });
    await assert.rejects(
      signCard(card, { key: new Uint8Array(32), kid: 'h', alg: 'HS256' as 'ES256' }),
      /asymmetric/,
    );
  });

  it('interoperates with @a2a-js/sdk: verifies what the SDK signs (its empty-free payload), and the SDK verifies what this signs', async () => {
    const k = await keyPair('k1');
    // the API-key requirement's empty scope list is where the SDK's payload and §8.4.1's differ
    const withRequirement = { ...card, securityRequirements: [{ schemes: { apiKey: { list: [] } } }] };
    assert.notEqual(canonicalCardPayload(withRequirement), sdkCardPayload(withRequirement));
    const sdkSigned = await generateAgentCardSignature(k.privateJwk, {
      alg: 'ES256',
      kid: 'k1',
      typ: 'JOSE',
    })(withRequirement as never);
    assert.equal((await verifyCardSignatures(sdkSigned, storeOf(k.publicJwk).keyFor)).status, 'verified');

    const ours = await signCard(card, { key: k.privateJwk, kid: 'k1', alg: 'ES256' });
    await verifyAgentCardSignature(async () => k.publicJwk)(ours as never);
  });
});
