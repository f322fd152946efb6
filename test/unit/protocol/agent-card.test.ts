import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { type AgentCardInput, buildAgentCard, cardETag } from '../../../shared/protocol/a2a/index.ts';

const URL_ = 'https://agent.example.com/a2a/jsonrpc';

const input = (version: '1.0' | '0.3', agent: Partial<AgentCardInput['agent']> = {}): AgentCardInput => ({
  agent: {
    name: 'Synapse',
    description: 'Task hub',
    version: '0.1.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }],
    ...agent,
  },
  jsonRpcUrl: URL_,
  capabilities: { streaming: false, pushNotifications: false },
  version,
});

const interfaces = [
  { url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
];

describe('buildAgentCard', () => {
  it('v1.0 card (hybrid: with the v0.3 endpoint fields)', () => {
    assert.deepEqual(buildAgentCard(input('1.0')), {
      name: 'Synapse',
      description: 'Task hub',
      supportedInterfaces: interfaces,
      version: '0.1.0',
      capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }],
      url: URL_,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
    });
  });

  it('v0.3 card (with supportedInterfaces for v1.0 clients)', () => {
    assert.deepEqual(buildAgentCard(input('0.3')), {
      protocolVersion: '0.3.0',
      name: 'Synapse',
      description: 'Task hub',
      url: URL_,
      preferredTransport: 'JSONRPC',
      version: '0.1.0',
      capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }],
      supportsAuthenticatedExtendedCard: false,
      supportedInterfaces: interfaces,
    });
  });

  it('optional agent fields are copied when given, for both versions', () => {
    const agent = {
      provider: { organization: 'Acme', url: 'https://acme.example' },
      documentationUrl: 'https://docs.example',
      iconUrl: 'https://icon.example/i.png',
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['application/json'],
      skills: [
        {
          id: 's',
          name: 'S',
          description: 'd',
          tags: [],
          examples: ['do it'],
          inputModes: ['application/json'],
          outputModes: ['text/plain'],
        },
      ],
    };
    for (const version of ['1.0', '0.3'] as const) {
      const card = buildAgentCard(input(version, agent));
      assert.deepEqual(card.provider, agent.provider);
      assert.equal(card.documentationUrl, agent.documentationUrl);
      assert.equal(card.iconUrl, agent.iconUrl);
      assert.deepEqual(card.defaultInputModes, agent.defaultInputModes);
      assert.deepEqual(card.defaultOutputModes, agent.defaultOutputModes);
      assert.deepEqual(card.skills, agent.skills);
    }
  });

  it('capabilities reflect the input (only what works is true)', () => {
    const card = buildAgentCard({
      ...input('1.0'),
      capabilities: { streaming: true, pushNotifications: false },
    });
    assert.deepEqual(card.capabilities, {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
    });
  });

  it('the a2a-js client accepts the v1.0 card and picks the 1.0 JSON-RPC interface', async () => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: fetch })],
      }),
    );
    const client = await factory.createFromAgentCard(buildAgentCard(input('1.0')) as never);
    assert.equal(client.protocolVersion, '1.0');
  });

  it('the a2a-js legacy card parser accepts the v0.3 card', () => {
    const resolver = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } });
    const { supportedInterfaces: _drop, ...pure } = buildAgentCard(input('0.3'));
    const core = resolver.normalizeAgentCard(pure);
    assert.equal(core.name, 'Synapse');
    assert.equal(core.supportedInterfaces[0]?.url, URL_);
    assert.equal(core.supportedInterfaces[0]?.protocolBinding, 'JSONRPC');
  });
});

describe('cardETag', () => {
  it('is a weak validator', () => {
    assert.match(cardETag(buildAgentCard(input('1.0'))), /^W\/"[A-Za-z0-9_-]{43}"$/);
  });

  it('is stable across builds and key order, and changes with the content', () => {
    const a = buildAgentCard(input('1.0'));
    const b = buildAgentCard(input('1.0'));
    assert.equal(cardETag(a), cardETag(b));
    const reordered = Object.fromEntries(Object.entries(a).reverse());
    assert.equal(cardETag(reordered), cardETag(a));
    assert.notEqual(cardETag(buildAgentCard(input('1.0', { version: '0.1.1' }))), cardETag(a));
    assert.notEqual(cardETag(buildAgentCard(input('0.3'))), cardETag(a));
  });
});
