/**
 * The signing key secret in AWS Secrets Manager: its AWSCURRENT version read
 * as a key set (SigningKeys, for the signers and the JWKS function), and the
 * version calls rotation makes (SecretVersionStore, for the rotation function).
 * The secret's value is the key set's JSON (see key-set.ts).
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { type SigningKeySet, SigningKeysUnavailableError } from '../../domain/push-signing.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';
import { parseKeySet } from './key-set.ts';
import { AWSCURRENT, type SecretDescription, type SecretVersionStore } from './rotation.ts';

/** Reads the AWSCURRENT key set on every load (wrap it in `cachedKeys`). */
export class SecretsManagerKeys implements SigningKeys {
  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
  ) {}

  async load(): Promise<SigningKeySet> {
    const out = await this.client.send(
      new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: AWSCURRENT }),
    );
    if (out.SecretString === undefined) {
      throw new SigningKeysUnavailableError(`secret ${this.secretId} has no string value`);
    }
    return parseKeySet(out.SecretString, `secret ${this.secretId}`);
  }
}

export class SecretsManagerVersions implements SecretVersionStore {
  constructor(private readonly client: SecretsManagerClient) {}

  async describe(secretId: string): Promise<SecretDescription> {
    const out = await this.client.send(new DescribeSecretCommand({ SecretId: secretId }));
    return {
      rotationEnabled: out.RotationEnabled === true,
      versions: out.VersionIdsToStages ?? {},
    };
  }

  async getValue(
    secretId: string,
    select: { stage: string; versionId?: string },
  ): Promise<string | undefined> {
    try {
      const out = await this.client.send(
        new GetSecretValueCommand({
          SecretId: secretId,
          VersionStage: select.stage,
          ...(select.versionId ? { VersionId: select.versionId } : {}),
        }),
      );
      return out.SecretString;
    } catch (e) {
      if (e instanceof ResourceNotFoundException) return undefined;
      throw e;
    }
  }

  async putValue(
    secretId: string,
    versionId: string,
    value: string,
    stages: readonly string[],
  ): Promise<void> {
    await this.client.send(
      new PutSecretValueCommand({
        SecretId: secretId,
        ClientRequestToken: versionId,
        SecretString: value,
        VersionStages: [...stages],
      }),
    );
  }

  async moveStage(
    secretId: string,
    stage: string,
    toVersionId: string,
    fromVersionId: string | undefined,
  ): Promise<void> {
    await this.client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: stage,
        MoveToVersionId: toVersionId,
        ...(fromVersionId ? { RemoveFromVersionId: fromVersionId } : {}),
      }),
    );
  }
}
