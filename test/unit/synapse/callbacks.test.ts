/**
 * The callbacks of a task's events (shared/app/synapse/callbacks.ts): the worker sends them without
 * checking (its bundle loads no schema), so here every one is parsed with the inbound schemas.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callbackMessageId, callbackOf, isCallbackEvent } from '../../../shared/app/synapse/callbacks.ts';
import type { TaskEvent } from '../../../shared/domain/task.ts';
import { TRANSITION_EVENTS } from '../../../shared/domain/transitions.ts';
import { composeMessage, parseSynapseMessage } from '../../../shared/protocol/synapse/index.ts';

const at = '2026-12-02T00:00:00.000Z';
const agent = (text: string) => ({ messageId: 'm', role: 'agent' as const, parts: [{ text }] });
const event = (type: TaskEvent['type'], extra: Partial<TaskEvent> = {}): TaskEvent => ({
  taskId: 'hub-task',
  tenant: 'acme',
  version: 7,
  type,
  from: 'executing',
  to: 'executing',
  at,
  ...extra,
});

const parsed = (e: TaskEvent, view?: Parameters<typeof callbackOf>[2]) => {
  const cb = callbackOf(e, 'remote-1', view);
  assert.ok(cb, `a callback for ${e.type}`);
  const message = composeMessage(cb.type, cb.payload, {
    sender: { agent_id: 'hub', endpoint: 'https://hub.example/synapse/callback' },
    recipient: { agent_id: 'peer' },
    task_id: 'remote-1',
    message_id: callbackMessageId(e.taskId, e.version),
    timestamp: e.at,
  });
  const result = parseSynapseMessage(JSON.parse(JSON.stringify(message)));
  assert.ok(result.ok, `${cb.type}: ${JSON.stringify(!result.ok && result.error.details)}`);
  return result.message;
};

describe('Synapse callbacks of task events', () => {
  it('tells exactly the requester-facing events', () => {
    const told = TRANSITION_EVENTS.filter((t) => isCallbackEvent('executor', { type: t }));
    assert.deepEqual(told.sort(), [
      'complete',
      'confirm',
      'fail',
      'heartbeat_lost',
      'need_human',
      'need_info',
      'reject',
      'status_update',
      'timeout',
    ]);
    assert.equal(callbackOf(event('start'), 'r'), undefined);
    assert.equal(callbackOf(event('info_provided'), 'r'), undefined);
  });

  it('every callback is a valid message of its type, about the requester’s task id', () => {
    const cases: [TaskEvent, string][] = [
      [event('confirm', { from: 'pending', to: 'confirmed' }), 'p2p:task_confirm'],
      [
        event('reject', { to: 'rejected', reason: { code: 'capability_lacking', message: 'no' } }),
        'p2p:task_reject',
      ],
      [
        event('need_info', {
          to: 'info_needed',
          message: agent('How long?'),
          data: { missingFields: [{ field: 'seconds', reason: 'needed', suggestedValue: 5 }] },
        }),
        'p2p:task_need_info',
      ],
      [event('need_info', { to: 'info_needed', message: agent('Your answer?') }), 'p2p:task_need_info'],
      [event('status_update', { progress: 40, message: agent('40%') }), 'p2p:task_status_update'],
      [
        event('need_human', {
          to: 'need_human',
          message: agent('Approve?'),
          data: { options: [{ value: 'approve', confidence: 0.5 }, { value: 'reject' }] },
        }),
        'p2p:task_need_human',
      ],
      [event('complete', { to: 'completed', message: agent('Done') }), 'p2p:task_complete'],
      [event('fail', { to: 'failed', reason: { code: 'boom', message: 'it broke' } }), 'p2p:task_failed'],
      [event('timeout', { to: 'failed' }), 'p2p:task_failed'],
      [event('heartbeat_lost', { to: 'failed' }), 'p2p:task_failed'],
    ];
    for (const [e, type] of cases) {
      const m = parsed(e, { artifacts: [{ artifactId: 'a1', parts: [{ text: 'result' }] }] });
      assert.equal(m.type, type);
      assert.equal(m.task_id, 'remote-1');
    }
  });

  it('maps the details the requester acts on', () => {
    const info = parsed(
      event('need_info', { message: agent('How long?'), data: { missingFields: [{ field: 'seconds' }] } }),
    );
    assert.deepEqual((info.payload as { missing_fields: unknown }).missing_fields, [{ field: 'seconds' }]);
    const done = parsed(event('complete', { to: 'completed' }), {
      artifacts: [{ artifactId: 'a1', name: 'echo', parts: [{ text: 'hi' }] }],
    });
    assert.deepEqual((done.payload as { result: { output: unknown } }).result.output, [
      { artifact_id: 'a1', name: 'echo', parts: [{ text: 'hi' }] },
    ]);
    const timeout = parsed(event('timeout', { to: 'failed' }));
    assert.equal((timeout.payload as { error: { code: string } }).error.code, 'execution_timeout');
  });

  it('a callback keeps its message id on every retry, and ids are valid', () => {
    assert.equal(callbackMessageId('t/1', 3), callbackMessageId('t/1', 3));
    assert.notEqual(callbackMessageId('t', 3), callbackMessageId('t', 4));
    assert.match(callbackMessageId('t/1 x', 3), /^[A-Za-z0-9_:-]+$/);
  });
});
