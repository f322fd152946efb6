/**
 * Signing key sets as JSON (the secret's value, PUSH_SIGNING_KEYS, the local
 * keys file): parse and check them, generate a key with jose, derive the
 * public JWKS.
 *
 * Errors never quote the input: it holds private keys.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  DEFAULT_SIGNING_ALG,
  type PublicJwk,
  type PublicJwks,
  type SigningJwk,
  type SigningKeySet,
  SigningKeysUnavailableError,
} from '../../domain/push-signing.ts';

/** The signature algorithms a key set may use, with the key type each needs. */
const ALG_KEY_TYPES: Readonly<Record<string, string>> = {
  ES256: 'EC',
  ES384: 'EC',
  ES512: 'EC',
  EdDSA: 'OKP',
  Ed25519: 'OKP',
  RS256: 'RSA',
  RS384: 'RSA',
  RS512: 'RSA',
  PS256: 'RSA',
  PS384: 'RSA',
  PS512: 'RSA',
};

/** The members of a public key, by key type (everything else, the private part above all, stays out). */
const PUBLIC_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'x', 'y'],
  OKP: ['crv', 'x'],
  RSA: ['n', 'e'],
};

export class InvalidKeySetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidKeySetError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A key set from its JSON text. `source` names where it came from in error messages. An empty set
 * (`{"keys":[]}`, the secret before its first rotation) is SigningKeysUnavailableError; anything
 * malformed is InvalidKeySetError. Keys without a `kid` get their RFC 7638 thumbprint.
 */
export const parseKeySet = async (text: string, source: string): Promise<SigningKeySet> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text
    throw new InvalidKeySetError(`${source} is not valid JSON`);
  }
  return checkKeySet(json, source);
};

export const checkKeySet = async (json: unknown, source: string): Promise<SigningKeySet> => {
  if (!isRecord(json) || !Array.isArray(json.keys)) {
    throw new InvalidKeySetError(`${source} is not a JWK set ({"keys": [...]})`);
  }
  if (json.keys.length === 0) throw new SigningKeysUnavailableError(`${source} holds no keys yet`);
  const keys: SigningJwk[] = [];
  for (const [i, raw] of json.keys.entries()) {
    const where = `${source}: key ${i}`;
    if (!isRecord(raw)) throw new InvalidKeySetError(`${where} is not a JWK object`);
    const { kty, alg } = raw;
    if (typeof alg !== 'string' || !ALG_KEY_TYPES[alg]) {
      throw new InvalidKeySetError(`${where}: alg must be one of ${Object.keys(ALG_KEY_TYPES).join(', ')}`);
    }
    if (kty !== ALG_KEY_TYPES[alg])
      throw new InvalidKeySetError(`${where}: alg ${alg} needs kty ${ALG_KEY_TYPES[alg]}`);
    for (const member of PUBLIC_MEMBERS[kty] ?? []) {
      if (typeof raw[member] !== 'string') throw new InvalidKeySetError(`${where}: missing ${member}`);
    }
    if (raw.d !== undefined && typeof raw.d !== 'string')
      throw new InvalidKeySetError(`${where}: d must be a string`);
    if (raw.use !== undefined && raw.use !== 'sig')
      throw new InvalidKeySetError(`${where}: use must be "sig"`);
    if (raw.active_from !== undefined && !Number.isFinite(raw.active_from)) {
      throw new InvalidKeySetError(`${where}: active_from must be epoch seconds`);
    }
    const kid =
      typeof raw.kid === 'string' && raw.kid ? raw.kid : await calculateJwkThumbprint(publicPart(raw));
    if (keys.some((k) => k.kid === kid)) throw new InvalidKeySetError(`${where}: duplicate kid ${kid}`);
    keys.push({ ...raw, kty, alg, kid } as SigningJwk);
  }
  return { keys };
};

const publicPart = (key: Record<string, unknown>): JWK => {
  const kty = String(key.kty);
  const out: Record<string, unknown> = { kty };
  for (const member of PUBLIC_MEMBERS[kty] ?? []) out[member] = key[member];
  return out as JWK;
};

/** The public JWK of a set's key: key type, public members, kid, alg, `use: "sig"`. */
export const publicJwkOf = (key: SigningJwk): PublicJwk =>
  ({ ...publicPart(key), kid: key.kid, alg: key.alg, use: 'sig' }) as PublicJwk;

/** The JWKS of a set: every key's public part, newest first. */
export const publicJwksOf = (set: SigningKeySet): PublicJwks => ({ keys: set.keys.map(publicJwkOf) });

export interface GenerateKeyOptions {
  alg?: string;
  /** Epoch seconds from which the key may sign (see activationOf); absent: at once. */
  activeFrom?: number;
}

/** A new private signing key (ES256 by default), its kid the RFC 7638 thumbprint. */
export const generateSigningKey = async (options: GenerateKeyOptions = {}): Promise<SigningJwk> => {
  const alg = options.alg ?? DEFAULT_SIGNING_ALG;
  if (!ALG_KEY_TYPES[alg]) throw new InvalidKeySetError(`cannot generate a key for alg ${alg}`);
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicPart(jwk as Record<string, unknown>));
  return {
    ...(jwk as Record<string, unknown>),
    kty: String(jwk.kty),
    kid,
    alg,
    use: 'sig',
    ...(options.activeFrom !== undefined ? { active_from: options.activeFrom } : {}),
  };
};

/** The JSON text of a set (what is stored). */
export const serializeKeySet = (set: SigningKeySet): string => JSON.stringify({ keys: set.keys });
