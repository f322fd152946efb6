/**
 * What `send -i` and `chat` make of a paused task (cli/interactive.ts): the question its last status update
 * asks, read from the update's `synapse.question` metadata (docs/streaming.md#progress-and-questions), and
 * what an agent that says nothing of it gets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Task, TaskState, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { questionOf } from '../../../cli/interactive.ts';
import { textPart } from '../../../cli/turns.ts';

const status = (text: string) => ({
  state: TaskState.TASK_STATE_INPUT_REQUIRED,
  message: {
    messageId: 'a1',
    contextId: 'c1',
    taskId: 't1',
    role: 2,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  timestamp: undefined,
});
const task = {
  id: 't1',
  contextId: 'c1',
  status: status('from the task'),
  artifacts: [],
  history: [],
  metadata: undefined,
} as Task;
const update = (metadata: Record<string, unknown> | undefined): TaskStatusUpdateEvent =>
  ({ taskId: 't1', contextId: 'c1', status: status('Approve?'), metadata }) as TaskStatusUpdateEvent;

describe('the question of a paused task', () => {
  it('a human decision with the options the agent gave', () => {
    const q = questionOf(
      update({
        'synapse.question': {
          kind: 'human_decision',
          options: [{ value: 'ship', confidence: 1 }, { value: 'hold' }],
        },
      }),
      task,
    );
    assert.deepEqual(q, {
      kind: 'human_decision',
      text: 'Approve?',
      options: [{ value: 'ship' }, { value: 'hold' }],
    });
  });

  it('a human decision without options: approve or reject, what the hub reads', () => {
    const q = questionOf(update({ 'synapse.question': { kind: 'human_decision' } }), task);
    assert.deepEqual(q.kind === 'human_decision' && q.options, [{ value: 'approve' }, { value: 'reject' }]);
  });

  it('information, with the missing fields', () => {
    const missingFields = [{ field: 'seconds', reason: 'slow needs a duration', suggestedValue: 5 }];
    const q = questionOf(update({ 'synapse.question': { kind: 'info', missingFields } }), task);
    assert.deepEqual(q, { kind: 'info', text: 'Approve?', missingFields });
  });

  it('an update from before the pause asks nothing: the task’s own status text', () => {
    const progress = {
      ...update({ 'synapse.progress': 40 }),
      status: { ...status('2/5 s'), state: TaskState.TASK_STATE_WORKING },
    };
    assert.deepEqual(questionOf(progress, task), { kind: 'info', text: 'from the task', missingFields: [] });
  });

  it('an agent that says nothing of it, or no update at all: free text, the task’s own status text', () => {
    assert.deepEqual(questionOf(update(undefined), task), {
      kind: 'info',
      text: 'Approve?',
      missingFields: [],
    });
    assert.deepEqual(questionOf(undefined, task), { kind: 'info', text: 'from the task', missingFields: [] });
  });
});
