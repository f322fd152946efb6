/**
 * JWKS (GET /.well-known/jwks.json): the public keys push receivers verify the
 * hub's push JWTs with (docs/push-signing.md). Public, cacheable for
 * JWKS_MAX_AGE_SECONDS, with ETag / 304. The keys come from the signing key
 * set the environment names (PUSH_SIGNING_KEYS, or the Secrets Manager secret
 * of PUSH_SIGNING_SECRET_ARN, re-read every few minutes so a rotation shows).
 * While there is no key set yet (a new stack before its first rotation): 503.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { signerFromEnv } from '../shared/adapters/keys/index.ts';
import { lowerCaseHeaders } from '../shared/adapters/lambda/http.ts';
import { JWKS_MAX_AGE_SECONDS, SigningKeysUnavailableError } from '../shared/domain/push-signing.ts';
import { logger, withObservability } from '../shared/observability/index.ts';
import type { PushSigner } from '../shared/ports/push-signer.ts';

export const createJwksHandler =
  (signer: () => Pick<PushSigner, 'jwks'> = signerFromEnv) =>
  async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    let body: string;
    try {
      body = JSON.stringify(await signer().jwks());
    } catch (e) {
      // the message names the source of the keys, never a key
      logger.error('JWKS: no signing keys to publish', { error: e instanceof Error ? e.message : String(e) });
      return {
        statusCode: 503,
        headers: {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          ...(e instanceof SigningKeysUnavailableError ? { 'retry-after': '30' } : {}),
        },
        body: JSON.stringify({ message: 'The signing keys are not available yet' }),
      };
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const headers = { etag, 'cache-control': `public, max-age=${JWKS_MAX_AGE_SECONDS}` };
    const cached =
      lowerCaseHeaders(event.headers)
        ['if-none-match']?.split(',')
        .map((t) => t.trim()) ?? [];
    if (cached.includes(etag) || cached.includes('*')) return { statusCode: 304, headers, body: '' };
    return { statusCode: 200, headers: { ...headers, 'content-type': 'application/json' }, body };
  };

export const jwksHandler = createJwksHandler();

export const handler = withObservability(jwksHandler, { functionName: 'jwks' });
