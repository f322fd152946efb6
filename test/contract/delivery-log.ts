/**
 * The DeliveryLog port's contract (shared/ports/delivery-log.ts): run against the in-memory twin in the
 * unit suite and against DynamoDeliveryLog on DynamoDB Local in the integration suite. An attempt (its
 * task, event version, config, round and number) is claimed once: a second claim gets the record there
 * (unless it was released: then it is claimed again); its outcome is recorded only under the claim that
 * holds it while it is still `sending`; a task's log lists by version, config, round and attempt; a log
 * is its tenant's task's alone. Each test works in tasks of its own, so the suite may share one log.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { DeliveryAttempt, DeliveryLog } from '../../shared/ports/delivery-log.ts';

export interface DeliveryLogHarness {
  make(): DeliveryLog | Promise<DeliveryLog>;
}

export const deliveryLogContract = (name: string, harness: DeliveryLogHarness): void => {
  describe(`DeliveryLog contract: ${name}`, () => {
    let log: DeliveryLog;
    before(async () => {
      log = await harness.make();
    });

    const attemptOf = (over: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
      tenant: 'acme',
      taskId: crypto.randomUUID(),
      configId: 'c1',
      version: 3,
      redrive: 0,
      attempt: 1,
      status: 'sending',
      claim: crypto.randomUUID(),
      startedAt: '2026-01-01T00:00:00.000Z',
      keepUntil: '2030-01-01T00:00:00.000Z',
      ...over,
    });

    it('claims an attempt once: a second claim gets the attempt as recorded, and changes nothing', async () => {
      const first = attemptOf();
      assert.deepEqual(await log.claim(first), { claimed: true });
      const second = { ...first, claim: crypto.randomUUID(), startedAt: '2026-01-01T00:01:00.000Z' };
      assert.deepEqual(await log.claim(second), { claimed: false, existing: first });
      assert.deepEqual(await log.list('acme', first.taskId), [first]);
    });

    it('records the outcome under the claim that holds the attempt, once; another claim records nothing', async () => {
      const claimed = attemptOf();
      await log.claim(claimed);
      const stranger = { ...claimed, claim: crypto.randomUUID(), status: 'delivered' as const };
      assert.equal(await log.finish(stranger), false);
      const delivered: DeliveryAttempt = {
        ...claimed,
        status: 'delivered',
        finishedAt: '2026-01-01T00:00:01.000Z',
        httpStatus: 200,
        latencyMs: 12,
      };
      assert.equal(await log.finish(delivered), true);
      assert.deepEqual(await log.list('acme', claimed.taskId), [delivered]);
      assert.equal(
        await log.finish({ ...delivered, status: 'failed', error: 'late' }),
        false,
        'no longer sending',
      );
      assert.deepEqual(await log.list('acme', claimed.taskId), [delivered]);
      assert.deepEqual(await log.claim(claimed), { claimed: false, existing: delivered });
    });

    it('a released attempt may be claimed again; the claim it had then records nothing', async () => {
      const first = attemptOf();
      await log.claim(first);
      assert.equal(await log.finish({ ...first, status: 'released', error: 'signing failed' }), true);
      const again = { ...first, claim: crypto.randomUUID() };
      assert.deepEqual(await log.claim(again), { claimed: true });
      assert.equal(await log.finish({ ...first, status: 'delivered' }), false, 'the old claim');
      assert.equal(await log.finish({ ...again, status: 'delivered' }), true);
      assert.deepEqual(
        (await log.list('acme', first.taskId)).map((a) => [a.claim, a.status]),
        [[again.claim, 'delivered']],
      );
    });

    it('a takeover records interrupted over the claim it found, sending or given back since; not over another', async () => {
      const held = attemptOf();
      await log.claim(held);
      const interrupted: DeliveryAttempt = {
        ...held,
        status: 'interrupted',
        finishedAt: '2026-01-01T00:02:00.000Z',
      };
      assert.equal(await log.interrupt(interrupted), true, 'over the claim still sending');
      assert.deepEqual(await log.list('acme', held.taskId), [interrupted]);
      assert.equal(
        await log.finish({ ...held, status: 'delivered' }),
        false,
        'its holder records nothing after',
      );

      // its holder gave the claim back just before the takeover's record came: the record still lands,
      // so the attempt cannot be claimed and sent again beside the one the takeover queued
      const late = attemptOf();
      await log.claim(late);
      assert.equal(await log.finish({ ...late, status: 'released' }), true);
      const taken = { ...late, status: 'interrupted' as const };
      assert.equal(await log.interrupt(taken), true, 'over the same claim given back');
      assert.deepEqual(await log.claim({ ...late, claim: crypto.randomUUID() }), {
        claimed: false,
        existing: taken,
      });

      // claimed again by another meanwhile: that claim is not the takeover's to record over
      const again = attemptOf();
      await log.claim(again);
      await log.finish({ ...again, status: 'released' });
      const next = { ...again, claim: crypto.randomUUID() };
      await log.claim(next);
      assert.equal(await log.interrupt({ ...again, status: 'interrupted' }), false);
      assert.deepEqual(await log.list('acme', again.taskId), [next]);
      assert.equal(await log.interrupt({ ...attemptOf(), status: 'interrupted' }), false, 'never claimed');
    });

    it('an outcome of an attempt never claimed records nothing', async () => {
      const attempt = attemptOf({ status: 'delivered' });
      assert.equal(await log.finish(attempt), false);
      assert.deepEqual(await log.list('acme', attempt.taskId), []);
    });

    it('lists a task’s attempts by event version, config, round and attempt (as numbers), and only its own', async () => {
      const taskId = crypto.randomUUID();
      const at = (version: number, configId: string, redrive: number, attempt: number) =>
        attemptOf({ taskId, version, configId, redrive, attempt });
      const order = [
        at(2, 'a', 0, 1),
        at(2, 'a', 0, 2),
        at(2, 'a', 0, 10),
        at(2, 'a', 1, 1),
        at(2, 'b', 0, 1),
        at(10, 'a', 0, 1),
      ];
      for (const a of [...order].reverse()) await log.claim(a);
      await log.claim(attemptOf({ version: 2 }));
      assert.deepEqual(
        (await log.list('acme', taskId)).map((a) => [a.version, a.configId, a.redrive, a.attempt]),
        order.map((a) => [a.version, a.configId, a.redrive, a.attempt]),
      );
      assert.deepEqual(await log.list('acme', crypto.randomUUID()), []);
    });

    it('a log is its tenant’s: the same attempt in another tenant is another attempt', async () => {
      const ours = attemptOf();
      await log.claim(ours);
      const theirs = { ...ours, tenant: 'acme.rival', claim: crypto.randomUUID() };
      assert.deepEqual(await log.claim(theirs), { claimed: true });
      assert.equal(await log.finish({ ...theirs, claim: ours.claim, status: 'delivered' }), false);
      assert.deepEqual(await log.list('acme.rival', ours.taskId), [theirs]);
      assert.deepEqual(await log.list('acme', ours.taskId), [ours]);
    });
  });
};
