import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ScheduledEvent } from 'aws-lambda';
import { DynamoTaskStore } from '../../shared/adapters/dynamodb/task-store.ts';
import { sweepExpiredTasks } from '../../shared/app/expiry.ts';
import { TaskEngine } from '../../shared/app/task-engine.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';

let table: TestTable;
let engine: TaskEngine;
const tenant = 'sweep';
const past = () => new Date(Date.now() - 60_000).toISOString();
const future = () => new Date(Date.now() + 3_600_000).toISOString();
const user = (text: string) => ({ messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ text }] });

before(async () => {
  table = await createTestTable();
  engine = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }));
});
after(async () => table.drop());

describe('expiry sweep', () => {
  it('fails live tasks whose deadline passed, leaves the others, and is idempotent', async () => {
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

    const first = await sweepExpiredTasks(engine);
    assert.equal(first.expired, 12);
    for (const { head } of overdue) {
      const now = await engine.store.getHead(head);
      assert.equal(now?.state, 'failed');
      const events = await engine.store.events(head, 0);
      assert.equal(events.at(-1)?.type, 'timeout');
      assert.equal(events.at(-1)?.reason?.code, 'execution_timeout');
    }
    assert.equal((await engine.store.getHead(notYet))?.state, 'pending');
    assert.equal((await engine.store.getHead(finished))?.state, 'cancelled');
    // finished tasks leave the sparse deadline index, so a second sweep finds nothing
    assert.deepEqual(await sweepExpiredTasks(engine), { due: 0, expired: 0, skipped: 0 });
  });

  it("fails a task whose executor's lease ran out while executing, and only then", async () => {
    const leased = new TaskEngine(new DynamoTaskStore(table.client, { tableName: table.tableName }), {
      leaseSeconds: 1,
    });
    const lost = (await leased.create({ tenant, owner: 'o', message: user('run'), deadlineAt: future() }))
      .head;
    await leased.apply(lost, { type: 'confirm' });
    const started = (await leased.apply(lost, { type: 'start' })).head;
    assert.ok(started.leaseUntil, 'the claim starts a lease');
    const waiting = (await leased.create({ tenant, owner: 'o', message: user('ask'), deadlineAt: future() }))
      .head;
    await leased.apply(waiting, { type: 'confirm' });
    await leased.apply(waiting, { type: 'start' });
    const asked = (await leased.apply(waiting, { type: 'need_info' })).head;
    assert.equal(asked.leaseUntil, undefined, 'leaving executing ends the lease');

    assert.equal((await sweepExpiredTasks(leased)).expired, 0, 'nothing is due before the lease ends');
    await new Promise((r) => setTimeout(r, 1200));
    const swept = await sweepExpiredTasks(leased);
    assert.equal(swept.expired, 1);
    assert.equal((await leased.store.getHead(lost))?.state, 'failed');
    assert.equal((await leased.store.events(lost, 0)).at(-1)?.reason?.code, 'executor_lost');
    assert.equal((await leased.store.getHead(waiting))?.state, 'info_needed');
  });

  it('the scheduled function expires tasks when invoked with a schedule event', async () => {
    process.env.TABLE_NAME = table.tableName;
    process.env.AWS_ENDPOINT_URL_DYNAMODB = table.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    const { head } = await engine.create({ tenant, owner: 'o', message: user('late'), deadlineAt: past() });
    const { sweeperHandler } = await import('../../functions/sweeper.ts');
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
    assert.equal(result.expired, 1);
    assert.equal((await engine.store.getHead(head))?.state, 'failed');
  });
});
