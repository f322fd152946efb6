/**
 * The CLI's compliance report (docs/cli-compliance.yaml, written by `npm run cli:compliance`) against the
 * a2a-cli registry and the tests as they are now: every identifier present, the rollup recomputed from the
 * statuses (fail-closed, COMPLIANCE.md Appendix A.3), and no requirement reported otherwise than the tests
 * that carry its identifier can show — a test added or removed since the report was made fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { type ComplianceReport, REPORT_YAML, summarise } from '../../cli-compliance/report.ts';
import { DEFAULTS, ERROR_CODES, REQUIREMENTS, tagsOf } from '../../cli-compliance/requirements.ts';

const TEST_ROOT = join(import.meta.dirname, '..', '..');

const testSources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testSources(path);
    return name.endsWith('.test.ts') ? [readFileSync(path, 'utf8')] : [];
  });

/** Every identifier some test's name carries today. */
const tagged = new Set(testSources(TEST_ROOT).flatMap((source) => tagsOf(source)));
const report = parse(readFileSync(REPORT_YAML, 'utf8')) as ComplianceReport;

describe('the a2a-cli compliance report', () => {
  it('the registry is COMPLIANCE.md’s: 39 identifiers in Tier 1, 15 in Tier 2, 12 in Tier 3, none twice', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(
      [1, 2, 3].map((t) => REQUIREMENTS.filter((r) => r.tier === t).length),
      [39, 15, 12],
    );
  });

  it('every identifier a test carries is one the registry knows', () => {
    const known = new Set([
      ...REQUIREMENTS.map((r) => r.id),
      ...Object.keys(DEFAULTS).map((k) => `A2ACLI_DEFAULT_001/${k}`),
      ...ERROR_CODES,
    ]);
    assert.deepEqual(
      [...tagged].filter((t) => !known.has(t)),
      [],
    );
  });

  it('lists every identifier, with the rollup its statuses give and the designation conformant', () => {
    assert.deepEqual(Object.keys(report.requirements).sort(), REQUIREMENTS.map((r) => r.id).sort());
    for (const tier of [1, 2, 3])
      assert.deepEqual(report.summary[`tier_${tier}`], summarise(report.requirements, tier), `tier ${tier}`);
    assert.equal(report.report.designation, 'conformant');
    let claimed = 0;
    while (claimed < 3 && report.summary[`tier_${claimed + 1}`]?.satisfied) claimed++;
    assert.equal(report.report.tier_claimed, claimed);
    for (const [id, r] of Object.entries(report.requirements))
      if (r.status !== 'pass') assert.ok(r.note, `${id} is ${r.status} and says why`);
    if (report.requirements.A2ACLI_DEFAULT_001?.status === 'pass')
      for (const row of Object.values(report.default_001_breakdown))
        assert.deepEqual([row.shipped, row.overridable], ['yes', 'yes']);
  });

  it('is as current as the tests: a requirement passes only while a test carries it, and is measured once one does', () => {
    for (const req of REQUIREMENTS) {
      const status = report.requirements[req.id]?.status;
      if (status === 'pass') assert.ok(tagged.has(req.id), `${req.id} passes but no test carries it now`);
      if (tagged.has(req.id))
        assert.notEqual(status, 'not_measured', `${req.id} has a test now: run npm run cli:compliance`);
    }
  });
});
