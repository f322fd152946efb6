import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createAgentCardHandler } from '../../../../functions/agent-card.ts';
import type { AgentDescription, AgentHandler } from '../../../../shared/agent/api.ts';
import { type AgentCardInput, buildAgentCard, cardETag } from '../../../../shared/protocol/a2a/index.ts';
import {
  SYNAPSE_EXTENSION_URI,
  synapseCardExtension,
} from '../../../../shared/protocol/synapse/card-extension.ts';
import { parseStrict, V1AgentCardSchema, V03AgentCardSchema } from './card-schema.ts';

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

/** An agent that fills every optional field of its description. */
const RICH = {
  provider: { organization: 'Acme', url: 'https://acme.example' },
  documentationUrl: 'https://docs.acme.example/synapse',
  iconUrl: 'https://acme.example/icon.png',
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['application/json'],
  extensions: [
    {
      uri: 'https://ext.acme.example/trace/v1',
      description: 'Carries a trace id in message metadata',
      required: false,
      params: { header: 'x-trace' },
    },
  ],
  skills: [
    {
      id: 's',
      name: 'S',
      description: 'd',
      tags: ['t'],
      examples: ['do it'],
      inputModes: ['application/json'],
      outputModes: ['text/plain'],
    },
  ],
} satisfies Partial<AgentDescription>;

const interfaces = [
  { url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: URL_, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
];

describe('buildAgentCard', () => {
  it('v1.0 card: the pure v1.0 shape, endpoints only in supportedInterfaces (1.0 and 0.3)', () => {
    assert.deepEqual(buildAgentCard(input('1.0')), {
      name: 'Synapse',
      description: 'Task hub',
      supportedInterfaces: interfaces,
      version: '0.1.0',
      capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['demo'] }],
    });
  });

  it('v1.0 card matches the strict v1.0 AgentCard schema, minimal and with every optional field', () => {
    parseStrict(V1AgentCardSchema, buildAgentCard(input('1.0')));
    const card = parseStrict(V1AgentCardSchema, buildAgentCard(input('1.0', RICH)));
    assert.deepEqual(card.capabilities.extensions, RICH.extensions);
  });

  it('the strict schema itself refuses v0.3 leftovers and unknown nested fields', () => {
    const card = buildAgentCard(input('1.0'));
    assert.throws(
      () => parseStrict(V1AgentCardSchema, { ...card, url: URL_ }),
      /url/,
      'a top-level v0.3 field',
    );
    assert.throws(
      () =>
        parseStrict(V1AgentCardSchema, {
          ...card,
          capabilities: { ...card.capabilities, stateTransitionHistory: false },
        }),
      /stateTransitionHistory/,
    );
    assert.throws(
      () => parseStrict(V1AgentCardSchema, { ...card, skills: [{ ...card.skills[0], x: 1 }] }),
      /skills\.0/,
    );
  });

  it('extensions go to capabilities.extensions in both versions (unset members left out)', () => {
    const extensions = [
      { uri: 'https://ext.example/a', required: false },
      { uri: 'https://ext.example/b', description: 'B', required: true, params: { level: 2 } },
    ];
    for (const version of ['1.0', '0.3'] as const) {
      const card = buildAgentCard(input(version, { extensions }));
      assert.deepEqual(card.capabilities.extensions, extensions);
    }
    assert.ok(!('extensions' in buildAgentCard(input('1.0', { extensions: [] })).capabilities));
    assert.ok(!('extensions' in buildAgentCard(input('0.3')).capabilities));
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

  it('v0.3 card carries the v0.3 fields', () => {
    const card = parseStrict(V03AgentCardSchema, buildAgentCard(input('0.3', RICH)));
    assert.equal(card.url, URL_);
    assert.deepEqual(card.capabilities.extensions, RICH.extensions);
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

  it('declares the HTTP+JSON interface for A2A 1.0 only, after the 1.0 JSON-RPC one, when given its URL', () => {
    const restUrl = 'https://agent.example.com/a2a/rest';
    const rest = { url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };
    for (const version of ['1.0', '0.3'] as const) {
      const card = buildAgentCard({ ...input(version), restUrl });
      assert.deepEqual(card.supportedInterfaces, [interfaces[0], rest, interfaces[1]]);
    }
    parseStrict(V1AgentCardSchema, buildAgentCard({ ...input('1.0'), restUrl }));
    const v03 = parseStrict(V03AgentCardSchema, buildAgentCard({ ...input('0.3'), restUrl }));
    assert.equal(v03.url, URL_, 'v0.3 clients keep the JSON-RPC URL');
  });

  it('the extended card: declared when the agent configures one; it adds skills and may replace the description', () => {
    const extendedCard = {
      description: 'Task hub, with the internal skills',
      skills: [{ id: 'audit', name: 'Audit', description: 'Internal audit', tags: ['internal'] }],
    };
    const publicV1 = buildAgentCard({ ...input('1.0', { extendedCard }), version: '1.0' });
    assert.equal(publicV1.capabilities.extendedAgentCard, true);
    assert.equal(publicV1.description, 'Task hub', 'the public card keeps the public description');
    assert.deepEqual(
      publicV1.skills.map((s) => s.id),
      ['echo'],
      'the public card shows no extended skill',
    );
    assert.equal(
      buildAgentCard({ ...input('0.3', { extendedCard }), version: '0.3' }).supportsAuthenticatedExtendedCard,
      true,
    );

    const extended = parseStrict(
      V1AgentCardSchema,
      buildAgentCard({ ...input('1.0', { extendedCard }), extended: true }),
    );
    assert.equal(extended.description, extendedCard.description);
    assert.deepEqual(
      extended.skills.map((s) => s.id),
      ['echo', 'audit'],
    );
    assert.equal(extended.capabilities.extendedAgentCard, true);
    const skillsOnly = buildAgentCard({
      ...input('1.0', { extendedCard: { skills: extendedCard.skills } }),
      extended: true,
    });
    assert.equal(skillsOnly.description, 'Task hub');
    assert.equal(buildAgentCard({ ...input('1.0'), version: '1.0' }).capabilities.extendedAgentCard, false);
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

describe('the agent-card handler (functions/agent-card.ts)', () => {
  const agent: AgentHandler = {
    describe: () => ({
      name: 'Rich',
      description: 'An agent with every optional description field',
      version: '2.0.0',
      ...RICH,
    }),
    execute: async () => ({ kind: 'completed' }),
  };
  const handler = createAgentCardHandler(async () => agent);
  const get = async (headers: Record<string, string> = {}, query: Record<string, string> | null = null) => {
    const event = {
      httpMethod: 'GET',
      path: '/.well-known/agent-card.json',
      headers: { Host: 'agent.example.com', ...headers },
      queryStringParameters: query,
      requestContext: { domainName: 'agent.example.com', stage: 'prod' },
    } as unknown as APIGatewayProxyEvent;
    const res = await handler(event);
    return { ...res, card: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : undefined };
  };

  it('serves the pure v1.0 card without an A2A-Version header, strictly valid, with the description', async () => {
    const res = await get();
    assert.equal(res.statusCode, 200);
    const card = parseStrict(V1AgentCardSchema, res.card);
    assert.deepEqual(card.provider, RICH.provider);
    assert.equal(card.documentationUrl, RICH.documentationUrl);
    assert.equal(card.iconUrl, RICH.iconUrl);
    // the agent's extensions, then the hub's Synapse extension (docs/synapse-protocol.md#the-card-extension)
    const synapse = synapseCardExtension({
      agentId: 'synapse-hub',
      endpoint: 'https://agent.example.com/synapse/callback',
      taskTypes: RICH.skills.map((s) => s.id),
    });
    assert.deepEqual(card.capabilities, {
      streaming: true,
      pushNotifications: false,
      extensions: [...RICH.extensions!, synapse],
      extendedAgentCard: false,
    });
    assert.deepEqual(
      card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion]),
      [
        ['https://agent.example.com/a2a/jsonrpc', 'JSONRPC', '1.0'],
        ['https://agent.example.com/a2a/rest', 'HTTP+JSON', '1.0'],
        ['https://agent.example.com/a2a/jsonrpc', 'JSONRPC', '0.3'],
      ],
    );
    assert.equal(res.headers?.vary, 'A2A-Version');
    assert.equal(res.headers?.['content-type'], 'application/json');
  });

  it('serves the same v1.0 card for A2A-Version: 1.0 (a2a-js) and for unknown versions', async () => {
    const plain = await get();
    for (const v of ['1.0', '1', '2.0']) {
      const res = await get({ 'A2A-Version': v });
      assert.equal(res.body, plain.body, v);
      assert.equal(res.headers?.etag, plain.headers?.etag);
    }
  });

  it('serves the v0.3 card for ?A2A-Version=0.3 (any spelling of the name) or the header A2A-Version: 0.3', async () => {
    const plain = await get();
    for (const res of [
      await get({}, { 'A2A-Version': '0.3' }),
      await get({}, { 'a2a-version': '0.3' }),
      await get({ 'A2A-Version': '1.0' }, { 'A2A-Version': '0.3' }),
      await get({ 'a2a-version': '0.3' }),
    ]) {
      assert.equal(res.statusCode, 200);
      const card = parseStrict(V03AgentCardSchema, res.card);
      assert.equal(card.url, 'https://agent.example.com/a2a/jsonrpc');
      assert.deepEqual(
        card.capabilities.extensions?.map((e) => e.uri),
        [...RICH.extensions!.map((e) => e.uri), SYNAPSE_EXTENSION_URI],
      );
      assert.equal((res.card as { documentationUrl?: string }).documentationUrl, RICH.documentationUrl);
      assert.notEqual(res.headers?.etag, plain.headers?.etag, 'another representation, another tag');
    }
  });

  it('answers 304 to If-None-Match with the tag of the version asked for', async () => {
    const v1 = await get();
    const v03 = await get({}, { 'A2A-Version': '0.3' });
    const again = await get({ 'If-None-Match': String(v1.headers?.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers?.vary, 'A2A-Version');
    const other = await get({ 'If-None-Match': String(v1.headers?.etag) }, { 'A2A-Version': '0.3' });
    assert.equal(other.statusCode, 200, 'the v1.0 tag does not match the v0.3 card');
    const v03Again = await get({ 'If-None-Match': `"x", ${v03.headers?.etag}` }, { 'A2A-Version': '0.3' });
    assert.equal(v03Again.statusCode, 304);
  });
});
