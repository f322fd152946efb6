/**
 * A catalog entry for unit tests: `card` in an approved, public, healthy, unsigned entry of tenant `acme`,
 * owned by `alice`; `overrides` win. Each test gives the card it reads.
 */
import type { CatalogEntry, RegistryCard } from '../../shared/domain/registry/record.ts';

export const catalogEntry = (
  id: string,
  card: RegistryCard,
  overrides: Partial<CatalogEntry> = {},
): CatalogEntry => ({
  id,
  identifier: `urn:air:example.com:acme:${id}`,
  tenant: 'acme',
  owner: 'alice',
  visibility: 'public',
  state: 'APPROVED',
  version: 1,
  card,
  verification: { status: 'unsigned' },
  health: 'healthy',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
