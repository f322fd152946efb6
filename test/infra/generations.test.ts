/**
 * The generations setting in CDK (docs/generations.md): `-c a2aGenerations=on` gives the functions
 * A2A_GENERATIONS=on (what shared/composition-roots/a2a.ts and the card read); without it no function has it (off).
 * Built without bundling and without cdk-nag: only the functions' environment is looked at.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENERATIONS_ENV } from '../../shared/config/generations.ts';
import { generationsEnabled } from '../../shared/protocol/a2a/generations.ts';
import { functionIds, resourcesOf, synthHub } from './support.ts';

const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

const generationsByFunction = (context: Record<string, unknown>) => {
  const hub = synthHub({ ...context, ...NO_BUNDLING }, { nag: false });
  try {
    const fns = resourcesOf(hub.statelessTemplate, 'AWS::Lambda::Function');
    return Object.fromEntries(
      Object.entries(functionIds(hub)).map(([name, { fn }]) => {
        const env = (fns[fn]?.Properties.Environment as { Variables?: Record<string, string> } | undefined)
          ?.Variables;
        return [name, env?.[GENERATIONS_ENV]];
      }),
    );
  } finally {
    hub.cleanup();
  }
};

describe('the a2aGenerations context', () => {
  it('on: the A2A functions (card, JSON-RPC, REST) read A2A_GENERATIONS=on', () => {
    const on = generationsByFunction({ a2aGenerations: 'on' });
    for (const name of ['agent-card', 'jsonrpc', 'rest']) {
      assert.equal(on[name], 'on', name);
      assert.equal(generationsEnabled({ [GENERATIONS_ENV]: on[name] }), true);
    }
  });

  it('absent or off: no function has it', () => {
    for (const context of [{}, { a2aGenerations: 'off' }]) {
      for (const [name, value] of Object.entries(generationsByFunction(context)))
        assert.equal(value, undefined, `${name} ${JSON.stringify(context)}`);
    }
  });
});
