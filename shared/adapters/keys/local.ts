/**
 * Key sets that live outside AWS: a fixed set (PUSH_SIGNING_KEYS, tests) and
 * the local hub's own, generated at start and, with a data directory, kept in
 * `<dataDir>/push-signing-keys.json` (mode 0600) so a restart publishes the
 * same keys.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SigningKeySet } from '../../domain/push-signing.ts';
import type { SigningKeys } from '../../ports/signing-keys.ts';
import { LOCAL_KEYS_FILE } from './env.ts';
import { generateSigningKey, parseKeySet, serializeKeySet } from './key-set.ts';

/** A SigningKeys that always answers `set`. */
export const staticKeys = (set: SigningKeySet): SigningKeys => ({ load: async () => set });

export interface LocalKeySet {
  set: SigningKeySet;
  /** The set as JSON (what PUSH_SIGNING_KEYS carries to the handlers). */
  text: string;
  /** Where it is kept (with a data directory). */
  file?: string;
  /** False when it was read from the file of an earlier run. */
  generated: boolean;
}

/**
 * The local hub's key set: the one in `dataDir` when there is one, else a new ES256 key (written
 * there when `dataDir` is given). A file that does not parse is an error, never overwritten.
 */
export const localKeySet = async (options: { dataDir?: string; alg?: string } = {}): Promise<LocalKeySet> => {
  const file = options.dataDir ? join(options.dataDir, LOCAL_KEYS_FILE) : undefined;
  if (file && existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    return { set: await parseKeySet(text, file), text, file, generated: false };
  }
  const set: SigningKeySet = { keys: [await generateSigningKey(options.alg ? { alg: options.alg } : {})] };
  const text = serializeKeySet(set);
  if (file) {
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, `${text}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
    return { set, text, file, generated: true };
  }
  return { set, text, generated: true };
};
