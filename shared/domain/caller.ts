/** Who asks for a task operation: the tenant and the authenticated principal (docs/security.md). */
export interface Caller {
  tenant: string;
  /** The authenticated principal; message ids are de-duplicated per owner. */
  owner: string;
}
