/**
 * The hub's Synapse extension of the A2A agent card (docs/synapse-protocol.md#the-card-extension): an
 * agent that takes Synapse P2P tasks says so in `capabilities.extensions` (A2A §4.4.4 AgentExtension),
 * with its Synapse agent id, its endpoint and the task types it accepts. Not required: an A2A client
 * that ignores it works as before. A registry that holds the card can then route a skill to that agent
 * over Synapse (shared/app/synapse/remote-skills.ts).
 *
 * Plain checks, no schema library: the card builder of every bundle imports this file.
 */
import type { AgentExtension } from '../../agent/api.ts';

/** Where the card says Synapse P2P is served (the hub's choice, in the form of its other extensions). */
export const SYNAPSE_EXTENSION_URI = 'https://synapse.dev/extensions/p2p/v1';

/** The extension's `params`. */
export interface SynapseCardParams {
  /** The agent's Synapse id: `sender.agent_id` of what it sends, the peer id it is configured under. */
  agentId: string;
  /** Its Synapse endpoint (absolute http(s) URL: its `/synapse/callback`). */
  endpoint: string;
  /** The `task.type` values it accepts (the hub: its skill ids); absent: not said. */
  taskTypes?: string[];
}

/** Agent ids and task types as the protocol's envelope takes them (scalars.ts: 1–128, no control character). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const ID = /^[^\u0000-\u001f\u007f]{1,128}$/;
const MAX_ENDPOINT_LENGTH = 2_048;
const MAX_TASK_TYPES = 1_000;

/** The extension as the card carries it. */
export const synapseCardExtension = (params: SynapseCardParams): AgentExtension => ({
  uri: SYNAPSE_EXTENSION_URI,
  description:
    'Synapse P2P (docs/synapse-protocol.md): signed p2p:* task messages to params.endpoint, addressed to ' +
    'params.agentId; params.taskTypes lists the task types taken. Peers are configured by agent id, with ' +
    'their HMAC keys.',
  required: false,
  params: {
    agentId: params.agentId,
    endpoint: params.endpoint,
    ...(params.taskTypes ? { taskTypes: [...params.taskTypes] } : {}),
  },
});

const isEndpoint = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length > MAX_ENDPOINT_LENGTH) return false;
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
};

/**
 * The Synapse params a card declares, or undefined when it declares none or a malformed one (a card
 * from a registry is another party's document: what cannot be read is not used).
 */
export const synapseParamsOf = (card: {
  capabilities?: { extensions?: readonly { uri: string; params?: Record<string, unknown> }[] };
}): SynapseCardParams | undefined => {
  const extension = card.capabilities?.extensions?.find((e) => e.uri === SYNAPSE_EXTENSION_URI);
  const params = extension?.params;
  if (!params) return undefined;
  const { agentId, endpoint, taskTypes } = params;
  if (typeof agentId !== 'string' || !ID.test(agentId) || !isEndpoint(endpoint)) return undefined;
  if (taskTypes === undefined) return { agentId, endpoint };
  if (
    !Array.isArray(taskTypes) ||
    taskTypes.length > MAX_TASK_TYPES ||
    !taskTypes.every((t): t is string => typeof t === 'string' && ID.test(t))
  )
    return undefined;
  return { agentId, endpoint, taskTypes };
};
