/**
 * The expiry sweep on DynamoDB Local: live tasks whose deadline passed time out (execution_timeout),
 * nothing else is touched, finished tasks leave the sparse deadline index; and the scheduled function.
 * A claimed task whose run died is not the sweeper's: its lease watch fails it (executor.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScheduledEvent } from 'aws-lambda';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { sweepExpiredTasks } from '../../../../shared/app/tasks/expiry.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import type { TaskRef } from '../../../../shared/ports/task-store.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let engine: TaskEngine;
const tenant = 'sweep';
const past = () => new Date(Date.now() - 60_000).toISOString();
const future = () => new Date(Date.now() + 3_600_000).toISOString();
const user = (text: string) => ({ messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ text }] });
const headOf = async (ref: TaskRef) => (await engine.store.get(ref))?.head;
const eventsOf = async (ref: TaskRef) => {
  const record = await engine.store.get(ref);
  assert.ok(record, `task ${ref.taskId} exists`);
  return engine.store.events(record, 0);
};

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
});
after(async () => table.drop());

describe('expiry sweep', () => {
  it('times out live tasks whose deadline passed, leaves the others, and is idempotent', async () => {
    const overdue = await Promise.all(
      Array.from({ length: 12 }, () =>
        engine.create({ tenant, owner: 'o', message: user('x'), deadlineAt: past() }),
      ),
    );
    const notYet = (await engine.create({ tenant, owner: 'o', message: user('y'), deadlineAt: future() }))
      .head;
    const finished = (await engine.create({ tenant, owner: 'o', message: user('z'), deadlineAt: past() }))
      .head;
    await engine.apply(finished, { type: 'cancel' });
    // a claim whose lease has already lapsed, well before its deadline: left to its lease watch
    const lapsed = (await engine.create({ tenant, owner: 'o', message: user('w'), deadlineAt: future() }))
      .head;
    const claimed = (
      await engine.apply(lapsed, [{ type: 'confirm' }, { type: 'start' }], { leaseSeconds: 0 })
    ).head;
    assert.equal(claimed.leaseUntil, claimed.statusAt, 'the lease ended as it began');

    const first = await sweepExpiredTasks(engine);
    // the canceled task is no longer in the sparse index: it is not even due
    assert.deepEqual(first, { due: 12, expired: 12, skipped: 0 });
    for (const { head } of overdue) {
      assert.equal((await headOf(head))?.state, 'failed');
      const last = (await eventsOf(head)).at(-1);
      assert.equal(last?.type, 'timeout');
      assert.equal(last?.reason?.code, 'execution_timeout');
      // the reason is the task's status message too, which is what clients show
      assert.match((await headOf(head))?.statusMessage?.parts[0]?.text ?? '', /deadline .* passed/);
    }
    assert.equal((await headOf(notYet))?.state, 'pending');
    assert.equal((await headOf(finished))?.state, 'cancelled');
    assert.deepEqual(await headOf(lapsed), claimed, 'a lapsed lease is not the sweeper’s to act on');
    // the timed-out tasks left the index too, so a second sweep finds nothing
    assert.deepEqual(await sweepExpiredTasks(engine), { due: 0, expired: 0, skipped: 0 });
    for (const { head } of overdue)
      assert.equal((await eventsOf(head)).filter((e) => e.type === 'timeout').length, 1);
  });

  it('the scheduled function expires tasks when invoked with a schedule event', async () => {
    process.env.TABLE_NAME = table.tableName;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = table.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    const { head } = await engine.create({ tenant, owner: 'o', message: user('late'), deadlineAt: past() });
    const { sweeperHandler } = await import('../../../../functions/sweeper.ts');
    const event = {
      version: '0',
      id: crypto.randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: {},
    } as ScheduledEvent;
    const result = await sweeperHandler(event);
    assert.deepEqual(result, { due: 1, expired: 1, skipped: 0 });
    assert.equal((await headOf(head))?.state, 'failed');
    assert.equal((await eventsOf(head)).at(-1)?.reason?.code, 'execution_timeout');
  });
});
