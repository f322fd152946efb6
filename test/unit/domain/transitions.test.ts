import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidTransitionError, TaskNotCancelableError } from '../../../shared/domain/errors.ts';
import {
  A2A_STATE_OF,
  isInterrupted,
  isTerminal,
  SYNAPSE_STATES,
  type SynapseState,
  synapseStatesFor,
} from '../../../shared/domain/states.ts';
import {
  decide,
  nextState,
  TRANSITION_EVENTS,
  type TransitionEvent,
} from '../../../shared/domain/transitions.ts';

// The documented table (docs/state-machine.md), restated independently of the implementation.
const LIVE = [
  'idle',
  'pending',
  'confirmed',
  'executing',
  'info_needed',
  'info_provided',
  'need_human',
  'human_deciding',
  'human_approved',
  'human_rejected',
] as const;
const EXPECTED: Array<[SynapseState, TransitionEvent, SynapseState]> = [
  ['idle', 'submit', 'pending'],
  ['pending', 'confirm', 'confirmed'],
  ['pending', 'reject', 'rejected'],
  ['confirmed', 'reject', 'rejected'],
  ['executing', 'reject', 'rejected'],
  ['human_rejected', 'reject', 'rejected'],
  ['confirmed', 'start', 'executing'],
  ['info_provided', 'resume', 'executing'],
  ['human_approved', 'resume', 'executing'],
  ['human_rejected', 'resume', 'executing'],
  ['pending', 'need_info', 'info_needed'],
  ['executing', 'need_info', 'info_needed'],
  ['info_needed', 'info_provided', 'info_provided'],
  ['executing', 'need_human', 'need_human'],
  ['need_human', 'human_deciding', 'human_deciding'],
  ['need_human', 'human_approve', 'human_approved'],
  ['human_deciding', 'human_approve', 'human_approved'],
  ['need_human', 'human_reject', 'human_rejected'],
  ['human_deciding', 'human_reject', 'human_rejected'],
  ['confirmed', 'status_update', 'executing'],
  ['executing', 'status_update', 'executing'],
  ['info_provided', 'status_update', 'executing'],
  ['human_approved', 'status_update', 'executing'],
  ['human_rejected', 'status_update', 'executing'],
  ['executing', 'artifact', 'executing'],
  ['executing', 'complete', 'completed'],
  // a run out of time hands the task back to be run again
  ['executing', 'release', 'confirmed'],
  ...LIVE.map((s): [SynapseState, TransitionEvent, SynapseState] => [s, 'fail', 'failed']),
  ...LIVE.map((s): [SynapseState, TransitionEvent, SynapseState] => [s, 'cancel', 'cancelled']),
  ...LIVE.map((s): [SynapseState, TransitionEvent, SynapseState] => [s, 'timeout', 'failed']),
  ...LIVE.filter((s) => s !== 'idle').map((s): [SynapseState, TransitionEvent, SynapseState] => [
    s,
    'heartbeat_lost',
    'failed',
  ]),
  ...SYNAPSE_STATES.map((s): [SynapseState, TransitionEvent, SynapseState] => [s, 'push_config', s]),
];
const expected = new Map(EXPECTED.map(([s, e, to]) => [`${s}/${e}`, to]));

describe('transition table', () => {
  it('has 14 states and the events the engine needs', () => {
    assert.equal(SYNAPSE_STATES.length, 14);
    for (const e of [
      'cancel',
      'timeout',
      'heartbeat_lost',
      'human_approve',
      'human_reject',
      'info_provided',
      'status_update',
      'artifact',
      'complete',
      'fail',
    ]) {
      assert.ok((TRANSITION_EVENTS as readonly string[]).includes(e), e);
    }
  });

  for (const state of SYNAPSE_STATES) {
    for (const event of TRANSITION_EVENTS) {
      const want = expected.get(`${state}/${event}`);
      it(`${state} + ${event} → ${want ?? 'refused'}`, () => {
        if (want) {
          assert.equal(nextState(state, event), want);
          assert.equal(decide('t1', state, event), want);
        } else {
          assert.equal(nextState(state, event), undefined);
          assert.throws(
            () => decide('t1', state, event),
            (e: unknown) => {
              assert.ok(e instanceof InvalidTransitionError);
              assert.equal(e.state, state);
              assert.equal(e.event, event);
              if (event === 'cancel')
                assert.ok(e instanceof TaskNotCancelableError, 'cancel refusal is not-cancelable');
              else assert.equal(e.code, 'invalid_transition');
              return true;
            },
          );
        }
      });
    }
  }

  it('terminal states accept nothing but a push config registration, which leaves them as they are', () => {
    for (const state of SYNAPSE_STATES.filter(isTerminal)) {
      for (const event of TRANSITION_EVENTS)
        assert.equal(
          nextState(state, event),
          event === 'push_config' ? state : undefined,
          `${state}/${event}`,
        );
    }
    assert.deepEqual(SYNAPSE_STATES.filter(isTerminal), ['completed', 'failed', 'cancelled', 'rejected']);
  });
});

describe('A2A projection', () => {
  it('maps every Synapse state as documented', () => {
    assert.deepEqual(A2A_STATE_OF, {
      idle: 'TASK_STATE_SUBMITTED',
      pending: 'TASK_STATE_SUBMITTED',
      confirmed: 'TASK_STATE_SUBMITTED',
      executing: 'TASK_STATE_WORKING',
      info_needed: 'TASK_STATE_INPUT_REQUIRED',
      info_provided: 'TASK_STATE_WORKING',
      need_human: 'TASK_STATE_INPUT_REQUIRED',
      human_deciding: 'TASK_STATE_INPUT_REQUIRED',
      human_approved: 'TASK_STATE_WORKING',
      human_rejected: 'TASK_STATE_WORKING',
      completed: 'TASK_STATE_COMPLETED',
      failed: 'TASK_STATE_FAILED',
      cancelled: 'TASK_STATE_CANCELED',
      rejected: 'TASK_STATE_REJECTED',
    });
  });

  it('inverts for status filters and flags interrupted states', () => {
    assert.deepEqual(synapseStatesFor('TASK_STATE_INPUT_REQUIRED'), [
      'info_needed',
      'need_human',
      'human_deciding',
    ]);
    assert.deepEqual(synapseStatesFor('TASK_STATE_AUTH_REQUIRED'), []);
    assert.deepEqual(SYNAPSE_STATES.filter(isInterrupted), ['info_needed', 'need_human', 'human_deciding']);
  });
});
