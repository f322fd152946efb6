/**
 * The SSRF guard for push URLs (docs/ssrf.md). Two checks:
 * - `inspect` / `check`, without DNS, when a push config is created: the URL's form (http(s), no
 *   userinfo, no fragment, no whitespace or backslash, bounded length), its host (a literal address
 *   must be public unicast; a name must not be local or special-use) and its port.
 * - `checkResolved`, at send time, on every address the host name resolved to: all must be public
 *   unicast. The sender then connects to those vetted addresses only (no second lookup).
 * An explicit allowlist (PUSH_URL_ALLOWLIST: hosts, host:port, addresses, CIDRs) lets local receivers
 * through, and is the only way to use plain http unless `allowHttp` is set.
 * Address ranges come from ipaddr.js, plus an explicit table kept here so a refusal never depends
 * only on the library's range names.
 */
import ipaddr from 'ipaddr.js';
import { PUSH_URL_ALLOW_HTTP, PUSH_URL_ALLOWLIST } from '../../config/push.ts';
import { type Env, readSetting } from '../../config/settings.ts';
import type { PushUrlGuard, UrlVerdict } from '../../ports/push-url-guard.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export const MAX_URL_LENGTH = 2048;
const MAX_HOST_LENGTH = 253;
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * Ports the Fetch standard blocks ("bad ports": https://fetch.spec.whatwg.org/#port-blocking): services
 * an HTTP request can be smuggled into (SMTP, IRC, LDAP, …). Any other port is allowed.
 */
const BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/**
 * Names that never reach a public receiver: loopback and mDNS names, private-use and special-use
 * domains (RFC 6761, RFC 8375, ICANN's .internal), cloud-internal names (metadata.google.internal,
 * *.ec2.internal, *.compute.internal), cluster names (*.svc, *.cluster.local). A name matches when it is
 * one of these or ends in `.<suffix>`. Single-label names are refused too (search domains).
 */
const LOCAL_SUFFIXES: readonly string[] = [
  'localhost',
  'local',
  'localdomain',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'private',
  'svc',
  'arpa',
  'test',
  'example',
  'invalid',
  'onion',
  'alt',
];

/** What ipaddr.js calls each range that is not 'unicast', as the reasons say it. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  as112: 'an AS112 (DNS sink) address',
  as112v6: 'an AS112 (DNS sink) address',
  amt: 'an AMT relay address',
  uniqueLocal: 'a unique-local address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  discard: 'a discard-only address',
  deprecatedSiteLocal: 'a site-local address',
};

/**
 * Refused whatever ipaddr.js says (defense in depth, and ranges it counts as unicast: IPv4-compatible
 * ::/96, local-use NAT64). IPv6 outside 2000::/3 (global unicast) is refused as well.
 */
const EXPLICIT_RANGES: ReadonlyArray<readonly [string, string]> = [
  ['0.0.0.0/8', 'a "this network" address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'an IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/23', 'an IETF protocol address'],
  ['2001:db8::/32', 'a documentation address'],
  ['2002::/16', 'a 6to4 address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'a segment-routing address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
];
interface Ranges {
  explicit: ReadonlyArray<{ range: [Address, number]; name: string }>;
  globalUnicastV6: [Address, number];
  nat64WellKnown: [Address, number];
}
let parsedRanges: Ranges | undefined;
/** Parsed on first use: a function that never judges an address (most requests) never parses them. */
const ranges = (): Ranges =>
  (parsedRanges ??= {
    explicit: EXPLICIT_RANGES.map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr), name })),
    globalUnicastV6: ipaddr.parseCIDR('2000::/3'),
    nat64WellKnown: ipaddr.parseCIDR('64:ff9b::/96'),
  });

const inRange = (address: Address, [base, bits]: [Address, number]): boolean =>
  address.kind() === base.kind() && address.match(base, bits);

/**
 * Why an address may not be called (a noun phrase: "a private address"), or undefined when it is
 * public unicast. IPv4-mapped and NAT64 (64:ff9b::/96) addresses are judged by the IPv4 address they
 * carry; other transition forms (6to4, Teredo, IPv4-translated) are refused outright.
 */
export const addressProblem = (address: Address): string | undefined => {
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const embedded = v6.toIPv4Address();
      const problem = addressProblem(embedded);
      return problem && `${problem} (IPv4-mapped ${embedded.toString()})`;
    }
    if (inRange(v6, ranges().nat64WellKnown)) {
      const [hi = 0, lo = 0] = v6.parts.slice(6);
      const embedded = new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
      const problem = addressProblem(embedded);
      return problem && `${problem} (NAT64 of ${embedded.toString()})`;
    }
  }
  const range = address.range();
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a non-unicast address (${range})`;
  const explicit = ranges().explicit.find((e) => inRange(address, e.range));
  if (explicit) return explicit.name;
  if (address.kind() === 'ipv6' && !inRange(address, ranges().globalUnicastV6))
    return 'not a global unicast address';
  return undefined;
};

/** Parses an address as a resolver or a URL gives it (brackets and IPv6 zone ids allowed). */
const parseAddress = (text: string): Address | undefined => {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
};

/** One allowlist entry: a host name (exact, or `*.` for subdomains) or an address range, with an optional port. */
export type AllowlistEntry =
  | { kind: 'host'; host: string; subdomains: boolean; port?: number; text: string }
  | { kind: 'range'; range: [Address, number]; port?: number; text: string };

/**
 * Parses PUSH_URL_ALLOWLIST: entries separated by commas or whitespace, each one of
 * `localhost`, `localhost:8080`, `*.dev.example.com`, `127.0.0.1`, `127.0.0.1:8080`, `::1`, `[::1]:8080`,
 * `10.0.0.0/8`, `fd00::/8`. Throws on an entry it cannot read (a configuration error).
 */
export const parseAllowlist = (text: string | undefined): AllowlistEntry[] =>
  (text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((raw): AllowlistEntry => {
      const entry = raw.toLowerCase();
      if (entry.includes('/')) {
        if (!ipaddr.isValidCIDR(entry)) throw new Error(`PUSH_URL_ALLOWLIST: not a CIDR range: ${raw}`);
        const [base, bits] = ipaddr.parseCIDR(entry);
        return { kind: 'range', range: [normalize(base), normalizeBits(base, bits)], text: raw };
      }
      if (ipaddr.IPv6.isValid(entry)) {
        const address = ipaddr.IPv6.parse(entry);
        return { kind: 'range', range: [normalize(address), fullBits(normalize(address))], text: raw };
      }
      const unreadable = new Error(`PUSH_URL_ALLOWLIST: not a host, host:port, address or CIDR: ${raw}`);
      const subdomains = entry.startsWith('*.');
      // The port is read here: the URL parser would drop a scheme's default one (example.com:80).
      const [, hostPart = '', portText] =
        /^(.*?)(?::(\d{1,5}))?$/.exec(subdomains ? entry.slice(2) : entry) ?? [];
      const port = portText === undefined ? undefined : Number(portText);
      if (port !== undefined && (port < 1 || port > 65535)) throw unreadable;
      let url: URL;
      try {
        url = new URL(`http://${hostPart}`);
      } catch {
        throw unreadable;
      }
      if (
        !hostPart ||
        url.username ||
        url.password ||
        url.port ||
        url.pathname !== '/' ||
        url.search ||
        url.hash
      ) {
        throw unreadable;
      }
      const address = subdomains ? undefined : parseAddress(url.hostname);
      if (address) {
        const normal = normalize(address);
        return { kind: 'range', range: [normal, fullBits(normal)], port, text: raw };
      }
      return { kind: 'host', host: stripDot(url.hostname), subdomains, port, text: raw };
    });

const normalize = (address: Address): Address =>
  address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
const normalizeBits = (base: Address, bits: number): number =>
  base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress() ? Math.max(0, bits - 96) : bits;
const fullBits = (address: Address): number => (address.kind() === 'ipv4' ? 32 : 128);
const stripDot = (host: string): string => (host.endsWith('.') ? host.slice(0, -1) : host);

export interface UrlPolicy {
  /** Destinations let through although the guard would refuse them (local development); default none. */
  allowlist?: readonly AllowlistEntry[];
  /** Accept plain http for any (still guarded) destination; default false: http only when allowlisted. */
  allowHttp?: boolean;
  /** Longest URL accepted, in characters; default 2048. */
  maxUrlLength?: number;
}

/** A URL that passed the check without DNS: what the sender needs to resolve and connect. */
export interface PushTarget {
  url: URL;
  /** The host to connect to: a name, or an address (IPv6 without brackets). */
  host: string;
  port: number;
  /** Set when the host is an address literal (then it is `host`): nothing to resolve. */
  address?: string;
  /** The host name matched an allowlist host entry: what it resolves to is trusted as well. */
  trustedName: boolean;
}

export type TargetVerdict = { ok: true; target: PushTarget } | { ok: false; reason: string };
export type ResolvedVerdict = { ok: true } | { ok: false; reason: string };

export class UrlGuard implements PushUrlGuard {
  private readonly allowlist: readonly AllowlistEntry[];
  private readonly allowHttp: boolean;
  private readonly maxUrlLength: number;

  constructor(policy: UrlPolicy = {}) {
    this.allowlist = policy.allowlist ?? [];
    this.allowHttp = policy.allowHttp ?? false;
    this.maxUrlLength = policy.maxUrlLength ?? MAX_URL_LENGTH;
  }

  check(url: string): UrlVerdict {
    const verdict = this.inspect(url);
    return verdict.ok ? { ok: true, url: verdict.target.url.href } : verdict;
  }

  /** The check without DNS; an accepted URL comes back parsed, as the sender connects to it. */
  inspect(input: string): TargetVerdict {
    const refuse = (reason: string): TargetVerdict => ({ ok: false, reason });
    if (typeof input !== 'string' || input.length === 0) return refuse('the URL is empty');
    if (input.length > this.maxUrlLength) {
      return refuse(`the URL is longer than ${this.maxUrlLength} characters`);
    }
    // The URL parser silently drops tabs and newlines and trims spaces; other parsers differ, so refuse them.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
    if (/[\s\u0000-\u001f\u007f]/.test(input)) {
      return refuse('the URL contains whitespace or control characters');
    }
    if (input.includes('\\')) return refuse('the URL contains a backslash');
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(input)?.[1]?.toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') {
      return refuse(scheme ? `scheme "${scheme}" is not allowed (use https)` : 'not an absolute URL');
    }
    if (!/^https?:\/\/[^/]/i.test(input)) return refuse('not an absolute URL (expected http(s)://host/…)');
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return refuse('not a valid URL');
    }
    if (url.href.length > this.maxUrlLength) {
      return refuse(`the URL is longer than ${this.maxUrlLength} characters`);
    }
    if (url.username || url.password) return refuse('URLs with a user name or password are not allowed');
    if (url.href.includes('#')) return refuse('URLs with a #fragment are not allowed');

    const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]!;
    const hostname = url.hostname;
    // The URL parser has already turned every IPv4 spelling (2130706433, 0x7f.1, 0177.0.0.1, 127.1)
    // into dotted decimal; anything else in brackets is IPv6. The rest is a name.
    const bracketed = hostname.startsWith('[');
    const literal =
      bracketed || ipaddr.IPv4.isValidFourPartDecimal(hostname) ? parseAddress(hostname) : undefined;
    const host = bracketed ? hostname.slice(1, -1) : hostname;
    const name = stripDot(hostname);

    if (!literal) {
      const syntax = nameSyntaxProblem(name);
      if (syntax) return refuse(syntax);
    }
    const trustedName = !literal && this.allowlist.some((e) => hostEntryMatches(e, name, port));
    const allowlisted =
      trustedName || (literal !== undefined && this.addressAllowlisted(normalize(literal), port));
    const target: PushTarget = { url, host, port, address: literal ? host : undefined, trustedName };
    if (allowlisted) return { ok: true, target };

    const problem = literal ? addressProblem(literal) : nameProblem(name);
    if (problem) return refuse(literal ? `host ${hostname} is ${problem}` : problem);
    if (BAD_PORTS.has(port)) return refuse(`port ${port} is not allowed`);
    if (url.protocol === 'http:' && !this.allowHttp) {
      return refuse('plain http is allowed only for allowlisted hosts; use https');
    }
    return { ok: true, target };
  }

  /** The send-time check on every address the target's name resolved to: all must be allowed. */
  checkResolved(target: PushTarget, addresses: readonly string[]): ResolvedVerdict {
    if (target.trustedName) return { ok: true };
    if (addresses.length === 0) return { ok: false, reason: `${target.host} resolves to no address` };
    for (const text of addresses) {
      const parsed = parseAddress(text);
      if (!parsed) return { ok: false, reason: `resolves to an address that cannot be read (${text})` };
      if (this.addressAllowlisted(normalize(parsed), target.port)) continue;
      const problem = addressProblem(parsed);
      if (problem) return { ok: false, reason: `resolves to ${problem} (${text})` };
    }
    return { ok: true };
  }

  private addressAllowlisted(address: Address, port: number): boolean {
    return this.allowlist.some(
      (e) => e.kind === 'range' && (e.port === undefined || e.port === port) && inRange(address, e.range),
    );
  }
}

const hostEntryMatches = (entry: AllowlistEntry, name: string, port: number): boolean =>
  entry.kind === 'host' &&
  (entry.port === undefined || entry.port === port) &&
  (entry.subdomains ? name.endsWith(`.${entry.host}`) : name === entry.host);

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A host the URL parser accepted but DNS cannot carry (empty labels, odd characters, too long). */
const nameSyntaxProblem = (name: string): string | undefined => {
  if (name.length === 0) return 'the URL has no host';
  if (name.length > MAX_HOST_LENGTH) return `the host name is longer than ${MAX_HOST_LENGTH} characters`;
  if (!name.split('.').every((label) => LABEL.test(label))) return `host "${name}" is not a valid DNS name`;
  return undefined;
};

const nameProblem = (name: string): string | undefined => {
  const suffix = LOCAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix) return `host "${name}" is a local or special-use name (.${suffix})`;
  if (!name.includes('.')) return `host "${name}" is a single-label name (not a public DNS name)`;
  return undefined;
};

/** The guard as configured by the environment: PUSH_URL_ALLOWLIST, PUSH_URL_ALLOW_HTTP=true. */
export const urlGuardFromEnv = (env?: Env): UrlGuard =>
  new UrlGuard({
    allowlist: parseAllowlist(readSetting(PUSH_URL_ALLOWLIST, env)),
    allowHttp: readSetting(PUSH_URL_ALLOW_HTTP, env),
  });
