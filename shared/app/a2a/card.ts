/**
 * The hub's agent card for a deployment: the agent's description, the
 * hub's interfaces at the deployment's public URL, and what the hub can do
 * whatever the agent. The public card (functions/agent-card.ts) and the
 * extended one (GetExtendedAgentCard) are both built here.
 */
import type { AgentDescription } from '../../agent/api.ts';
import { type AgentCard, buildAgentCard } from '../../protocol/a2a/agent-card.ts';
import type { A2AVersion } from '../../protocol/a2a/codec.ts';
import { JSONRPC_PATH, REST_PATH } from '../../routes.ts';

/** Every task can be streamed; push notifications only where a delivery pipeline is configured. */
export const HUB_CAPABILITIES = { streaming: true } as const;

/** The environment variable that configures the delivery pipeline (the delivery queue's URL). */
export const DELIVERY_QUEUE_URL_ENV = 'DELIVERY_QUEUE_URL';

/** Whether this deployment delivers push notifications (its functions know the delivery queue). */
export const pushNotificationsConfigured = (env: NodeJS.ProcessEnv = process.env): boolean =>
  Boolean(env[DELIVERY_QUEUE_URL_ENV]);

export interface HubCardInput {
  agent: AgentDescription;
  /** The deployment's public URL, without a trailing slash. */
  publicUrl: string;
  version: A2AVersion;
  /** The extended card: the public one with the agent's `extendedCard` additions. */
  extended?: boolean;
  /** capabilities.pushNotifications; default: pushNotificationsConfigured(). */
  pushNotifications?: boolean;
}

export const hubCard = ({
  agent,
  publicUrl,
  version,
  extended,
  pushNotifications,
}: HubCardInput): AgentCard =>
  buildAgentCard({
    agent,
    jsonRpcUrl: `${publicUrl}${JSONRPC_PATH}`,
    restUrl: `${publicUrl}${REST_PATH}`,
    capabilities: {
      ...HUB_CAPABILITIES,
      pushNotifications: pushNotifications ?? pushNotificationsConfigured(),
    },
    version,
    ...(extended ? { extended } : {}),
  });
