/**
 * The outbox survives a crash: `npm start --data-dir` is killed (SIGKILL, the
 * whole process group, DynamoDB Local with it) while tasks are queued, and
 * after a restart on the same data every queued task runs. The queues lived
 * in the killed process; the restart re-derives their runs from the live
 * tasks, and the relay resumes the stream after its last checkpoint.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { queueTasksBehindGate } from './fixtures/crash.ts';
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
});
