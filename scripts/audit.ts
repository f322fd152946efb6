/**
 * `npm run audit` (CI): `npm audit --omit=dev` over what the functions ship, and every advisory it
 * reports must be explained in docs/security.md (its GHSA id in the "Dependency audit" section), else
 * the run fails. When the registry's advisory service cannot be reached (some mirrors and proxies
 * answer its endpoint with 405), the audit cannot say anything: that is printed loudly and the run
 * passes, as docs/security.md#dependency-audit says; the lockfile is still what `npm ci` verified.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface AuditVia {
  source?: number;
  url?: string;
  title?: string;
  severity?: string;
}

interface AuditReport {
  error?: { code?: string; summary?: string };
  /** npm's form when the advisory endpoint itself fails (e.g. 405 from a proxy). */
  message?: string;
  statusCode?: number;
  vulnerabilities?: Record<string, { severity: string; via: (AuditVia | string)[] }>;
}

/** The GHSA ids docs/security.md explains (in its "Dependency audit" section). */
export const explainedAdvisories = (securityDoc: string): Set<string> => {
  const section = securityDoc.split(/^## /m).find((s) => s.startsWith('Dependency audit')) ?? '';
  return new Set(section.match(/GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}/g) ?? []);
};

/** The advisories of a report not explained: `<package> <GHSA id> <severity> <title>`. */
export const unexplained = (report: AuditReport, explained: Set<string>): string[] => {
  const out: string[] = [];
  for (const [name, v] of Object.entries(report.vulnerabilities ?? {})) {
    for (const via of v.via) {
      if (typeof via === 'string') continue; // reported through another package, listed under it
      const id = via.url?.match(/GHSA(?:-[a-z0-9]{4}){3}/)?.[0] ?? `advisory ${via.source}`;
      if (!explained.has(id))
        out.push(`${name} ${id} ${via.severity ?? v.severity} ${via.title ?? ''}`.trim());
    }
  }
  return out;
};

const main = () => {
  const root = join(import.meta.dirname, '..');
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8' });
  let report: AuditReport;
  try {
    report = JSON.parse(run.stdout || '{}') as AuditReport;
  } catch {
    report = { error: { summary: (run.stderr || run.stdout).slice(0, 500) } };
  }
  if (report.error || report.message || !report.vulnerabilities) {
    console.warn(
      [
        '',
        '!!! npm audit could not run: the advisory service answered',
        `!!!   ${report.message ?? report.error?.summary ?? report.error?.code ?? (run.stderr.trim().split('\n').pop() || 'nothing')}`,
        '!!! No advisory was checked in this run (docs/security.md#dependency-audit).',
        '',
      ].join('\n'),
    );
    return 0;
  }
  const left = unexplained(
    report,
    explainedAdvisories(readFileSync(join(root, 'docs', 'security.md'), 'utf8')),
  );
  if (left.length > 0) {
    console.error(`npm audit --omit=dev: ${left.length} advisory(ies) not explained in docs/security.md:`);
    for (const line of left) console.error(`  ${line}`);
    return 1;
  }
  const count = Object.keys(report.vulnerabilities).length;
  console.log(
    `npm audit --omit=dev: ${count === 0 ? 'no advisories' : `${count} package(s), every advisory explained in docs/security.md`}`,
  );
  return 0;
};

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main());
