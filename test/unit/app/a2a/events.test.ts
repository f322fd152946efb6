/**
 * Stream events: which stored task events a stream shows (shared/app/a2a/events.ts), how each version
 * encodes them (v1.0 StreamResponse, v0.3 bare objects with `kind` and `final`), and the SSE framing
 * (shared/app/a2a/sse.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finalStatusOf, snapshotOf, streamEventOf } from '../../../../shared/app/a2a/events.ts';
import { lastEventIdOf, sseComment, sseEvent } from '../../../../shared/app/a2a/sse.ts';
import type { SynapseState } from '../../../../shared/domain/states.ts';
import type { TaskEvent } from '../../../../shared/domain/task.ts';
import type { StreamEvent } from '../../../../shared/protocol/a2a/operations.ts';
import { v1Codec } from '../../../../shared/protocol/a2a/v1.ts';
import { v03Codec } from '../../../../shared/protocol/a2a/v03.ts';
import { agentMessage, allKeys, artifact, T1, userMessage, view } from '../../protocol/a2a/fixtures.ts';

const task = { taskId: 't1', contextId: 'c1' };
let version = 0;
const ev = (
  type: TaskEvent['type'],
  from: SynapseState | null,
  to: SynapseState,
  extra: Partial<TaskEvent> = {},
): TaskEvent => ({
  taskId: 't1',
  tenant: 'tenant-a',
  version: ++version,
  type,
  from,
  to,
  at: T1,
  ...extra,
});

describe('stream events of stored events', () => {
  it('a change of the A2A state is a status update, without the requester message it carries', () => {
    const created = streamEventOf(task, ev('created', null, 'pending', { message: userMessage() }));
    assert.deepEqual(created, {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: T1 },
      final: false,
    });
    const start = streamEventOf(task, ev('start', 'confirmed', 'executing'));
    assert.equal(start?.kind === 'status-update' && start.status.state, 'TASK_STATE_WORKING');
    const answered = streamEventOf(
      task,
      ev('info_provided', 'info_needed', 'info_provided', { message: userMessage() }),
    );
    assert.ok(answered?.kind === 'status-update');
    assert.equal(answered.status.state, 'TASK_STATE_WORKING');
    assert.equal(answered.status.message, undefined, 'the user message is not streamed');
  });

  it('no status update for events that change nothing an A2A client sees', () => {
    assert.equal(streamEventOf(task, ev('confirm', 'pending', 'confirmed')), undefined, 'SUBMITTED both');
    assert.equal(streamEventOf(task, ev('resume', 'info_provided', 'executing')), undefined, 'WORKING both');
    assert.equal(streamEventOf(task, ev('human_deciding', 'need_human', 'human_deciding')), undefined);
    assert.equal(
      streamEventOf(task, ev('human_approve', 'need_human', 'human_approved', { message: userMessage() }))
        ?.kind,
      'status-update',
      'INPUT_REQUIRED → WORKING is a change',
    );
  });

  it('agent messages, progress and the agent status updates are status updates', () => {
    const progress = streamEventOf(
      task,
      ev('status_update', 'executing', 'executing', {
        progress: 40,
        message: agentMessage({ parts: [{ text: '2/5 s' }] }),
      }),
    );
    assert.ok(progress?.kind === 'status-update');
    assert.equal(progress.status.state, 'TASK_STATE_WORKING');
    assert.equal(progress.status.message?.parts[0]?.text, '2/5 s');
    assert.equal(progress.final, false);
    const bare = streamEventOf(task, ev('status_update', 'executing', 'executing'));
    assert.ok(bare?.kind === 'status-update', 'ctx.status() without a message is shown too');
    assert.equal(bare.status.message, undefined);
    const percentOnly = streamEventOf(task, ev('status_update', 'executing', 'executing', { progress: 10 }));
    assert.ok(percentOnly?.kind === 'status-update');
    assert.equal(percentOnly.status.message, undefined);
  });

  it('terminal and interrupted states are final status updates, with the agent message', () => {
    for (const [type, from, to, state] of [
      ['complete', 'executing', 'completed', 'TASK_STATE_COMPLETED'],
      ['fail', 'executing', 'failed', 'TASK_STATE_FAILED'],
      ['cancel', 'info_needed', 'cancelled', 'TASK_STATE_CANCELED'],
      ['reject', 'pending', 'rejected', 'TASK_STATE_REJECTED'],
      ['need_info', 'executing', 'info_needed', 'TASK_STATE_INPUT_REQUIRED'],
      ['need_human', 'executing', 'need_human', 'TASK_STATE_INPUT_REQUIRED'],
    ] as const) {
      const shown = streamEventOf(task, ev(type, from, to, { message: agentMessage() }));
      assert.ok(shown?.kind === 'status-update', type);
      assert.equal(shown.status.state, state, type);
      assert.equal(shown.final, true, type);
      assert.equal(shown.status.message?.messageId, 'a1', type);
    }
    // a hand-back is no end: the executor takes the task on
    const released = streamEventOf(task, ev('release', 'executing', 'confirmed'));
    assert.ok(released?.kind === 'status-update');
    assert.equal(released.status.state, 'TASK_STATE_SUBMITTED');
    assert.equal(released.final, false);
  });

  it('an artifact event is an artifact update with its chunk flags', () => {
    const first = streamEventOf(
      task,
      ev('artifact', 'executing', 'executing', { artifact: { artifact: artifact(), append: false } }),
    );
    assert.deepEqual(first, {
      kind: 'artifact-update',
      taskId: 't1',
      contextId: 'c1',
      artifact: artifact(),
      append: false,
    });
    const last = streamEventOf(
      task,
      ev('artifact', 'executing', 'executing', {
        artifact: { artifact: artifact({ parts: [{ text: '!' }] }), append: true, lastChunk: true },
      }),
    );
    assert.ok(last?.kind === 'artifact-update');
    assert.equal(last.append, true);
    assert.equal(last.lastChunk, true);
  });

  it('the final status of a settled snapshot is its status', () => {
    const settled = view({ state: 'info_needed', head: { statusMessage: agentMessage(), statusAt: T1 } });
    assert.deepEqual(finalStatusOf(settled), {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentMessage(), timestamp: T1 },
      final: true,
      metadata: { 'synapse.question': { kind: 'info' } },
    });
  });

  it('progress and the kind of question travel in the update metadata, under synapse. keys', () => {
    const progress = streamEventOf(task, ev('status_update', 'executing', 'executing', { progress: 40 }));
    assert.ok(progress?.kind === 'status-update');
    assert.deepEqual(progress.metadata, { 'synapse.progress': 40 });
    const missingFields = [{ field: 'seconds', reason: 'slow needs a duration', suggestedValue: 5 }];
    const info = streamEventOf(
      task,
      ev('need_info', 'executing', 'info_needed', { message: agentMessage(), data: { missingFields } }),
    );
    assert.ok(info?.kind === 'status-update');
    assert.deepEqual(info.metadata, { 'synapse.question': { kind: 'info', missingFields } });
    const options = [
      { value: 'approve', confidence: 0.5 },
      { value: 'reject', confidence: 0.5 },
    ];
    const human = streamEventOf(
      task,
      ev('need_human', 'executing', 'need_human', { message: agentMessage(), data: { options } }),
    );
    assert.ok(human?.kind === 'status-update');
    assert.deepEqual(human.metadata, { 'synapse.question': { kind: 'human_decision', options } });
    const bareQuestion = streamEventOf(task, ev('need_info', 'executing', 'info_needed'));
    assert.ok(bareQuestion?.kind === 'status-update');
    assert.deepEqual(bareQuestion.metadata, { 'synapse.question': { kind: 'info', missingFields: [] } });
    const plain = streamEventOf(task, ev('complete', 'executing', 'completed', { message: agentMessage() }));
    assert.ok(plain?.kind === 'status-update');
    assert.equal(plain.metadata, undefined, 'nothing to say: no metadata');
  });

  it('the final status of a snapshot carries the latest progress and the human decision it waits on', () => {
    const deciding = view({ state: 'need_human', head: { progress: 60, statusAt: T1 } });
    const shown = finalStatusOf(deciding);
    assert.ok(shown.kind === 'status-update');
    assert.deepEqual(shown.metadata, {
      'synapse.progress': 60,
      'synapse.question': { kind: 'human_decision' },
    });
  });
});

const status = (final: boolean): StreamEvent => ({
  kind: 'status-update',
  taskId: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED', message: agentMessage(), timestamp: T1 },
  final,
});
const chunk: StreamEvent = {
  kind: 'artifact-update',
  taskId: 't1',
  contextId: 'c1',
  artifact: artifact(),
  append: true,
  lastChunk: false,
};

describe('stream event encoding', () => {
  it('v1.0: a StreamResponse with exactly one member, no kind and no final', () => {
    const snapshot = v1Codec.encodeStreamEvent(snapshotOf(view(), { includeArtifacts: true })) as Record<
      string,
      { id?: string; status?: { state: string } }
    >;
    assert.deepEqual(Object.keys(snapshot), ['task']);
    assert.equal(snapshot.task?.id, 't1');
    assert.equal(snapshot.task?.status?.state, 'TASK_STATE_WORKING');
    assert.deepEqual(v1Codec.encodeStreamEvent({ kind: 'message', message: agentMessage() }), {
      message: {
        messageId: 'a1',
        contextId: 'c1',
        taskId: 't1',
        parts: [{ text: 'which city?' }],
        role: 'ROLE_AGENT',
      },
    });
    assert.deepEqual(v1Codec.encodeStreamEvent(status(true)), {
      statusUpdate: {
        taskId: 't1',
        contextId: 'c1',
        status: {
          state: 'TASK_STATE_COMPLETED',
          message: {
            messageId: 'a1',
            contextId: 'c1',
            taskId: 't1',
            parts: [{ text: 'which city?' }],
            role: 'ROLE_AGENT',
          },
          timestamp: T1,
        },
      },
    });
    assert.deepEqual(v1Codec.encodeStreamEvent(chunk), {
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'r1', name: 'result', parts: [{ text: 'done' }] },
        append: true,
        lastChunk: false,
      },
    });
    for (const e of [status(true), status(false), chunk]) {
      const keys = allKeys(v1Codec.encodeStreamEvent(e));
      assert.ok(!keys.has('kind') && !keys.has('final'), [...keys].join());
    }
  });

  it('v0.3: bare objects told apart by kind, final on status updates', () => {
    const snapshot = v03Codec.encodeStreamEvent(snapshotOf(view(), { includeArtifacts: true })) as {
      kind: string;
      status: { state: string };
    };
    assert.equal(snapshot.kind, 'task');
    assert.equal(snapshot.status.state, 'working');
    const message = v03Codec.encodeStreamEvent({ kind: 'message', message: agentMessage() }) as {
      kind: string;
      role: string;
    };
    assert.equal(message.kind, 'message');
    assert.equal(message.role, 'agent');
    assert.deepEqual(v03Codec.encodeStreamEvent(status(true)), {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: {
        state: 'completed',
        message: {
          kind: 'message',
          messageId: 'a1',
          contextId: 'c1',
          taskId: 't1',
          parts: [{ kind: 'text', text: 'which city?' }],
          role: 'agent',
        },
        timestamp: T1,
      },
      final: true,
    });
    assert.equal((v03Codec.encodeStreamEvent(status(false)) as { final: boolean }).final, false);
    assert.deepEqual(v03Codec.encodeStreamEvent(chunk), {
      kind: 'artifact-update',
      taskId: 't1',
      contextId: 'c1',
      artifact: { artifactId: 'r1', name: 'result', parts: [{ kind: 'text', text: 'done' }] },
      append: true,
      lastChunk: false,
    });
  });

  it('the update metadata (progress, question) is the status update event metadata in both versions', () => {
    const metadata = { 'synapse.progress': 40, 'synapse.question': { kind: 'info', missingFields: [] } };
    const update: StreamEvent = {
      kind: 'status-update',
      taskId: 't1',
      contextId: 'c1',
      status: { state: 'TASK_STATE_WORKING', timestamp: T1 },
      final: false,
      metadata,
    };
    const v1 = v1Codec.encodeStreamEvent(update) as { statusUpdate: { metadata?: unknown } };
    assert.deepEqual(v1.statusUpdate.metadata, metadata);
    const v03 = v03Codec.encodeStreamEvent(update) as { metadata?: unknown };
    assert.deepEqual(v03.metadata, metadata);
    const none = v1Codec.encodeStreamEvent(status(false));
    assert.ok('statusUpdate' in none && !('metadata' in none.statusUpdate), 'no metadata: none on the wire');
  });
});

describe('SSE framing', () => {
  it('an event is its id, its event name and one data line per line, then a blank line', () => {
    assert.equal(sseEvent({ id: 7, data: '{"a":1}' }), 'id: 7\ndata: {"a":1}\n\n');
    assert.equal(sseEvent({ data: 'x' }), 'data: x\n\n');
    assert.equal(sseEvent({ event: 'error', data: '{}' }), 'event: error\ndata: {}\n\n');
    assert.equal(
      sseEvent({ data: 'a\nb\r\nc' }),
      'data: a\ndata: b\ndata: c\n\n',
      'no raw line break in data',
    );
    assert.equal(sseEvent({ event: 'x\ny', data: '' }), 'event: xy\ndata: \n\n');
  });

  it('a comment is a line starting with a colon', () => {
    assert.equal(sseComment(), ': keepalive\n\n');
    assert.equal(sseComment('a\nb'), ': a b\n\n');
  });

  it('Last-Event-ID: a task version, nothing, or invalid', () => {
    assert.equal(lastEventIdOf(undefined), undefined);
    assert.equal(lastEventIdOf(' '), undefined);
    assert.equal(lastEventIdOf('0'), 0);
    assert.equal(lastEventIdOf(' 42 '), 42);
    for (const bad of ['-1', '1.5', 'x', '1e3', '9'.repeat(16), '0x10']) {
      assert.equal(lastEventIdOf(bad), 'invalid', bad);
    }
  });
});
