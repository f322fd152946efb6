/**
 * SynapseHub's `agent` option (docs/package.md): the module bundled into the functions, `agentModule` its
 * earlier name; one of them, never both. No bundling here: only the construct's choice is read.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { App, Stack } from 'aws-cdk-lib';
import { DEFAULT_AGENT_MODULE, PROJECT_ROOT } from '../../infra/bundling.ts';
import { SynapseHub, type SynapseHubProps } from '../../infra/synapse-hub.ts';

const hubWith = (props: SynapseHubProps) =>
  new SynapseHub(new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Stack'), 'Hub', {
    deletionProtection: false,
    ...props,
  });

const TCK_AGENT = join(PROJECT_ROOT, 'agents', 'tck', 'index.ts');

describe('SynapseHub agent option', () => {
  it('bundles the module given as agent, relative to the working directory', () => {
    assert.equal(hubWith({ agent: './agents/tck/index.ts' }).services.agentModule, TCK_AGENT);
  });

  it('takes agentModule as the same option', () => {
    assert.equal(hubWith({ agentModule: TCK_AGENT }).services.agentModule, TCK_AGENT);
  });

  it('bundles the demo agent when given none', () => {
    assert.equal(hubWith({}).services.agentModule, DEFAULT_AGENT_MODULE);
  });

  it('refuses both agent and agentModule', () => {
    assert.throws(
      () => hubWith({ agent: TCK_AGENT, agentModule: DEFAULT_AGENT_MODULE }),
      /give the agent module as `agent` or `agentModule`, not both/,
    );
  });

  it('refuses a module that does not exist', () => {
    assert.throws(
      () => hubWith({ agent: './no-such-agent.ts' }),
      /agent module not found: \.\/no-such-agent\.ts/,
    );
  });
});
