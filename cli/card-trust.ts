/**
 * `card get`'s signature verdict (a2a-cli SPEC §8.1, A2A v1.0 §8.4): `verified` (with the key id and where
 * the key came from), `unverifiable` (with the reason) or `absent`. The JWS check is the hub's own
 * (`verifyCardSignatures`, shared/protocol/a2a/card-signature.ts, docs/registry.md#trust); this module only
 * chooses the keys: a JWKS the caller names (`--jwks <url|file>`), else the JWKS the signature's `jku`
 * names, when it is on the origin the card came from.
 */
import { readFileSync } from 'node:fs';
import type { JSONWebKeySet, JWK } from 'jose';
import { type CardSignatureHeader, verifyCardSignatures } from '../shared/protocol/a2a/card-signature.ts';
import { CliError } from './errors.ts';

export type SignatureVerdict =
  | { status: 'verified'; kid: string; keys: string }
  | { status: 'unverifiable'; reason: string }
  | { status: 'absent' };

/** A JWKS is a few keys: anything larger is not one. */
const MAX_JWKS_BYTES = 64 * 1024;
const JWKS_TIMEOUT_MS = 5_000;

const isLoopback = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/** `https`, or plain `http` on this machine only (as REGISTRY_TRUSTED_KEYS' `jwksUrl`, docs/registry.md). */
const isSafeKeyUrl = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname));

/** A JWKS document's keys, or what is wrong with it. */
function keysOf(json: unknown, where: string): JWK[] {
  const keys = (json as JSONWebKeySet | null)?.keys;
  if (!Array.isArray(keys)) throw new Error(`${where} is not a JWKS (no "keys" array)`);
  return keys;
}

async function fetchJwks(url: URL, fetchImpl: typeof fetch): Promise<JWK[]> {
  // no redirects: a redirect would take the key set from wherever it points, not from the origin judged
  const response = await fetchImpl(url, {
    redirect: 'manual',
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
  });
  if (response.status >= 300 && response.status < 400)
    throw new Error(`${url} answered a redirect (HTTP ${response.status}), which is not followed`);
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_JWKS_BYTES) throw new Error(`${url} is larger than a JWKS (${text.length} bytes)`);
  return keysOf(JSON.parse(text), String(url));
}

/** The keys of `--jwks`: a URL or a file the caller named. Failing to read them is the caller's error. */
export async function callerKeys(
  ref: string,
  fetchImpl: typeof fetch,
): Promise<{ keys: JWK[]; from: string }> {
  if (/^https?:\/\//i.test(ref)) {
    try {
      return { keys: await fetchJwks(new URL(ref), fetchImpl), from: ref };
    } catch (e) {
      throw new CliError(
        'A2ACLI_ERR_UNREACHABLE',
        `--jwks: ${(e as Error).message}`,
        'is the JWKS URL right?',
      );
    }
  }
  try {
    return { keys: keysOf(JSON.parse(readFileSync(ref, 'utf8')), ref), from: ref };
  } catch (e) {
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `--jwks ${ref}: ${(e as Error).message}`,
      'give a JWKS URL or file',
    );
  }
}

export interface VerifyOptions {
  /** The keys the caller named (`--jwks`): the only ones used when given. */
  keys?: { keys: JWK[]; from: string };
  /** The URL the card (or the catalog holding it inline) was read from; none for a file. */
  cardUrl?: string;
  fetchImpl: typeof fetch;
}

/** The verdict on the signatures of `card` (its JSON as read, before any parsing: that is what was signed). */
export async function verifySignature(card: unknown, options: VerifyOptions): Promise<SignatureVerdict> {
  if (typeof card !== 'object' || card === null) return { status: 'absent' };
  // why a signature found no key, by kid: the hub's verifier only knows that none was given
  const notes = new Map<string, string>();
  const jwksByUrl = new Map<string, Promise<JWK[]>>();
  const keyFor = async (header: CardSignatureHeader) => {
    let keys: JWK[];
    let from: string;
    if (options.keys) {
      ({ keys, from } = options.keys);
    } else {
      const jku = typeof header.jku === 'string' ? header.jku : undefined;
      if (!jku) {
        notes.set(header.kid, `kid ${header.kid}: no key: the signature names no jku; give --jwks`);
        return undefined;
      }
      let url: URL;
      try {
        url = new URL(jku);
      } catch {
        notes.set(header.kid, `kid ${header.kid}: jku ${JSON.stringify(jku)} is not a URL`);
        return undefined;
      }
      // A jku is honoured on the card's own origin only: whoever rewrote a card can name a key set of
      // their own, and only the origin that served the card over TLS speaks for its publisher
      // (docs/registry.md, "Which domain judges a card"; A2A §8.4.3 fetches keys over HTTPS)
      const origin = options.cardUrl ? new URL(options.cardUrl).origin : undefined;
      if (origin === undefined || url.origin !== origin) {
        notes.set(
          header.kid,
          `kid ${header.kid}: jku ${url} is not on the card's origin${origin ? ` (${origin})` : ' (the card is a file)'}; give --jwks to trust a key set`,
        );
        return undefined;
      }
      if (!isSafeKeyUrl(url)) {
        notes.set(header.kid, `kid ${header.kid}: jku ${url} is not https; give --jwks to trust a key set`);
        return undefined;
      }
      from = url.toString();
      let pending = jwksByUrl.get(from);
      if (!pending) {
        pending = fetchJwks(url, options.fetchImpl);
        jwksByUrl.set(from, pending);
      }
      try {
        keys = await pending;
      } catch (e) {
        notes.set(header.kid, `kid ${header.kid}: cannot read the jku key set: ${(e as Error).message}`);
        return undefined;
      }
    }
    const key = keys.find((k) => k.kid === header.kid);
    if (!key) {
      notes.set(header.kid, `kid ${header.kid}: not in the key set of ${from}`);
      return undefined;
    }
    return { key, trustedBy: from };
  };
  const verification = await verifyCardSignatures(card, keyFor);
  switch (verification.status) {
    case 'verified':
      return { status: 'verified', kid: verification.kid, keys: verification.trustedBy };
    case 'unsigned':
      return { status: 'absent' };
    default:
      return { status: 'unverifiable', reason: withNotes(verification.reason, notes) };
  }
}

/** The verifier's reason, each "no trusted key" in it said as why this CLI found none. */
const withNotes = (reason: string, notes: Map<string, string>): string => {
  let out = reason;
  for (const [kid, note] of notes) {
    const escaped = kid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`no trusted key has kid ${escaped}( \\([^)]*\\))?`), note);
  }
  return out;
};
