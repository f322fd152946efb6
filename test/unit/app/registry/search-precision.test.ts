/**
 * The quality gate of registry search (docs/registry.md#search): on the labelled fixture
 * (test/fixtures/registry), an agent the query means is among the first three results for at least 85%
 * of the queries. A ratio of right answers, not a timing. The figures: `npx tsx test/bench/registry-precision.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixtureEntries, measurePrecision } from '../../../bench/registry-precision.ts';

describe('registry search precision on the labelled fixture', () => {
  it('is large enough to mean something', () => {
    assert.ok(fixtureEntries().length >= 110);
    assert.ok(measurePrecision().queries >= 35);
  });

  it('puts an expected agent in the top 3 for at least 85% of queries', () => {
    const report = measurePrecision();
    assert.ok(
      report.top3 >= 0.85,
      `top-3 ${(report.top3 * 100).toFixed(1)}%; misses:\n${report.misses.map((m) => `  ${m.query} → ${m.got.join(', ')}`).join('\n')}`,
    );
    assert.ok(report.top1 <= report.top3);
  });
});
