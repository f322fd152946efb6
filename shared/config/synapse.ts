/**
 * Synapse P2P (docs/synapse-protocol.md): the peers and this hub's identity, and how fresh a signature
 * must be. Which skills go to peers: ./tasks.ts.
 */
import { parsePeers, type SynapsePeers } from '../protocol/synapse/peers.ts';
import { DEFAULT_SIGNATURE_WINDOW_SECONDS } from '../protocol/synapse/signing.ts';
import { type Env, readSetting, type Setting, text, wholeNumber } from './settings.ts';

export const SYNAPSE_PEERS = {
  name: 'SYNAPSE_PEERS',
  doc: 'The peers and their keys, as JSON; set (even empty), it wins over SYNAPSE_PEERS_SECRET_ARN.',
  format: () => text('a JSON list of peers (checked when first used: shared/protocol/synapse/peers.ts)'),
  secret: true,
  keepBlank: true,
  defaultText: 'unset: no peers (every signed message is refused)',
  // jsonrpc and rest: a skill found in the registry goes only to a configured peer (docs/synapse-protocol.md#skills-found-in-the-registry)
  readBy: ['deliver', 'jsonrpc', 'rest', 'synapse'],
} satisfies Setting<string>;

export const SYNAPSE_PEERS_SECRET_ARN = {
  name: 'SYNAPSE_PEERS_SECRET_ARN',
  doc: 'The Secrets Manager secret holding the same JSON, read again every 5 minutes.',
  format: () => text('a secret ARN or name'),
  defaultText: 'unset',
  readBy: ['deliver', 'jsonrpc', 'rest', 'synapse'],
} satisfies Setting<string>;

export const SYNAPSE_AGENT_ID = {
  name: 'SYNAPSE_AGENT_ID',
  doc: "This hub's agent id as a Synapse sender (its endpoint: PUBLIC_URL's `/synapse/callback`), also in the card's Synapse extension.",
  format: () => text('an agent id'),
  default: 'synapse-hub',
  readBy: ['agent-card', 'deliver', 'jsonrpc', 'rest', 'synapse'],
} satisfies Setting<string>;

export const SYNAPSE_SIGNATURE_WINDOW_SECONDS = {
  name: 'SYNAPSE_SIGNATURE_WINDOW_SECONDS',
  doc: "How far a signed message's timestamp may be from now.",
  format: () => wholeNumber(1, undefined, 'seconds'),
  default: DEFAULT_SIGNATURE_WINDOW_SECONDS,
  readBy: ['synapse'],
} satisfies Setting<number>;

/** The peers of `env.SYNAPSE_PEERS` (none when it is unset). */
export const peersFromEnv = (env?: Env): SynapsePeers =>
  parsePeers(readSetting(SYNAPSE_PEERS, env) || '[]', SYNAPSE_PEERS.name);
