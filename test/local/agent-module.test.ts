/**
 * The local hub's agent is injectable (`startLocalHub`'s `agentModule`, what `synapse dev` and
 * AGENT_MODULE give it): the card and the executor are the module's, not the demo agent's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startLocalHub } from '../../local/hub.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const TRANSLATOR = new URL('../e2e/fixtures/translator-agent.ts', import.meta.url).pathname;

const cardName = async (url: string): Promise<string> =>
  ((await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { name: string }).name;

describe('the local hub with an agent module', () => {
  it('runs the module it is given', async () => {
    const hub = await startLocalHub({ port: 0, agentModule: TRANSLATOR, log: () => {} });
    try {
      assert.equal(await cardName(hub.url), 'Translator');
      const res = await fetch(`${hub.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
        }),
      });
      const { result } = (await res.json()) as {
        result: { task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
      };
      assert.equal(result.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(result.task.artifacts[0]?.parts[0]?.text, '[fr] hello');
    } finally {
      await hub.stop();
    }
  });
});
