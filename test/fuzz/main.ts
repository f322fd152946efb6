/**
 * `npm run fuzz [-- --runs N] [--seed S] [--replay RUN]`: fuzzes the JSON-RPC
 * endpoint of a local hub (DynamoDB Local, the demo agent) with hostile
 * requests, prints the outcomes and a shrunk counterexample for each kind of
 * failure, and exits non-zero if any property failed. See docs/development.md.
 */
import { parseArgs } from 'node:util';
import { replayRun, runFuzz } from './runner.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    replay: { type: 'string' },
    'shrink-seconds': { type: 'string', default: '300' },
  },
});
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const runs = Number(values.runs);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(runs) || runs < 1) {
  console.error('usage: npm run fuzz -- [--runs N] [--seed S] [--replay RUN] [--shrink-seconds T]');
  process.exit(2);
}

if (values.replay !== undefined) {
  await replayRun(seed, Number(values.replay), (line) => console.log(line));
  process.exit(0);
}

console.log(
  `fuzzing ${runs} requests with seed ${seed} (replay: npm run fuzz -- --seed ${seed} --runs ${runs})`,
);
const result = await runFuzz({
  runs,
  seed,
  log: (line) => console.log(line),
  shrinkBudgetMs: Number(values['shrink-seconds']) * 1000,
});
console.log(`\n${result.report}`);
process.exit(result.failures.length > 0 ? 1 : 0);
