import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { loadAgent, resetAgentCache } from '../../../shared/agent/load.ts';

afterEach(() => resetAgentCache());

describe('agent module selection', () => {
  it('defaults to the demo agent through the #agent import', async () => {
    const agent = await loadAgent('');
    assert.equal(agent.describe().name, 'Synapse demo agent');
  });

  it('loads the module AGENT_MODULE names, relative to the working directory', async () => {
    const agent = await loadAgent('./test/unit/agent/fixtures/custom-agent.ts');
    assert.equal(agent.describe().name, 'Custom fixture agent');
    assert.deepEqual(await agent.execute({} as never), { kind: 'completed', text: 'custom' });
  });

  it('says what is wrong with a module that is not an agent', async () => {
    await assert.rejects(
      loadAgent('./test/unit/agent/fixtures/not-an-agent.ts'),
      /must export an agent handler/,
    );
  });
});
