/**
 * The registry's trust allowlist (docs/registry.md#trust): which keys may sign the cards of which
 * publisher domain. A card's signature counts only when a key of its publisher domain's entry verifies
 * it; the keys are listed here or at a JWKS URL listed here, never at a URL the card names.
 */

/** The keys of one domain: fetched from a JWKS URL the operator chose, or listed inline. */
export type TrustEntry = { jwksUrl: string } | { keys: TrustedJwk[] };

/** A public JWK as a JWKS lists it (RFC 7517). */
export interface TrustedJwk {
  kty: string;
  kid: string;
  alg?: string;
  use?: string;
  [member: string]: unknown;
}

export interface TrustAllowlist {
  /** Exact hosts, lower case: `agents.example.com`. */
  exact: ReadonlyMap<string, TrustEntry>;
  /** `*.example.com` entries by their suffix (`example.com`), longest first. */
  wildcards: readonly { suffix: string; pattern: string; entry: TrustEntry }[];
}

export const EMPTY_TRUST_ALLOWLIST: TrustAllowlist = { exact: new Map(), wildcards: [] };

/** A host name (or IPv4 address): dot-separated labels of letters, digits and hyphens. */
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Hosts a JWKS may be fetched from over plain http: the machine itself (the local hub, tests). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** JWK members that are private key material (RFC 7518 §6): an allowlist lists public keys only. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * The allowlist of the JSON `{ "<domain>": { "jwksUrl": "https://…" } | { "keys": [<public JWK>…] } }`;
 * a domain is a host (`agents.example.com`) or `*.` and a domain of two labels or more (`*.example.com`:
 * every host below it, at any depth, not the domain itself). Errors name `source` (the variable), the
 * domain and the member.
 */
export function parseTrustAllowlist(json: unknown, source: string): TrustAllowlist {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new Error(`${source} must be a JSON object of domains, got ${kindOf(json)}`);
  const exact = new Map<string, TrustEntry>();
  const wildcards: { suffix: string; pattern: string; entry: TrustEntry }[] = [];
  for (const [rawDomain, rawEntry] of Object.entries(json)) {
    const domain = rawDomain.trim().toLowerCase();
    const where = `${source}: ${JSON.stringify(rawDomain)}`;
    const entry = entryOf(rawEntry, where);
    if (domain.startsWith('*.')) {
      const suffix = domain.slice(2);
      if (!HOST.test(suffix) || !suffix.includes('.'))
        throw new Error(
          `${where} is not a domain: \`*.\` must be followed by a domain of two labels or more`,
        );
      if (wildcards.some((w) => w.suffix === suffix)) throw new Error(`${where} is listed twice`);
      wildcards.push({ suffix, pattern: domain, entry });
    } else {
      if (!HOST.test(domain)) throw new Error(`${where} is not a host name (or \`*.\` and a domain)`);
      if (exact.has(domain)) throw new Error(`${where} is listed twice`);
      exact.set(domain, entry);
    }
  }
  wildcards.sort((a, b) => b.suffix.length - a.suffix.length);
  return { exact, wildcards };
}

function entryOf(raw: unknown, where: string): TrustEntry {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error(`${where} must be an object with \`jwksUrl\` or \`keys\`, got ${kindOf(raw)}`);
  const { jwksUrl, keys, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw new Error(`${where} has unknown member ${unknown.map((k) => `\`${k}\``).join(', ')}`);
  if ((jwksUrl === undefined) === (keys === undefined))
    throw new Error(`${where} must have exactly one of \`jwksUrl\` and \`keys\``);
  if (jwksUrl !== undefined) return { jwksUrl: jwksUrlOf(jwksUrl, `${where}.jwksUrl`) };
  if (!Array.isArray(keys) || keys.length === 0)
    throw new Error(`${where}.keys must be a non-empty array of public JWKs`);
  return { keys: keys.map((k, i) => publicJwkOf(k, `${where}.keys[${i}]`)) };
}

function jwksUrlOf(value: unknown, where: string): string {
  if (typeof value !== 'string' || !URL.canParse(value)) throw new Error(`${where} must be an absolute URL`);
  const url = new URL(value);
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp)
    throw new Error(`${where} must be an https URL (http only for localhost), got ${url.protocol}`);
  if (url.username || url.password) throw new Error(`${where} must not hold credentials`);
  return url.href;
}

function publicJwkOf(value: unknown, where: string): TrustedJwk {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${where} must be a JWK object`);
  const jwk = value as Record<string, unknown>;
  if (typeof jwk.kty !== 'string' || jwk.kty === '') throw new Error(`${where}.kty must be a key type`);
  if (typeof jwk.kid !== 'string' || jwk.kid === '')
    throw new Error(`${where}.kid must be set: signatures name their key by kid`);
  const secret = PRIVATE_MEMBERS.filter((m) => m in jwk);
  if (secret.length)
    throw new Error(`${where} holds private key material (${secret.join(', ')}): list public keys only`);
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new Error(`${where}.use must be "sig" when set`);
  return jwk as TrustedJwk;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/** The entry that covers `host`: its exact entry, else the wildcard of the longest suffix. */
export function trustEntryFor(
  allowlist: TrustAllowlist,
  host: string,
): { domain: string; entry: TrustEntry } | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  const exact = allowlist.exact.get(h);
  if (exact) return { domain: h, entry: exact };
  const wildcard = allowlist.wildcards.find((w) => h.endsWith(`.${w.suffix}`));
  return wildcard ? { domain: wildcard.pattern, entry: wildcard.entry } : undefined;
}

/**
 * The host whose allowlist entry judges a card: the host of the URL it was fetched from (TLS proved
 * that host served it), else — a card published inline — the host of its first (preferred) interface,
 * where clients will send their requests. Undefined when neither gives a host.
 */
export function publisherHostOf(card: object, publisherUrl?: string): string | undefined {
  if (publisherUrl) return hostOf(publisherUrl);
  const interfaces = (card as { supportedInterfaces?: unknown }).supportedInterfaces;
  const first = Array.isArray(interfaces) ? (interfaces[0] as { url?: unknown } | undefined) : undefined;
  return typeof first?.url === 'string' ? hostOf(first.url) : undefined;
}

/** A URL's host; a gRPC interface's `host:port` is read as one too. */
function hostOf(value: string): string | undefined {
  const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  if (!URL.canParse(candidate)) return undefined;
  return new URL(candidate).hostname.toLowerCase() || undefined;
}

/**
 * The allowlist with the hub's own host trusted by the JWKS the hub serves (`jwksUrl`), unless the
 * operator's allowlist names that host already: the registry trusts the hub it is part of, so the card
 * the hub signs and publishes to itself shows `verified` (docs/registry.md#trust).
 */
export function withOwnHost(allowlist: TrustAllowlist, publicUrl: string, jwksUrl: string): TrustAllowlist {
  const host = hostOf(publicUrl);
  if (!host || allowlist.exact.has(host)) return allowlist;
  return { ...allowlist, exact: new Map([...allowlist.exact, [host, { jwksUrl }]]) };
}
