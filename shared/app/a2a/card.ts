/**
 * The hub's agent card for a deployment: the agent's description, the
 * hub's interfaces at the deployment's public URL, and what the hub can do
 * whatever the agent. The public card (functions/agent-card.ts) and the
 * extended one (GetExtendedAgentCard) are both built here.
 */
import type { AgentDescription } from '../../agent/api.ts';
import { AUTH_JWT_DISCOVERY_URL, AUTH_JWT_ISSUER, AUTH_MODE } from '../../config/auth.ts';
import { DELIVERY_QUEUE_URL } from '../../config/deployment.ts';
import { type Env, readSetting } from '../../config/settings.ts';
import { SYNAPSE_AGENT_ID } from '../../config/synapse.ts';
import { JSONRPC_PATH, REST_PATH, SYNAPSE_CALLBACK_PATH } from '../../contracts/routes.ts';
import { type AgentCard, buildAgentCard, type CardSecurity } from '../../protocol/a2a/agent-card.ts';
import type { A2AVersion } from '../../protocol/a2a/codec.ts';
import { GENERATIONS_EXTENSION, generationsEnabled } from '../../protocol/a2a/generations.ts';
import { synapseCardExtension } from '../../protocol/synapse/card-extension.ts';

/** Every task can be streamed; push notifications only where a delivery pipeline is configured. */
export const HUB_CAPABILITIES = { streaming: true } as const;

/** The environment variable that configures the delivery pipeline (the delivery queue's URL). */
export const DELIVERY_QUEUE_URL_ENV = 'DELIVERY_QUEUE_URL';

/** Whether this deployment delivers push notifications (its functions know the delivery queue). */
export const pushNotificationsConfigured = (env?: Env): boolean =>
  readSetting(DELIVERY_QUEUE_URL, env) !== undefined;

/**
 * The schemes this deployment accepts (docs/security.md): API keys as bearer tokens always, and the
 * JWTs of the OIDC issuer when one is configured (AUTH_JWT_ISSUER; its discovery document at
 * AUTH_JWT_DISCOVERY_URL, default `<issuer>/.well-known/openid-configuration`). Either one is enough.
 * None in dev mode (AUTH_MODE=none), which authenticates nobody.
 */
export const hubSecurity = (env?: Env): CardSecurity | undefined => {
  if (readSetting(AUTH_MODE, env) === 'none') return undefined;
  const issuer = readSetting(AUTH_JWT_ISSUER, env);
  return {
    schemes: {
      ...(issuer
        ? {
            oidc: {
              kind: 'openIdConnect' as const,
              openIdConnectUrl:
                readSetting(AUTH_JWT_DISCOVERY_URL, env) ??
                `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
              description: `A JWT of ${issuer} as a bearer token (Authorization: Bearer <token>)`,
            },
          }
        : {}),
      apiKey: {
        kind: 'http-bearer',
        bearerFormat: 'synapse-api-key',
        description: 'An API key of this hub (syn_…) as a bearer token (Authorization: Bearer <key>)',
      },
    },
    requirements: [...(issuer ? [['oidc']] : []), ['apiKey']],
  };
};

export interface HubCardInput {
  agent: AgentDescription;
  /** The deployment's public URL, without a trailing slash. */
  publicUrl: string;
  version: A2AVersion;
  /** The extended card: the public one with the agent's `extendedCard` additions. */
  extended?: boolean;
  /** capabilities.pushNotifications; default: pushNotificationsConfigured(). */
  pushNotifications?: boolean;
  /** Default hubSecurity(). */
  security?: CardSecurity;
  /** Declare the generations extension (docs/generations.md); default generationsEnabled(). */
  generations?: boolean;
  /**
   * This hub's Synapse agent id for the card's Synapse extension (docs/synapse-protocol.md#the-card-extension);
   * default SYNAPSE_AGENT_ID. The extension is declared always: every deployment serves /synapse/callback.
   */
  synapseAgentId?: string;
}

export const hubCard = ({
  agent,
  publicUrl,
  version,
  extended,
  pushNotifications,
  security = hubSecurity(),
  generations = generationsEnabled(),
  synapseAgentId = readSetting(SYNAPSE_AGENT_ID),
}: HubCardInput): AgentCard =>
  buildAgentCard({
    // the hub serves generations and Synapse whatever the agent: their extensions join the agent's own, in
    // both versions' cards; Synapse takes the agent's skill ids as task types (shared/app/synapse/inbound.ts)
    agent: {
      ...agent,
      extensions: [
        ...(agent.extensions ?? []),
        ...(generations ? [GENERATIONS_EXTENSION] : []),
        synapseCardExtension({
          agentId: synapseAgentId,
          endpoint: `${publicUrl}${SYNAPSE_CALLBACK_PATH}`,
          // an agent of no declared skill takes any type (inbound.ts): no list, rather than an empty one
          ...(agent.skills.length > 0 ? { taskTypes: agent.skills.map((s) => s.id) } : {}),
        }),
      ],
    },
    jsonRpcUrl: `${publicUrl}${JSONRPC_PATH}`,
    restUrl: `${publicUrl}${REST_PATH}`,
    capabilities: {
      ...HUB_CAPABILITIES,
      pushNotifications: pushNotifications ?? pushNotificationsConfigured(),
    },
    version,
    ...(extended ? { extended } : {}),
    ...(security ? { security } : {}),
  });
