/**
 * Rotation of the signing key secret, in Secrets Manager's four steps (the
 * rotation Lambda, functions/signing-key-rotation.ts, is invoked once per step
 * with the same ClientRequestToken, which is the new version's id):
 *
 * - createSecret: generate a new key with jose and put the rotated set
 *   (new key first, then the current signing key, see rotatedKeySet) as the
 *   AWSPENDING version. The new key signs only KEY_ACTIVATION_DELAY_SECONDS
 *   later (at once into an empty set, the first rotation): it is published
 *   before it is used.
 * - setSecret: nothing; no other system holds the keys (the JWKS is served
 *   from the secret itself).
 * - testSecret: the pending set parses, each of its private keys signs a token
 *   that its JWKS verifies, and it still publishes the current signing key.
 * - finishSecret: move AWSCURRENT to the new version (the old one becomes AWSPREVIOUS).
 *
 * Every step may run again (Secrets Manager retries): each checks what is
 * there first. Logs name versions and key ids, never a key.
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import {
  activationOf,
  bodySha256,
  rotatedKeySet,
  type SigningKeySet,
  SigningKeysUnavailableError,
  signingKeyOf,
} from '../../domain/push-signing.ts';
import { JosePushSigner } from './jose-signer.ts';
import { generateSigningKey, parseKeySet, publicJwksOf, serializeKeySet } from './key-set.ts';
import { staticKeys } from './local.ts';

export const AWSCURRENT = 'AWSCURRENT';
export const AWSPENDING = 'AWSPENDING';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** What Secrets Manager invokes the rotation function with. */
export interface RotationEvent {
  Step: RotationStep;
  SecretId: string;
  ClientRequestToken: string;
}

export interface SecretDescription {
  rotationEnabled: boolean;
  /** Version id → its staging labels. */
  versions: Record<string, readonly string[]>;
}

/** The Secrets Manager calls rotation makes (the adapter is SecretsManagerVersions; tests fake it). */
export interface SecretVersionStore {
  describe(secretId: string): Promise<SecretDescription>;
  /** The version's SecretString; undefined when no version matches. */
  getValue(secretId: string, select: { stage: string; versionId?: string }): Promise<string | undefined>;
  putValue(secretId: string, versionId: string, value: string, stages: readonly string[]): Promise<void>;
  /** Moves `stage` to `toVersionId`, off `fromVersionId`. */
  moveStage(
    secretId: string,
    stage: string,
    toVersionId: string,
    fromVersionId: string | undefined,
  ): Promise<void>;
}

export interface RotationLog {
  info(message: string, details?: Record<string, unknown>): void;
}

export interface RotationOptions {
  /** Milliseconds since the epoch. */
  now?: () => number;
  /** Algorithm of the new key (default ES256). */
  alg?: string;
  log?: RotationLog;
}

export class RotationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationError';
  }
}

const kids = (set: SigningKeySet) => set.keys.map((k) => k.kid);

/** The current set; an empty one (the secret as the stack created it) when it holds no keys yet. */
const currentSet = async (store: SecretVersionStore, secretId: string): Promise<SigningKeySet> => {
  const text = await store.getValue(secretId, { stage: AWSCURRENT });
  if (text === undefined) throw new RotationError(`secret ${secretId} has no ${AWSCURRENT} version`);
  try {
    return await parseKeySet(text, `the ${AWSCURRENT} version of ${secretId}`);
  } catch (e) {
    if (e instanceof SigningKeysUnavailableError) return { keys: [] };
    throw e;
  }
};

const pendingSet = async (store: SecretVersionStore, event: RotationEvent): Promise<SigningKeySet> => {
  const text = await store.getValue(event.SecretId, {
    stage: AWSPENDING,
    versionId: event.ClientRequestToken,
  });
  if (text === undefined) {
    throw new RotationError(
      `secret ${event.SecretId} has no ${AWSPENDING} version ${event.ClientRequestToken}`,
    );
  }
  return parseKeySet(text, `the ${AWSPENDING} version of ${event.SecretId}`);
};

/** Runs one step of a rotation; resolves when the step is done (or was done already). */
export const rotateSigningKeys = async (
  store: SecretVersionStore,
  event: RotationEvent,
  options: RotationOptions = {},
): Promise<void> => {
  const now = options.now ?? Date.now;
  const log = options.log;
  const { SecretId: secretId, ClientRequestToken: token, Step: step } = event;

  const description = await store.describe(secretId);
  if (!description.rotationEnabled) throw new RotationError(`secret ${secretId} is not enabled for rotation`);
  const stages = description.versions[token];
  if (!stages) throw new RotationError(`version ${token} of secret ${secretId} has no stage for rotation`);
  if (stages.includes(AWSCURRENT)) {
    log?.info('rotation: the version is current already', { step, version: token });
    return;
  }
  if (!stages.includes(AWSPENDING)) {
    throw new RotationError(`version ${token} of secret ${secretId} is not ${AWSPENDING}`);
  }

  switch (step) {
    case 'createSecret': {
      const current = await currentSet(store, secretId);
      if (await store.getValue(secretId, { stage: AWSPENDING, versionId: token })) {
        log?.info('rotation: the pending version exists already', { step, version: token });
        return;
      }
      const seconds = Math.floor(now() / 1000);
      const key = await generateSigningKey({
        activeFrom: activationOf(current, seconds),
        ...(options.alg ? { alg: options.alg } : {}),
      });
      const next = rotatedKeySet(current, key, seconds);
      await store.putValue(secretId, token, serializeKeySet(next), [AWSPENDING]);
      log?.info('rotation: pending key set created', {
        step,
        version: token,
        kids: kids(next),
        activeFrom: key.active_from,
      });
      return;
    }
    case 'setSecret':
      // the keys live in this secret alone: there is nothing to update elsewhere
      log?.info('rotation: nothing to set', { step, version: token });
      return;
    case 'testSecret': {
      const pending = await pendingSet(store, event);
      const current = await currentSet(store, secretId);
      const seconds = Math.floor(now() / 1000);
      if (current.keys.length > 0) {
        const signing = signingKeyOf(current, seconds).kid;
        if (!kids(pending).includes(signing)) {
          throw new RotationError(`the pending set drops the key that signs now (${signing})`);
        }
      }
      const verifier = createLocalJWKSet(publicJwksOf(pending));
      for (const key of pending.keys.filter((k) => k.d)) {
        // sign as if the key were the only one, so each private key is tried
        const signer = new JosePushSigner({ keys: staticKeys({ keys: [key] }), now });
        const body = `rotation test ${token}`;
        const jwt = await signer.sign({
          taskId: 'rotation-test',
          body,
          audience: 'urn:synapse:rotation-test',
        });
        const { payload, protectedHeader } = await jwtVerify(jwt, verifier, {
          audience: 'urn:synapse:rotation-test',
          currentDate: new Date(now()),
        });
        if (protectedHeader.kid !== key.kid || payload.body_sha256 !== bodySha256(body)) {
          throw new RotationError(`key ${key.kid} does not verify through the pending JWKS`);
        }
      }
      log?.info('rotation: pending key set tested', { step, version: token, kids: kids(pending) });
      return;
    }
    case 'finishSecret': {
      const current = Object.entries(description.versions).find(([, s]) => s.includes(AWSCURRENT))?.[0];
      await store.moveStage(secretId, AWSCURRENT, token, current);
      log?.info('rotation: finished', { step, version: token, previous: current });
      return;
    }
    default:
      throw new RotationError(`unknown rotation step ${String(step)}`);
  }
};
