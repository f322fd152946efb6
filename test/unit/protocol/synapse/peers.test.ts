/**
 * The peer configuration (SYNAPSE_PEERS): what parses, what is refused and where, and that no
 * refusal ever quotes a secret.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peersFromEnv } from '../../../../shared/config/synapse.ts';
import {
  InvalidPeerConfigError,
  parsePeers,
  signingKeyOf,
} from '../../../../shared/protocol/synapse/index.ts';

const SECRET = 'a-secret-that-must-never-be-printed-0001';
const SECOND = 'the-next-secret-that-must-not-be-printed-2';
const peer = (over: Record<string, unknown> = {}) => ({
  peerId: 'agent-a',
  tenant: 'acme',
  endpoint: 'https://a.example/synapse/callback',
  keys: [{ id: 'k1', secret: SECRET }],
  ...over,
});

const refusal = (config: unknown): string => {
  try {
    parsePeers(typeof config === 'string' ? config : JSON.stringify(config));
  } catch (e) {
    assert.ok(e instanceof InvalidPeerConfigError, String(e));
    for (const s of [SECRET, SECOND, 'short-secret']) assert.equal(e.message.includes(s), false, e.message);
    return e.message;
  }
  assert.fail('accepted');
};

describe('peer configuration', () => {
  it('parses peers, signed and unsigned', () => {
    const peers = parsePeers(
      JSON.stringify([
        peer({
          keys: [
            { id: 'k2', secret: SECOND },
            { id: 'k1', secret: SECRET },
          ],
        }),
        {
          peerId: 'dev',
          tenant: 'lab',
          endpoint: 'http://127.0.0.1:8081/synapse/callback',
          keys: [],
          unsigned: true,
        },
      ]),
    );
    assert.equal(peers.peers.length, 2);
    const a = peers.peer('agent-a');
    assert.deepEqual(a, {
      peerId: 'agent-a',
      tenant: 'acme',
      endpoint: 'https://a.example/synapse/callback',
      keys: [
        { id: 'k2', secret: SECOND },
        { id: 'k1', secret: SECRET },
      ],
      unsigned: false,
    });
    assert.equal(a && signingKeyOf(a)?.id, 'k2', 'the first key signs');
    assert.equal(peers.peer('dev')?.unsigned, true);
    assert.equal(peers.peer('nobody'), undefined);
    assert.equal(peers.peer('__proto__'), undefined);
  });

  it('no configuration is no peers', () => {
    assert.deepEqual(peersFromEnv({}).peers, []);
    assert.deepEqual(peersFromEnv({ SYNAPSE_PEERS: ' ' }).peers, []);
    assert.equal(peersFromEnv({ SYNAPSE_PEERS: JSON.stringify([peer()]) }).peer('agent-a')?.tenant, 'acme');
  });

  it('refuses what is not a list of peers', () => {
    assert.match(refusal('{not json'), /SYNAPSE_PEERS is not JSON/);
    assert.match(refusal({ peerId: 'a' }), /SYNAPSE_PEERS must be an array/);
  });

  it('names each wrong place, never a value', () => {
    assert.match(refusal([peer({ peerId: undefined })]), /SYNAPSE_PEERS\[0\]\.peerId is required/);
    assert.match(refusal([peer({ tenant: '' })]), /SYNAPSE_PEERS\[0\]\.tenant must not be empty/);
    assert.match(refusal([peer({ endpoint: 'a.example' })]), /SYNAPSE_PEERS\[0\]\.endpoint/);
    assert.match(
      refusal([peer({ keys: [{ id: 'k1', secret: 'short-secret' }] })]),
      /SYNAPSE_PEERS\[0\]\.keys\[0\]\.secret must be at least 32 characters/,
    );
    assert.match(
      refusal([peer({ keys: [{ id: 'k 1', secret: SECRET }] })]),
      /SYNAPSE_PEERS\[0\]\.keys\[0\]\.id must be 1-64 letters/,
    );
    assert.match(
      refusal([peer({ keys: [{ id: 'k1', secret: 42 }] })]),
      /keys\[0\]\.secret must be a string$/,
    );
    assert.match(refusal([peer({ unsigned: SECRET })]), /SYNAPSE_PEERS\[0\]\.unsigned must be a boolean/);
  });

  it('refuses a signed peer without a key, and more than two keys', () => {
    assert.match(
      refusal([peer({ keys: [] })]),
      /keys must hold at least one key \(or set "unsigned": true\)/,
    );
    const three = [1, 2, 3].map((i) => ({ id: `k${i}`, secret: SECRET }));
    assert.match(refusal([peer({ keys: three })]), /keys must contain at most 2 item/);
  });

  it('refuses duplicate peers and duplicate key ids', () => {
    assert.match(refusal([peer(), peer()]), /SYNAPSE_PEERS\[1\]\.peerId is the id of another peer/);
    assert.match(
      refusal([
        peer({
          keys: [
            { id: 'k1', secret: SECRET },
            { id: 'k1', secret: SECOND },
          ],
        }),
      ]),
      /keys\[1\]\.id is the id of another key/,
    );
  });

  it('refuses unknown fields (a typo must not turn signing off)', () => {
    assert.match(
      refusal([peer({ keys: [], unsinged: true })]),
      /SYNAPSE_PEERS\[0\]\.unsinged is not a known field/,
    );
  });

  it('names the source it read', () => {
    assert.throws(
      () => parsePeers('[1]', 'secret arn:aws:secretsmanager:…'),
      /^InvalidPeerConfigError: secret arn/,
    );
  });
});
