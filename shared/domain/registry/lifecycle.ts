/**
 * A registry record's life, as data (docs/registry.md#lifecycle): the review state of its latest version,
 * and what each action may do from each state. A new version starts a new review (DRAFT, or
 * PENDING_APPROVAL when submitted with it) while the approved version stays live; DEPRECATED is terminal.
 */
import type { RecordState } from './record.ts';

export type RecordAction = 'publish' | 'submit' | 'approve' | 'reject' | 'deprecate';

/** The states each action is allowed from, and the state it leads to. */
export const RECORD_TRANSITIONS = {
  publish: { from: ['DRAFT', 'PENDING_APPROVAL', 'APPROVED', 'REJECTED'], to: 'DRAFT' },
  submit: { from: ['DRAFT', 'REJECTED'], to: 'PENDING_APPROVAL' },
  approve: { from: ['PENDING_APPROVAL'], to: 'APPROVED' },
  reject: { from: ['PENDING_APPROVAL'], to: 'REJECTED' },
  deprecate: { from: ['DRAFT', 'PENDING_APPROVAL', 'APPROVED', 'REJECTED'], to: 'DEPRECATED' },
} as const satisfies Record<RecordAction, { from: readonly RecordState[]; to: RecordState }>;

/** The state `action` leads to from `state`, or undefined when it is not allowed there. */
export const nextState = (state: RecordState, action: RecordAction): RecordState | undefined => {
  const rule = RECORD_TRANSITIONS[action];
  return (rule.from as readonly RecordState[]).includes(state) ? rule.to : undefined;
};
