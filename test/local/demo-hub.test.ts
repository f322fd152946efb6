/**
 * The hub in this process with the real functions and the demo agent (agents/demo): how the local
 * executor's event source shares its concurrency between long and short tasks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RpcReply {
  result?: { task?: { id: string; status?: { state: string } }; id?: string; status?: { state: string } };
  error?: { code: number; message: string };
}

let hub: LocalHub;
const logged: string[] = [];

const rpc = async (method: string, params: unknown): Promise<RpcReply> => {
  const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcReply;
};

let sent = 0;
/** SendMessage with returnImmediately; the new task's id. */
const submit = async (text: string): Promise<string> => {
  const reply = await rpc('SendMessage', {
    message: { messageId: `m-${++sent}`, role: 'ROLE_USER', parts: [{ text }] },
    configuration: { returnImmediately: true },
  });
  const id = reply.result?.task?.id;
  assert.ok(id, `SendMessage answered ${JSON.stringify(reply)}`);
  return id;
};

const stateOf = async (id: string) => (await rpc('GetTask', { id })).result?.status?.state;
const statesOf = (ids: string[]) => Promise.all(ids.map(stateOf));

/** Polls until `check` holds; `bound` only keeps a broken run from hanging. */
const waitFor = async <T>(what: string, read: () => Promise<T>, check: (v: T) => boolean, bound = 30_000) => {
  const deadline = Date.now() + bound;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(100);
  }
};

describe('local hub with the demo agent', () => {
  before(async () => {
    hub = await startLocalHub({ log: (m, e) => logged.push(`${m} ${e ?? ''}`) });
  });
  after(async () => {
    await hub?.stop();
  });

  test('long tasks do not starve a short one: a hello completes while twelve `slow 60` run', async () => {
    const slow: string[] = [];
    for (let i = 0; i < 12; i++) slow.push(await submit('slow 60'));
    try {
      // all twelve at once: more than the ten the executor ran at most before
      await waitFor(
        'every slow task to be working',
        () => statesOf(slow),
        (states) => states.every((s) => s === 'TASK_STATE_WORKING'),
      );
      const hello = await submit('hello');
      await waitFor(
        'the hello to complete',
        () => stateOf(hello),
        (s) => s === 'TASK_STATE_COMPLETED',
      );
      assert.deepEqual(
        await statesOf(slow),
        slow.map(() => 'TASK_STATE_WORKING'),
        'the slow tasks still run',
      );
    } finally {
      await Promise.all(slow.map((id) => rpc('CancelTask', { id })));
    }
    await waitFor(
      'the slow tasks to be canceled',
      () => statesOf(slow),
      (states) => states.every((s) => s === 'TASK_STATE_CANCELED'),
    );
  });
});
