/**
 * How often registry search puts the agent a person meant first, or in its first three: the labelled
 * fixture (test/fixtures/registry/cards.json, queries.json) run through the real CatalogIndex. The
 * queries are phrased as users would, not in the cards' words; a query names every agent that would be a
 * right answer. The goal (docs/registry.md#search) is ≥ 85% in the top 3, held by
 * test/unit/app/registry/search-precision.test.ts. Standalone: `npx tsx test/bench/registry-precision.ts`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CatalogIndex } from '../../shared/app/registry/catalog-index.ts';
import { parseFilter } from '../../shared/domain/registry/filter.ts';
import type { CatalogEntry, RegistryCard } from '../../shared/domain/registry/record.ts';

interface FixtureCard {
  id: string;
  identifier: string;
  card: RegistryCard;
}
interface FixtureQuery {
  text: string;
  filter?: unknown;
  expected: string[];
}

export interface PrecisionReport {
  queries: number;
  /** Share of queries whose first result is an expected agent (0–1). */
  top1: number;
  /** Share of queries with an expected agent among the first three results (0–1). */
  top3: number;
  /** The queries whose first three held no expected agent, and what they returned instead. */
  misses: { query: string; expected: string[]; got: string[] }[];
}

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/registry/${name}`, import.meta.url), 'utf8'));

export function fixtureEntries(): CatalogEntry[] {
  return (fixture('cards.json') as FixtureCard[]).map((card) => ({
    id: card.id,
    identifier: card.identifier,
    tenant: 'fixture',
    owner: 'fixture',
    visibility: 'public',
    state: 'APPROVED',
    version: 1,
    card: card.card,
    verification: { status: 'unsigned' },
    health: 'healthy',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }));
}

export function measurePrecision(): PrecisionReport {
  const index = new CatalogIndex();
  for (const entry of fixtureEntries()) index.upsert(entry);
  const queries = fixture('queries.json') as FixtureQuery[];
  let top1 = 0;
  let top3 = 0;
  const misses: PrecisionReport['misses'] = [];
  for (const query of queries) {
    const filter = parseFilter(query.filter);
    if (!filter.ok) throw new Error(`queries.json: ${query.text}: ${filter.errors.join('; ')}`);
    const { results } = index.search({
      text: query.text,
      filter: filter.filter,
      visibleTo: () => true,
      pageSize: 3,
    });
    const got = results.map((hit) => hit.entry.id);
    if (got[0] !== undefined && query.expected.includes(got[0])) top1++;
    if (got.some((id) => query.expected.includes(id))) top3++;
    else misses.push({ query: query.text, expected: query.expected, got });
  }
  return { queries: queries.length, top1: top1 / queries.length, top3: top3 / queries.length, misses };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = measurePrecision();
  console.log(
    `registry search precision over ${report.queries} queries: top-1 ${(report.top1 * 100).toFixed(1)}%, top-3 ${(report.top3 * 100).toFixed(1)}%`,
  );
  for (const miss of report.misses) {
    console.log(
      `  miss: "${miss.query}" expected ${miss.expected.join(' | ')}, got ${miss.got.join(', ') || 'nothing'}`,
    );
  }
}
