/**
 * API keys for simple setups: `syn_<key id>_<secret>`, the secret 32 random bytes. Only the SHA-256 of
 * the secret is kept (a key is 256 random bits: no dictionary to slow down, so no slow hash is needed);
 * the id finds the record in one read, and the hash is compared in constant time. A revoked key is
 * refused from the next request on (docs/security.md#api-keys).
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../../ports/api-key-store.ts';

export const API_KEY_PREFIX = 'syn_';
const KEY_ID_LENGTH = 16;
const KEY_PATTERN = /^syn_([a-z2-7]{16})_([A-Za-z0-9_-]{43})$/;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

const hashOf = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** A new key: the value to hand out once, and the record to keep (which cannot rebuild it). */
export const newApiKey = (
  input: Pick<ApiKeyRecord, 'tenant' | 'principal' | 'rights' | 'description'>,
  now = new Date(),
): { key: string; record: ApiKeyRecord } => {
  const keyId = [...randomBytes(KEY_ID_LENGTH)].map((b) => BASE32[b % 32]).join('');
  const secret = randomBytes(32).toString('base64url');
  return {
    key: `${API_KEY_PREFIX}${keyId}_${secret}`,
    record: {
      keyId,
      secretHash: hashOf(secret),
      tenant: input.tenant,
      principal: input.principal,
      rights: input.rights,
      createdAt: now.toISOString(),
      ...(input.description ? { description: input.description } : {}),
    },
  };
};

/** Whether a credential is shaped as one of our API keys (else it is taken for a JWT). */
export const looksLikeApiKey = (credential: string): boolean => credential.startsWith(API_KEY_PREFIX);

/** The id of a key, for logs and the admin CLI; never the secret. */
export const keyIdOf = (credential: string): string | undefined => KEY_PATTERN.exec(credential)?.[1];

/** The principal of a valid, unrevoked key; AuthError('unauthenticated') otherwise, saying nothing of why. */
export const verifyApiKey = async (store: ApiKeyStore, credential: string): Promise<Principal> => {
  const match = KEY_PATTERN.exec(credential);
  if (!match) throw new AuthError('unauthenticated', 'The API key is malformed', 'invalid_token');
  const record = await store.getKey(match[1]!);
  const presented = Buffer.from(hashOf(match[2]!), 'hex');
  const kept = Buffer.from(record?.secretHash ?? '00'.repeat(32), 'hex');
  const same = kept.length === presented.length && timingSafeEqual(kept, presented);
  if (!record || !same || record.revokedAt)
    throw new AuthError('unauthenticated', 'The API key is not valid (unknown or revoked)', 'invalid_token');
  return { tenant: record.tenant, owner: record.principal, rights: record.rights, scheme: 'api-key' };
};
