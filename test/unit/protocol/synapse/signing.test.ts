/**
 * HMAC signatures: the signing string (a vector computed with openssl), and verification against an
 * in-memory fake of the SeenSignatures port: valid, wrong key, stale and future timestamps, replay,
 * a changed body or message id, missing signature (refused unless the peer is unsigned), two active
 * keys, an unknown key id, malformed headers; only a request that verified reaches the store.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SeenSignatures } from '../../../../shared/ports/seen-signatures.ts';
import {
  DEFAULT_SIGNATURE_WINDOW_SECONDS,
  headerOf,
  KEY_ID_HEADER,
  parsePeers,
  SIGNATURE_HEADER,
  signForPeer,
  signSynapseRequest,
  synapseSignature,
  TIMESTAMP_HEADER,
  type VerifyFailureReason,
  verifySynapseRequest,
} from '../../../../shared/protocol/synapse/index.ts';

const NOW = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const OLD = { id: 'k-2025', secret: 'old-secret-old-secret-old-secret-0001' };
const NEW = { id: 'k-2026', secret: 'new-secret-new-secret-new-secret-0002' };
const OTHER = { id: 'k-2026', secret: 'someone-elses-secret-of-32-characters' };
/** lab-agent's own key, under the same id as one of agent-a's. */
const LAB = { id: 'k-2025', secret: 'lab-secret-lab-secret-lab-secret-0003' };

const peers = parsePeers([
  { peerId: 'agent-a', tenant: 't-a', endpoint: 'https://a.example/synapse/callback', keys: [NEW, OLD] },
  {
    peerId: 'dev-agent',
    tenant: 't-dev',
    endpoint: 'http://127.0.0.1:8081/synapse/callback',
    keys: [],
    unsigned: true,
  },
  {
    peerId: 'lab-agent',
    tenant: 't-lab',
    endpoint: 'http://127.0.0.1:8082/synapse/callback',
    keys: [LAB],
    unsigned: true,
  },
]);

/** The in-memory fake of the port; records every call. */
class FakeSeen implements SeenSignatures {
  readonly calls: Array<[string, string, number, number]> = [];
  readonly #seen = new Set<string>();
  async remember(peer: string, messageId: string, signedAt: number, until: number): Promise<boolean> {
    this.calls.push([peer, messageId, signedAt, until]);
    const key = JSON.stringify([peer, messageId, signedAt]);
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }
}

const BODY = '{"protocol_version":"1.0","type":"p2p:ack","message_id":"msg-0001","payload":{}}';

const setup = (options: { windowSeconds?: number; now?: number } = {}) => {
  const seen = new FakeSeen();
  const verify = (input: {
    rawBody?: string | Uint8Array;
    headers: Record<string, string | undefined> | Headers;
    peerId?: string;
    messageId?: string;
  }) =>
    verifySynapseRequest(
      {
        rawBody: input.rawBody ?? BODY,
        headers: input.headers as Record<string, string | undefined>,
        peerId: input.peerId ?? 'agent-a',
        messageId: input.messageId ?? 'msg-0001',
      },
      {
        peers,
        seen,
        ...(options.windowSeconds !== undefined ? { windowSeconds: options.windowSeconds } : {}),
        now: () => options.now ?? NOW,
      },
    );
  return { seen, verify };
};

const sign = (key = NEW, at = NOW, body: string | Uint8Array = BODY, messageId = 'msg-0001') =>
  signSynapseRequest({ rawBody: body, messageId, key, now: at });

const assertRefused = async (
  result: Promise<Awaited<ReturnType<ReturnType<typeof setup>['verify']>>>,
  reason: VerifyFailureReason,
) => {
  const r = await result;
  assert.equal(r.ok, false, `expected ${reason}`);
  if (r.ok) return;
  assert.equal(r.reason, reason);
  assert.equal(r.error.code, 'permission_denied');
  assert.equal(r.error.status, 403);
  assert.deepEqual(r.error.details, { reason });
  for (const secret of [OLD.secret, NEW.secret, LAB.secret])
    assert.equal(r.error.message.includes(secret), false);
};

describe('the signing string', () => {
  it('is "<timestamp>.<message_id>." then the raw body (vector computed with openssl)', () => {
    // printf '%s' '1767225600.msg-0001.{"hello":"世界"}' | openssl dgst -sha256 -hmac '<secret>' -hex
    const secret = 'a-shared-secret-of-at-least-32-chars!!';
    const expected = '072cceb7179be8b7a37582478603bcc3d55ab14c8f28403ed01f4ce06bf3d0d8';
    assert.equal(synapseSignature(secret, 1_767_225_600, 'msg-0001', '{"hello":"世界"}'), expected);
    assert.equal(
      synapseSignature(secret, 1_767_225_600, 'msg-0001', Buffer.from('{"hello":"世界"}')),
      expected,
      'bytes and their UTF-8 text sign the same',
    );
  });

  it('goes in three headers', () => {
    const headers = sign();
    assert.deepEqual(Object.keys(headers), [SIGNATURE_HEADER, TIMESTAMP_HEADER, KEY_ID_HEADER]);
    assert.match(headers[SIGNATURE_HEADER] ?? '', /^sha256=[0-9a-f]{64}$/);
    assert.equal(headers[TIMESTAMP_HEADER], '1767225600');
    assert.equal(headers[KEY_ID_HEADER], 'k-2026');
  });

  it('cannot sign a message id that would make it ambiguous', () => {
    assert.throws(() => sign(NEW, NOW, BODY, 'msg.1'), TypeError);
  });

  it('a peer is signed for with its first key; a keyless unsigned peer not at all', () => {
    const a = peers.peer('agent-a');
    const dev = peers.peer('dev-agent');
    assert.ok(a && dev);
    assert.equal(signForPeer(a, BODY, 'msg-0001', NOW)[KEY_ID_HEADER], 'k-2026');
    assert.deepEqual(signForPeer(dev, BODY, 'msg-0001', NOW), {});
  });
});

describe('verification', () => {
  it('a valid signature verifies, and the request is remembered until the window has passed', async () => {
    const { verify, seen } = setup();
    const r = await verify({ headers: sign() });
    assert.ok(r.ok);
    assert.equal(r.signed, true);
    assert.equal(r.signed && r.keyId, 'k-2026');
    assert.equal(r.peer.tenant, 't-a');
    // the request is known by its signature (lowercase hex), not its message id and second
    const signature = sign()[SIGNATURE_HEADER]!.slice('sha256='.length);
    assert.deepEqual(seen.calls, [['agent-a', signature, 1_767_225_600, 1_767_225_600 + 300]]);
  });

  it('both active keys of a peer verify (rotation)', async () => {
    const { verify } = setup();
    const a = await verify({ headers: sign(NEW) });
    const b = await verify({ headers: sign(OLD, NOW + 1000) });
    assert.ok(a.ok && b.ok);
    assert.equal(a.signed && a.keyId, 'k-2026');
    assert.equal(b.signed && b.keyId, 'k-2025');
  });

  it('a wrong key is refused', async () => {
    const { verify, seen } = setup();
    await assertRefused(verify({ headers: sign(OTHER) }), 'bad_signature');
    assert.equal(seen.calls.length, 0, 'a request that did not verify takes no place in the store');
  });

  it('an old key’s signature sent under the new key’s id is refused', async () => {
    const { verify } = setup();
    const headers = { ...sign(OLD), [KEY_ID_HEADER]: NEW.id };
    await assertRefused(verify({ headers }), 'bad_signature');
  });

  it('an unknown key id is refused', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign({ id: 'k-1999', secret: NEW.secret }) }), 'unknown_key_id');
  });

  it('a stale timestamp is refused; one just inside the window verifies', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(NEW, NOW - 301_000) }), 'stale_timestamp');
    assert.ok((await verify({ headers: sign(NEW, NOW - 300_000) })).ok);
  });

  it('a future timestamp is refused; one just inside the window verifies', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(NEW, NOW + 301_000) }), 'future_timestamp');
    assert.ok((await verify({ headers: sign(NEW, NOW + 300_000) })).ok);
  });

  it('the window is configurable', async () => {
    assert.equal(DEFAULT_SIGNATURE_WINDOW_SECONDS, 300);
    const { verify, seen } = setup({ windowSeconds: 30 });
    await assertRefused(verify({ headers: sign(NEW, NOW - 31_000) }), 'stale_timestamp');
    assert.ok((await verify({ headers: sign(NEW, NOW - 29_000) })).ok);
    assert.equal(seen.calls[0]?.[3], Math.floor((NOW - 29_000) / 1000) + 30);
  });

  it('a replayed request is refused', async () => {
    const { verify } = setup();
    const headers = sign();
    assert.ok((await verify({ headers })).ok);
    await assertRefused(verify({ headers }), 'replayed');
  });

  it('a retry of the same message, signed again, is not a replay (the endpoint acks it again)', async () => {
    const { verify } = setup();
    assert.ok((await verify({ headers: sign(NEW, NOW) })).ok);
    assert.ok((await verify({ headers: sign(NEW, NOW + 2_000) })).ok);
  });

  it('a retry signed anew within the same second (new bytes, or another key) is not a replay either', async () => {
    const { verify } = setup();
    const again = `${BODY} `;
    assert.ok((await verify({ headers: sign(NEW, NOW) })).ok);
    assert.ok((await verify({ headers: sign(NEW, NOW + 300, again), rawBody: again })).ok);
    assert.ok((await verify({ headers: sign(OLD, NOW + 600) })).ok);
    // and each of them again, byte for byte, is: whatever the hex's case
    await assertRefused(verify({ headers: sign(NEW, NOW) }), 'replayed');
    await assertRefused(verify({ headers: sign(NEW, NOW + 300, again), rawBody: again }), 'replayed');
    const shouted = sign(OLD, NOW + 600);
    shouted[SIGNATURE_HEADER] = `sha256=${shouted[SIGNATURE_HEADER]!.slice(7).toUpperCase()}`;
    await assertRefused(verify({ headers: shouted }), 'replayed');
  });

  it('a changed body is refused', async () => {
    const { verify } = setup();
    const headers = sign();
    await assertRefused(verify({ headers, rawBody: BODY.replace('p2p:ack', 'p2p:nack') }), 'bad_signature');
    await assertRefused(verify({ headers, rawBody: `${BODY} ` }), 'bad_signature');
  });

  it('a changed message id is refused', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(), messageId: 'msg-0002' }), 'bad_signature');
  });

  it('a changed timestamp is refused', async () => {
    const { verify } = setup();
    const headers = { ...sign(), [TIMESTAMP_HEADER]: String(NOW / 1000 + 1) };
    await assertRefused(verify({ headers }), 'bad_signature');
  });

  it('keys are looked up under the sender: another peer’s key of the same id does not verify', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(OLD), peerId: 'lab-agent' }), 'bad_signature');
    await assertRefused(verify({ headers: sign(LAB), peerId: 'agent-a' }), 'bad_signature');
    assert.ok((await verify({ headers: sign(LAB), peerId: 'lab-agent' })).ok);
  });

  it('a missing signature is refused, unless the peer is configured unsigned', async () => {
    const { verify, seen } = setup();
    await assertRefused(verify({ headers: {} }), 'missing_signature');
    await assertRefused(verify({ headers: { [SIGNATURE_HEADER]: '' } }), 'missing_signature');
    const dev = await verify({ headers: {}, peerId: 'dev-agent' });
    assert.ok(dev.ok);
    assert.equal(dev.signed, false);
    assert.equal(seen.calls.length, 0);
  });

  it('an unsigned peer’s signature, when sent, must still be valid', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(NEW), peerId: 'dev-agent' }), 'unknown_key_id');
    await assertRefused(
      verify({ headers: sign({ ...LAB, secret: NEW.secret }), peerId: 'lab-agent' }),
      'bad_signature',
    );
    const lab = await verify({ headers: sign(LAB), peerId: 'lab-agent' });
    assert.ok(lab.ok && lab.signed);
  });

  it('an unknown peer is refused, signed or not', async () => {
    const { verify } = setup();
    await assertRefused(verify({ headers: sign(), peerId: 'agent-z' }), 'unknown_peer');
    await assertRefused(verify({ headers: {}, peerId: 'agent-z' }), 'unknown_peer');
  });

  it('malformed or missing headers are refused', async () => {
    const { verify } = setup();
    const good = sign();
    const hex = (good[SIGNATURE_HEADER] ?? '').slice('sha256='.length);
    for (const value of [
      hex,
      `sha1=${hex}`,
      `sha256=${hex.slice(2)}`,
      `sha256=${'z'.repeat(64)}`,
      `v1=${hex}`,
    ]) {
      await assertRefused(verify({ headers: { ...good, [SIGNATURE_HEADER]: value } }), 'malformed_signature');
    }
    await assertRefused(verify({ headers: { ...good, [TIMESTAMP_HEADER]: undefined } }), 'missing_timestamp');
    for (const value of [
      '2026-01-01T00:00:00Z',
      '1767225600.5',
      '-1',
      '1e9',
      '01767225600',
      '9'.repeat(13),
    ]) {
      await assertRefused(verify({ headers: { ...good, [TIMESTAMP_HEADER]: value } }), 'malformed_timestamp');
    }
    await assertRefused(verify({ headers: { ...good, [KEY_ID_HEADER]: undefined } }), 'missing_key_id');
    await assertRefused(verify({ headers: good, messageId: 'msg.0001' }), 'invalid_message_id');
  });

  it('an uppercase hex digest verifies', async () => {
    const { verify } = setup();
    const good = sign();
    const upper = `sha256=${(good[SIGNATURE_HEADER] ?? '').slice(7).toUpperCase()}`;
    assert.ok((await verify({ headers: { ...good, [SIGNATURE_HEADER]: upper } })).ok);
  });

  it('reads headers in any case, as a plain object or as fetch Headers', async () => {
    const { verify } = setup();
    const lower = Object.fromEntries(Object.entries(sign()).map(([k, v]) => [k.toLowerCase(), v]));
    assert.ok((await verify({ headers: lower })).ok);
    assert.ok((await verify({ headers: new Headers(sign(NEW, NOW + 1000)) })).ok);
    const twice = new Headers(sign(NEW, NOW + 2000));
    twice.append(SIGNATURE_HEADER, twice.get(SIGNATURE_HEADER) ?? '');
    await assertRefused(verify({ headers: twice }), 'malformed_signature');
  });

  it('a header given twice is malformed', () => {
    assert.equal(
      headerOf({ 'x-synapse-signature': 'a', 'X-Synapse-Signature': 'b' }, SIGNATURE_HEADER),
      null,
    );
    assert.equal(headerOf({ 'x-synapse-signature': ['a', 'b'] }, SIGNATURE_HEADER), null);
    assert.equal(headerOf({ 'x-synapse-signature': ['a'] }, SIGNATURE_HEADER), 'a');
    assert.equal(headerOf({}, SIGNATURE_HEADER), undefined);
  });

  it('a store that fails makes verification fail (the endpoint answers agent_not_ready)', async () => {
    const failing: SeenSignatures = { remember: () => Promise.reject(new Error('table unavailable')) };
    await assert.rejects(
      verifySynapseRequest(
        { rawBody: BODY, headers: sign(), peerId: 'agent-a', messageId: 'msg-0001' },
        { peers, seen: failing, now: () => NOW },
      ),
      /table unavailable/,
    );
  });
});
