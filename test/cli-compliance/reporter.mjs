/**
 * A node:test reporter (`--test-reporter`) that writes the outcome of every test and suite as one JSON
 * array of `{ file, name, passed }`: what the CLI's compliance report is made from
 * (test/cli-compliance/report.ts reads the a2a-cli identifiers in the names). Plain JavaScript: the test
 * runner loads reporters before any loader hook.
 */
import { relative } from 'node:path';

export default async function* outcomesReporter(source) {
  const outcomes = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    outcomes.push({
      file: relative(process.cwd(), event.data.file ?? ''),
      name: event.data.name,
      // a skipped or todo test proves nothing
      passed: event.type === 'test:pass' && !event.data.skip && !event.data.todo,
    });
  }
  yield `${JSON.stringify(outcomes, null, 1)}\n`;
}
