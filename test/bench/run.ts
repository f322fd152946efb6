/**
 * `npm run bench`: prints the figures and writes them to .bench/results.json.
 * Not a test: nothing here asserts a time. The machine is shared and noisy,
 * so compare ratios measured in the same run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestTable } from '../support/dynamo.ts';
import { benchStore } from './store.ts';

const root = join(import.meta.dirname, '..', '..');
const sections = new Set(process.argv.slice(2));
const want = (name: string) => sections.size === 0 || sections.has(name);
const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };

process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';

if (want('store')) {
  const table = await createTestTable();
  const store = await benchStore(table);
  await table.drop();
  results.store = store;
  console.log('\nDynamoDB cost per store operation (DynamoDB Local, ReturnConsumedCapacity)');
  console.table(store.operations);
  console.log('Transition cost by history length');
  console.table(store.transitionByHistory);
  console.log('Reading the last 10 messages by history length');
  console.table(store.readLastTenByHistory);
  console.log('One whole simple task');
  console.table([store.simpleTask]);
}

const dir = join(root, '.bench');
mkdirSync(dir, { recursive: true });
const file = join(dir, 'results.json');
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${file}`);
process.exit(0);
