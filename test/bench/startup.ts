/**
 * How long `npm start` takes to be ready: wall time from spawning
 * `tsx local/main.ts` to its "ready" line, and the time the hub reports.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local.ts';

const root = join(import.meta.dirname, '..', '..');

export interface StartupResult {
  wallMs: number;
  reportedMs: number | undefined;
}

/** Wall time from `npm start` (tsx local/main.ts) to its "ready" line, and its own figure. */
export const benchStartup = async (): Promise<StartupResult> => {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'local', 'main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const result = await new Promise<StartupResult>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start not ready in 60 s:\n${out}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready in ([\d.]+) s/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ wallMs: Date.now() - started, reportedMs: Math.round(Number(m[1]) * 1000) });
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
  });
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
  return result;
};
