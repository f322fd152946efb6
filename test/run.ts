/**
 * `npm test`: starts one DynamoDB Local for the whole run, then runs the test
 * files with Node's test runner. Suites: unit, integration, local, infra, e2e, fuzz, package
 * (all by default; pass names to run some). `--compliance` (npm run cli:compliance) runs the test files
 * that prove a2a-cli requirements (their test names carry `[A2ACLI_…]`) and writes the CLI's compliance
 * report from the outcomes (test/cli-compliance/report.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { STARTUP_JVM_OPTIONS, startDynamoLocal } from '../local/dynamodb-local.ts';

const root = join(import.meta.dirname, '..');
// the suites whose files run longest first, so the short ones fill the gaps at the end of the run
const ALL_SUITES = ['package', 'e2e', 'fuzz', 'local', 'infra', 'integration', 'unit'];
const NEEDS_DYNAMO = new Set(['integration', 'local', 'e2e', 'fuzz', 'package']);

const testFiles = (dir: string): string[] => {
  try {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [path] : [];
    });
  } catch {
    return [];
  }
};

/**
 * Test files run as processes, most of their time spent waiting on the hub, DynamoDB Local and timers:
 * three at a time keep these 2-core machines busy without starving the timing of any.
 */
const CONCURRENCY = Math.max(2, availableParallelism() + 1);

const args = process.argv.slice(2);
const compliance = args.includes('--compliance');
const named = args.filter((a) => a !== '--compliance');
const suites = named.length ? named : ALL_SUITES;
const files = suites
  .flatMap((s) => testFiles(join(root, 'test', s)))
  .filter((f) => !compliance || readFileSync(f, 'utf8').includes('[A2ACLI_'))
  .map((f) => relative(root, f));
if (files.length === 0) {
  console.error(`no test files found for suites: ${suites.join(', ')}`);
  process.exit(1);
}

// one DynamoDB Local serves every file and hub of the run: tuned to run long, not to start fast
const dynamo = suites.some((s) => NEEDS_DYNAMO.has(s))
  ? await startDynamoLocal({ tuning: 'throughput' })
  : undefined;
const outcomesDir = compliance ? mkdtempSync(join(tmpdir(), 'synapse-compliance-')) : undefined;
const reporters = outcomesDir
  ? [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./test/cli-compliance/reporter.mjs',
      `--test-reporter-destination=${join(outcomesDir, 'outcomes.json')}`,
    ]
  : [];
const code = await new Promise<number>((resolve) => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, ...reporters, ...files],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        // the hubs the tests start make their tables on it too (local/hub.ts), rather than a JVM each
        ...(dynamo
          ? { SYNAPSE_TEST_DYNAMO_ENDPOINT: dynamo.endpoint, SYNAPSE_DYNAMO_ENDPOINT: dynamo.endpoint }
          : {}),
        // the hubs that start their own DynamoDB Local (those with a data directory) live seconds: the
        // JIT's second tier and parallel GC threads would cost more CPU than they save
        SYNAPSE_DYNAMO_JVM: STARTUP_JVM_OPTIONS.join(' '),
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    },
  );
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
await dynamo?.stop();
if (outcomesDir) {
  const { writeReport, REPORT_MD } = await import('./cli-compliance/report.ts');
  const outcomes = JSON.parse(readFileSync(join(outcomesDir, 'outcomes.json'), 'utf8'));
  const report = writeReport(outcomes, 'npm run cli:compliance');
  rmSync(outcomesDir, { recursive: true, force: true });
  console.error(`${relative(root, REPORT_MD)}: tier ${report.report.tier_claimed} claimed`);
}
process.exit(code);
