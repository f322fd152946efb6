/**
 * Stopping `npm start` (local/main.ts, the real functions and the demo agent) while an agent runs: the
 * hub must not wait for the agent. Its own file, so its two hub start-ups do not add to the ones
 * main.test.ts runs at the same time.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { alive, javaChildrenOf, type Run, run, waitForOutput } from './fixtures/process.ts';

const rpc = async (url: string, method: string, params: unknown) => {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: { task?: { id: string }; status?: { state: string } } };
};

const slow60 = (url: string, n: number, returnImmediately: boolean) =>
  rpc(url, 'SendMessage', {
    message: { messageId: `slow-${n}`, role: 'ROLE_USER', parts: [{ text: 'slow 60' }] },
    configuration: { returnImmediately },
  });

const stateOf = async (url: string, id: string) => (await rpc(url, 'GetTask', { id })).result?.status?.state;

/** The exit, or undefined once `bound` has passed (only keeps a hub that hangs from hanging the test). */
const exitWithin = (r: Run, bound: number) =>
  Promise.race([
    r.exited,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), bound).unref()),
  ]);

const killGroup = async (r: Run) => {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  process.kill(-r.child.pid!, 'SIGKILL');
  await r.exited;
};

const READY = /ready in \d+\.\d s on (http:\/\/\S+)/;

describe('stopping npm start while agents run', () => {
  // SIGINT to the hub alone (kill -INT): DynamoDB Local keeps running until the hub stops it. (Ctrl+C in a
  // terminal signals Java too; test/local/main.test.ts covers that stop.)
  test('SIGINT: the hub exits without waiting for a `slow 60`, Java with it, and the task stays executing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'synapse-sigint-'));
    const env = { PORT: '0', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const first = run('local/main.ts', env, ['--data-dir', dataDir], true);
    let second: Run | undefined;
    try {
      const [, url] = await waitForOutput(first, READY, 90_000);
      const sent = await slow60(url!, 1, true);
      const id = sent.result?.task?.id;
      assert.ok(id, JSON.stringify(sent));
      // and a blocking one, which the jsonrpc function runs inline while its request waits
      const blocking = slow60(url!, 2, false).catch((e: unknown) => e);
      for (let i = 0; i < 300 && (await stateOf(url!, id)) !== 'TASK_STATE_WORKING'; i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal(await stateOf(url!, id), 'TASK_STATE_WORKING');
      const java = javaChildrenOf(first.child.pid!);
      assert.equal(java.length, 1);

      first.child.kill('SIGINT');
      // the agent finishes 60 s after it started; a hub that waited for it would still run at 30 s
      const exit = await exitWithin(first, 30_000);
      assert.ok(exit, `the hub still ran 30 s after SIGINT: ${first.stdout()}`);
      assert.equal(exit.code, 0, first.stderr());
      assert.match(first.stdout(), /SIGINT: stopping/);
      assert.doesNotMatch(
        first.stdout(),
        new RegExp(`${id} → TASK_STATE_COMPLETED`),
        'the agent had not finished',
      );
      assert.equal(alive(java[0]!), false, 'Java stopped with the hub');
      await blocking; // answered or cut off, but over

      // nothing was written on the way down: after a restart the task is still executing (its run's last
      // sign of life is seconds old, the heartbeat limit a minute), its heartbeat watched
      second = run('local/main.ts', env, ['--data-dir', dataDir], true);
      const [, again] = await waitForOutput(second, READY, 90_000);
      const recovered = await waitForOutput(
        second,
        /Recovered: +\d+ live task\(s\): \d+ run\(s\) and (\d+) heartbeat watch/,
      );
      assert.ok(Number(recovered[1]) >= 1, recovered[0]);
      assert.equal(await stateOf(again!, id), 'TASK_STATE_WORKING');
    } finally {
      await killGroup(first);
      if (second) await killGroup(second);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
