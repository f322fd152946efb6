/**
 * The agent API's sleep(ms, signal) (shared/agent/api.ts): it waits, and a canceled task's wait ends as
 * soon as its signal aborts (no minute-long wait is left behind). Orders, not durations, are asserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sleep } from '../../../shared/agent/api.ts';

describe('agent API sleep', () => {
  it('resolves after the time, not before a shorter timer', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('short timer'), 1);
    await sleep(30);
    order.push('slept');
    assert.deepEqual(order, ['short timer', 'slept']);
  });

  it('ends when the signal aborts, and at once when it already has; it never rejects', {
    timeout: 10_000,
  }, async () => {
    const controller = new AbortController();
    const waiting = sleep(600_000, controller.signal).then(() => 'ended');
    controller.abort();
    assert.equal(await waiting, 'ended');
    assert.equal(await sleep(600_000, controller.signal).then(() => 'at once'), 'at once');
  });
});
