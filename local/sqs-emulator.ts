/**
 * `local-aws-sqs`, loaded with one correction: it counts a ChangeMessageVisibility as a receive
 * (ApproximateReceiveCount + 1), which SQS does not (its ApproximateReceiveCount counts receives). The
 * hub's consumers change a failed record's visibility for their backoff (shared/adapters/sqs/retry.ts), so
 * without it a failing record would reach its queue's maxReceiveCount after half the receives it gets on
 * AWS, and be moved to the DLQ by the emulator at the visibility change, before its consumer's last receive
 * (docs/reliability.md#queue-and-stream-consumers). The version is pinned (package.json); the load fails if the counting
 * it corrects is not found.
 */
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';

type Emulator = typeof import('local-aws-sqs');

/** The emulator's one place that sets a message invisible: `i` is true for a visibility change. */
const COUNTS_EVERY_CHANGE = 'let n=Number(t.record.attributes.ApproximateReceiveCount)+1;';
const COUNTS_RECEIVES = 'let n=Number(t.record.attributes.ApproximateReceiveCount)+(i?0:1);';

let loaded: Emulator | undefined;

export const loadSqsEmulator = (): Emulator => {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const file = require.resolve('local-aws-sqs');
  const source = readFileSync(file, 'utf8');
  if (source.split(COUNTS_EVERY_CHANGE).length !== 2)
    throw new Error(
      `local-aws-sqs at ${file} is not the version local/sqs-emulator.ts corrects (its receive count)`,
    );
  const patched = new Module(file) as Module & {
    _compile(code: string, filename: string): void;
    paths: string[];
  };
  patched.filename = file;
  patched.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
    dirname(file),
  );
  patched._compile(source.replace(COUNTS_EVERY_CHANGE, COUNTS_RECEIVES), file);
  loaded = patched.exports as Emulator;
  return loaded;
};
