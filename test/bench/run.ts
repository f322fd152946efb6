/**
 * `npm run bench`: prints the figures and writes them to .bench/results.json.
 * Not a test: nothing here asserts a time. The machine is shared and noisy,
 * so compare ratios measured in the same run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestTable } from '../support/dynamo.ts';
import { measureBundles } from './bundles.ts';
import { benchRoundTrips, benchStartup, benchThroughput } from './jsonrpc.ts';
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
  console.table([store.simpleTask, store.executorTask]);
}

if (want('jsonrpc')) {
  const table = await createTestTable();
  const roundTrips = await benchRoundTrips(table);
  await table.drop();
  console.log(
    '\nDynamoDB cost per JSON-RPC method (sequential round trips; targets: send ≤ 2, get ≤ 1, cancel ≤ 2)',
  );
  console.table(roundTrips);
  const startup = await benchStartup();
  console.log(`npm start to ready: ${startup.wallMs} ms wall (hub reports ${startup.reportedMs} ms)`);
  const throughput = await benchThroughput();
  console.log('Requests per second through the local runtime');
  console.table(throughput);
  const [get, echo] = throughput;
  const ratio = get && echo ? Math.round((echo.perSecond / get.perSecond) * 100) / 100 : undefined;
  console.log(`blocking echo / GetTask throughput ratio: ${ratio}`);
  results.jsonrpc = { roundTrips, startup, throughput, echoToGetRatio: ratio };
}

if (want('bundles')) {
  const bundles = await measureBundles();
  console.log('\nFunction bundles (esbuild, as deployed) and import time vs @a2a-js/sdk/server + express');
  console.table(bundles);
  results.bundles = bundles;
}

const dir = join(root, '.bench');
mkdirSync(dir, { recursive: true });
const file = join(dir, 'results.json');
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${file}`);
process.exit(0);
