import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DELIVERY_QUEUE } from '../../../../shared/adapters/sqs/queues.ts';
import { DELIVERY_QUEUE_URL_ENV } from '../../../../shared/app/a2a/card.ts';
import { deliveriesOf, deliveryKey } from '../../../../shared/app/delivery/deliveries.ts';
import { SYNAPSE_CALLBACK_CONFIG_ID } from '../../../../shared/app/synapse/callbacks.ts';
import type { TaskEvent, TaskHead } from '../../../../shared/domain/task.ts';
import type { TaskChange } from '../../../../shared/ports/task-changes.ts';

const at = '2026-12-02T00:00:00.000Z';
const head = (extra: Partial<TaskHead> = {}): TaskHead => ({
  taskId: 't1',
  tenant: 'acme',
  owner: 'bob',
  contextId: 'c1',
  state: 'executing',
  version: 5,
  role: 'executor',
  protocol: 'a2a',
  createdAt: at,
  statusAt: at,
  deadlineAt: at,
  ...extra,
});
const event = (version: number, type: TaskEvent['type'], extra: Partial<TaskEvent> = {}): TaskEvent => ({
  taskId: 't1',
  tenant: 'acme',
  version,
  type,
  from: 'executing',
  to: 'executing',
  at,
  ...extra,
});
const change = (before: TaskHead | undefined, after: TaskHead, events: TaskEvent[]): TaskChange => ({
  sequence: '1',
  ...(before ? { before } : {}),
  after: { head: after, recent: events },
  events,
});

describe('deliveries of a change', () => {
  it('a task without configs asks for none', () => {
    const c = change(head({ version: 4 }), head(), [event(5, 'status_update')]);
    assert.deepEqual(deliveriesOf(c), []);
  });

  it('each shown event goes to each listed config, with its version; what a stream hides goes nowhere', () => {
    const ids = { pushConfigIds: ['a', 'b'] };
    const c = change(head({ version: 3, ...ids }), head({ ...ids, state: 'completed' }), [
      event(4, 'start', { from: 'confirmed' }), // SUBMITTED → WORKING: shown
      event(5, 'complete', { to: 'completed' }),
    ]);
    assert.deepEqual(
      deliveriesOf(c).map((d) => [d.configId, d.version, d.attempt]),
      [
        ['a', 4, 1],
        ['b', 4, 1],
        ['a', 5, 1],
        ['b', 5, 1],
      ],
    );
    const hidden = change(head({ version: 4, ...ids }), head(ids), [
      event(5, 'confirm', { from: 'confirmed', to: 'confirmed' }),
    ]);
    assert.deepEqual(deliveriesOf(hidden), []);
  });

  it('a config registered in the change gets only the events after its registration; a removed one none after', () => {
    const c = change(head({ version: 2, pushConfigIds: ['old'] }), head({ pushConfigIds: ['new'] }), [
      event(3, 'status_update'),
      event(4, 'push_config', { data: { set: 'new' } }),
      event(5, 'push_config', { data: { deleted: 'old' } }),
      event(6, 'status_update'),
    ]);
    assert.deepEqual(
      deliveriesOf(c).map((d) => [d.configId, d.version]),
      [['new', 6]],
      '"old" is no longer listed after the change, so it gets nothing of it',
    );
  });

  it('a config registered on a finished task gets one delivery of its registration (its final status); the others none', () => {
    const done = { state: 'completed' as const };
    const c = change(
      head({ ...done, version: 7, pushConfigIds: ['early'] }),
      head({ ...done, version: 8, pushConfigIds: ['early', 'late'] }),
      [event(8, 'push_config', { from: 'completed', to: 'completed', data: { set: 'late' } })],
    );
    assert.deepEqual(
      deliveriesOf(c).map((d) => [d.configId, d.version, d.attempt]),
      [['late', 8, 1]],
    );
    const removed = change(
      head({ ...done, version: 8, pushConfigIds: ['early', 'late'] }),
      head({ ...done, version: 9, pushConfigIds: ['early'] }),
      [event(9, 'push_config', { from: 'completed', to: 'completed', data: { deleted: 'late' } })],
    );
    assert.deepEqual(deliveriesOf(removed), [], 'a removal sends nothing');
    const live = change(head({ version: 2 }), head({ version: 3, pushConfigIds: ['new'] }), [
      event(3, 'push_config', { data: { set: 'new' } }),
    ]);
    assert.deepEqual(deliveriesOf(live), [], 'a live task: the registration alone sends nothing');
  });

  it('the idempotency key is the same for every attempt of a delivery', () => {
    const d = { taskId: 't1', configId: 'a', version: 7 };
    assert.equal(deliveryKey(d), deliveryKey({ ...d }));
    assert.notEqual(deliveryKey(d), deliveryKey({ ...d, version: 8 }));
  });
});

describe('where push notifications are offered', () => {
  it('the card looks for the delivery queue the stack and the local hub configure', () => {
    assert.equal(DELIVERY_QUEUE_URL_ENV, DELIVERY_QUEUE.urlEnv);
  });
});

describe('deliveries to a Synapse requester (the reserved config id)', () => {
  it('gets the events its protocol tells (confirm, complete), not what only a stream shows (start, artifact)', () => {
    const ids = { pushConfigIds: [SYNAPSE_CALLBACK_CONFIG_ID, 'a2a'] };
    const c = change(head({ version: 1, state: 'pending', ...ids }), head({ ...ids, state: 'completed' }), [
      event(2, 'confirm', { from: 'pending', to: 'confirmed' }),
      event(3, 'start', { from: 'confirmed', to: 'executing' }),
      event(4, 'artifact', { artifact: { artifact: { artifactId: 'x', parts: [{ text: 'hi' }] } } }),
      event(5, 'complete', { to: 'completed' }),
    ]);
    assert.deepEqual(
      deliveriesOf(c).map((d) => [d.configId, d.version]),
      [
        [SYNAPSE_CALLBACK_CONFIG_ID, 2],
        ['a2a', 3],
        ['a2a', 4],
        [SYNAPSE_CALLBACK_CONFIG_ID, 5],
        ['a2a', 5],
      ],
    );
  });
});
