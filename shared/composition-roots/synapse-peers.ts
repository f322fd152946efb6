/**
 * The Synapse configuration both the endpoint (shared/composition-roots/synapse.ts) and the delivery worker (the
 * callbacks it signs) read, apart so the worker's bundle loads none of the endpoint
 * (settings: shared/config/synapse.ts):
 * - SYNAPSE_PEERS (the peers as JSON, shared/protocol/synapse/peers.ts), or on AWS
 *   SYNAPSE_PEERS_SECRET_ARN (the same JSON in a Secrets Manager secret, read again every
 *   PEERS_CACHE_MS so a rotation reaches warm containers);
 * - SYNAPSE_AGENT_ID: this hub's agent id (default `synapse-hub`); its endpoint is
 *   `${PUBLIC_URL}/synapse/callback`.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClient, SDK_RETRY } from '../adapters/aws/clients.ts';
import type { Env } from '../config/environment.ts';
import { readSetting } from '../config/settings.ts';
import { SYNAPSE_AGENT_ID, SYNAPSE_PEERS, SYNAPSE_PEERS_SECRET_ARN } from '../config/synapse.ts';
import { SYNAPSE_CALLBACK_PATH } from '../contracts/routes.ts';
import type { SynapseSender } from '../protocol/synapse/envelope.ts';
import { parsePeers, type SynapsePeers } from '../protocol/synapse/peers.ts';

/** How long a container keeps the peers it read from Secrets Manager. */
const PEERS_CACHE_MS = 5 * 60_000;

const NO_PEERS: SynapsePeers = { peers: [], peer: () => undefined };

/** JSON.parse, its error without the text (Node quotes the input around the error: it holds secrets). */
const parseJson = (text: string, source: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${source} is not valid JSON (its value is not shown: it holds secrets)`);
  }
};

let cached: { peers: SynapsePeers; until: number; source: string } | undefined;
let secrets: SecretsManagerClient | undefined;

/** The configured peers (none when nothing is configured: every signed message is then refused). */
export const synapsePeers = async (env?: Env): Promise<SynapsePeers> => {
  const inline = readSetting(SYNAPSE_PEERS, env);
  const arn = readSetting(SYNAPSE_PEERS_SECRET_ARN, env);
  const source = inline !== undefined ? `inline:${inline}` : `secret:${arn ?? ''}`;
  if (cached && cached.source === source && (inline !== undefined || cached.until > Date.now()))
    return cached.peers;
  let peers = NO_PEERS;
  if (inline !== undefined && inline.trim() !== '')
    peers = parsePeers(parseJson(inline, 'SYNAPSE_PEERS'), 'SYNAPSE_PEERS');
  else if (arn) {
    secrets ??= awsClient(new SecretsManagerClient(SDK_RETRY));
    const out = await secrets.send(new GetSecretValueCommand({ SecretId: arn }));
    peers = parsePeers(
      parseJson(out.SecretString ?? '[]', 'the SYNAPSE_PEERS secret'),
      'the SYNAPSE_PEERS secret',
    );
  }
  cached = { peers, until: Date.now() + PEERS_CACHE_MS, source };
  return peers;
};

/** This hub as a Synapse agent, at `publicUrl`. */
export const synapseSelf = (publicUrl: string, env?: Env): SynapseSender => ({
  agent_id: readSetting(SYNAPSE_AGENT_ID, env),
  endpoint: `${publicUrl.replace(/\/+$/, '')}${SYNAPSE_CALLBACK_PATH}`,
});
