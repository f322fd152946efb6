/**
 * Rotation of the push signing keys: invoked by Secrets Manager once per
 * rotation step (createSecret, setSecret, testSecret, finishSecret) on the
 * secret the CDK stack creates (infra/constructs/keys.ts), every 30 days and
 * once right after the secret is created. The steps are in
 * shared/adapters/keys/rotation.ts.
 */
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { rotateSigningKeys, secretVersionsFromEnv } from '../shared/adapters/keys/index.ts';
import type { SecretVersionStore } from '../shared/adapters/keys/rotation.ts';
import { logger, withObservability } from '../shared/observability/index.ts';

export const createRotationHandler =
  (store: () => SecretVersionStore = secretVersionsFromEnv) =>
  async (event: SecretsManagerRotationEvent): Promise<void> => {
    logger.appendKeys({ rotationStep: event.Step, secretVersion: event.ClientRequestToken });
    await rotateSigningKeys(store(), event, {
      log: { info: (message, details = {}) => logger.info(message, details) },
    });
  };

export const handler = withObservability(createRotationHandler(), { functionName: 'signing-key-rotation' });
