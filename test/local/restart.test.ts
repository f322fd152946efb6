/**
 * The outbox survives a crash: `npm start --data-dir` is killed (SIGKILL, the
 * whole process group, DynamoDB Local with it) while tasks are queued, and
 * after a restart on the same data every queued task runs. The queues lived
 * in the killed process; the restart re-derives their runs from the live
 * tasks, and the relay resumes the stream after its last checkpoint.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from '../../local/dynamodb-local.ts';
import { alive, root, run, waitForOutput } from './fixtures/process.ts';

const rpc = async (url: string, method: string, params: unknown) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
};

describe('restart after a crash', () => {
  test('every task queued when the hub was killed runs after a restart on the same data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'synapse-crash-'));
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
    const first = run(join(root, 'local', 'main.ts'), env, ['--data-dir', dataDir], true);
    let second: ReturnType<typeof run> | undefined;
    try {
      await waitForOutput(first, /ready in/);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const sent = await rpc(url, 'SendMessage', {
          message: { messageId: `queued-${i}`, role: 'ROLE_USER', parts: [{ text: `job ${i}` }] },
          configuration: { returnImmediately: true },
        });
        ids.push(String((sent.result?.task as { id: string } | undefined)?.id));
      }
      // the runs reach the executor (the relay is fast), which waits at the gate: the tasks stay queued
      await new Promise((r) => setTimeout(r, 500));
      for (const id of ids) {
        const got = await rpc(url, 'GetTask', { id });
        assert.equal((got.result?.status as { state: string } | undefined)?.state, 'TASK_STATE_SUBMITTED');
      }
      process.kill(-first.child.pid!, 'SIGKILL');
      await first.exited;
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(alive(first.child.pid!), false);

      rmSync(gate);
      second = run(join(root, 'local', 'main.ts'), env, ['--data-dir', dataDir], true);
      const recovered = await waitForOutput(second, /Recovered: +(\d+) live task\(s\): (\d+) run/);
      assert.equal(Number(recovered[1]), 10);
      assert.equal(Number(recovered[2]), 10);
      const states = async () =>
        Promise.all(
          ids.map(
            async (id) =>
              ((await rpc(url, 'GetTask', { id })).result?.status as { state: string } | undefined)?.state,
          ),
        );
      for (let i = 0; i < 300 && !(await states()).every((s) => s === 'TASK_STATE_COMPLETED'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        await states(),
        ids.map(() => 'TASK_STATE_COMPLETED'),
      );
    } finally {
      for (const r of [first, second]) {
        if (r && r.child.exitCode === null && r.child.signalCode === null) {
          try {
            process.kill(-r.child.pid!, 'SIGKILL');
          } catch {}
          await r.exited;
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
