/** functions/jwks.ts: the JWKS answer (cacheable, ETag / 304) and 503 while there are no keys. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createJwksHandler } from '../../../functions/jwks.ts';
import { generateSigningKey, JosePushSigner, staticKeys } from '../../../shared/adapters/keys/index.ts';
import { SigningKeysUnavailableError } from '../../../shared/domain/push-signing.ts';

const event = (headers: Record<string, string> = {}) =>
  ({ httpMethod: 'GET', path: '/.well-known/jwks.json', headers }) as unknown as APIGatewayProxyEvent;

describe('JWKS handler', () => {
  it('answers the public keys, cacheable for 5 minutes, with an ETag and 304', async () => {
    const key = await generateSigningKey();
    const signer = new JosePushSigner({ keys: staticKeys({ keys: [key] }) });
    const handler = createJwksHandler(() => signer);
    const res = await handler(event());
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers?.['content-type'], 'application/json');
    assert.equal(res.headers?.['cache-control'], 'public, max-age=300');
    const body = JSON.parse(res.body);
    assert.equal(body.keys[0].kid, key.kid);
    assert.ok(!res.body.includes(String(key.d)));
    const etag = String(res.headers?.etag);
    assert.match(etag, /^"[\w-]+"$/);
    const again = await handler(event({ 'If-None-Match': etag }));
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  it('answers 503 (not cached) while the key set is empty, and logs no key', async () => {
    const handler = createJwksHandler(() => ({
      jwks: async () => {
        throw new SigningKeysUnavailableError('secret arn:x holds no keys yet');
      },
    }));
    const res = await handler(event());
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers?.['cache-control'], 'no-store');
    assert.equal(res.headers?.['retry-after'], '30');
  });
});
