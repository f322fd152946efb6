/**
 * The crash figure: `npm start --data-dir` is killed (SIGKILL of its whole
 * process group, DynamoDB Local included) while 10 tasks are queued, then
 * started again on the same data. Measured: how long after the restart (the
 * new process being spawned) every one of the 10 tasks has started.
 * test/local/restart.test.ts proves the same scenario loses nothing; this
 * file only times it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local.ts';
import { root, run, waitForOutput } from '../local/fixtures/process.ts';

export interface CrashResult {
  queued: number;
  /** Restart (spawn) to the hub's ready line. */
  restartToReadyMs: number;
  /** Restart to the moment every queued task had left SUBMITTED. */
  restartToAllStartedMs: number;
  /** Restart to every queued task completed (the agent completes at once). */
  restartToAllCompletedMs: number;
}

const rpc = async (url: string, method: string, params: unknown) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as {
    result?: { id?: string; task?: { id: string }; status?: { state: string } };
  };
};

export const benchCrash = async (queued = 10): Promise<CrashResult> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'synapse-crash-bench-'));
  const gate = join(dataDir, 'gate');
  writeFileSync(gate, 'closed');
  const port = await freePort();
  const env = {
    PORT: String(port),
    AGENT_MODULE: join(root, 'test', 'local', 'fixtures', 'gated-agent.ts'),
    SYNAPSE_TEST_GATE: gate,
    SYNAPSE_QUIET_EVENTS: '1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const url = `http://127.0.0.1:${port}`;
  const main = join(root, 'local', 'main.ts');
  const runs = [run(main, env, ['--data-dir', dataDir], true)];
  try {
    await waitForOutput(runs[0]!, /ready in/, 60_000);
    const ids: string[] = [];
    for (let i = 0; i < queued; i++) {
      const sent = await rpc(url, 'SendMessage', {
        message: { messageId: `queued-${i}`, role: 'ROLE_USER', parts: [{ text: `job ${i}` }] },
        configuration: { returnImmediately: true },
      });
      ids.push(String(sent.result?.task?.id));
    }
    await new Promise((r) => setTimeout(r, 500));
    process.kill(-runs[0]!.child.pid!, 'SIGKILL');
    await runs[0]!.exited;
    rmSync(gate);

    const restarted = performance.now();
    const second = run(main, env, ['--data-dir', dataDir], true);
    runs.push(second);
    await waitForOutput(second, /ready in/, 60_000);
    const restartToReadyMs = performance.now() - restarted;
    const started = new Set<string>();
    const completed = new Set<string>();
    let allStartedMs: number | undefined;
    while (completed.size < ids.length && performance.now() - restarted < 60_000) {
      const states = await Promise.all(
        ids.map(async (id) => (await rpc(url, 'GetTask', { id })).result?.status?.state),
      );
      states.forEach((s, i) => {
        if (s && s !== 'TASK_STATE_SUBMITTED') started.add(ids[i]!);
        if (s === 'TASK_STATE_COMPLETED') completed.add(ids[i]!);
      });
      if (allStartedMs === undefined && started.size === ids.length)
        allStartedMs = performance.now() - restarted;
      if (completed.size < ids.length) await new Promise((r) => setTimeout(r, 50));
    }
    if (allStartedMs === undefined || completed.size < ids.length)
      throw new Error(
        `after the restart ${started.size} of ${ids.length} started, ${completed.size} completed`,
      );
    return {
      queued,
      restartToReadyMs: Math.round(restartToReadyMs),
      restartToAllStartedMs: Math.round(allStartedMs),
      restartToAllCompletedMs: Math.round(performance.now() - restarted),
    };
  } finally {
    for (const r of runs) {
      if (r.child.exitCode === null && r.child.signalCode === null) {
        try {
          process.kill(-r.child.pid!, 'SIGKILL');
        } catch {}
        await r.exited;
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
};
