/** The hub's usage plan and authorizer cache on API Gateway (../../ports/usage-gateway.ts). */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  FlushStageAuthorizersCacheCommand,
} from '@aws-sdk/client-api-gateway';
import type { UsageGateway } from '../../ports/usage-gateway.ts';

/** From the stack's outputs: the REST API, its usage plan, its stage. */
export const apiGatewayUsage = (
  restApiId: string,
  usagePlanId: string,
  stageName = 'prod',
  client: APIGatewayClient = new APIGatewayClient({}),
): UsageGateway => ({
  createTenantKey: async (tenant, value) => {
    const key = await client.send(
      new CreateApiKeyCommand({ name: `synapse-tenant-${tenant}`, enabled: true, value, tags: { tenant } }),
    );
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
  },
  flushAuthorizerCache: async () => {
    await client.send(new FlushStageAuthorizersCacheCommand({ restApiId, stageName }));
  },
});
