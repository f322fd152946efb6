/**
 * The rules for failing AWS calls (docs/reliability.md), each against its fault, on DynamoDB Local and
 * the local event bus with the fault layer's middlewares on the clients (test/support/faults.ts):
 * - a call that stays throttled or failing through the SDK's 3 attempts leaves the adapter as an
 *   UnavailableError, and nothing of it is written; one throttled attempt is retried by the SDK;
 * - an ambiguous write (applied, its answer lost, sent again by the SDK) is applied once and reported as
 *   done: a task's transition and creation, a delivery's claim and outcome, a signature's first sight;
 * - PutEvents refusing some entries: only those are sent again, each event reaches the bus once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type LocalEventBus, startLocalEventBus } from '../../../local/event-bus.ts';
import { DynamoDeliveryLog } from '../../../shared/adapters/dynamodb/delivery-log.ts';
import { DynamoSeenSignatures } from '../../../shared/adapters/dynamodb/seen-signatures.ts';
import { DynamoTaskStore } from '../../../shared/adapters/dynamodb/task-store.ts';
import { EventBridgeLifecyclePublisher } from '../../../shared/adapters/eventbridge/lifecycle-publisher.ts';
import { TaskEngine } from '../../../shared/app/tasks/task-engine.ts';
import { UnavailableError } from '../../../shared/domain/errors.ts';
import type { Message } from '../../../shared/domain/task.ts';
import type { DeliveryAttempt } from '../../../shared/ports/delivery-log.ts';
import { createTestTable, type TestTable } from '../../support/dynamo.ts';
import { faultyDynamo, faultyEventBridge, firstTimes, ScriptedFaults } from '../../support/faults.ts';

let table: TestTable;
let faults: ScriptedFaults;
let faulty: DynamoDBClient;
let store: DynamoTaskStore;
let engine: TaskEngine;
const tenant = 'acme';
const owner = 'alice';

before(async () => {
  table = await createTestTable();
  faults = new ScriptedFaults();
  faulty = faultyDynamo(table.endpoint, faults);
  store = new DynamoTaskStore(faulty, { tableName: table.tableName });
  engine = new TaskEngine(store);
});
after(async () => {
  faulty?.destroy();
  await table?.drop();
});

const userMessage = (text: string): Message => ({
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ text }],
});

/** Every item of the table, read past the fault layer. */
const allItems = async () =>
  (await DynamoDBDocumentClient.from(table.client).send(new ScanCommand({ TableName: table.tableName })))
    .Items ?? [];

describe('a call that fails through the SDK retries', () => {
  it('throttled on every attempt: an UnavailableError after 3 attempts, nothing written', async () => {
    const before = (await allItems()).length;
    await assert.rejects(
      faults.during(firstTimes(99, 'sdk:DynamoDB.PutItem', 'throttle'), () =>
        engine.create({ tenant, owner, message: userMessage('stays throttled') }),
      ),
      (e: unknown) => {
        assert.ok(e instanceof UnavailableError, `not an UnavailableError: ${String(e)}`);
        assert.match(e.message, /DynamoDB PutItem \(ProvisionedThroughputExceededException\)/);
        assert.equal(e.retryAfterSeconds, 1);
        return true;
      },
    );
    assert.equal(faults.given.length, 3, "the SDK's standard mode: 3 attempts");
    assert.equal((await allItems()).length, before, 'nothing written');
  });

  for (const kind of ['server-error', 'timeout'] as const) {
    it(`${kind} on every attempt: an UnavailableError, nothing written`, async () => {
      const before = (await allItems()).length;
      await assert.rejects(
        faults.during(firstTimes(99, 'sdk:DynamoDB.PutItem', kind), () =>
          engine.create({ tenant, owner, message: userMessage(kind) }),
        ),
        UnavailableError,
      );
      assert.equal(faults.given.length, 3);
      assert.equal((await allItems()).length, before);
    });
  }

  it('throttled once: the SDK sends it again and the task is created once', async () => {
    const { head } = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'throttle'), () =>
      engine.create({ tenant, owner, message: userMessage('throttled once') }),
    );
    assert.equal(faults.given.length, 1);
    const record = await store.get(head);
    assert.equal(record?.head.version, head.version);
  });
});

describe('an ambiguous write: applied, its answer lost, sent again by the SDK', () => {
  it("a transition is applied once and reported applied (the item found is the write's own)", async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('to cancel') });
    const result = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      engine.apply(head, { type: 'cancel' }),
    );
    assert.deepEqual(
      faults.given.map((g) => g.kind),
      ['ambiguous'],
    );
    assert.equal(result.head.state, 'cancelled');
    const record = await store.get(head);
    assert.equal(record?.head.version, head.version + 1, 'one write');
    const events = await store.events(record!, 0);
    assert.deepEqual(
      events.map((e) => e.type),
      ['created', 'cancel'],
      'one cancel event',
    );
  });

  it('a status update is not recorded twice', async () => {
    const { head } = await engine.create({ tenant, owner, message: userMessage('to work') });
    const started = await engine.apply(head, [{ type: 'confirm' }, { type: 'start' }]);
    await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      engine.apply(started.head, { type: 'status_update', progress: 50 }),
    );
    const events = await store.events((await store.get(head))!, 0);
    assert.equal(events.filter((e) => e.type === 'status_update').length, 1);
  });

  it('a task created under an ambiguous write is reported created, once', async () => {
    const created = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      engine.create({ tenant, owner, message: userMessage('created once') }),
    );
    assert.equal(faults.given.length, 1);
    assert.equal(created.duplicate, false);
    assert.equal((await store.get(created.head))?.head.version, created.head.version);
  });

  it('a delivery claimed and finished under ambiguous writes is claimed and finished', async () => {
    const log = new DynamoDeliveryLog(faulty, table.tableName);
    const attempt: DeliveryAttempt = {
      tenant,
      taskId: crypto.randomUUID(),
      configId: 'c1',
      version: 2,
      redrive: 0,
      attempt: 1,
      status: 'sending',
      claim: crypto.randomUUID(),
      startedAt: '2026-01-01T00:00:00.000Z',
      keepUntil: '2030-01-01T00:00:00.000Z',
    };
    const claimed = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      log.claim(attempt),
    );
    assert.deepEqual(claimed, { claimed: true });
    const delivered: DeliveryAttempt = { ...attempt, status: 'delivered', httpStatus: 200, latencyMs: 3 };
    const finished = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      log.finish(delivered),
    );
    assert.equal(finished, true);
    assert.deepEqual(await log.list(tenant, attempt.taskId), [delivered]);
    // another claim of the same attempt is still refused
    assert.equal((await log.claim({ ...attempt, claim: crypto.randomUUID() })).claimed, false);
  });

  it("a signature seen under an ambiguous write is new; the same signature's replay is not", async () => {
    const seen = new DynamoSeenSignatures(faulty, table.tableName);
    const signature = crypto.randomUUID().replaceAll('-', '');
    const now = Math.floor(Date.now() / 1000);
    const first = await faults.during(firstTimes(1, 'sdk:DynamoDB.PutItem', 'ambiguous'), () =>
      seen.remember('agent-b', signature, now, now + 600),
    );
    assert.equal(faults.given.length, 1);
    assert.equal(first, true, 'not taken for a replay of itself');
    assert.equal(await seen.remember('agent-b', signature, now, now + 600), false, 'a replay');
  });
});

describe('PutEvents refusing some entries', () => {
  let bus: LocalEventBus;
  before(async () => {
    bus = await startLocalEventBus();
  });
  after(async () => bus?.stop());

  it('sends only the refused entries again: every event reaches the bus once', async () => {
    const layer = new ScriptedFaults(
      firstTimes(1, 'sdk:EventBridge.PutEvents.entries', 'eventbridge-failed-entries'),
    );
    const client = faultyEventBridge(bus.endpoint, layer);
    try {
      const events = Array.from({ length: 10 }, (_, i) => ({
        detailType: 'Task Completed',
        id: `t${i}:5`,
        time: '2026-01-01T00:00:05.000Z',
        detail: { taskId: `t${i}` },
      }));
      await new EventBridgeLifecyclePublisher(client, 'hub-bus').publish(events);
      assert.equal(layer.given.length, 1);
      const ids = bus.events().map((e) => (e.detail as { id: string }).id);
      assert.deepEqual([...ids].sort(), events.map((e) => e.id).sort(), 'each once');
    } finally {
      client.destroy();
    }
  });
});
