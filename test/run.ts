/**
 * `npm test`: starts one DynamoDB Local for the whole run, then runs the test
 * files with Node's test runner. Suites: unit, integration, local, infra, e2e, fuzz
 * (all by default; pass names to run some).
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startDynamoLocal } from '../local/dynamodb-local.ts';

const root = join(import.meta.dirname, '..');
const ALL_SUITES = ['unit', 'integration', 'local', 'infra', 'e2e', 'fuzz'];
const NEEDS_DYNAMO = new Set(['integration', 'local', 'e2e', 'fuzz']);

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

const suites = process.argv.slice(2).length ? process.argv.slice(2) : ALL_SUITES;
const files = suites.flatMap((s) => testFiles(join(root, 'test', s))).map((f) => relative(root, f));
if (files.length === 0) {
  console.error(`no test files found for suites: ${suites.join(', ')}`);
  process.exit(1);
}

const dynamo = suites.some((s) => NEEDS_DYNAMO.has(s)) ? await startDynamoLocal() : undefined;
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...(dynamo ? { SYNAPSE_TEST_DYNAMO_ENDPOINT: dynamo.endpoint } : {}),
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  });
  child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
await dynamo?.stop();
process.exit(code);
