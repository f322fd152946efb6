/** The tenants the hub knows (shared/adapters/dynamodb/auth-store.ts, docs/security.md). */
export interface TenantRecord {
  tenant: string;
  /** The value of the tenant's API Gateway API key in the hub's usage plan (a usage identifier, no secret). */
  usageKey: string;
  createdAt: string;
  disabledAt?: string;
}

export interface TenantRegistry {
  getTenant(tenant: string): Promise<TenantRecord | undefined>;
  putTenant(record: TenantRecord): Promise<void>;
  listTenants(): Promise<TenantRecord[]>;
}
