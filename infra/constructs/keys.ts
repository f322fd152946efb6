/**
 * The push signing keys (docs/push-signing.md): a Secrets Manager secret
 * holding the hub's JWK set (private keys, newest first), the rotation
 * function that rotates it (functions/signing-key-rotation.ts) and its
 * rotation schedule: every 30 days, and once right when the schedule is
 * created, so the secret holds a key set from the first deployment on.
 * A rotation adds a new key and keeps the previous one published.
 *
 * Least privilege: the rotation function alone may change the secret
 * (Describe, Get, Put, UpdateSecretVersionStage on this secret; Secrets Manager
 * of this account may invoke it, for this secret only); the JWKS function and
 * the functions that sign get GetSecretValue on it and nothing else
 * (`grantPushSigningKeys`). Encrypted with the account's aws/secretsmanager key,
 * which those principals use through Secrets Manager without a KMS grant.
 *
 * The secret's initial value is the empty set `{"keys":[]}`, constant in the
 * template: CloudFormation never writes it again (changing it would replace
 * the rotated keys), so keep it as it is.
 */
import { Aws, Duration, RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SIGNING_SECRET_ENV } from '../../shared/adapters/keys/env.ts';
import { DEFAULT_SERVICE_NAME, METRICS_NAMESPACE } from '../../shared/observability/names.ts';
import { DEFAULT_AGENT_MODULE } from '../bundling.ts';
import { HubFunction } from './function.ts';

/** Days between rotations. */
export const SIGNING_KEY_ROTATION_DAYS = 30;

/** What the JWKS function and the signers may do on the secret: read its current value. */
export const SIGNING_KEY_READ_ACTIONS = ['secretsmanager:GetSecretValue'] as const;

/** What the rotation function does on the secret (and nothing else). */
export const SIGNING_KEY_ROTATION_ACTIONS = [
  'secretsmanager:DescribeSecret',
  'secretsmanager:GetSecretValue',
  'secretsmanager:PutSecretValue',
  'secretsmanager:UpdateSecretVersionStage',
] as const;

/** The initial value of the secret (no key yet; the first rotation adds one). Never change it. */
export const EMPTY_KEY_SET = '{"keys":[]}';

export interface PushSigningKeysProps {
  /** Default SIGNING_KEY_ROTATION_DAYS. */
  rotationDays?: number;
  /**
   * What happens to the secret when it leaves the stack (default DESTROY: Secrets Manager keeps it
   * for its recovery window; the keys are not data, a new secret just publishes new ones).
   */
  removalPolicy?: RemovalPolicy;
  logRetention?: logs.RetentionDays;
}

export class PushSigningKeys extends Construct {
  readonly secret: secretsmanager.Secret;
  readonly rotation: HubFunction;
  readonly schedule: secretsmanager.CfnRotationSchedule;

  constructor(scope: Construct, id: string, props: PushSigningKeysProps = {}) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: 'Synapse: the JWK set that signs push notifications (rotated; see docs/push-signing.md)',
      secretStringValue: SecretValue.unsafePlainText(EMPTY_KEY_SET),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });

    this.rotation = new HubFunction(this, 'Rotation', {
      fn: 'signing-key-rotation',
      // nothing of the agent is imported; the bundle alias needs a module all the same
      agentModule: DEFAULT_AGENT_MODULE,
      environment: {
        POWERTOOLS_SERVICE_NAME: DEFAULT_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        LOG_LEVEL: 'INFO',
      },
      timeout: Duration.seconds(30),
      description: 'Synapse: rotates the push signing keys (Secrets Manager rotation steps)',
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    iam.Grant.addToPrincipal({
      grantee: this.rotation.function,
      actions: [...SIGNING_KEY_ROTATION_ACTIONS],
      resourceArns: [this.secret.secretArn],
    });
    this.rotation.function.addPermission('SecretsManagerRotation', {
      principal: new iam.ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceAccount: Aws.ACCOUNT_ID,
      sourceArn: this.secret.secretArn,
    });

    // L1: the L2 RotationSchedule also grants secretsmanager:GetRandomPassword on "*", which jose's key
    // generation does not need
    this.schedule = new secretsmanager.CfnRotationSchedule(this, 'Schedule', {
      secretId: this.secret.secretArn,
      rotationLambdaArn: this.rotation.function.functionArn,
      rotationRules: {
        scheduleExpression: `rate(${props.rotationDays ?? SIGNING_KEY_ROTATION_DAYS} days)`,
      },
      rotateImmediatelyOnUpdate: true,
    });
    // the immediate rotation invokes the function: its permission and its role's policy (all in
    // `this.rotation`) come first
    this.schedule.node.addDependency(this.rotation);
  }
}

/**
 * Lets a function read the signing keys: GetSecretValue on the secret alone, and the secret's ARN
 * in its environment (PUSH_SIGNING_SECRET_ARN, read by signerFromEnv). For the JWKS function and
 * every function that signs push notifications.
 */
export const grantPushSigningKeys = (secret: secretsmanager.ISecret, fn: lambda.Function): iam.Grant => {
  fn.addEnvironment(SIGNING_SECRET_ENV, secret.secretArn);
  return iam.Grant.addToPrincipal({
    grantee: fn,
    actions: [...SIGNING_KEY_READ_ACTIONS],
    resourceArns: [secret.secretArn],
  });
};
