/**
 * Composition root of the Lambda authorizer (functions/authorizer.ts): the key store and tenant
 * registry on the task table, and the JWT verifier of the configured OIDC issuer, once per container.
 * Its settings (TABLE_NAME, the AUTH_JWT_* variables) are declared in shared/config/authorizer.ts;
 * it reads no other settings (docs/configuration.md).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { JwtVerifier, type JwtVerifierConfig } from '../adapters/auth/jwt-verifier.ts';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import { DynamoAuthStore } from '../adapters/dynamodb/auth-store.ts';
import { Authenticator } from '../app/auth/authenticator.ts';
import { jwtSettingsFrom } from '../config/authorizer.ts';
import { TABLE_NAME } from '../config/deployment.ts';
import { type Env, requireSetting } from '../config/settings.ts';

/** The JWT verifier's configuration from the environment; undefined when no issuer is configured. */
export const jwtConfigFrom = (env?: Env): JwtVerifierConfig | undefined => {
  const jwt = jwtSettingsFrom(env);
  if (!jwt) return undefined;
  const { issuer, audience, jwksUrl, algorithms, tenantClaim, defaultTenant, defaultRights } = jwt;
  const { maxTokenAgeSeconds, clockToleranceSeconds } = jwt;
  return {
    issuer,
    audience,
    jwksUrl,
    ...(algorithms?.length ? { algorithms } : {}),
    ...(tenantClaim ? { tenantClaim } : {}),
    ...(defaultTenant ? { defaultTenant } : {}),
    ...(defaultRights !== undefined ? { defaultRights } : {}),
    ...(maxTokenAgeSeconds !== undefined ? { maxTokenAgeSeconds } : {}),
    ...(clockToleranceSeconds !== undefined ? { clockToleranceSeconds } : {}),
  };
};

let dynamo: DynamoDBClient | undefined;
/** The authorizer's DynamoDB client (the benchmark counts what a verdict reads through it). */
export const authDynamoClient = (): DynamoDBClient => {
  dynamo ??= awsClient(new DynamoDBClient(SDK_RETRY));
  return dynamo;
};

let instance: Authenticator | undefined;
export const authenticator = (): Authenticator => {
  if (!instance) {
    const store = new DynamoAuthStore(authDynamoClient(), requireSetting(TABLE_NAME));
    const jwt = jwtConfigFrom();
    instance = new Authenticator({
      apiKeys: store,
      tenants: store,
      ...(jwt ? { jwt: new JwtVerifier(jwt) } : {}),
    });
  }
  return instance;
};
