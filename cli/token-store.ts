/**
 * The logins `synapse auth login` keeps (a2a-cli SPEC §10.2, §6.4): one JSON file per agent,
 * `<config dir>/tokens/<agent>.json`, mode 0600 in a 0700 directory, written whole (a temporary file
 * renamed over it). A file others can read is refused rather than used. The user may read, edit or remove
 * them; `auth logout` removes one.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { AgentCard } from '@a2a-js/sdk';
import { agentKeyOf } from './config.ts';
import { CliError } from './errors.ts';

export type Flow = 'device_code' | 'client_credentials';

export interface StoredLogin {
  /** The agent card reference the login was made for. */
  agent: string;
  flow: Flow;
  issuer?: string;
  tokenEndpoint: string;
  clientId: string;
  scope?: string;
  accessToken: string;
  tokenType: string;
  refreshToken?: string;
  /** Seconds since the epoch; absent when the issuer gave no lifetime. */
  expiresAt?: number;
  obtainedAt: number;
}

export const tokensDir = (configDir: string) => join(configDir, 'tokens');
export const tokenFile = (configDir: string, agentKey: string) =>
  join(tokensDir(configDir), `${agentKey}.json`);

export function readLogin(configDir: string, agentKey: string): StoredLogin | undefined {
  const path = tokenFile(configDir, agentKey);
  if (!existsSync(path)) return undefined;
  const mode = statSync(path).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    throw new CliError(
      'A2ACLI_ERR_CREDENTIALS_MISSING',
      `the login in ${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}): not used`,
      `chmod 600 ${path}, or log in again`,
    );
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StoredLogin;
  } catch (e) {
    throw new CliError(
      'A2ACLI_ERR_CREDENTIALS_MISSING',
      `cannot read the login in ${path}: ${(e as Error).message}`,
    );
  }
}

export function writeLogin(configDir: string, agentKey: string, login: StoredLogin): string {
  const dir = tokensDir(configDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = tokenFile(configDir, agentKey);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}

/** Removes the login; whether there was one. */
export function removeLogin(configDir: string, agentKey: string): boolean {
  const path = tokenFile(configDir, agentKey);
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}

/** Every stored login, by agent key. */
export function listLogins(configDir: string): { key: string; login: StoredLogin }[] {
  const dir = tokensDir(configDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => {
      const key = f.slice(0, -'.json'.length);
      const login = readLogin(configDir, key);
      return login ? [{ key, login }] : [];
    });
}

/** Seconds before expiry at which a stored token counts as expired (the clocks may differ). */
export const EXPIRY_SKEW_SECONDS = 30;

export const isExpired = (login: StoredLogin, now = Math.floor(Date.now() / 1000)) =>
  login.expiresAt !== undefined && login.expiresAt - EXPIRY_SKEW_SECONDS <= now;

/** The name a login is stored under: the agent scope's (cli/config.ts), or for a card file its first interface's host. */
export function loginKeyOf(ref: string, card?: AgentCard): string | undefined {
  const key = agentKeyOf(ref);
  if (key || !card) return key;
  const url = card.supportedInterfaces[0]?.url;
  return url ? agentKeyOf(url) : undefined;
}

/** Whether a login is stored for this agent (cheap: the OAuth code is loaded only when one is). */
export const hasLogin = (configDir: string, ref: string, card?: AgentCard): boolean => {
  const key = loginKeyOf(ref, card);
  return key !== undefined && existsSync(tokenFile(configDir, key));
};
