/**
 * Signed Synapse messages (docs/synapse-protocol.md#signatures). The protocol asks for HMAC-SHA256
 * in the header `X-Synapse-Signature` and says no more; this is the rest:
 *
 *     signing string  = `${timestamp}.${message_id}.` followed by the raw body bytes
 *     X-Synapse-Signature: sha256=<hex HMAC-SHA256(secret, signing string)>
 *     X-Synapse-Timestamp: <Unix time in seconds when this attempt was signed>
 *     X-Synapse-Key-Id:    <id of the key, among the sender's configured keys>
 *
 * The timestamp is only digits and a message id holds no `.` (MESSAGE_ID_PATTERN), so the string
 * splits one way only. Each delivery attempt is signed anew (a retry keeps its message id, gets a
 * new timestamp). The verifier:
 * - finds the peer by the message's `sender.agent_id`; an unknown peer is refused;
 * - refuses an unsigned message unless the peer is configured `unsigned`;
 * - refuses a timestamp more than the window (5 minutes) in the past or the future;
 * - looks the key up by id among that peer's keys (two may be active: rotation);
 * - compares in constant time (crypto.timingSafeEqual);
 * - then refuses a replay: the same signed request seen before, known by its peer and signature (the
 *   HMAC covers the timestamp, the message id and every byte of the body), remembered through the
 *   SeenSignatures port until the window has passed. A retry of a message signed anew is not a replay
 *   when something signed differs (its timestamp's second, its bytes, or the key): it passes, and the
 *   endpoint answers it as the duplicate it is (message-id de-duplication), with no effect. The very same
 *   signed bytes again are refused, a retry signed in the same second too (the hub's own retries of a
 *   message are at least 1 s apart: shared/app/delivery/synapse-callback.ts).
 * Every refusal is permission_denied (403) with a `reason`; none says anything about a key's secret.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SeenSignatures } from '../../ports/seen-signatures.ts';
import { MESSAGE_ID_PATTERN } from './bounds.ts';
import { SynapseProtocolError } from './errors.ts';
import type { PeerDirectory, PeerKey, SynapsePeer } from './peers.ts';

export const SIGNATURE_HEADER = 'X-Synapse-Signature';
export const TIMESTAMP_HEADER = 'X-Synapse-Timestamp';
export const KEY_ID_HEADER = 'X-Synapse-Key-Id';
/** The scheme label in front of the hex digest. */
export const SIGNATURE_SCHEME = 'sha256';
export const DEFAULT_SIGNATURE_WINDOW_SECONDS = 300;

const SIGNATURE_VALUE = /^sha256=([0-9a-fA-F]{64})$/;
/** Decimal seconds, no sign, no leading zero: the signing string holds it as written. */
const TIMESTAMP_VALUE = /^(0|[1-9][0-9]{0,11})$/;

type RawBody = string | Uint8Array;

/** The hex HMAC-SHA256 of `${timestamp}.${messageId}.` + rawBody, with `secret` (UTF-8) as the key. */
export function synapseSignature(
  secret: string,
  timestamp: number,
  messageId: string,
  rawBody: RawBody,
): string {
  return digest(secret, timestamp, messageId, rawBody).toString('hex');
}

function digest(secret: string, timestamp: number, messageId: string, rawBody: RawBody): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.${messageId}.`).update(rawBody).digest();
}

export interface SignInput {
  /** The exact bytes POSTed (a string is signed as UTF-8). */
  rawBody: RawBody;
  /** The envelope's `message_id`. */
  messageId: string;
  key: PeerKey;
  /** Epoch milliseconds; default now. */
  now?: number;
}

/** The three headers of one signed delivery attempt. */
export function signSynapseRequest(input: SignInput): Record<string, string> {
  const { rawBody, messageId, key } = input;
  if (!MESSAGE_ID_PATTERN.test(messageId)) throw new TypeError('a message id may hold only [A-Za-z0-9_:-]');
  const timestamp = Math.floor((input.now ?? Date.now()) / 1000);
  return {
    [SIGNATURE_HEADER]: `${SIGNATURE_SCHEME}=${synapseSignature(key.secret, timestamp, messageId, rawBody)}`,
    [TIMESTAMP_HEADER]: String(timestamp),
    [KEY_ID_HEADER]: key.id,
  };
}

export type VerifyFailureReason =
  | 'unknown_peer'
  | 'invalid_message_id'
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'missing_key_id'
  | 'unknown_key_id'
  | 'bad_signature'
  | 'replayed';

export type VerifyResult =
  | { ok: true; peer: SynapsePeer; signed: true; keyId: string }
  | { ok: true; peer: SynapsePeer; signed: false }
  | { ok: false; reason: VerifyFailureReason; error: SynapseProtocolError };

/** The headers of a request: a plain object (any case, as API Gateway gives them) or fetch Headers. */
export type RequestHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

export interface VerifyInput {
  rawBody: RawBody;
  headers: RequestHeaders;
  /** The envelope's `sender.agent_id`. */
  peerId: string;
  /** The envelope's `message_id`. */
  messageId: string;
}

export interface VerifyOptions {
  peers: PeerDirectory;
  seen: SeenSignatures;
  /** How far a timestamp may be from now, either way, in seconds (default 300). */
  windowSeconds?: number;
  /** Epoch milliseconds. */
  now?: () => number;
}

/** One header, whatever its case; a header given twice counts as malformed (`null`). */
export function headerOf(headers: RequestHeaders, name: string): string | undefined | null {
  if (typeof headers.get === 'function') {
    const v = (headers as { get(name: string): string | null }).get(name);
    // fetch joins a repeated header with ", ": no valid value of ours holds a comma, so it fails its check
    return v === null ? undefined : v;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const lower = name.toLowerCase();
  let found: string | undefined | null;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== lower) continue;
    const v = record[key];
    if (v === undefined) continue;
    const value = typeof v === 'string' ? v : v.length === 1 ? v[0] : null;
    if (found !== undefined || value === null || value === undefined) return null;
    found = value;
  }
  return found;
}

const REASON_TEXT: Readonly<Record<VerifyFailureReason, string>> = {
  unknown_peer: 'the sender is not a configured peer',
  invalid_message_id: 'the message id cannot be signed',
  missing_signature: `the message is not signed (${SIGNATURE_HEADER}) and the peer is not configured unsigned`,
  malformed_signature: `${SIGNATURE_HEADER} must be "sha256=" and 64 hex digits`,
  missing_timestamp: `${TIMESTAMP_HEADER} is required with a signature`,
  malformed_timestamp: `${TIMESTAMP_HEADER} must be a Unix time in seconds`,
  stale_timestamp: `${TIMESTAMP_HEADER} is too far in the past`,
  future_timestamp: `${TIMESTAMP_HEADER} is too far in the future`,
  missing_key_id: `${KEY_ID_HEADER} is required with a signature`,
  unknown_key_id: `${KEY_ID_HEADER} names no key of this peer`,
  bad_signature: 'the signature does not match',
  replayed: 'this signed request was received before (replay)',
};

const refuse = (reason: VerifyFailureReason, windowSeconds?: number): VerifyResult => {
  const text =
    windowSeconds !== undefined && (reason === 'stale_timestamp' || reason === 'future_timestamp')
      ? `${REASON_TEXT[reason]} (more than ${windowSeconds} s from now)`
      : REASON_TEXT[reason];
  return {
    ok: false,
    reason,
    error: new SynapseProtocolError('permission_denied', text, { details: { reason } }),
  };
};

/** Verify one inbound request (see the file's comment for the order of the checks). */
export async function verifySynapseRequest(
  input: VerifyInput,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const windowSeconds = options.windowSeconds ?? DEFAULT_SIGNATURE_WINDOW_SECONDS;
  const peer = options.peers.peer(input.peerId);
  if (!peer) return refuse('unknown_peer');

  const signature = headerOf(input.headers, SIGNATURE_HEADER);
  if (signature === undefined || signature === '') {
    return peer.unsigned ? { ok: true, peer, signed: false } : refuse('missing_signature');
  }
  if (signature === null) return refuse('malformed_signature');
  const hex = SIGNATURE_VALUE.exec(signature.trim())?.[1];
  if (!hex) return refuse('malformed_signature');
  if (!MESSAGE_ID_PATTERN.test(input.messageId) || input.messageId.length > 128) {
    return refuse('invalid_message_id');
  }

  const stamp = headerOf(input.headers, TIMESTAMP_HEADER);
  if (stamp === undefined || stamp === '') return refuse('missing_timestamp');
  if (stamp === null || !TIMESTAMP_VALUE.test(stamp.trim())) return refuse('malformed_timestamp');
  const timestamp = Number(stamp.trim());
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  if (timestamp < nowSeconds - windowSeconds) return refuse('stale_timestamp', windowSeconds);
  if (timestamp > nowSeconds + windowSeconds) return refuse('future_timestamp', windowSeconds);

  const keyId = headerOf(input.headers, KEY_ID_HEADER);
  if (keyId === undefined || keyId === '') return refuse('missing_key_id');
  const key = keyId === null ? undefined : peer.keys.find((k) => k.id === keyId.trim());
  if (!key) return refuse('unknown_key_id');

  const expected = digest(key.secret, timestamp, input.messageId, input.rawBody);
  const given = Buffer.from(hex, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return refuse('bad_signature');

  // only a request that verified may take a place in the store; keyed by the computed signature (one
  // spelling: the same signature in capitals or with spaces around it is the same request)
  const first = await options.seen.remember(
    peer.peerId,
    expected.toString('hex'),
    timestamp,
    timestamp + windowSeconds,
  );
  if (!first) return refuse('replayed');
  return { ok: true, peer, signed: true, keyId: key.id };
}

/** The headers signing `rawBody` to `peer` with its first key; none for a keyless unsigned peer. */
export function signForPeer(
  peer: SynapsePeer,
  rawBody: RawBody,
  messageId: string,
  now?: number,
): Record<string, string> {
  const key = peer.keys[0];
  if (!key) return {};
  return signSynapseRequest({ rawBody, messageId, key, ...(now !== undefined ? { now } : {}) });
}
