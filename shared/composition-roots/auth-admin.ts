/**
 * Composition root of the administration of tenants and keys (`npm run auth`, `synapse admin`): the key
 * store and tenant registry on the hub's table, with the SDK's usual credentials and region (none needed
 * against the local hub's DynamoDB Local: ../adapters/aws/cli-dynamo-config.ts), and API Gateway when the
 * stack's REST API and usage plan are named.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { apiGatewayUsage } from '../adapters/aws/api-gateway-usage.ts';
import { cliDynamoConfig } from '../adapters/aws/cli-dynamo-config.ts';
import { DynamoAuthStore } from '../adapters/dynamodb/auth-store.ts';
import { AuthAdmin, type AuthAdminDeps } from '../app/auth/admin.ts';

export interface AuthAdminSettings {
  /** The hub's table (TABLE_NAME). */
  table: string;
  /** The stack's outputs (SYNAPSE_REST_API_ID, SYNAPSE_USAGE_PLAN_ID, SYNAPSE_STAGE_NAME): on AWS only. */
  restApiId?: string;
  usagePlanId?: string;
  stageName?: string;
  /** The environment of the CLI that runs it, which the DynamoDB client's settings come from. */
  env: NodeJS.ProcessEnv;
}

/** The administration, what it is made of, and what releases its client. */
export const authAdmin = (
  settings: AuthAdminSettings,
): { admin: AuthAdmin; deps: AuthAdminDeps; close: () => void } => {
  const client = new DynamoDBClient(cliDynamoConfig(settings.env));
  const store = new DynamoAuthStore(client, settings.table);
  const { restApiId, usagePlanId, stageName } = settings;
  const deps: AuthAdminDeps = {
    keys: store,
    tenants: store,
    ...(restApiId && usagePlanId ? { gateway: apiGatewayUsage(restApiId, usagePlanId, stageName) } : {}),
  };
  return { admin: new AuthAdmin(deps), deps, close: () => client.destroy() };
};
