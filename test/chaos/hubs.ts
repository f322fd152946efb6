/**
 * The chaos run's hubs, seen from the parent: each a child process (test/chaos/hub-child.ts) in a process
 * group of its own, its output and the hub's log in one file, driven over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { FaultCounts } from '../../local/faults/layer.ts';
import type { ChildCommand, ChildReady, ChildStart } from './hub-child.ts';

const CHILD = new URL('./hub-child.ts', import.meta.url);

export interface ChaosHub extends ChildReady {
  name: string;
  logFile: string;
  command(command: 'counts'): Promise<Partial<FaultCounts>>;
  command(command: Exclude<ChildCommand, 'counts'>): Promise<void>;
  /** Stops the hub (its tables dropped), or kills its process group when it does not stop in time. */
  stop(): Promise<void>;
  /** Kills its process group at once (Ctrl-C, a failed start). */
  kill(): void;
}

export const startChaosHub = (name: string, start: ChildStart): Promise<ChaosHub> =>
  new Promise((resolve, reject) => {
    const out = openSync(start.logFile, 'a');
    const child: ChildProcess = fork(CHILD, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', out, out, 'ipc'],
      // its own group: a kill reaches whatever it started
      detached: true,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    closeSync(out);
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
    let next = 0;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
    };
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.on('exit', (code, signal) => {
      for (const p of pending.values()) p.reject(new Error(`hub ${name} exited (${code ?? signal})`));
      pending.clear();
      reject(new Error(`hub ${name} exited before it was ready (${code ?? signal}): see ${start.logFile}`));
    });
    child.on('message', (message: Record<string, unknown>) => {
      if ('ready' in message) {
        const ready = message.ready as ChildReady;
        const command = (command: ChildCommand) =>
          new Promise<unknown>((res, rej) => {
            const id = ++next;
            pending.set(id, { resolve: res, reject: rej });
            child.send({ id, command });
          });
        resolve({
          ...ready,
          name,
          logFile: start.logFile,
          command: command as ChaosHub['command'],
          stop: async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const timer = setTimeout(kill, 15_000);
            try {
              await command('stop').catch(() => undefined);
              await exited;
            } finally {
              clearTimeout(timer);
              kill();
            }
          },
          kill,
        });
        return;
      }
      if ('failed' in message) {
        kill();
        reject(new Error(`hub ${name} did not start: ${String(message.failed)}`));
        return;
      }
      const id = message.id as number;
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      if ('error' in message) p.reject(new Error(`hub ${name}: ${String(message.error)}`));
      else p.resolve(message.result);
    });
    child.send({ start });
  });
