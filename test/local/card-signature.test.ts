/**
 * The running local hub signs its agent card (docs/registry.md#trust) with the key set it signs push
 * JWTs with: the card it serves verifies with the JWKS it serves, by plain fetch, in both versions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { JWKS_PATH } from '../../shared/contracts/routes.ts';
import type { PublicJwks } from '../../shared/domain/push-signing.ts';
import { verifyCardSignatures } from '../../shared/protocol/a2a/card-signature.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

describe('the local hub signed agent card', () => {
  let hub: LocalHub;
  before(async () => {
    hub = await startLocalHub();
  });
  after(async () => {
    await hub?.stop();
  });

  test('verifies with the served JWKS, v1.0 and v0.3; a tampered copy does not', async () => {
    const jwks = (await (await fetch(`${hub.url}${JWKS_PATH}`)).json()) as PublicJwks;
    const keyFor = async ({ kid }: { kid: string }) => {
      const key = jwks.keys.find((k) => k.kid === kid);
      return key ? { key: { ...key }, trustedBy: `${hub.url}${JWKS_PATH}` } : undefined;
    };
    for (const version of ['1.0', '0.3']) {
      const res = await fetch(`${hub.url}/.well-known/agent-card.json`, {
        headers: { 'A2A-Version': version },
      });
      assert.equal(res.status, 200);
      const card = (await res.json()) as Record<string, unknown>;
      const result = await verifyCardSignatures(card, keyFor);
      assert.deepEqual(
        result,
        { status: 'verified', kid: jwks.keys[0]!.kid, trustedBy: `${hub.url}${JWKS_PATH}` },
        version,
      );
      const tampered = await verifyCardSignatures({ ...card, name: 'Someone else' }, keyFor);
      assert.equal(tampered.status, 'unverified', version);
    }
  });
});
