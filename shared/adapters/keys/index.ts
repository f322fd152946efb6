/**
 * Push signing from the environment: what the delivery worker and the JWKS
 * function call.
 *
 * - PUSH_SIGNING_KEYS (a JWK set with private keys, JSON): those keys (the local
 *   hub sets it to its generated or persisted set; anyone may set their own).
 * - else PUSH_SIGNING_SECRET_ARN: the Secrets Manager secret the CDK stack
 *   creates and rotates, read at most every KEY_CACHE_SECONDS.
 * - PUBLIC_URL: the `iss` claim.
 *
 * One signer per configuration per container (a local hub started again in
 * the same process with other keys gets a new one).
 */

import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PUBLIC_URL } from '../../config/deployment.ts';
import { PUSH_SIGNING_KEYS, PUSH_SIGNING_SECRET_ARN } from '../../config/push.ts';
import { type Env, readSetting } from '../../config/settings.ts';
import { logger } from '../../observability/index.ts';
import type { PushSigner } from '../../ports/push-signer.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';
import { awsClient, SDK_RETRY } from '../aws/clients.ts';
import { cachedKeys } from './cache.ts';
import { SIGNING_KEYS_ENV, SIGNING_SECRET_ENV } from './env.ts';
import { JosePushSigner } from './jose-signer.ts';
import { parseKeySet } from './key-set.ts';
import { SecretsManagerKeys, SecretsManagerVersions } from './secrets-manager.ts';

export { cachedKeys } from './cache.ts';
export { LOCAL_KEYS_FILE, SIGNING_KEYS_ENV, SIGNING_SECRET_ENV } from './env.ts';
export { JosePushSigner } from './jose-signer.ts';
export {
  generateSigningKey,
  InvalidKeySetError,
  parseKeySet,
  publicJwksOf,
  serializeKeySet,
} from './key-set.ts';

export { localKeySet, staticKeys } from './local.ts';
export { rotateSigningKeys } from './rotation.ts';
export { SecretsManagerKeys, SecretsManagerVersions } from './secrets-manager.ts';

let client: SecretsManagerClient | undefined;
const secretsManager = (): SecretsManagerClient => {
  client ??= awsClient(new SecretsManagerClient(SDK_RETRY));
  return client;
};

const sources = new Map<string, SigningKeys>();

/** The key source the environment names (memoized per configuration). */
export const signingKeysFromEnv = (env?: Env): SigningKeys => {
  const inline = readSetting(PUSH_SIGNING_KEYS, env);
  const secret = readSetting(PUSH_SIGNING_SECRET_ARN, env);
  const id = inline ? `inline:${inline}` : secret ? `secret:${secret}` : undefined;
  if (!id) {
    throw new Error(`push signing is not configured: set ${SIGNING_KEYS_ENV} or ${SIGNING_SECRET_ENV}`);
  }
  let source = sources.get(id);
  if (!source) {
    if (inline) {
      // parsed once; an error names the variable, never its value
      const parsed = parseKeySet(inline, SIGNING_KEYS_ENV);
      parsed.catch(() => sources.delete(id));
      source = { load: () => parsed };
    } else {
      source = cachedKeys(new SecretsManagerKeys(secretsManager(), secret!), {
        onStaleError: (error) =>
          logger.warn('push signing keys: refresh failed, signing with the cached set', {
            error: error instanceof Error ? error.message : String(error),
          }),
      });
    }
    sources.set(id, source);
  }
  return source;
};

const signers = new Map<string, PushSigner>();

/** The hub's push signer, as configured by the environment (see the module comment). */
export const signerFromEnv = (env?: Env): PushSigner => {
  const keys = signingKeysFromEnv(env);
  const issuer = readSetting(PUBLIC_URL, env);
  const id = `${readSetting(PUSH_SIGNING_KEYS, env) ?? ''}\n${readSetting(PUSH_SIGNING_SECRET_ARN, env) ?? ''}\n${issuer ?? ''}`;
  let signer = signers.get(id);
  if (!signer) {
    signer = new JosePushSigner({ keys, ...(issuer ? { issuer } : {}) });
    signers.set(id, signer);
  }
  return signer;
};

/** The rotation function's store: the secret's versions through the SDK. */
export const secretVersionsFromEnv = (): SecretsManagerVersions =>
  new SecretsManagerVersions(secretsManager());
