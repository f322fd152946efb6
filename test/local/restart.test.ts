/**
 * The outbox survives a crash: `npm start --data-dir` is killed (SIGKILL, the
 * whole process group, DynamoDB Local with it) while tasks are queued, and
 * after a restart on the same data every queued task runs. The queues lived
 * in the killed process; the restart re-derives their runs from the live
 * tasks, and the relay resumes the stream after its last checkpoint.
 * Tasks killed while running are not left WORKING: the restart arms their
 * heartbeat watches again, which find them silent and fail them saying why
 * (the demo agent does not declare itself idempotent).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { queueTasksBehindGate, runTasksUntilWorking } from './fixtures/crash.ts';
import { alive, waitForOutput } from './fixtures/process.ts';

describe('restart after a crash', () => {
  test('every task queued when the hub was killed runs after a restart on the same data', async () => {
    const crash = await queueTasksBehindGate(10);
    try {
      assert.deepEqual(
        await crash.states(),
        crash.ids.map(() => 'TASK_STATE_SUBMITTED'),
        'the tasks wait at the gate',
      );
      await crash.kill();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(alive(crash.first.child.pid!), false);

      const second = crash.restart();
      const recovered = await waitForOutput(second, /Recovered: +(\d+) live task\(s\): (\d+) run/);
      assert.equal(Number(recovered[1]), 10);
      assert.equal(Number(recovered[2]), 10);
      const done = () => crash.ids.map(() => 'TASK_STATE_COMPLETED');
      for (let i = 0; i < 300 && !(await crash.states()).every((s) => s === 'TASK_STATE_COMPLETED'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(await crash.states(), done());
    } finally {
      await crash.cleanup();
    }
  });

  test('every task running when the hub was killed is resolved after a restart, by its heartbeat watch', async () => {
    // a 2 s heartbeat: lost after 4 s of silence
    const crash = await runTasksUntilWorking(10, 2);
    try {
      await crash.kill();
      const second = crash.restart();
      const recovered = await waitForOutput(
        second,
        /Recovered: +(\d+) live task\(s\): (\d+) run\(s\) and (\d+) heartbeat/,
      );
      assert.deepEqual(recovered.slice(1).map(Number), [10, 0, 10], 'a watch for each running task');
      await waitForOutput(second, /ready in/, 60_000);
      // a generous bound, not a figure: 2 intervals plus a restart's start-up take seconds
      for (let i = 0; i < 600 && !(await crash.states()).every((s) => s === 'TASK_STATE_FAILED'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        await crash.states(),
        crash.ids.map(() => 'TASK_STATE_FAILED'),
      );
      for (const text of await crash.statusTexts())
        assert.match(text ?? '', /No heartbeat from the run for \d+ s .*the executor was lost/);
    } finally {
      await crash.cleanup();
    }
  });
});
