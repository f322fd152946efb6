/**
 * What the admin of tenants and keys needs of API Gateway (docs/security.md#throttling): a tenant's
 * usage key in the hub's usage plan, and the authorizer cache flushed when a key is revoked. Absent
 * locally, where the local gateway throttles by the recorded usage key itself.
 */
export interface UsageGateway {
  /** A new API Gateway API key of `tenant`, of value `value`, in the hub's usage plan. */
  createTenantKey(tenant: string, value: string): Promise<void>;
  /** No cached verdict outlives a revocation. */
  flushAuthorizerCache(): Promise<void>;
}
