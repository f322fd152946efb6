/**
 * Accepting published agent cards (shared/protocol/a2a/card-normalise.ts): v1.0, hybrid and v0.3 cards
 * come out as one strict v1.0 AgentCard (checked against test/unit/protocol/a2a/card-schema.ts, written
 * from a2a.proto), and every refusal names each bad field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentDescription } from '../../../../shared/agent/api.ts';
import { buildAgentCard } from '../../../../shared/protocol/a2a/agent-card.ts';
import { CARD_LIMITS, normaliseCard } from '../../../../shared/protocol/a2a/card-normalise.ts';
import { parseStrict, V1AgentCardSchema } from './card-schema.ts';

const accepted = (raw: unknown) => {
  const result = normaliseCard(raw);
  assert.ok(result.ok, `refused: ${result.ok ? '' : result.errors.join('; ')}`);
  // whatever came in, what comes out is a strict v1.0 AgentCard
  parseStrict(V1AgentCardSchema, result.card);
  return result;
};

const refused = (raw: unknown): string[] => {
  const result = normaliseCard(raw);
  assert.equal(result.ok, false, 'expected a refusal');
  return result.ok ? [] : result.errors;
};

const clone = <T>(value: T): T => structuredClone(value);

/** A real-world-ish v1.0 card: several bindings, a tenant, OAuth and API key auth, extensions, a signature. */
const V1_CARD = {
  name: 'Invoice Reconciler',
  description: 'Matches supplier invoices against purchase orders and flags discrepancies.',
  supportedInterfaces: [
    {
      url: 'https://agents.acme-finance.com/reconciler/a2a/jsonrpc',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    },
    {
      url: 'https://agents.acme-finance.com/reconciler/a2a/rest',
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      tenant: 'emea',
    },
    { url: 'grpc.acme-finance.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  ],
  provider: { organization: 'Acme Finance', url: 'https://acme-finance.com' },
  version: '2.4.1',
  documentationUrl: 'https://docs.acme-finance.com/agents/reconciler',
  capabilities: {
    streaming: true,
    pushNotifications: true,
    extendedAgentCard: true,
    extensions: [
      {
        uri: 'https://a2a.acme-finance.com/extensions/audit-trail/v1',
        description: 'Adds an audit trail artifact',
        required: false,
        params: { retentionDays: 90, formats: ['csv', 'json'] },
      },
    ],
  },
  securitySchemes: {
    oauth: {
      oauth2SecurityScheme: {
        description: 'Acme identity',
        flows: {
          clientCredentials: {
            tokenUrl: 'https://id.acme-finance.com/oauth2/token',
            scopes: { 'invoices:read': 'Read invoices', 'invoices:match': 'Reconcile' },
          },
        },
      },
    },
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Acme-Key' } },
  },
  securityRequirements: [
    { schemes: { oauth: { list: ['invoices:read'] } } },
    { schemes: { key: { list: [] } } },
  ],
  defaultInputModes: ['application/json', 'application/pdf'],
  defaultOutputModes: ['application/json'],
  skills: [
    {
      id: 'reconcile',
      name: 'Reconcile invoices',
      description: 'Reconciles a batch of invoices.',
      tags: ['finance', 'invoices'],
      examples: ['Reconcile the March invoices from Globex'],
      inputModes: ['application/pdf'],
      outputModes: ['application/json'],
      securityRequirements: [{ schemes: { oauth: { list: ['invoices:match'] } } }],
    },
    { id: 'explain', name: 'Explain a mismatch', description: 'Explains one flagged line.', tags: [] },
  ],
  signatures: [
    {
      protected: 'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSJ9',
      signature: 'QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4GtHgKQ',
      header: { kid: 'key-1' },
    },
  ],
  iconUrl: 'https://acme-finance.com/reconciler.png',
};

/** The v0.3 specification's sample card (§5.7), with the protocolVersion of a v0.3 card. */
const V03_SPEC_CARD = {
  protocolVersion: '0.3.0',
  name: 'GeoSpatial Route Planner Agent',
  description:
    'Provides advanced route planning, traffic analysis, and custom map generation services. This agent can calculate optimal routes, estimate travel times considering real-time traffic, and create personalized maps with points of interest.',
  url: 'https://georoute-agent.example.com/a2a/v1',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://georoute-agent.example.com/a2a/v1', transport: 'JSONRPC' },
    { url: 'https://georoute-agent.example.com/a2a/grpc', transport: 'GRPC' },
    { url: 'https://georoute-agent.example.com/a2a/json', transport: 'HTTP+JSON' },
  ],
  provider: { organization: 'Example Geo Services Inc.', url: 'https://www.examplegeoservices.com' },
  iconUrl: 'https://georoute-agent.example.com/icon.png',
  version: '1.2.0',
  documentationUrl: 'https://docs.examplegeoservices.com/georoute-agent/api',
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
  securitySchemes: {
    google: {
      type: 'openIdConnect',
      openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration',
    },
  },
  security: [{ google: ['openid', 'profile', 'email'] }],
  defaultInputModes: ['application/json', 'text/plain'],
  defaultOutputModes: ['application/json', 'image/png'],
  skills: [
    {
      id: 'route-optimizer-traffic',
      name: 'Traffic-Aware Route Optimizer',
      description:
        'Calculates the optimal driving route between two or more locations, taking into account real-time traffic conditions, road closures, and user preferences (e.g., avoid tolls, prefer highways).',
      tags: ['maps', 'routing', 'navigation', 'directions', 'traffic'],
      examples: [
        "Plan a route from '1600 Amphitheatre Parkway, Mountain View, CA' to 'San Francisco International Airport' avoiding tolls.",
        '{"origin": {"lat": 37.422, "lng": -122.084}, "destination": {"lat": 37.7749, "lng": -122.4194}, "preferences": ["avoid_ferries"]}',
      ],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'application/vnd.geo+json', 'text/html'],
    },
    {
      id: 'custom-map-generator',
      name: 'Personalized Map Generator',
      description:
        'Creates custom map images or interactive map views based on user-defined points of interest, routes, and style preferences. Can overlay data layers.',
      tags: ['maps', 'customization', 'visualization', 'cartography'],
      examples: [
        'Generate a map of my upcoming road trip with all planned stops highlighted.',
        'Show me a map visualizing all coffee shops within a 1-mile radius of my current location.',
      ],
      inputModes: ['application/json'],
      outputModes: ['image/png', 'image/jpeg', 'application/json', 'text/html'],
    },
  ],
  supportsAuthenticatedExtendedCard: true,
  signatures: [
    {
      protected:
        'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0',
      signature: 'QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4GtHgKQ',
    },
  ],
};

/** The hub's own agent, described with every optional field and both kinds of auth it advertises. */
const HUB_AGENT: AgentDescription = {
  name: 'Synapse',
  description: 'Task hub',
  version: '0.1.0',
  provider: { organization: 'Acme', url: 'https://acme.example.com' },
  documentationUrl: 'https://docs.acme.example.com/synapse',
  iconUrl: 'https://acme.example.com/icon.png',
  defaultInputModes: ['text/plain', 'application/json'],
  defaultOutputModes: ['application/json'],
  extensions: [
    { uri: 'https://ext.acme.example.com/trace/v1', required: false, params: { header: 'x-trace' } },
  ],
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes text',
      tags: ['demo'],
      examples: ['say hi'],
      inputModes: ['text/plain'],
    },
  ],
  extendedCard: { description: 'More' },
};
const hubCard = (version: '1.0' | '0.3') =>
  buildAgentCard({
    agent: HUB_AGENT,
    jsonRpcUrl: 'https://hub.acme.example.com/a2a/jsonrpc',
    restUrl: 'https://hub.acme.example.com/a2a/rest',
    capabilities: { streaming: true, pushNotifications: true },
    version,
    security: {
      schemes: {
        bearer: { kind: 'http-bearer', bearerFormat: 'JWT' },
        oidc: {
          kind: 'openIdConnect',
          openIdConnectUrl: 'https://id.acme.example.com/.well-known/openid-configuration',
        },
      },
      requirements: [['bearer'], ['oidc']],
    },
  });

describe('normaliseCard: v1.0 cards', () => {
  it('keeps a real-world v1.0 card as it is', () => {
    const result = accepted(clone(V1_CARD));
    assert.equal(result.shape, '1.0');
    assert.deepEqual(result.card, V1_CARD);
  });

  it("keeps the hub's own v1.0 card as it is", () => {
    const card = hubCard('1.0');
    const result = accepted(clone(card));
    assert.equal(result.shape, '1.0');
    assert.deepEqual(result.card, card);
  });

  it('drops fields A2A does not define, everywhere, and reads null as absent', () => {
    const raw = clone(V1_CARD) as Record<string, unknown> & typeof V1_CARD;
    raw.marketingBlurb = 'best agent';
    (raw.capabilities as Record<string, unknown>).quantum = true;
    (raw.skills[0] as Record<string, unknown>).priority = 1;
    (raw.supportedInterfaces[0] as Record<string, unknown>).weight = 3;
    (raw as Record<string, unknown>).documentationUrl = null;
    const result = accepted(raw);
    const { documentationUrl: _, ...expected } = V1_CARD;
    assert.deepEqual(result.card, expected);
  });

  it('reads proto snake_case names (ProtoJSON) as their camelCase fields', () => {
    const {
      supportedInterfaces,
      defaultInputModes,
      defaultOutputModes,
      securitySchemes,
      securityRequirements,
      ...rest
    } = clone(V1_CARD);
    const raw = {
      ...rest,
      supported_interfaces: supportedInterfaces.map(({ protocolBinding, protocolVersion, ...i }) => ({
        ...i,
        protocol_binding: protocolBinding,
        protocol_version: protocolVersion,
      })),
      default_input_modes: defaultInputModes,
      default_output_modes: defaultOutputModes,
      security_schemes: securitySchemes,
      security_requirements: securityRequirements,
    };
    assert.deepEqual(accepted(raw).card, V1_CARD);
  });

  it("writes the core bindings as v1.0 spells them, and keeps an interface's Major.Minor only", () => {
    const raw = clone(V1_CARD);
    raw.supportedInterfaces = [
      { url: 'https://a.acme-finance.com/rpc', protocolBinding: 'jsonrpc', protocolVersion: '1.0.1' },
      {
        url: 'https://a.acme-finance.com/x',
        protocolBinding: 'https://bindings.example.org/mqtt',
        protocolVersion: '1.0',
      },
    ];
    assert.deepEqual(accepted(raw).card.supportedInterfaces, [
      { url: 'https://a.acme-finance.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      {
        url: 'https://a.acme-finance.com/x',
        protocolBinding: 'https://bindings.example.org/mqtt',
        protocolVersion: '1.0',
      },
    ]);
  });
});

describe('normaliseCard: hybrid cards', () => {
  it('reads the digest §2.7 hybrid as v1.0: supportedInterfaces wins, the v0.3 top-level extras are ignored', () => {
    const hybrid = {
      name: 'Example Agent',
      description: 'Says hello',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['demo'] }],
      url: 'https://agent.example.com/a2a/other',
      preferredTransport: 'GRPC',
      additionalInterfaces: [{ url: 'https://agent.example.com/ignored', transport: 'HTTP+JSON' }],
      protocolVersion: '0.3.0',
    };
    const result = accepted(clone(hybrid));
    assert.equal(result.shape, '1.0');
    const { url: _u, preferredTransport: _p, additionalInterfaces: _a, protocolVersion: _v, ...v1 } = hybrid;
    assert.deepEqual(result.card, v1);
  });

  it("reads the hub's own v0.3 card (v0.3 fields and security, plus supportedInterfaces) as its v1.0 card", () => {
    const result = accepted(clone(hubCard('0.3')));
    assert.equal(result.shape, '1.0');
    assert.deepEqual(result.card, hubCard('1.0'));
  });

  it('a v1.0 field wins over its v0.3 form when both are given', () => {
    const raw = {
      ...clone(V1_CARD),
      security: [{ key: [] }],
      supportsAuthenticatedExtendedCard: false,
    };
    const card = accepted(raw).card;
    assert.deepEqual(card.securityRequirements, V1_CARD.securityRequirements);
    assert.equal(card.capabilities.extendedAgentCard, true);
  });
});

describe('normaliseCard: v0.3 cards', () => {
  it("converts the v0.3 specification's sample card", () => {
    const result = accepted(clone(V03_SPEC_CARD));
    assert.equal(result.shape, '0.3');
    const {
      protocolVersion: _v,
      url: _u,
      preferredTransport: _p,
      additionalInterfaces: _a,
      security: _s,
      supportsAuthenticatedExtendedCard: _e,
      ...same
    } = V03_SPEC_CARD;
    assert.deepEqual(result.card, {
      ...same,
      supportedInterfaces: [
        {
          url: 'https://georoute-agent.example.com/a2a/v1',
          protocolBinding: 'JSONRPC',
          protocolVersion: '0.3',
        },
        {
          url: 'https://georoute-agent.example.com/a2a/grpc',
          protocolBinding: 'GRPC',
          protocolVersion: '0.3',
        },
        {
          url: 'https://georoute-agent.example.com/a2a/json',
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '0.3',
        },
      ],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      securitySchemes: {
        google: {
          openIdConnectSecurityScheme: {
            openIdConnectUrl: 'https://accounts.google.com/.well-known/openid-configuration',
          },
        },
      },
      securityRequirements: [{ schemes: { google: { list: ['openid', 'profile', 'email'] } } }],
    });
    // the signature is kept verbatim (it covers the document as published)
    assert.deepEqual(result.card.signatures, V03_SPEC_CARD.signatures);
  });

  it("converts the hub's own v0.3 card without its supportedInterfaces: the v0.3 endpoint, the rest as v1.0", () => {
    const { supportedInterfaces: _, ...v03 } = hubCard('0.3');
    const result = accepted(clone(v03));
    assert.equal(result.shape, '0.3');
    assert.deepEqual(result.card, {
      ...hubCard('1.0'),
      supportedInterfaces: [
        {
          url: 'https://hub.acme.example.com/a2a/jsonrpc',
          protocolBinding: 'JSONRPC',
          protocolVersion: '0.3',
        },
      ],
    });
  });

  it('converts every v0.3 security scheme type to its v1.0 oneof wrapper, on the card and its skills', () => {
    const raw = {
      ...clone(V03_SPEC_CARD),
      protocolVersion: '0.3',
      preferredTransport: 'grpc',
      url: 'georoute.example.com:8443',
      additionalInterfaces: undefined,
      securitySchemes: {
        key: { type: 'apiKey', in: 'query', name: 'api_key', description: 'Key' },
        basic: { type: 'http', scheme: 'basic' },
        jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        oauth: {
          type: 'oauth2',
          flows: {
            clientCredentials: { tokenUrl: 'https://id.example.org/token', scopes: {} },
            authorizationCode: {
              authorizationUrl: 'https://id.example.org/authorize',
              tokenUrl: 'https://id.example.org/token',
              scopes: { read: 'Read' },
            },
          },
          oauth2MetadataUrl: 'https://id.example.org/.well-known/oauth-authorization-server',
        },
        mtls: { type: 'mutualTLS', description: 'Client certificates' },
      },
      security: [{ oauth: ['read'], mtls: [] }, { key: [] }],
      skills: [{ ...V03_SPEC_CARD.skills[0], security: [{ jwt: [] }] }],
    };
    const card = accepted(raw).card;
    assert.deepEqual(card.supportedInterfaces, [
      { url: 'georoute.example.com:8443', protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ]);
    assert.deepEqual(card.securitySchemes, {
      key: { apiKeySecurityScheme: { description: 'Key', location: 'query', name: 'api_key' } },
      basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
      jwt: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
      oauth: {
        oauth2SecurityScheme: {
          // v1.0's flows is a oneof: the authorization code flow is kept
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://id.example.org/authorize',
              tokenUrl: 'https://id.example.org/token',
              scopes: { read: 'Read' },
            },
          },
          oauth2MetadataUrl: 'https://id.example.org/.well-known/oauth-authorization-server',
        },
      },
      mtls: { mtlsSecurityScheme: { description: 'Client certificates' } },
    });
    assert.deepEqual(card.securityRequirements, [
      { schemes: { oauth: { list: ['read'] }, mtls: { list: [] } } },
      { schemes: { key: { list: [] } } },
    ]);
    assert.deepEqual(card.skills[0]?.securityRequirements, [{ schemes: { jwt: { list: [] } } }]);
  });
});

describe('normaliseCard: refusals', () => {
  it('refuses what is not an A2A agent card at all', () => {
    assert.deepEqual(refused(null), ['not an A2A agent card: expected a JSON object, got null']);
    assert.deepEqual(refused([V1_CARD]), ['not an A2A agent card: expected a JSON object, got an array']);
    assert.deepEqual(refused('{"name":"x"}'), [
      'not an A2A agent card: expected a JSON object, got the string "{\\"name\\":\\"x\\"}"',
    ]);
    assert.deepEqual(refused(42), ['not an A2A agent card: expected a JSON object, got the number 42']);
    assert.deepEqual(refused(undefined), ['not an A2A agent card: expected a JSON object, got undefined']);
    assert.deepEqual(refused({ openapi: '3.1.0', info: { title: 'Pets' } }), [
      'not an A2A agent card: it has neither supportedInterfaces (A2A v1.0) nor protocolVersion "0.3.x" (A2A v0.3)',
    ]);
    assert.deepEqual(refused({ ...clone(V03_SPEC_CARD), protocolVersion: '0.2.9' }), [
      'not an A2A agent card: protocolVersion the string "0.2.9" is not one the registry reads (A2A v1.0 cards list supportedInterfaces; v0.3 cards say "0.3.x")',
    ]);
  });

  it('names every missing required field at once', () => {
    assert.deepEqual(refused({ supportedInterfaces: [{}] }), [
      'name: required',
      'description: required',
      'version: required',
      'capabilities: required',
      'defaultInputModes: required',
      'defaultOutputModes: required',
      'skills: required',
      'supportedInterfaces[0].url: required',
      'supportedInterfaces[0].protocolBinding: required',
      'supportedInterfaces[0].protocolVersion: required',
    ]);
    assert.deepEqual(refused({ ...clone(V1_CARD), supportedInterfaces: [] }), [
      'supportedInterfaces: at least 1 interface required',
    ]);
    const { url: _, ...noUrl } = clone(V03_SPEC_CARD);
    assert.deepEqual(refused(noUrl), ['url: required']);
    const skills = clone(V1_CARD).skills.map(({ tags: _t, description: _d, ...s }) => s);
    assert.deepEqual(refused({ ...clone(V1_CARD), skills }), [
      'skills[0].description: required',
      'skills[0].tags: required',
      'skills[1].description: required',
      'skills[1].tags: required',
    ]);
  });

  it('names every field of a wrong type at once', () => {
    const raw = clone(V1_CARD) as Record<string, unknown>;
    raw.name = 7;
    raw.capabilities = { streaming: 'yes', extensions: [{ uri: 'x', params: [] }] };
    raw.defaultInputModes = 'text/plain';
    const skills = clone(V1_CARD.skills) as Record<string, unknown>[];
    skills.push({ id: 'third', name: 'Third', description: 'd', tags: 'maps' });
    (skills[0] as { examples: unknown[] }).examples = ['ok', 3];
    raw.skills = skills;
    raw.supportedInterfaces = [
      { url: 'ftp://files.example.com/agent', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'grpc.example.com', protocolBinding: 'GRPC', protocolVersion: 'one' },
      { url: 'agent.example.com:443', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ];
    raw.securitySchemes = {
      key: { apiKeySecurityScheme: { location: 'body', name: 'X' } },
      both: { mtlsSecurityScheme: {}, httpAuthSecurityScheme: { scheme: 'Bearer' } },
      old: { type: 'kerberos' },
    };
    raw.iconUrl = 'javascript:alert(1)';
    assert.deepEqual(refused(raw), [
      'name: expected a string, got the number 7',
      'iconUrl: expected an absolute http(s) URL, got the string "javascript:alert(1)"',
      'capabilities.streaming: expected a boolean (true or false), got the string "yes"',
      'capabilities.extensions[0].params: expected an object, got an array',
      'securitySchemes.key.apiKeySecurityScheme.location: expected "header", "query" or "cookie", got the string "body"',
      'securitySchemes.both: expected exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme, got httpAuthSecurityScheme and mtlsSecurityScheme',
      'securitySchemes.old.type: expected one of apiKey, http, oauth2, openIdConnect, mutualTLS (an A2A v0.3 scheme), got the string "kerberos"',
      'defaultInputModes: expected an array of media types, got the string "text/plain"',
      'skills[0].examples[1]: expected a string, got the number 3',
      'skills[2].tags: expected an array of strings, got the string "maps"',
      'supportedInterfaces[0].url: expected an absolute http(s) URL (or host:port for gRPC), got the string "ftp://files.example.com/agent"',
      'supportedInterfaces[1].url: expected an absolute http(s) URL (or host:port for gRPC), got the string "grpc.example.com"',
      'supportedInterfaces[1].protocolVersion: expected a protocol version such as "1.0" or "0.3", got the string "one"',
      'supportedInterfaces[2].url: expected an absolute http(s) URL (host:port is for gRPC only), got the string "agent.example.com:443"',
    ]);
  });

  it("names a v0.3 card's bad fields by their v0.3 names", () => {
    const raw = {
      ...clone(V03_SPEC_CARD),
      url: '/a2a/v1',
      additionalInterfaces: [{ url: 'https://georoute-agent.example.com/a2a/json' }],
      securitySchemes: { k: { type: 'apiKey', name: 'key' } },
      security: [{ k: 'all' }],
    };
    assert.deepEqual(refused(raw), [
      'securitySchemes.k.in: required',
      'security[0].k: expected an array of scopes, got the string "all"',
      'url: expected an absolute http(s) URL (or host:port for gRPC), got the string "/a2a/v1"',
      'additionalInterfaces[0].transport: required',
    ]);
  });

  it('refuses more than the limits allow, naming the field and the limit', () => {
    const skill = { id: 's', name: 'S', description: 'd', tags: [] };
    const many = clone(V1_CARD) as Record<string, unknown>;
    many.skills = Array.from({ length: CARD_LIMITS.maxSkills + 1 }, (_, i) => ({ ...skill, id: `s${i}` }));
    many.supportedInterfaces = Array.from({ length: CARD_LIMITS.maxInterfaces + 1 }, (_, i) => ({
      url: `https://a${i}.example.org/rpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    }));
    many.name = 'n'.repeat(CARD_LIMITS.maxNameChars + 1);
    many.description = 'd'.repeat(CARD_LIMITS.maxStringChars + 1);
    assert.deepEqual(refused(many), [
      'name: has 257 characters; at most 256 are accepted',
      'description: has 4097 characters; at most 4096 are accepted',
      'skills: has 101 items; at most 100 skills are accepted',
      'supportedInterfaces: has 17 items; at most 16 interfaces are accepted',
    ]);

    const crowded = clone(V1_CARD);
    Object.assign(crowded.skills[0] as object, {
      tags: Array.from({ length: 33 }, (_, i) => `t${i}`),
      examples: Array.from({ length: 33 }, (_, i) => `e${i}`),
    });
    assert.deepEqual(refused(crowded), [
      'skills[0].tags: has 33 items; at most 32 strings are accepted',
      'skills[0].examples: has 33 items; at most 32 strings are accepted',
    ]);
    assert.deepEqual(
      [CARD_LIMITS.maxCardBytes, CARD_LIMITS.maxTagsPerSkill, CARD_LIMITS.maxExamplesPerSkill],
      [65536, 32, 32],
    );
  });

  it('refuses a card over 64 KiB of JSON, and nesting deeper than the limit', () => {
    const big = clone(V1_CARD);
    big.skills = Array.from({ length: 40 }, (_, i) => ({
      id: `s${i}`,
      name: 'S',
      description: 'x'.repeat(2000),
      tags: [],
    }));
    const bytes = Buffer.byteLength(JSON.stringify(big));
    assert.ok(bytes > 65536);
    assert.deepEqual(refused(big), [`card: is ${bytes} bytes of JSON; at most 65536 are accepted`]);

    let params: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 20; i++) params = { deeper: params };
    const deep = clone(V1_CARD);
    deep.capabilities.extensions[0]!.params = params as never;
    const [error, ...rest] = refused(deep);
    assert.deepEqual(rest, []);
    assert.match(
      error ?? '',
      /^capabilities\.extensions\[0\]\.params(\.deeper)+: nests values deeper than 16 levels$/,
    );
  });
});
