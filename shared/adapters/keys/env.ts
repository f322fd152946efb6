/**
 * The environment variables that configure push signing (read by
 * `signingKeysFromEnv` / `signerFromEnv`, set by the CDK stack and the local
 * hub). Constants only, so the CDK app imports them without jose or the SDK.
 */

/** A JWK set with private keys, as JSON (newest first): the keys themselves. Wins over the secret. */
export const SIGNING_KEYS_ENV = 'PUSH_SIGNING_KEYS';

/** ARN (or name) of the Secrets Manager secret holding the JWK set (the CDK stack sets it). */
export const SIGNING_SECRET_ENV = 'PUSH_SIGNING_SECRET_ARN';

/** The local hub's key file under --data-dir. */
export const LOCAL_KEYS_FILE = 'push-signing-keys.json';
