/**
 * The agent card (A2A's AgentCard), in two shapes:
 * - '1.0' (the default): the pure v1.0 AgentCard. Endpoints are only in
 *   `supportedInterfaces`: the JSON-RPC interface for A2A 1.0, the HTTP+JSON one
 *   (1.0 only), and the JSON-RPC one again for A2A 0.3 (the hub speaks both). No v0.3 top-level fields (`url`,
 *   `preferredTransport`, `protocolVersion`): a strict v1.0 parser would refuse them.
 * - '0.3': the v0.3 card (`url`, `preferredTransport`, card-level
 *   `protocolVersion` "0.3.0", `supportsAuthenticatedExtendedCard`), plus
 *   `supportedInterfaces` for v1.0 clients (what a2a-js's compat card handler serves).
 *
 * Card fetchers usually send no `A2A-Version` (a2a-js sends `A2A-Version: 1.0`), so
 * the v1.0 card is served unless the v0.3 one is asked for explicitly: with the
 * query parameter `?A2A-Version=0.3` (the spec's query form of the service
 * parameter: a URL any v0.3 client can be configured with) or the header
 * `A2A-Version: 0.3` (see cardVersionFor). Responses carry `Vary: A2A-Version`.
 */
import { createHash } from 'node:crypto';
import type { AgentDescription, AgentExtension, AgentSkill } from '../../agent/api.ts';
import { canonicalJson } from '../../domain/json.ts';
import type { A2AVersion } from './codec.ts';

export interface AgentCardInput {
  /** The agent's own description (skills, modes, provider, extensions...). */
  agent: AgentDescription;
  /** Absolute URL of the JSON-RPC endpoint. */
  jsonRpcUrl: string;
  /** Absolute base URL of the HTTP+JSON (REST) interface, A2A 1.0 only; left out of the card when absent. */
  restUrl?: string;
  /**
   * The extended card (GetExtendedAgentCard): the public card with the agent's `extendedCard`
   * additions (its description, and its skills after the public ones).
   */
  extended?: boolean;
  /** Only what actually works may be true. */
  capabilities: { streaming: boolean; pushNotifications: boolean };
  version: A2AVersion;
  /**
   * How to authenticate (the card's security schemes and requirements): the schemes by name, and the
   * OR-list of AND-sets of their names.
   */
  security?: CardSecurity;
}

export type SecuritySchemeInput =
  | { kind: 'http-bearer'; bearerFormat?: string; description?: string }
  | { kind: 'openIdConnect'; openIdConnectUrl: string; description?: string };

export interface CardSecurity {
  schemes: Record<string, SecuritySchemeInput>;
  /** Any one of these sets of schemes is enough; every scheme of a set is needed. */
  requirements: string[][];
}

/** v1.0 SecurityScheme: a oneof wrapper object. */
export type V1SecurityScheme =
  | { httpAuthSecurityScheme: { scheme: 'Bearer'; bearerFormat?: string; description?: string } }
  | { openIdConnectSecurityScheme: { openIdConnectUrl: string; description?: string } };

/** v0.3 SecurityScheme: OpenAPI-like, discriminated by `type`. */
export type V03SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string };

const described = (d: string | undefined) => (d ? { description: d } : {});

const v1Security = (security: CardSecurity) => ({
  securitySchemes: Object.fromEntries(
    Object.entries(security.schemes).map(([name, s]): [string, V1SecurityScheme] => [
      name,
      s.kind === 'http-bearer'
        ? {
            httpAuthSecurityScheme: {
              scheme: 'Bearer',
              ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
              ...described(s.description),
            },
          }
        : {
            openIdConnectSecurityScheme: {
              openIdConnectUrl: s.openIdConnectUrl,
              ...described(s.description),
            },
          },
    ]),
  ),
  securityRequirements: security.requirements.map((set) => ({
    schemes: Object.fromEntries(set.map((name) => [name, { list: [] as string[] }])),
  })),
});

const v03Security = (security: CardSecurity) => ({
  securitySchemes: Object.fromEntries(
    Object.entries(security.schemes).map(([name, s]): [string, V03SecurityScheme] => [
      name,
      s.kind === 'http-bearer'
        ? {
            type: 'http',
            scheme: 'bearer',
            ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
            ...described(s.description),
          }
        : { type: 'openIdConnect', openIdConnectUrl: s.openIdConnectUrl, ...described(s.description) },
    ]),
  ),
  security: security.requirements.map((set) => Object.fromEntries(set.map((name) => [name, [] as string[]]))),
});

export interface AgentInterface {
  url: string;
  protocolBinding: 'JSONRPC' | 'HTTP+JSON';
  protocolVersion: A2AVersion;
}

export interface V1AgentCapabilities {
  streaming: boolean;
  pushNotifications: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard: boolean;
}

export interface V1AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: { organization: string; url: string };
  version: string;
  documentationUrl?: string;
  capabilities: V1AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  securitySchemes?: Record<string, V1SecurityScheme>;
  securityRequirements?: { schemes: Record<string, { list: string[] }> }[];
  iconUrl?: string;
}

export interface V03AgentCard {
  protocolVersion: '0.3.0';
  name: string;
  description: string;
  url: string;
  preferredTransport: 'JSONRPC';
  provider?: { organization: string; url: string };
  iconUrl?: string;
  version: string;
  documentationUrl?: string;
  capabilities: {
    streaming: boolean;
    pushNotifications: boolean;
    stateTransitionHistory: boolean;
    extensions?: AgentExtension[];
  };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  supportsAuthenticatedExtendedCard: boolean;
  securitySchemes?: Record<string, V03SecurityScheme>;
  security?: Record<string, string[]>[];
  supportedInterfaces: AgentInterface[];
}

export type AgentCard = V1AgentCard | V03AgentCard;

/** The card-level v0.3 protocol version (v0.3 cards carried the full semver). */
export const V03_CARD_PROTOCOL_VERSION = '0.3.0';

const DEFAULT_MODES = ['text/plain'];

function skillOf(s: AgentSkill): AgentSkill {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    tags: [...s.tags],
    ...(s.examples?.length ? { examples: [...s.examples] } : {}),
    ...(s.inputModes?.length ? { inputModes: [...s.inputModes] } : {}),
    ...(s.outputModes?.length ? { outputModes: [...s.outputModes] } : {}),
  };
}

/** Same shape in v0.3 and v1.0; unset optional members are left out (ProtoJSON presence). */
function extensionOf(e: AgentExtension): AgentExtension {
  return {
    uri: e.uri,
    ...(e.description ? { description: e.description } : {}),
    ...(e.required !== undefined ? { required: e.required } : {}),
    ...(e.params ? { params: e.params } : {}),
  };
}

/** The description the extended card is built from: the public one with the agent's additions. */
function extendedDescription(agent: AgentDescription): AgentDescription {
  const more = agent.extendedCard;
  if (!more) return agent;
  return {
    ...agent,
    description: more.description ?? agent.description,
    skills: [...agent.skills, ...(more.skills ?? [])],
  };
}

export function buildAgentCard(input: AgentCardInput & { version: '1.0' }): V1AgentCard;
export function buildAgentCard(input: AgentCardInput & { version: '0.3' }): V03AgentCard;
export function buildAgentCard(input: AgentCardInput): AgentCard;
export function buildAgentCard(input: AgentCardInput): AgentCard {
  const { jsonRpcUrl, restUrl, capabilities } = input;
  const agent = input.extended ? extendedDescription(input.agent) : input.agent;
  const extendedAgentCard = input.agent.extendedCard !== undefined;
  // One JSON-RPC endpoint, both versions; v1.0 first = preferred (a2a-js picks the 1.0 entry per binding
  // anyway). The REST routes are v1.0's (v0.3's HTTP+JSON had other paths): declared for 1.0 only.
  const supportedInterfaces: AgentInterface[] = [
    { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ...(restUrl ? [{ url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' } as const] : []),
    { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
  const provider = agent.provider
    ? { provider: { organization: agent.provider.organization, url: agent.provider.url } }
    : {};
  const documentationUrl = agent.documentationUrl ? { documentationUrl: agent.documentationUrl } : {};
  const iconUrl = agent.iconUrl ? { iconUrl: agent.iconUrl } : {};
  const defaultInputModes = agent.defaultInputModes?.length
    ? [...agent.defaultInputModes]
    : [...DEFAULT_MODES];
  const defaultOutputModes = agent.defaultOutputModes?.length
    ? [...agent.defaultOutputModes]
    : [...DEFAULT_MODES];
  const skills = agent.skills.map(skillOf);
  // an empty repeated field is "not set" in ProtoJSON: no `extensions: []`
  const extensions = agent.extensions?.length ? { extensions: agent.extensions.map(extensionOf) } : {};

  if (input.version === '0.3') {
    return {
      protocolVersion: V03_CARD_PROTOCOL_VERSION,
      name: agent.name,
      description: agent.description,
      url: jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      ...provider,
      ...iconUrl,
      version: agent.version,
      ...documentationUrl,
      capabilities: {
        streaming: capabilities.streaming,
        pushNotifications: capabilities.pushNotifications,
        stateTransitionHistory: false,
        ...extensions,
      },
      defaultInputModes,
      defaultOutputModes,
      skills,
      supportsAuthenticatedExtendedCard: extendedAgentCard,
      ...(input.security ? v03Security(input.security) : {}),
      supportedInterfaces,
    };
  }
  return {
    name: agent.name,
    description: agent.description,
    supportedInterfaces,
    ...provider,
    version: agent.version,
    ...documentationUrl,
    capabilities: {
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      ...extensions,
      extendedAgentCard,
    },
    defaultInputModes,
    defaultOutputModes,
    skills,
    ...(input.security ? v1Security(input.security) : {}),
    ...iconUrl,
  };
}

/** Weak ETag: a SHA-256 of the card's canonical JSON (a2a-js also uses a weak SHA-256 tag). */
export function cardETag(card: AgentCard | Record<string, unknown>): string {
  return `W/"${createHash('sha256').update(canonicalJson(card)).digest('base64url')}"`;
}
