/**
 * The transition table: the single source of truth for which event may move
 * a task from which state to which state, for both A2A and Synapse.
 */
import { InvalidTransitionError, TaskNotCancelableError } from './errors.ts';
import { isTerminal, SYNAPSE_STATES, type SynapseState } from './states.ts';

export const TRANSITION_EVENTS = [
  'submit',
  'confirm',
  'reject',
  'start',
  'resume',
  'need_info',
  'info_provided',
  'need_human',
  'human_deciding',
  'human_approve',
  'human_reject',
  'status_update',
  'artifact',
  'complete',
  'fail',
  'cancel',
  'timeout',
  'heartbeat_lost',
  'release',
  'push_config',
] as const;

export type TransitionEvent = (typeof TRANSITION_EVENTS)[number];

const NON_TERMINAL = SYNAPSE_STATES.filter((s) => !isTerminal(s));
/** States in which the agent side is expected to make progress (the executor is "active"). */
const RESUMABLE: SynapseState[] = ['info_provided', 'human_approved', 'human_rejected'];

type Rule = { from: readonly SynapseState[]; to: SynapseState | 'same' };

/** `to: 'same'` marks a self-loop that records an event without changing state. */
export const TRANSITION_RULES: Readonly<Record<TransitionEvent, Rule>> = {
  // requester sends the task it prepared
  submit: { from: ['idle'], to: 'pending' },
  // executor's validate said yes
  confirm: { from: ['pending'], to: 'confirmed' },
  // executor declines: at validation, or later (A2A allows rejection after start)
  reject: { from: ['pending', 'confirmed', 'executing', 'human_rejected'], to: 'rejected' },
  // executor claims a confirmed task and runs it
  start: { from: ['confirmed'], to: 'executing' },
  // executor claims a task whose requester answered, and runs it again
  resume: { from: RESUMABLE, to: 'executing' },
  need_info: { from: ['pending', 'executing'], to: 'info_needed' },
  info_provided: { from: ['info_needed'], to: 'info_provided' },
  need_human: { from: ['executing'], to: 'need_human' },
  // a human picked the decision up (inspector / requester side)
  human_deciding: { from: ['need_human'], to: 'human_deciding' },
  human_approve: { from: ['need_human', 'human_deciding'], to: 'human_approved' },
  human_reject: { from: ['need_human', 'human_deciding'], to: 'human_rejected' },
  // progress from the executor; seen by a requester it also means "work has (re)started"
  status_update: { from: ['confirmed', 'executing', ...RESUMABLE], to: 'executing' },
  artifact: { from: ['executing'], to: 'same' },
  complete: { from: ['executing'], to: 'completed' },
  fail: { from: NON_TERMINAL, to: 'failed' },
  cancel: { from: NON_TERMINAL, to: 'cancelled' },
  timeout: { from: NON_TERMINAL, to: 'failed' },
  // idle tasks have no peer yet, so there is no heartbeat to lose
  heartbeat_lost: { from: NON_TERMINAL.filter((s) => s !== 'idle'), to: 'failed' },
  // a run that ran out of its time budget gives the task back, to be run again by the executor
  release: { from: ['executing'], to: 'confirmed' },
  // a push-notification config registered or removed: recorded on the task (its head lists the configs),
  // so the stream relay knows from the task's own change whom to notify; on a finished task too, whose
  // late-registered config is sent the final state once (docs/push-notifications.md)
  push_config: { from: SYNAPSE_STATES, to: 'same' },
};

/** Source states from which `event` is allowed (used in the store's write condition). */
export const allowedSources = (event: TransitionEvent): readonly SynapseState[] =>
  TRANSITION_RULES[event].from;

/** The state `event` leads to from `state`, or undefined when the pair is not allowed. */
export const nextState = (state: SynapseState, event: TransitionEvent): SynapseState | undefined => {
  const rule = TRANSITION_RULES[event];
  if (!rule.from.includes(state)) return undefined;
  return rule.to === 'same' ? state : rule.to;
};

/** Like nextState, but throws the typed error a caller should see. */
export const decide = (taskId: string, state: SynapseState, event: TransitionEvent): SynapseState => {
  const next = nextState(state, event);
  if (next !== undefined) return next;
  if (event === 'cancel') throw new TaskNotCancelableError(taskId, state);
  throw new InvalidTransitionError(taskId, state, event);
};
