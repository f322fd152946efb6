/**
 * Agent card signatures (A2A v1.0 §8.4, docs/registry.md#trust): a JWS (RFC 7515) over the card's
 * canonical form, kept in the card's `signatures` with its payload detached.
 *
 * The canonical form (§8.4.1): the card without `signatures`, its fields as proto field presence has
 * them (a2a.proto `AgentCard` and the messages it holds), serialized with JCS (RFC 8785). The key that
 * verifies a signature always comes from the caller (`keyFor`): a `jku`, `x5u`, `x5c` or `jwk` the
 * signer names is never followed nor trusted, since whoever rewrote a card can name their own key.
 */
import canonicalize from 'canonicalize';
import {
  base64url,
  type CryptoKey,
  decodeProtectedHeader,
  FlattenedSign,
  flattenedVerify,
  importJWK,
  type JWK,
  type KeyObject,
  type ProtectedHeaderParameters,
} from 'jose';
import type { CardVerification } from '../../domain/registry/record.ts';

/** One entry of a card's `signatures` (a2a.proto `AgentCardSignature`). */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** Asymmetric algorithms only: a card is verified by anyone, so no shared secret (HS*) and never `none`. */
export const CARD_SIGNATURE_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
  'Ed25519',
] as const;

/** Header members that name a key or where to fetch one: never honoured (the module comment). */
export const UNHONOURED_KEY_HEADERS = ['jku', 'x5u', 'x5c', 'jwk'] as const;

/**
 * How a field of a proto message is written in the canonical form (§8.4.1 and a2a.proto):
 * - `required`: always kept, even `""` or `[]` (field_behavior REQUIRED);
 * - `optional`: kept when present, even at its default (proto3 `optional`: explicit presence);
 * - `scalar`: implicit presence: left out at its default (`""`, `false`, `0`);
 * - `repeated` / `map`: left out when empty;
 * - a message name: a message field, kept when present (messages have presence), its own fields by
 *   its own rules; `struct`: a google.protobuf.Struct, kept as it is (its members are data, not fields).
 * Inside `repeated`/`map`/`required`, `of` names the element's message, when it is one.
 */
type FieldRule =
  | { kind: 'required'; of?: MessageName }
  | { kind: 'optional' }
  | { kind: 'scalar' }
  | { kind: 'repeated'; of?: MessageName }
  | { kind: 'map'; of?: MessageName }
  | { kind: 'message'; of: MessageName }
  | { kind: 'struct' };

type MessageName =
  | 'AgentCard'
  | 'AgentInterface'
  | 'AgentProvider'
  | 'AgentCapabilities'
  | 'AgentExtension'
  | 'AgentSkill'
  | 'SecurityRequirement'
  | 'StringList'
  | 'SecurityScheme'
  | 'APIKeySecurityScheme'
  | 'HTTPAuthSecurityScheme'
  | 'OAuth2SecurityScheme'
  | 'OpenIdConnectSecurityScheme'
  | 'MutualTlsSecurityScheme'
  | 'OAuthFlows'
  | 'AuthorizationCodeOAuthFlow'
  | 'ClientCredentialsOAuthFlow'
  | 'ImplicitOAuthFlow'
  | 'PasswordOAuthFlow'
  | 'DeviceCodeOAuthFlow';

const R = { kind: 'required' } as const;
const O = { kind: 'optional' } as const;
const S = { kind: 'scalar' } as const;
const REPEATED = { kind: 'repeated' } as const;
const message = (of: MessageName) => ({ kind: 'message', of }) as const;

/** a2a.proto (v1.0), by ProtoJSON (lowerCamelCase) field name. */
const MESSAGES: Record<MessageName, Record<string, FieldRule>> = {
  AgentCard: {
    name: R,
    description: R,
    supportedInterfaces: { kind: 'required', of: 'AgentInterface' },
    provider: message('AgentProvider'),
    version: R,
    documentationUrl: O,
    capabilities: { kind: 'required', of: 'AgentCapabilities' },
    securitySchemes: { kind: 'map', of: 'SecurityScheme' },
    securityRequirements: { kind: 'repeated', of: 'SecurityRequirement' },
    defaultInputModes: R,
    defaultOutputModes: R,
    skills: { kind: 'required', of: 'AgentSkill' },
    iconUrl: O,
  },
  AgentInterface: { url: R, protocolBinding: R, tenant: S, protocolVersion: R },
  AgentProvider: { url: R, organization: R },
  AgentCapabilities: {
    streaming: O,
    pushNotifications: O,
    extensions: { kind: 'repeated', of: 'AgentExtension' },
    extendedAgentCard: O,
    skillQuery: O,
  },
  AgentExtension: { uri: S, description: S, required: S, params: { kind: 'struct' } },
  AgentSkill: {
    id: R,
    name: R,
    description: R,
    tags: R,
    examples: REPEATED,
    inputModes: REPEATED,
    outputModes: REPEATED,
    securityRequirements: { kind: 'repeated', of: 'SecurityRequirement' },
  },
  SecurityRequirement: { schemes: { kind: 'map', of: 'StringList' } },
  StringList: { list: REPEATED },
  SecurityScheme: {
    apiKeySecurityScheme: message('APIKeySecurityScheme'),
    httpAuthSecurityScheme: message('HTTPAuthSecurityScheme'),
    oauth2SecurityScheme: message('OAuth2SecurityScheme'),
    openIdConnectSecurityScheme: message('OpenIdConnectSecurityScheme'),
    mtlsSecurityScheme: message('MutualTlsSecurityScheme'),
  },
  APIKeySecurityScheme: { description: S, location: R, name: R },
  HTTPAuthSecurityScheme: { description: S, scheme: R, bearerFormat: S },
  OAuth2SecurityScheme: {
    description: S,
    flows: { kind: 'required', of: 'OAuthFlows' },
    oauth2MetadataUrl: S,
  },
  OpenIdConnectSecurityScheme: { description: S, openIdConnectUrl: R },
  MutualTlsSecurityScheme: { description: S },
  OAuthFlows: {
    authorizationCode: message('AuthorizationCodeOAuthFlow'),
    clientCredentials: message('ClientCredentialsOAuthFlow'),
    implicit: message('ImplicitOAuthFlow'),
    password: message('PasswordOAuthFlow'),
    deviceCode: message('DeviceCodeOAuthFlow'),
  },
  AuthorizationCodeOAuthFlow: { authorizationUrl: R, tokenUrl: R, refreshUrl: S, scopes: R, pkceRequired: S },
  ClientCredentialsOAuthFlow: { tokenUrl: R, refreshUrl: S, scopes: R },
  ImplicitOAuthFlow: { authorizationUrl: S, refreshUrl: S, scopes: { kind: 'map' } },
  PasswordOAuthFlow: { tokenUrl: S, refreshUrl: S, scopes: { kind: 'map' } },
  DeviceCodeOAuthFlow: { deviceAuthorizationUrl: R, tokenUrl: R, refreshUrl: S, scopes: R },
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** ProtoJSON parsers accept the proto (snake_case) names too: a field is found by either. */
const camelOf = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const isDefault = (v: unknown): boolean =>
  v === null || v === '' || v === false || v === 0 || (Array.isArray(v) && v.length === 0);

/** A message's JSON by its presence rules; a member the schema does not know is kept as it is (it is signed). */
function presenceOf(json: Record<string, unknown>, name: MessageName): Record<string, unknown> {
  const rules = MESSAGES[name];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (value === undefined) continue;
    const field = camelOf(key);
    const rule = Object.hasOwn(rules, field) ? rules[field] : undefined;
    if (!rule) {
      out[key] = value;
      continue;
    }
    // ProtoJSON: null is the field's default, i.e. unset
    if (value === null) continue;
    switch (rule.kind) {
      case 'required':
        out[field] = elementsOf(value, rule.of);
        break;
      case 'optional':
      case 'struct':
        out[field] = value;
        break;
      case 'scalar':
        if (!isDefault(value)) out[field] = value;
        break;
      case 'repeated':
        if (!(Array.isArray(value) && value.length === 0)) out[field] = elementsOf(value, rule.of);
        break;
      case 'map':
        if (!(isObject(value) && Object.keys(value).length === 0)) out[field] = elementsOf(value, rule.of);
        break;
      case 'message':
        out[field] = isObject(value) ? presenceOf(value, rule.of) : value;
        break;
    }
  }
  return out;
}

/** A field's value with each message in it (itself, an array's elements, a map's values) by its rules. */
function elementsOf(value: unknown, of: MessageName | undefined): unknown {
  if (!of) return value;
  if (Array.isArray(value)) return value.map((v) => (isObject(v) ? presenceOf(v, of) : v));
  if (!isObject(value)) return value;
  // a map (securitySchemes, schemes) holds messages as values; a required message field is one itself
  const isMapOf = of === 'SecurityScheme' || of === 'StringList';
  if (isMapOf)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, isObject(v) ? presenceOf(v, of) : v]),
    );
  return presenceOf(value, of);
}

/** The card as it is signed, before JCS: without `signatures`, its fields by proto presence (§8.4.1). */
export function cardSigningContent(card: object): Record<string, unknown> {
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  return presenceOf(rest, 'AgentCard');
}

/** The JWS payload of a card's signatures (A2A v1.0 §8.4.1): the card's signing content in JCS (RFC 8785). */
export function canonicalCardPayload(card: object): string {
  const text = canonicalize(cardSigningContent(card));
  if (text === undefined) throw new Error('the card cannot be canonicalized');
  return text;
}

/**
 * The payload the official SDKs sign (a2a-js `canonicalizeAgentCard`, a2a-python `clean_empty`): every
 * empty string, array, object and null left out at every depth, required fields included. It differs
 * from §8.4.1 where a card holds an empty value (`skills: []`, an API-key requirement's `list: []`), so
 * a verifier that only knew §8.4.1 would refuse what those SDKs signed. Verification accepts either;
 * the hub signs §8.4.1's form.
 */
export function sdkCardPayload(card: object): string {
  const { signatures: _signatures, ...rest } = card as Record<string, unknown>;
  const text = canonicalize(withoutEmpty(rest) ?? {});
  if (text === undefined) throw new Error('the card cannot be canonicalized');
  return text;
}

function withoutEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const kept = value.map(withoutEmpty).filter((v) => v !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (isObject(value)) {
    const kept = Object.entries(value)
      .map(([k, v]) => [k, withoutEmpty(v)] as const)
      .filter(([, v]) => v !== undefined);
    return kept.length > 0 ? Object.fromEntries(kept) : undefined;
  }
  return value;
}

/** A private key: a JWK (with `d`) or a key jose imported. */
export type CardSigningKey = JWK | CryptoKey | KeyObject | Uint8Array;

export interface SignCardOptions {
  key: CardSigningKey;
  kid: string;
  alg: (typeof CARD_SIGNATURE_ALGORITHMS)[number];
  /** Where the signer's JWKS is (a hint only: this module's verifier never follows it). */
  jku?: string;
}

/** The card with one more signature (§8.4.2): protected header `alg`, `typ: JOSE`, `kid` (and `jku`). */
export async function signCard<C extends object>(
  card: C,
  options: SignCardOptions,
): Promise<C & { signatures: AgentCardSignature[] }> {
  if (!options.kid) throw new Error('a card signature needs the key id (kid)');
  if (!CARD_SIGNATURE_ALGORITHMS.includes(options.alg))
    throw new Error(`a card signature needs an asymmetric algorithm, got alg ${JSON.stringify(options.alg)}`);
  const key = isJwk(options.key) ? await importJWK(options.key, options.alg) : options.key;
  const jws = await new FlattenedSign(new TextEncoder().encode(canonicalCardPayload(card)))
    .setProtectedHeader({
      alg: options.alg,
      typ: 'JOSE',
      kid: options.kid,
      ...(options.jku ? { jku: options.jku } : {}),
    })
    .sign(key);
  // a protected header was set: jose always answers it
  const signature: AgentCardSignature = { protected: jws.protected as string, signature: jws.signature };
  const existing = (card as { signatures?: AgentCardSignature[] }).signatures ?? [];
  return { ...card, signatures: [...existing, signature] };
}

const isJwk = (key: CardSigningKey): key is JWK =>
  !(key instanceof Uint8Array) && typeof (key as JWK).kty === 'string';

/** The header a key is looked up by: the protected header, with the unprotected one's members beside it. */
export type CardSignatureHeader = ProtectedHeaderParameters & { kid: string; alg: string };

/** A key that verifies, and the trust it comes from (an allowlist entry: CardVerification.trustedBy). */
export interface TrustedCardKey {
  key: JWK | CryptoKey | KeyObject;
  trustedBy: string;
}

/**
 * Whether one of the card's signatures verifies with the key `keyFor` gives for its header. `keyFor`
 * answers undefined for a key it does not trust; it is the only source of keys (the module comment).
 */
export async function verifyCardSignatures(
  card: object,
  keyFor: (header: CardSignatureHeader) => Promise<TrustedCardKey | undefined>,
): Promise<CardVerification> {
  const signatures = (card as { signatures?: unknown }).signatures;
  if (signatures === undefined || (Array.isArray(signatures) && signatures.length === 0))
    return { status: 'unsigned' };
  if (!Array.isArray(signatures)) return { status: 'unverified', reason: '`signatures` is not an array' };
  const payloads = [...new Set([canonicalCardPayload(card), sdkCardPayload(card)])].map((p) =>
    base64url.encode(new TextEncoder().encode(p)),
  );
  const reasons: string[] = [];
  for (const [index, entry] of signatures.entries()) {
    const outcome = await verifyOne(entry, payloads, keyFor);
    if (outcome.ok) return { status: 'verified', kid: outcome.kid, trustedBy: outcome.trustedBy };
    reasons.push(`signature ${index + 1}: ${outcome.reason}`);
  }
  return { status: 'unverified', reason: reasons.join('; ') };
}

type Outcome = { ok: true; kid: string; trustedBy: string } | { ok: false; reason: string };

async function verifyOne(
  entry: unknown,
  payloads: string[],
  keyFor: (header: CardSignatureHeader) => Promise<TrustedCardKey | undefined>,
): Promise<Outcome> {
  if (!isObject(entry) || typeof entry.protected !== 'string' || typeof entry.signature !== 'string')
    return { ok: false, reason: 'not a JWS (`protected` and `signature` must be strings)' };
  if (entry.header !== undefined && !isObject(entry.header))
    return { ok: false, reason: '`header` is not an object' };
  let protectedHeader: ProtectedHeaderParameters;
  try {
    protectedHeader = decodeProtectedHeader({ protected: entry.protected });
  } catch {
    return { ok: false, reason: '`protected` is not a base64url JSON header' };
  }
  const unprotected = (entry.header ?? {}) as Record<string, unknown>;
  const header = { ...unprotected, ...protectedHeader } as ProtectedHeaderParameters;
  const { alg, kid } = header;
  if (typeof alg !== 'string') return { ok: false, reason: 'the protected header has no `alg`' };
  if (typeof kid !== 'string' || kid === '') return { ok: false, reason: 'the header has no `kid`' };
  if (!(CARD_SIGNATURE_ALGORITHMS as readonly string[]).includes(alg))
    return { ok: false, reason: `kid ${kid}: alg ${alg} is not accepted (asymmetric algorithms only)` };
  const named = UNHONOURED_KEY_HEADERS.filter((h) => h in header);
  const notFollowed = named.length
    ? ` (the signer's ${named.map((h) => `\`${h}\``).join(', ')} is not honoured: keys come from the trust allowlist alone)`
    : '';
  const trusted = await keyFor({ ...header, alg, kid });
  if (!trusted) return { ok: false, reason: `no trusted key has kid ${kid}${notFollowed}` };
  let key: CryptoKey | KeyObject | Uint8Array;
  try {
    key = isJwk(trusted.key) ? await importJWK(publicPartOf(trusted.key), alg) : trusted.key;
  } catch (e) {
    return { ok: false, reason: `kid ${kid}: the trusted key does not fit alg ${alg} (${messageOf(e)})` };
  }
  for (const payload of payloads) {
    try {
      await flattenedVerify(
        {
          payload,
          protected: entry.protected,
          signature: entry.signature,
          ...(entry.header ? { header: entry.header as Record<string, unknown> } : {}),
        },
        key,
        { algorithms: [alg] },
      );
      return { ok: true, kid, trustedBy: trusted.trustedBy };
    } catch (e) {
      if ((e as { code?: string }).code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED')
        return { ok: false, reason: `kid ${kid}: ${messageOf(e)}` };
    }
  }
  return { ok: false, reason: `kid ${kid}: the signature does not match the card (altered, or another key)` };
}

/** A verifier never needs a private part: a trusted JWK given with one is used by its public part. */
const publicPartOf = (jwk: JWK): JWK => {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, k: _k, ...pub } = jwk;
  return pub;
};

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
