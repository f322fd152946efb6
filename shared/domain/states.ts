/**
 * Task states. The Synapse fine-grained state is the stored truth; the A2A
 * TaskState is a projection of it (see docs/state-machine.md).
 */

export const SYNAPSE_STATES = [
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
  'completed',
  'failed',
  'cancelled',
  'rejected',
] as const;

export type SynapseState = (typeof SYNAPSE_STATES)[number];

export const TERMINAL_STATES: ReadonlySet<SynapseState> = new Set([
  'completed',
  'failed',
  'cancelled',
  'rejected',
]);

export const isTerminal = (state: SynapseState): boolean => TERMINAL_STATES.has(state);

/** A2A v1.0 TaskState names (ProtoJSON enum spelling). */
export const A2A_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
] as const;

export type A2AState = (typeof A2A_STATES)[number];

/**
 * Projection onto A2A. Accepted-but-not-started states are SUBMITTED; every
 * state in which the agent side is (or is about to be) working is WORKING;
 * both "waiting for the requester" families (missing info, human decision)
 * are INPUT_REQUIRED because in A2A the client is the party that answers
 * them with a message on the same task. AUTH_REQUIRED is not produced by the
 * engine today: it is reserved for in-task authorization.
 */
export const A2A_STATE_OF: Readonly<Record<SynapseState, A2AState>> = {
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
};

export const toA2AState = (state: SynapseState): A2AState => A2A_STATE_OF[state];

/** The Synapse states an A2A state filter matches (for ListTasks by status). */
export const synapseStatesFor = (a2a: A2AState): SynapseState[] =>
  SYNAPSE_STATES.filter((s) => A2A_STATE_OF[s] === a2a);

/** A2A "interrupted" states end a blocking SendMessage just like terminal ones. */
export const isInterrupted = (state: SynapseState): boolean => {
  const a2a = A2A_STATE_OF[state];
  return a2a === 'TASK_STATE_INPUT_REQUIRED' || a2a === 'TASK_STATE_AUTH_REQUIRED';
};

/** States in which a task waits for the executor to (re)run it: a run must be on its way. */
export const AWAITING_EXECUTOR: ReadonlySet<SynapseState> = new Set([
  'pending',
  'confirmed',
  'info_provided',
  'human_approved',
  'human_rejected',
]);

/**
 * Whether this hub's executor must (re)run the task: it waits for a run, and its agent is this hub's.
 * A requester task (this hub delegated it to a Synapse peer) is worked on by the peer: never run here.
 */
export const awaitsLocalRun = (head: { role: 'executor' | 'requester'; state: SynapseState }): boolean =>
  head.role === 'executor' && AWAITING_EXECUTOR.has(head.state);
