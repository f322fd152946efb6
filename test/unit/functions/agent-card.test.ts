/**
 * functions/agent-card.ts with a signing key set: both versions' cards carry the hub's signature,
 * verifiable with the JWKS the hub serves; the ETag follows the signature (stable per key, new after a
 * rotation); unsigned without keys, and while the keys are unavailable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createAgentCardHandler } from '../../../functions/agent-card.ts';
import { generateSigningKey, JosePushSigner, staticKeys } from '../../../shared/adapters/keys/index.ts';
import type { AgentHandler } from '../../../shared/agent/api.ts';
import { HubCardSigner } from '../../../shared/app/a2a/card-signer.ts';
import {
  rotatedKeySet,
  type SigningKeySet,
  SigningKeysUnavailableError,
} from '../../../shared/domain/push-signing.ts';
import { verifyCardSignatures } from '../../../shared/protocol/a2a/card-signature.ts';

const agent: AgentHandler = {
  describe: () => ({
    name: 'Signed',
    description: 'An agent',
    version: '1.0.0',
    skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
  }),
  execute: async () => ({ kind: 'completed' }),
};

const get = async (
  handler: ReturnType<typeof createAgentCardHandler>,
  headers: Record<string, string> = {},
) => {
  const event = {
    httpMethod: 'GET',
    path: '/.well-known/agent-card.json',
    headers: { Host: 'agent.example.com', ...headers },
    queryStringParameters: null,
    requestContext: { domainName: 'agent.example.com', stage: 'prod' },
  } as unknown as APIGatewayProxyEvent;
  const res = await handler(event);
  return { ...res, card: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : undefined };
};

/** Verifies against the JWKS the hub's JWKS function would serve for the same set. */
const verifyWith = async (set: SigningKeySet, card: object) => {
  const jwks = await new JosePushSigner({ keys: staticKeys(set) }).jwks();
  return verifyCardSignatures(card, async ({ kid }) => {
    const key = jwks.keys.find((k) => k.kid === kid);
    return key ? { key: { ...key }, trustedBy: 'the hub JWKS' } : undefined;
  });
};

describe('the agent-card handler, signing', () => {
  it('signs the v1.0 and v0.3 cards with the current key; they verify with the served JWKS', async () => {
    const set = { keys: [await generateSigningKey()] };
    const handler = createAgentCardHandler(
      async () => agent,
      async () => new HubCardSigner(staticKeys(set)),
    );
    for (const headers of [{}, { 'A2A-Version': '0.3' }] as Record<string, string>[]) {
      const res = await get(handler, headers);
      assert.equal(res.statusCode, 200);
      const signatures = res.card?.signatures as { protected: string }[];
      assert.equal(signatures.length, 1);
      const header = JSON.parse(Buffer.from(signatures[0]!.protected, 'base64url').toString());
      assert.deepEqual(header, {
        alg: 'ES256',
        typ: 'JOSE',
        kid: set.keys[0]!.kid,
        jku: 'https://agent.example.com/.well-known/jwks.json',
      });
      assert.deepEqual(await verifyWith(set, res.card!), {
        status: 'verified',
        kid: set.keys[0]!.kid,
        trustedBy: 'the hub JWKS',
      });
    }
  });

  it('keeps one signature (and ETag) per key, and signs anew after a rotation: a new ETag, still verifying', async () => {
    const first = await generateSigningKey();
    let set: SigningKeySet = { keys: [first] };
    const handler = createAgentCardHandler(
      async () => agent,
      async () => new HubCardSigner({ load: async () => set }),
    );
    const a = await get(handler);
    const b = await get(handler);
    assert.equal(a.body, b.body, 'ES256 signatures are random: the card is signed once per key');
    const etag = String(a.headers?.etag);
    assert.equal((await get(handler, { 'If-None-Match': etag })).statusCode, 304);

    // a rotated-in key active at once (activation in the past)
    const next = { ...(await generateSigningKey()), active_from: 0 };
    set = rotatedKeySet(set, next, Math.floor(Date.now() / 1000));
    const c = await get(handler);
    assert.notEqual(c.headers?.etag, etag);
    assert.equal((await get(handler, { 'If-None-Match': etag })).statusCode, 200, 'the old ETag is stale');
    assert.deepEqual(await verifyWith(set, c.card!), {
      status: 'verified',
      kid: next.kid,
      trustedBy: 'the hub JWKS',
    });
    // what the previous key signed still verifies with the JWKS after the rotation
    assert.equal((await verifyWith(set, a.card!)).status, 'verified');
  });

  it('serves the card unsigned without a key set, and while the keys are unavailable (not cached)', async () => {
    const unsignedHandler = createAgentCardHandler(
      async () => agent,
      async () => undefined,
    );
    const plain = await get(unsignedHandler);
    assert.equal(plain.card?.signatures, undefined);

    let available = false;
    const set = { keys: [await generateSigningKey()] };
    const handler = createAgentCardHandler(
      async () => agent,
      async () =>
        new HubCardSigner({
          load: async () => {
            if (!available) throw new SigningKeysUnavailableError('no keys yet');
            return set;
          },
        }),
    );
    const early = await get(handler);
    assert.equal(early.card?.signatures, undefined);
    assert.equal(early.headers?.etag, plain.headers?.etag);
    available = true;
    const later = await get(handler);
    assert.equal((later.card?.signatures as unknown[] | undefined)?.length, 1);
    assert.notEqual(later.headers?.etag, early.headers?.etag);
  });
});
