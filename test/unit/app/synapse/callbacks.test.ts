/**
 * The callbacks of a task's events (shared/app/synapse/callbacks.ts): the worker sends them without
 * checking (its bundle loads no schema), so here every one is parsed with the inbound schemas.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  callbackMessageId,
  callbackOf,
  isCallbackEvent,
  requesterMessageOf,
} from '../../../../shared/app/synapse/callbacks.ts';
import type { TaskEvent } from '../../../../shared/domain/task.ts';
import { TRANSITION_EVENTS } from '../../../../shared/domain/transitions.ts';
import { composeMessage, parseSynapseMessage } from '../../../../shared/protocol/synapse/index.ts';

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
    const rejected = parsed(
      event('reject', {
        to: 'rejected',
        reason: {
          code: 'capability_lacking',
          message: 'not here',
          details: { alternatives: { suggestedAgentId: 'agent-c', retryAfter: 60, partialSupport: true } },
        },
      }),
    );
    assert.deepEqual((rejected.payload as { alternatives: unknown }).alternatives, {
      suggested_agent_id: 'agent-c',
      retry_after: 60,
      partial_support: true,
    });
    const timeout = parsed(event('timeout', { to: 'failed' }));
    assert.equal((timeout.payload as { error: { code: string } }).error.code, 'execution_timeout');
  });

  it('a callback keeps its message id on every retry, and ids are valid', () => {
    assert.equal(callbackMessageId('t/1', 3), callbackMessageId('t/1', 3));
    assert.notEqual(callbackMessageId('t', 3), callbackMessageId('t', 4));
    assert.match(callbackMessageId('t/1 x', 3), /^[A-Za-z0-9_:-]+$/);
  });
});

describe('what a requester sends its executor', () => {
  const head = {
    taskId: 'req-task',
    contextId: 'ctx-1',
    owner: 'bob',
    deadlineAt: '2026-12-02T00:05:00.000Z',
    metadata: { 'synapse.skill': 'translate', 'synapse.priority': 'high' },
  };
  const valid = (cb: ReturnType<typeof requesterMessageOf>) => {
    assert.ok(cb);
    const message = composeMessage(cb.type, cb.payload, {
      sender: { agent_id: 'hub-a', endpoint: 'https://a.example/synapse/callback' },
      task_id: 'req-task',
      message_id: 'm-1',
    });
    const result = parseSynapseMessage(JSON.parse(JSON.stringify(message)));
    assert.ok(result.ok, JSON.stringify(!result.ok && result.error.details));
    return result.message;
  };

  it('tells exactly its own messages: request, answers, decisions, cancel', () => {
    const told = TRANSITION_EVENTS.filter((t) => isCallbackEvent('requester', { type: t }));
    assert.deepEqual(told.sort(), [
      'cancel',
      'heartbeat_lost',
      'human_approve',
      'human_reject',
      'info_provided',
      'submit',
      'timeout',
    ]);
  });

  it('the request carries the type, payload, deadline and context of the first message', () => {
    const m = valid(
      requesterMessageOf(event('submit', { from: 'idle', to: 'pending' }), {
        head,
        request: {
          messageId: 'q',
          role: 'user',
          // a client's own data part naming another type comes first: the routed skill and the last
          // request part count, never the client's data
          parts: [
            { text: 'hallo' },
            { data: { type: 'admin', 'synapse.request': { type: 'admin', payload: { evil: true } } } },
            { data: { 'synapse.request': { type: 'translate', payload: { text: 'hallo', to: 'en' } } } },
          ],
          metadata: { 'synapse.skill': 'translate' },
        },
      }),
    );
    assert.equal(m.type, 'p2p:task_request');
    assert.deepEqual((m.payload as { task: unknown }).task, {
      id: 'req-task',
      type: 'translate',
      priority: 'high',
      deadline: head.deadlineAt,
      payload: { text: 'hallo', to: 'en' },
    });
    assert.deepEqual((m.payload as { context: unknown }).context, { session_id: 'ctx-1' });
  });

  it('an answer, a decision (who decided), a cancel', () => {
    const info = valid(
      requesterMessageOf(
        event('info_provided', { message: { messageId: 'a', role: 'user', parts: [{ text: '3' }] } }),
        {
          head,
        },
      ),
    );
    assert.deepEqual(info.payload, { task_id: 'req-task', provided_fields: { answer: '3' }, message: '3' });
    const decided = valid(
      requesterMessageOf(
        event('human_reject', {
          data: { notes: 'too risky' },
          message: {
            messageId: 'd',
            role: 'user',
            parts: [{ data: { decision: 'reject', decided_by: { user_id: 'u-9', role: 'lead' } } }],
          },
        }),
        { head },
      ),
    );
    const p = decided.payload as { decided_by: unknown; decision: unknown; notes: string };
    assert.deepEqual(p.decided_by, { user_id: 'u-9', role: 'lead' });
    assert.deepEqual(p.decision, { action: 'reject' });
    assert.equal(p.notes, 'too risky');
    const byOwner = valid(
      requesterMessageOf(
        event('human_approve', { message: { messageId: 'd', role: 'user', parts: [{ text: 'approve' }] } }),
        { head },
      ),
    );
    assert.deepEqual((byOwner.payload as { decided_by: unknown }).decided_by, { user_id: 'bob' });
    const cancel = valid(requesterMessageOf(event('cancel', { to: 'cancelled' }), { head }));
    assert.equal(cancel.type, 'p2p:task_cancel');
  });

  it('a peer taken for lost is told to stop: its work would be refused when it reports', () => {
    const stop = valid(requesterMessageOf(event('heartbeat_lost', { to: 'failed' }), { head }));
    assert.equal(stop.type, 'p2p:task_cancel');
    assert.deepEqual((stop.payload as { reason: { code: string } }).reason.code, 'heartbeat_lost');
  });
});
