/**
 * Discovery over the catalog a container holds in memory (docs/registry.md#discovery): the full-text
 * index kept current from the store's feed (./catalog.ts), and search, explore and browse answer from it
 * in ARD's shapes. What a caller sees is
 * what its principal may: public entries, its tenant's `tenant` entries, its own `private` ones.
 */
import { ValidationError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import {
  type CatalogFilter,
  parseFilter,
  parseFilterExpression,
  parseOrderBy,
} from '../../domain/registry/filter.ts';
import type { CatalogEntry } from '../../domain/registry/record.ts';
import { visibilityKeyOf, visibleTo } from '../../domain/registry/visibility.ts';
import * as z from '../../validation/zod.ts';
import type { Catalog } from './catalog.ts';
import { type CatalogIndex, toCatalogEntryJson, toSearchResultJson } from './catalog-index.ts';
import { RegistryError } from './errors.ts';
import { checked, type Discovery } from './http-api.ts';

/** The public AI Catalog lists at most this many entries, the most recently changed (docs/registry.md#limits). */
export const AI_CATALOG_MAX_ENTRIES = 1_000;

/** The catalog discovery reads: the full-text index, kept current from the store's feed. */
export type DiscoveryCatalog = Catalog<CatalogIndex>;

const queryModel = z.strictObject({
  text: z.optional(z.string()),
  filter: z.optional(z.record(z.string(), z.unknown())),
});

const searchSchema = z.strictObject({
  query: queryModel,
  federation: z.optional(z.enum(['auto', 'referrals', 'none'])),
  pageSize: z.optional(z.int()),
  pageToken: z.optional(z.string().check(z.maxLength(2048))),
});

const exploreSchema = z.strictObject({
  query: z.optional(queryModel),
  resultType: z.strictObject({
    facets: z.array(
      z.strictObject({
        field: z.string().check(z.maxLength(256)),
        limit: z.optional(z.int()),
        minCount: z.optional(z.int()),
      }),
    ),
  }),
});

const filterOf = (raw: unknown): CatalogFilter | undefined => {
  if (raw === undefined) return undefined;
  const parsed = parseFilter(raw);
  if (!parsed.ok) throw new RegistryError('INVALID_ARGUMENT', 'query.filter is not valid', parsed.errors);
  return parsed.filter;
};

/** Unreachable agents are left out unless the filter asks for them by health (docs/registry.md#health). */
const includeUnhealthy = (filter: CatalogFilter | undefined): boolean => filter?.health !== undefined;

/** The index's refusals (a bad page token, page size, facet) as ARD's INVALID_ARGUMENT. */
const asked = <T>(run: () => T): T => {
  try {
    return run();
  } catch (e) {
    // the index's messages already start with the field they name (`pageSize: …`)
    if (e instanceof ValidationError) throw new RegistryError('INVALID_ARGUMENT', e.message);
    throw e;
  }
};

export class CatalogDiscovery implements Discovery {
  constructor(
    private readonly catalog: DiscoveryCatalog,
    /** This registry's base URL (ARD's `source` of each result), e.g. `https://hub.example/registry`. */
    private readonly source: () => string,
    private readonly host: { displayName: string },
  ) {}

  async search(principal: Principal, body: unknown): Promise<unknown> {
    const input = checked(searchSchema, body);
    if (input.query.text === undefined || input.query.text.trim() === '')
      throw new RegistryError(
        'INVALID_ARGUMENT',
        'query.text: required (ARD search is by text; browse lists by filter)',
      );
    const filter = filterOf(input.query.filter);
    const index = await this.catalog.current();
    const page = asked(() =>
      index.search({
        text: input.query.text!,
        ...(filter ? { filter } : {}),
        includeUnhealthy: includeUnhealthy(filter),
        visibleTo: visibleTo(principal),
        visibilityKey: visibilityKeyOf(principal),
        ...(input.pageSize !== undefined ? { pageSize: input.pageSize } : {}),
        ...(input.pageToken !== undefined ? { pageToken: input.pageToken } : {}),
      }),
    );
    const source = this.source();
    return {
      results: page.results.map((hit) => toSearchResultJson(hit, source)),
      ...(page.pageToken ? { pageToken: page.pageToken } : {}),
    };
  }

  async explore(principal: Principal, body: unknown): Promise<unknown> {
    const input = checked(exploreSchema, body);
    const filter = filterOf(input.query?.filter);
    const index = await this.catalog.current();
    return asked(() =>
      index.explore({
        ...(input.query?.text ? { text: input.query.text } : {}),
        ...(filter ? { filter } : {}),
        facets: input.resultType.facets.map((f) => ({
          field: f.field,
          ...(f.limit !== undefined ? { limit: f.limit } : {}),
          ...(f.minCount !== undefined ? { minCount: f.minCount } : {}),
        })),
        includeUnhealthy: includeUnhealthy(filter),
        visibleTo: visibleTo(principal),
        visibilityKey: visibilityKeyOf(principal),
      }),
    );
  }

  async browse(principal: Principal, query: Readonly<Record<string, string | undefined>>): Promise<unknown> {
    let filter: CatalogFilter | undefined;
    if (query.filter !== undefined && query.filter.trim() !== '') {
      const parsed = parseFilterExpression(query.filter);
      if (!parsed.ok) throw new RegistryError('INVALID_ARGUMENT', 'filter is not valid', parsed.errors);
      filter = parsed.filter;
    }
    const orderBy = parseOrderBy(query.orderBy);
    if (!orderBy.ok) throw new RegistryError('INVALID_ARGUMENT', 'orderBy is not valid', orderBy.errors);
    let pageSize: number | undefined;
    if (query.pageSize !== undefined) {
      pageSize = Number(query.pageSize);
      if (!Number.isInteger(pageSize))
        throw new RegistryError('INVALID_ARGUMENT', 'pageSize: a whole number from 1 to 100');
    }
    const index = await this.catalog.current();
    const page = asked(() =>
      index.browse({
        ...(filter ? { filter } : {}),
        orderBy: orderBy.value,
        includeUnhealthy: includeUnhealthy(filter),
        visibleTo: visibleTo(principal),
        visibilityKey: visibilityKeyOf(principal),
        ...(pageSize !== undefined ? { pageSize } : {}),
        ...(query.pageToken !== undefined ? { pageToken: query.pageToken } : {}),
      }),
    );
    const source = this.source();
    return {
      items: page.items.map((entry) => toCatalogEntryJson(entry, source)),
      total: page.total,
      ...(page.pageToken ? { pageToken: page.pageToken } : {}),
    };
  }

  async entry(principal: Principal, id: string): Promise<unknown> {
    const entry = (await this.catalog.current()).get(id);
    if (!entry || !visibleTo(principal)(entry)) throw new RegistryError('NOT_FOUND', 'No such agent');
    return toCatalogEntryJson(entry, this.source());
  }

  /** The AI Catalog (ard-spec ai-catalog.schema.json): approved public entries, cards inline. */
  async aiCatalog(): Promise<unknown> {
    const index = await this.catalog.current();
    const entries: CatalogEntry[] = [];
    let pageToken: string | undefined;
    do {
      const page = index.browse({
        orderBy: [{ field: 'updatedAt', direction: 'DESC' }],
        includeUnhealthy: true,
        visibleTo: visibleTo(),
        visibilityKey: visibilityKeyOf(),
        pageSize: 100,
        ...(pageToken ? { pageToken } : {}),
      });
      entries.push(...page.items);
      pageToken = page.pageToken;
    } while (pageToken && entries.length < AI_CATALOG_MAX_ENTRIES);
    const source = this.source();
    return {
      specVersion: '1.0',
      host: { displayName: this.host.displayName },
      entries: entries.slice(0, AI_CATALOG_MAX_ENTRIES).map((entry) => toCatalogEntryJson(entry, source)),
    };
  }
}
