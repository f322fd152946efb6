/** The registry record's life (shared/domain/registry/lifecycle.ts), every state against every action. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextState, type RecordAction } from '../../../../shared/domain/registry/lifecycle.ts';
import { RECORD_STATES, type RecordState } from '../../../../shared/domain/registry/record.ts';

const EXPECTED: Record<RecordState, Record<RecordAction, RecordState | undefined>> = {
  DRAFT: {
    publish: 'DRAFT',
    submit: 'PENDING_APPROVAL',
    approve: undefined,
    reject: undefined,
    deprecate: 'DEPRECATED',
  },
  PENDING_APPROVAL: {
    publish: 'DRAFT',
    submit: undefined,
    approve: 'APPROVED',
    reject: 'REJECTED',
    deprecate: 'DEPRECATED',
  },
  APPROVED: {
    publish: 'DRAFT',
    submit: undefined,
    approve: undefined,
    reject: undefined,
    deprecate: 'DEPRECATED',
  },
  REJECTED: {
    publish: 'DRAFT',
    submit: 'PENDING_APPROVAL',
    approve: undefined,
    reject: undefined,
    deprecate: 'DEPRECATED',
  },
  DEPRECATED: {
    publish: undefined,
    submit: undefined,
    approve: undefined,
    reject: undefined,
    deprecate: undefined,
  },
};

describe('registry record lifecycle', () => {
  it('allows exactly the transitions of docs/registry.md, DEPRECATED terminal', () => {
    for (const state of RECORD_STATES)
      for (const [action, to] of Object.entries(EXPECTED[state]))
        assert.equal(nextState(state, action as RecordAction), to, `${action} from ${state}`);
  });
});
