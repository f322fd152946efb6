/**
 * The Synapse peers this hub talks to, from configuration (env SYNAPSE_PEERS; on AWS a secret):
 *
 * ```json
 * [{ "peerId": "agent-b", "tenant": "acme", "endpoint": "https://b.example/synapse/callback",
 *    "keys": [{ "id": "2026-06", "secret": "…32+ characters…" }, { "id": "2026-01", "secret": "…" }] },
 *  { "peerId": "lab-agent", "tenant": "lab", "endpoint": "http://127.0.0.1:8081/synapse/callback",
 *    "keys": [], "unsigned": true }]
 * ```
 *
 * - `peerId` is the peer's agent id: the `sender.agent_id` of the messages it sends.
 * - `keys`: HMAC-SHA256 secrets shared with that peer, one or two (two during a rotation). Every
 *   listed key verifies; the first one signs what this hub sends to the peer.
 * - `unsigned: true` lets the peer send unsigned messages (a signature it does send is still
 *   verified). Meant for development; a signed peer's unsigned message is refused.
 * This is configuration, not wire format: camelCase like the rest of the hub's configuration.
 * Errors name the place (`SYNAPSE_PEERS[1].keys[0].secret`), never a value.
 */
import * as z from '../../validation/zod.ts';
import { violationsOf } from './issues.ts';
import { endpointSchema, idSchema } from './scalars.ts';

/** Key ids are sent in a header: a short token. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
/** An HMAC-SHA256 key shorter than its 32-byte output would weaken it. */
export const MIN_SECRET_LENGTH = 32;
export const MAX_SECRET_LENGTH = 1_024;
/** The current key and the next (or previous) one. */
export const MAX_KEYS_PER_PEER = 2;

export interface PeerKey {
  id: string;
  /** The shared secret; its UTF-8 bytes are the HMAC key. */
  secret: string;
}

export interface SynapsePeer {
  peerId: string;
  /** The tenant the peer's tasks belong to on this hub. */
  tenant: string;
  /** The peer's Synapse endpoint (its `/synapse/callback`). */
  endpoint: string;
  /** Newest first: `keys[0]` signs; every key verifies. */
  keys: readonly PeerKey[];
  unsigned: boolean;
}

/** Where the verifier finds a peer. */
export interface PeerDirectory {
  peer(peerId: string): SynapsePeer | undefined;
}

export interface SynapsePeers extends PeerDirectory {
  readonly peers: readonly SynapsePeer[];
}

export class InvalidPeerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPeerConfigError';
  }
}

const KeySchema = z.strictObject({
  id: z.string().check(z.regex(KEY_ID_PATTERN, 'must be 1-64 letters, digits, ".", "_", ":" or "-"')),
  secret: z
    .string()
    .check(
      z.minLength(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`),
      z.maxLength(MAX_SECRET_LENGTH, `must be at most ${MAX_SECRET_LENGTH} characters`),
    ),
});

const PeerSchema = z
  .strictObject({
    peerId: idSchema,
    tenant: idSchema,
    endpoint: endpointSchema,
    keys: z.array(KeySchema).check(z.maxLength(MAX_KEYS_PER_PEER)),
    unsigned: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((peer, ctx) => {
      if (peer.keys.length === 0 && peer.unsigned !== true) {
        ctx.addIssue({
          code: 'custom',
          message: 'must hold at least one key (or set "unsigned": true)',
          path: ['keys'],
        });
      }
      const ids = new Set<string>();
      peer.keys.forEach((key, i) => {
        if (ids.has(key.id)) {
          ctx.addIssue({
            code: 'custom',
            message: 'is the id of another key of this peer',
            path: ['keys', i, 'id'],
          });
        }
        ids.add(key.id);
      });
    }),
  );

const PeersSchema = z.array(PeerSchema).check(
  z.maxLength(1_000),
  z.superRefine((peers, ctx) => {
    const ids = new Set<string>();
    peers.forEach((peer, i) => {
      if (ids.has(peer.peerId)) {
        ctx.addIssue({ code: 'custom', message: 'is the id of another peer', path: [i, 'peerId'] });
      }
      ids.add(peer.peerId);
    });
  }),
);

/**
 * The peers of a configuration: JSON text (or the value parsed from it). Throws
 * InvalidPeerConfigError naming every wrong place (`source` prefixes them), never a value.
 */
export function parsePeers(config: unknown, source = 'SYNAPSE_PEERS'): SynapsePeers {
  let value = config;
  if (typeof config === 'string') {
    try {
      value = JSON.parse(config);
    } catch {
      throw new InvalidPeerConfigError(`${source} is not JSON (an array of peers)`);
    }
  }
  const result = PeersSchema.safeParse(value, { reportInput: true });
  if (!result.success) {
    const { violations, total } = violationsOf(result.error.issues, { showValues: false });
    const at = (field: string) =>
      field === '(message)' ? source : `${source}${field.startsWith('[') ? '' : '.'}${field}`;
    const list = violations.map((v) => `${at(v.field)} ${v.description}`).join('; ');
    throw new InvalidPeerConfigError(
      `${source} is not a valid peer configuration: ${list}${total > violations.length ? ` (and ${total - violations.length} more)` : ''}`,
    );
  }
  const peers: SynapsePeer[] = result.data.map((p) => ({
    peerId: p.peerId,
    tenant: p.tenant,
    endpoint: p.endpoint,
    keys: p.keys.map((k) => ({ id: k.id, secret: k.secret })),
    unsigned: p.unsigned === true,
  }));
  const byId = new Map(peers.map((p) => [p.peerId, p]));
  return { peers, peer: (peerId) => byId.get(peerId) };
}

/** The key this hub signs its messages to `peer` with: the first one (none for a keyless unsigned peer). */
export const signingKeyOf = (peer: SynapsePeer): PeerKey | undefined => peer.keys[0];
