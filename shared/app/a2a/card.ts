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

/** Only what works is declared: push notifications come with their issue. */
export const HUB_CAPABILITIES = { streaming: true, pushNotifications: false } as const;

export interface HubCardInput {
  agent: AgentDescription;
  /** The deployment's public URL, without a trailing slash. */
  publicUrl: string;
  version: A2AVersion;
  /** The extended card: the public one with the agent's `extendedCard` additions. */
  extended?: boolean;
}

export const hubCard = ({ agent, publicUrl, version, extended }: HubCardInput): AgentCard =>
  buildAgentCard({
    agent,
    jsonRpcUrl: `${publicUrl}${JSONRPC_PATH}`,
    restUrl: `${publicUrl}${REST_PATH}`,
    capabilities: HUB_CAPABILITIES,
    version,
    ...(extended ? { extended } : {}),
  });
