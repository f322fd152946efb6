/**
 * agents/tck, the agent the official A2A TCK runs against (docs/development.md), behind the local hub:
 * each scenario prefix of the TCK's feature files gives what the TCK expects of it, and a follow-up
 * to a question is acted on by its own id (the TCK's multi-turn and subscribe tests rely on it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

let hub: LocalHub;

before(async () => {
  hub = await startLocalHub({
    port: 0,
    sweepIntervalMs: 60_000,
    env: { AGENT_MODULE: new URL('../../agents/tck/index.ts', import.meta.url).pathname },
  });
});
after(async () => hub?.stop());

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any;

const send = async (prefix: string, extra: Record<string, unknown> = {}): Promise<Json> => {
  const res = await fetch(`${hub.url}/a2a/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      message: {
        messageId: `${prefix}-${crypto.randomUUID()}`,
        role: 'ROLE_USER',
        parts: [{ text: 'x' }],
        ...extra,
      },
    }),
  });
  assert.equal(res.status, 200);
  return res.json();
};

describe('the TCK agent', () => {
  it('completes by default with "Hello from TCK", and answers tck-message-response with a message', async () => {
    const done = await send('tck-complete-task');
    assert.equal(done.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(done.task.status.message.parts[0].text, 'Hello from TCK');
    const reply = await send('tck-message-response');
    assert.equal(reply.message.parts[0].text, 'Direct message response');
  });

  it('gives the artifact of each artifact scenario', async () => {
    const part = async (prefix: string) => (await send(prefix)).task.artifacts[0].parts[0];
    assert.equal((await part('tck-artifact-text')).text, 'Generated text content');
    const file = await part('tck-artifact-file');
    assert.deepEqual(
      [file.filename, file.mediaType, typeof file.raw],
      ['output.txt', 'text/plain', 'string'],
    );
    const url = await part('tck-artifact-file-url');
    assert.deepEqual([url.url, url.filename], ['https://example.com/output.txt', 'output.txt']);
    assert.deepEqual((await part('tck-artifact-data')).data, { key: 'value', count: 42 });
  });

  it('asks for input, and a tck-complete-task follow-up completes the task; tck-reject-task is rejected', async () => {
    const asked = await send('tck-input-required');
    assert.equal(asked.task.status.state, 'TASK_STATE_INPUT_REQUIRED');
    const answered = await send('tck-complete-task', { taskId: asked.task.id });
    assert.equal(answered.task.status.state, 'TASK_STATE_COMPLETED');
    assert.equal((await send('tck-reject-task')).task.status.state, 'TASK_STATE_REJECTED');
  });

  it('streams the chunked artifact: two chunks adding up, the last one appended and marked', async () => {
    const streamOnce = async () => {
      const res = await fetch(`${hub.url}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            messageId: `tck-stream-artifact-chunked-${crypto.randomUUID()}`,
            role: 'ROLE_USER',
            parts: [{ text: 'x' }],
          },
        }),
      });
      return (await res.text())
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)));
    };
    // a machine slow enough may take the snapshot after both chunks: then no update shows the chunk
    // flags, and the run is tried again (at most 5 times)
    let events: Json[] = [];
    for (let run = 0; run < 5; run++) {
      events = await streamOnce();
      if (events.some((e) => e.artifactUpdate)) break;
    }
    // the snapshot may already hold the first chunk (the run is quick): the chunks add up all the same
    const snapshot = (events[0].task.artifacts ?? []).flatMap((a: Json) => a.parts.map((p: Json) => p.text));
    const chunks = events.filter((e) => e.artifactUpdate).map((e) => e.artifactUpdate);
    assert.ok(chunks.length > 0, 'a chunk is streamed as an artifact update');
    assert.equal([...snapshot, ...chunks.map((c) => c.artifact.parts[0].text)].join(''), 'chunk-1 chunk-2');
    assert.deepEqual(
      [chunks.at(-1).append, chunks.at(-1).lastChunk],
      [true, true],
      'the last chunk is appended and marked last',
    );
    assert.equal(events.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
  });
});
