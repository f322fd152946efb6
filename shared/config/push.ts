/**
 * Push notifications' URLs and signatures: the SSRF guard's exceptions (docs/ssrf.md) and the keys
 * the push JWT is signed with (docs/push-signing.md).
 */
import { SIGNING_KEYS_ENV, SIGNING_SECRET_ENV } from '../adapters/keys/env.ts';
import { oneOf, type Setting, text } from './settings.ts';

export const PUSH_URL_ALLOWLIST = {
  name: 'PUSH_URL_ALLOWLIST',
  doc: 'Hosts, host:port, addresses or CIDR ranges a push URL may reach although the SSRF guard would refuse them (docs/ssrf.md).',
  format: () => text('entries separated by commas or spaces (checked by shared/adapters/http/url-guard.ts)'),
  defaultText: 'none: public addresses only',
  readBy: ['deliver', 'jsonrpc', 'registry', 'registry-probe', 'rest', 'synapse'],
} satisfies Setting<string>;

export const PUSH_URL_ALLOW_HTTP = {
  name: 'PUSH_URL_ALLOW_HTTP',
  doc: 'Lets push URLs be plain http.',
  format: () => oneOf({ true: true, false: false }),
  default: false,
  readBy: ['deliver', 'jsonrpc', 'registry', 'registry-probe', 'rest', 'synapse'],
} satisfies Setting<boolean>;

export const PUSH_SIGNING_KEYS = {
  name: SIGNING_KEYS_ENV,
  doc: 'The JWK set (private keys, newest first) push JWTs are signed with; wins over PUSH_SIGNING_SECRET_ARN.',
  format: () => text('a JWK set as JSON (checked when first used)'),
  secret: true,
  defaultText: 'unset (`npm start` generates one)',
  readBy: ['agent-card', 'deliver', 'jwks', 'npm start'],
} satisfies Setting<string>;

export const PUSH_SIGNING_SECRET_ARN = {
  name: SIGNING_SECRET_ENV,
  doc: 'The Secrets Manager secret holding that JWK set, rotated by the stack; re-read every few minutes.',
  format: () => text('a secret ARN or name'),
  defaultText: 'unset',
  readBy: ['agent-card', 'deliver', 'jwks', 'npm start'],
} satisfies Setting<string>;
