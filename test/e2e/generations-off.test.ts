/**
 * Generations are off by default (docs/generations.md): through the running local hub without
 * A2A_GENERATIONS, no Task shows `generation`, the card declares no such extension, and `ifGenerationMatch`
 * and `currentGeneration` are unknown fields, ignored unread (ProtoJSON): a stale or malformed one does not
 * refuse the message, and GetTask answers at once. (Its own file: the setting is read once per process.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { GENERATIONS_EXTENSION_URI } from '../../shared/protocol/a2a/generations.ts';

let hub: LocalHub;

type Task = { id: string; generation?: unknown; status: { state: string } };
const call = async (method: string, params: unknown) => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: Record<string, unknown>; error?: { code: number } };
};
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000, env: { A2A_GENERATIONS: '' } });
});
after(async () => hub?.stop());

describe('generations off (the default)', () => {
  it('no generation on Tasks, no extension on the card', async () => {
    const sent = await call('SendMessage', { message: message('ask') });
    const task = (sent.result as { task: Task }).task;
    assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal('generation' in task, false);
    assert.equal('generation' in ((await call('GetTask', { id: task.id })).result as Task), false);
    const listed = (await call('ListTasks', {})).result as { tasks: Task[] };
    assert.ok(listed.tasks.length > 0);
    assert.ok(listed.tasks.every((t) => !('generation' in t)));
    for (const version of ['1.0', '0.3']) {
      const card = (await (
        await fetch(`${hub.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': version } })
      ).json()) as { capabilities: { extensions?: Array<{ uri: string }> } };
      assert.ok(!(card.capabilities.extensions ?? []).some((e) => e.uri === GENERATIONS_EXTENSION_URI));
    }
  });

  it('ifGenerationMatch and currentGeneration are ignored: a stale or malformed one refuses nothing', async () => {
    const task = ((await call('SendMessage', { message: message('ask') })).result as { task: Task }).task;
    const answered = await call('SendMessage', {
      message: message('Paris', { taskId: task.id }),
      configuration: { ifGenerationMatch: '1' },
    });
    assert.equal((answered.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
    const fresh = await call('SendMessage', {
      message: message('hello'),
      configuration: { ifGenerationMatch: 'x' },
    });
    assert.equal((fresh.result as { task: Task }).task.status.state, 'TASK_STATE_COMPLETED');
    // a long poll that would wait its whole budget (25 s) if it were read: answered at once
    const waiting = ((await call('SendMessage', { message: message('ask') })).result as { task: Task }).task;
    const started = Date.now();
    const got = await call('GetTask', { id: waiting.id, currentGeneration: '999' });
    assert.equal((got.result as Task).status.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.ok(Date.now() - started < 12_500, 'not held for the budget');
  });
});
