/**
 * The agent-card function's card signer (docs/registry.md#trust): the push-signing key set the
 * environment names (PUSH_SIGNING_KEYS or PUSH_SIGNING_SECRET_ARN, as the JWKS function reads it), or
 * none when neither is set. Imported on the first card request, not at cold start: the Secrets Manager
 * client is not in the card's import time.
 */
import { signingKeysFromEnv } from '../adapters/keys/index.ts';
import { HubCardSigner } from '../app/a2a/card-signer.ts';
import { PUSH_SIGNING_KEYS, PUSH_SIGNING_SECRET_ARN } from '../config/push.ts';
import { type Env, readSetting } from '../config/settings.ts';
import type { SigningKeys } from '../ports/signing-keys.ts';

const signers = new WeakMap<SigningKeys, HubCardSigner>();

/** The hub's card signer, one per key source; undefined when no signing keys are configured. */
export const hubCardSignerFromEnv = (env?: Env): HubCardSigner | undefined => {
  if (!readSetting(PUSH_SIGNING_KEYS, env) && !readSetting(PUSH_SIGNING_SECRET_ARN, env)) return undefined;
  const keys = signingKeysFromEnv(env);
  let signer = signers.get(keys);
  if (!signer) {
    signer = new HubCardSigner(keys);
    signers.set(keys, signer);
  }
  return signer;
};
