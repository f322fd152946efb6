/**
 * The requester role on DynamoDB Local (shared/app/synapse/requester.ts): a delegated task starts idle
 * and is submitted in one write with its peer as the `synapse` config; the peer's reports are applied
 * with what they imply (out of order), old progress is acknowledged without effect, a report applied
 * before (its message id) is a duplicate, a report for a finished task is refused; a heartbeat moves a
 * confirmed task to executing, then only records a sign of life. Nothing here runs an agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoPushConfigStore } from '../../../../shared/adapters/dynamodb/push-config-store.ts';
import { DynamoTaskStore } from '../../../../shared/adapters/dynamodb/task-store.ts';
import { deliveriesOf } from '../../../../shared/app/delivery/deliveries.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../../../../shared/app/synapse/callbacks.ts';
import {
  DEFAULT_DELEGATION_TIMEOUT_SECONDS,
  PEER_KEY,
  ReportRefusedError,
  SynapseRequester,
} from '../../../../shared/app/synapse/requester.ts';
import { TaskEngine } from '../../../../shared/app/tasks/task-engine.ts';
import { ValidationError } from '../../../../shared/domain/errors.ts';
import {
  composeMessage,
  type SynapseMessage,
  type SynapseMessageType,
  type SynapsePayloadInput,
} from '../../../../shared/protocol/synapse/index.ts';
import { createTestTable, type TestTable } from '../../../support/dynamo.ts';

let table: TestTable;
let store: DynamoTaskStore;
let engine: TaskEngine;
let configs: DynamoPushConfigStore;
let requester: SynapseRequester;
const caller = { tenant: 'acme', owner: 'bob' };
const peer = {
  peerId: 'exec-1',
  tenant: 'acme',
  endpoint: 'https://exec.example/synapse/callback',
  keys: [],
  unsigned: true,
};

before(async () => {
  table = await createTestTable();
  store = new DynamoTaskStore(table.client, { tableName: table.tableName });
  engine = new TaskEngine(store);
  configs = new DynamoPushConfigStore(table.client, table.tableName);
  requester = new SynapseRequester(
    engine,
    configs,
    async () => ({ peer: (id) => (id === peer.peerId ? peer : undefined) }),
    store,
  );
});
after(async () => table?.drop());

const report = <T extends SynapseMessageType>(type: T, payload: SynapsePayloadInput<T>, taskId: string) =>
  composeMessage(type, payload, {
    sender: { agent_id: peer.peerId, endpoint: peer.endpoint },
    task_id: taskId,
    message_id: `r-${crypto.randomUUID()}`,
  }) as SynapseMessage;

const delegated = async (text = 'translate this') => {
  const { record } = await requester.delegate(caller, { peerId: peer.peerId, type: 'translate', text });
  return record;
};

const fresh = async (taskId: string) => (await store.get({ tenant: caller.tenant, taskId }))!;

describe('the requester role', () => {
  it('delegates: an idle task submitted in the same write, its peer registered, a request delivery queued', async () => {
    const record = await delegated();
    const { head } = record;
    assert.equal(head.state, 'pending');
    assert.equal(head.role, 'requester');
    assert.equal(head.protocol, 'synapse');
    assert.equal(head.metadata?.[PEER_KEY], peer.peerId);
    assert.deepEqual(head.pushConfigIds, [SYNAPSE_CALLBACK_CONFIG_ID]);
    // the protocol's TaskTimeout: 5 minutes unless asked otherwise
    assert.equal(
      Date.parse(head.deadlineAt) - Date.parse(head.createdAt),
      DEFAULT_DELEGATION_TIMEOUT_SECONDS * 1000,
    );
    assert.equal(DEFAULT_DELEGATION_TIMEOUT_SECONDS, 300);
    const [config] = await configs.get(caller.tenant, head.taskId, [SYNAPSE_CALLBACK_CONFIG_ID]);
    assert.deepEqual(config?.synapse, { peerId: peer.peerId, remoteTaskId: head.taskId });
    // what the relay does with the creating change: one delivery, the request (the submit event)
    const events = await store.events(record, 0, 10);
    const deliveries = deliveriesOf({ sequence: '1', after: record, events });
    assert.deepEqual(
      deliveries.map((d) => events.find((e) => e.version === d.version)?.type),
      ['submit'],
    );
  });

  it('refuses an unknown peer (and a peer of another tenant), writing nothing', async () => {
    await assert.rejects(requester.delegate(caller, { peerId: 'nobody', type: 't' }), ValidationError);
    await assert.rejects(
      requester.delegate({ tenant: 'other', owner: 'x' }, { peerId: peer.peerId, type: 't' }),
      ValidationError,
    );
  });

  it('a completion that overtakes the confirmation confirms, starts and completes the task in one write', async () => {
    const { head } = await delegated();
    const done = await requester.receive(
      await fresh(head.taskId),
      report(
        'p2p:task_complete',
        {
          task_id: head.taskId,
          result: { output: [{ artifact_id: 'a1', parts: [{ text: 'übersetzt' }] }] },
          summary: 'Done',
        },
        head.taskId,
      ),
    );
    assert.equal(done.record.head.state, 'completed');
    assert.equal(done.record.head.version, head.version + 4, 'confirm, status_update, artifact, complete');
    const view = await store.view(done.record, { includeArtifacts: true });
    assert.equal(view.artifacts[0]?.artifactId, 'a1');
    // the late confirmation is old news: acknowledged, no effect
    const late = await requester.receive(
      done.record,
      report('p2p:task_confirm', { task_id: head.taskId, confirmed: true }, head.taskId),
    );
    assert.equal(late.duplicate, true);
    assert.equal((await fresh(head.taskId)).head.version, done.record.head.version);
    // a second ending is refused
    await assert.rejects(
      requester.receive(
        done.record,
        report(
          'p2p:task_failed',
          { task_id: head.taskId, error: { code: 'x', message: 'late' } },
          head.taskId,
        ),
      ),
      (e: unknown) => e instanceof ReportRefusedError && e.state === 'completed',
    );
  });

  it('the same report twice (its message id) applies once; need_info shows the question and the fields', async () => {
    const { head } = await delegated();
    const ask = report(
      'p2p:task_need_info',
      { task_id: head.taskId, missing_fields: [{ field: 'language' }], question: 'Which language?' },
      head.taskId,
    );
    const first = await requester.receive(await fresh(head.taskId), ask);
    assert.equal(first.record.head.state, 'info_needed');
    assert.match(JSON.stringify(first.record.head.statusMessage), /Which language\?/);
    assert.match(JSON.stringify(first.record.head.statusMessage), /language/);
    const again = await requester.receive(first.record, ask);
    assert.equal(again.record.head.version, first.record.head.version);
  });

  it('a heartbeat moves a confirmed task to executing once, then only records a sign of life', async () => {
    const { head } = await delegated();
    const confirmed = await requester.receive(
      await fresh(head.taskId),
      report('p2p:task_confirm', { task_id: head.taskId, confirmed: true }, head.taskId),
    );
    assert.equal(confirmed.record.head.state, 'confirmed');
    const beat = (n: number) =>
      report(
        'p2p:heartbeat',
        { task_id: head.taskId, status: 'executing', progress: n },
        head.taskId,
      ) as SynapseMessage<'p2p:heartbeat'>;
    const executing = await requester.heartbeat(confirmed.record, beat(10));
    assert.equal(executing.head.state, 'executing');
    const version = executing.head.version;
    await requester.heartbeat(executing, beat(20));
    const after = await fresh(head.taskId);
    assert.equal(after.head.version, version, 'no new version');
    assert.ok(after.head.heartbeatAt, 'a liveness write');
  });

  it('keeps a long report within its bounds (bytes, not characters), and a bridged push config beside the peer', async () => {
    const { head } = await delegated();
    const summary = '長'.repeat(3_000); // 9,000 bytes of UTF-8, within the schema's 8,192 characters
    const done = await requester.receive(
      await fresh(head.taskId),
      report('p2p:task_complete', { task_id: head.taskId, result: { output: 'ok' }, summary }, head.taskId),
    );
    assert.equal(done.record.head.state, 'completed');
    const view = await store.view(done.record, { includeArtifacts: true, historyLength: 0 });
    const kept = view.head.statusMessage?.parts[0]?.text ?? '';
    assert.ok(
      Buffer.byteLength(kept, 'utf8') <= 4_100 && kept.startsWith('長長'),
      `${Buffer.byteLength(kept)} bytes`,
    );

    const { record } = await requester.delegate(caller, {
      peerId: peer.peerId,
      type: 'translate',
      text: 'with a webhook',
      pushConfig: { config: { url: 'https://hooks.example.com/a2a' }, version: '1.0' },
    });
    assert.deepEqual(record.head.pushConfigIds, [SYNAPSE_CALLBACK_CONFIG_ID, record.head.taskId]);
  });
});
