/**
 * What every outbound request to a caller-chosen URL shares (docs/ssrf.md): the URL checked without DNS,
 * the host name resolved (every address) and each address checked, then the connection made to those
 * vetted addresses only — the request's `lookup` hands them back instead of asking DNS again, so a
 * rebinding between check and connect cannot happen. Used by the webhook sender and the guarded client.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { PushTarget, UrlGuard } from './url-guard.ts';

/** Resolves a host name to all its addresses (dns.lookup, as the system resolver answers). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * A URL vetted for one request: its target and the addresses to connect to; or why not — `refused` by
 * the guard (final), or the DNS lookup failed or ran out of time (`unresolved`, worth a retry).
 */
export type VettedDestination =
  | { ok: true; target: PushTarget; addresses: LookupAddress[] }
  | { ok: false; kind: 'refused'; reason: string }
  | { ok: false; kind: 'unresolved'; error: string };

/**
 * The guard's check of `url`, then DNS (within `deadline`, a `performance.now()` time; `timeoutMs` is
 * what a timeout error says) and the check of every address. An address literal is not resolved.
 */
export const vetDestination = async (
  guard: UrlGuard,
  url: string,
  resolve: Resolver,
  deadline: number,
  timeoutMs: number,
): Promise<VettedDestination> => {
  const checked = guard.inspect(url);
  if (!checked.ok) return { ok: false, kind: 'refused', reason: checked.reason };
  const target = checked.target;
  if (target.address) {
    return {
      ok: true,
      target,
      addresses: [{ address: target.address, family: target.address.includes(':') ? 6 : 4 }],
    };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await withDeadline(resolve(target.host), deadline - performance.now());
  } catch (err) {
    const error = err instanceof DeadlineError ? `timed out after ${timeoutMs} ms (DNS)` : dnsError(err);
    return { ok: false, kind: 'unresolved', error };
  }
  const resolved = guard.checkResolved(
    target,
    addresses.map((a) => a.address),
  );
  if (!resolved.ok) return { ok: false, kind: 'refused', reason: resolved.reason };
  return { ok: true, target, addresses };
};

/** A `lookup` for the request that answers with the vetted addresses and never asks DNS. */
export const pinnedLookup = (addresses: readonly LookupAddress[]): LookupFunction => {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = addresses.filter((a) => !family || a.family === family);
    const first = usable[0];
    if (!first) {
      const err: NodeJS.ErrnoException = new Error(`no vetted address of family ${family} for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', 0);
      return;
    }
    if (options.all) {
      callback(
        null,
        usable.map((a) => ({ ...a })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
};

class DeadlineError extends Error {}

const withDeadline = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineError()), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });

export const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;

export const errorMessage = (err: unknown): string => {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${code} ${err.message}` : err.message;
};

const dnsError = (err: unknown): string => `DNS lookup failed: ${errorMessage(err)}`;

/** An outbound request's DNS, connect and answer together, unless its sender says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Headers a client sets itself (or that make no sense on one request): a caller's are dropped. */
export const OWN_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);
