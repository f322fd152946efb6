/** The hub's card (shared/app/a2a/card.ts): the Synapse extension it declares whatever the agent. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentDescription } from '../../../../shared/agent/api.ts';
import { hubCard } from '../../../../shared/app/a2a/card.ts';
import {
  SYNAPSE_EXTENSION_URI,
  synapseParamsOf,
} from '../../../../shared/protocol/synapse/card-extension.ts';

const agent = (skills: string[]): AgentDescription => ({
  name: 'a',
  description: 'd',
  version: '1',
  skills: skills.map((id) => ({ id, name: id, description: id, tags: [] })),
});

describe('the hub card’s Synapse extension', () => {
  it('names the agent id, the callback endpoint and the skills as task types, in both versions, not required', () => {
    for (const version of ['1.0', '0.3'] as const) {
      const card = hubCard({
        agent: agent(['echo', 'translate']),
        publicUrl: 'https://hub.example',
        version,
        synapseAgentId: 'hub-x',
        security: undefined,
      });
      const extension = card.capabilities.extensions?.find((e) => e.uri === SYNAPSE_EXTENSION_URI);
      assert.equal(extension?.required, false, version);
      assert.deepEqual(synapseParamsOf(card), {
        agentId: 'hub-x',
        endpoint: 'https://hub.example/synapse/callback',
        taskTypes: ['echo', 'translate'],
      });
    }
  });

  it('lists no task types for an agent of no declared skill (it takes any type)', () => {
    const card = hubCard({ agent: agent([]), publicUrl: 'https://hub.example', version: '1.0' });
    assert.deepEqual(synapseParamsOf(card), {
      agentId: 'synapse-hub',
      endpoint: 'https://hub.example/synapse/callback',
    });
  });
});
