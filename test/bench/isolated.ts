/**
 * A bench section in a process of its own: the handler modules keep the clients they built for the first
 * hub of a process (the bench's earlier sections start and stop theirs), so a section starting a hub of its
 * own after them runs in a fresh process. The section's file runs itself when it is the entry
 * (`runsAsEntry`), and prints its result on one line, tagged, which the parent reads.
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Runs `file` in a new process and answers the result it printed under `tag`. */
export const runIsolated = async <T>(file: string, tag: string): Promise<T> => {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = out.split('\n').find((l) => l.startsWith(`${tag} `));
  if (code !== 0 || !line) throw new Error(`${file} failed (exit ${code}): ${out.slice(-2000)}`);
  return JSON.parse(line.slice(tag.length + 1)) as T;
};

/** Whether the module at `url` is the process's entry (run by runIsolated). */
export const runsAsEntry = (url: string): boolean =>
  process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;

/** Prints the result for the parent, and ends the process (the hub's timers would keep it alive). */
export const reportIsolated = (tag: string, result: unknown): never => {
  process.stdout.write(`\n${tag} ${JSON.stringify(result)}\n`);
  process.exit(0);
};
