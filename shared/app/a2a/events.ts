/**
 * What a task's stream shows of its stored events: each TaskEvent becomes at
 * most one version-neutral stream event (shared/protocol/a2a/operations.ts
 * StreamEvent), so an event's version identifies it (the SSE `id:`).
 *
 * - An `artifact` event becomes an artifact update (the chunk as the agent
 *   recorded it: `append`, `lastChunk`).
 * - An event becomes a status update when it changes the task's A2A state (the
 *   projection: `pending → confirmed` is SUBMITTED both times and shows
 *   nothing), carries an agent's message (a status message, a question, the
 *   text of an outcome) or progress, or is the agent's own status update
 *   (`ctx.status()`, even without a message). Its status is that event's:
 *   the state after it, its agent message (none otherwise, also for progress
 *   reported without a message) and its time.
 * - The requester's messages are not streamed (A2A streams carry what the
 *   agent side does; the client knows what it sent): the task's first message,
 *   an answer to a question, a human decision. The state change an answer
 *   causes (INPUT_REQUIRED → WORKING) is streamed, without the message.
 * - Nothing else is: a claim (`start`, `resume`) shows only as the state change
 *   it makes, if it makes one; `human_deciding` (INPUT_REQUIRED throughout)
 *   shows nothing; a reason (`fail`, `timeout`) travels as the message the
 *   event carries, if any.
 *
 * A status update's own metadata says what A2A's TaskStatus cannot
 * (docs/streaming.md#progress-and-questions): `synapse.progress`, the agent's
 * percentage (0-100) when the event reports one, and `synapse.question` on a
 * question: `{kind: 'info', missingFields}` or `{kind: 'human_decision', options}`.
 *
 * An event that leaves the task terminal or interrupted (INPUT_REQUIRED,
 * AUTH_REQUIRED) always changes the A2A state, so it is always a status update:
 * the stream's last one (`final`), after which the stream ends: a stream
 * never ends on a snapshot alone (docs/streaming.md#where-a-stream-ends).
 */
import { isInterrupted, isTerminal, type SynapseState, toA2AState } from '../../domain/states.ts';
import type { TaskEvent, TaskSummary, TaskView } from '../../domain/task.ts';
import type { StreamEvent, TaskEncodeOptions } from '../../protocol/a2a/projection.ts';

/** The metadata key of the agent's progress, a percentage (0-100). */
export const PROGRESS_KEY = 'synapse.progress';
/** The metadata key of the kind of question an interrupted task asks, and what answers it. */
export const QUESTION_KEY = 'synapse.question';

/** The question a state waits on: more information, or a human decision. */
const questionKindOf = (state: SynapseState): 'info' | 'human_decision' | undefined =>
  state === 'info_needed'
    ? 'info'
    : state === 'need_human' || state === 'human_deciding'
      ? 'human_decision'
      : undefined;

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A status update's metadata: the progress and the question, each when there is one; none when neither. */
const statusMetadata = (
  progress: number | undefined,
  question: Record<string, unknown> | undefined,
): { metadata?: Record<string, unknown> } =>
  progress === undefined && question === undefined
    ? {}
    : {
        metadata: {
          ...(progress !== undefined ? { [PROGRESS_KEY]: progress } : {}),
          ...(question ? { [QUESTION_KEY]: question } : {}),
        },
      };

/** What an event's status update says beyond its status: progress, and the question it asks. */
const statusMetadataOf = (event: TaskEvent) =>
  statusMetadata(
    event.progress,
    event.type === 'need_info'
      ? { kind: 'info', missingFields: listOf(event.data?.missingFields) }
      : event.type === 'need_human'
        ? { kind: 'human_decision', options: listOf(event.data?.options) }
        : undefined,
  );

/** Where the stream of a task ends: the state leaves nothing more to follow (terminal or interrupted). */
export const endsStream = (state: SynapseState): boolean => isTerminal(state) || isInterrupted(state);

/** The stream event of one stored event, or undefined when a stream shows nothing of it. */
export function streamEventOf(
  task: Pick<TaskSummary, 'taskId' | 'contextId'>,
  event: TaskEvent,
): StreamEvent | undefined {
  const ids = { taskId: task.taskId, contextId: task.contextId };
  if (event.type === 'artifact') {
    if (!event.artifact) return undefined;
    const { artifact, append, lastChunk } = event.artifact;
    return {
      kind: 'artifact-update',
      ...ids,
      artifact,
      ...(append !== undefined ? { append } : {}),
      ...(lastChunk !== undefined ? { lastChunk } : {}),
    };
  }
  const state = toA2AState(event.to);
  const stateChanged = event.from === null || toA2AState(event.from) !== state;
  const agentMessage = event.message?.role === 'agent' ? event.message : undefined;
  const shown =
    stateChanged ||
    agentMessage !== undefined ||
    event.progress !== undefined ||
    event.type === 'status_update';
  if (!shown) return undefined;
  return {
    kind: 'status-update',
    ...ids,
    status: { state, ...(agentMessage ? { message: agentMessage } : {}), timestamp: event.at },
    final: endsStream(event.to),
    ...statusMetadataOf(event),
  };
}

/** The Task snapshot that opens a stream. */
export const snapshotOf = (view: TaskView, show: TaskEncodeOptions): StreamEvent => ({
  kind: 'task',
  view,
  show,
});

/**
 * The status of a snapshot as a status update: sent after a snapshot of a task that is already terminal
 * or interrupted, so the stream still ends on a status update (docs/streaming.md#where-a-stream-ends).
 * Its metadata holds the task's latest progress and the kind of question it waits on (the head keeps no
 * missing fields or options: those come with the question's own update).
 */
export const finalStatusOf = (view: TaskView): StreamEvent => {
  const question = questionKindOf(view.head.state);
  return {
    kind: 'status-update',
    taskId: view.head.taskId,
    contextId: view.head.contextId,
    status: {
      state: toA2AState(view.head.state),
      ...(view.head.statusMessage ? { message: view.head.statusMessage } : {}),
      timestamp: view.head.statusAt,
    },
    final: true,
    ...statusMetadata(view.head.progress, question ? { kind: question } : undefined),
  };
};
