/**
 * The registry's trust allowlist (docs/registry.md#trust): the keys that may sign the agent cards of
 * each publisher domain. A card no entry covers is never `verified`, however it is signed.
 */
import { EMPTY_TRUST_ALLOWLIST, parseTrustAllowlist, type TrustAllowlist } from '../domain/registry/trust.ts';
import type { Format, Setting } from './settings.ts';

const trustAllowlist = (): Format<TrustAllowlist> => ({
  text: 'a JSON object: { "<domain or *.domain>": { "jwksUrl": "https://…" } or { "keys": [<public JWK>, …] } }',
  parse: (text, name) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: the caller names the variable and the format
      return undefined;
    }
    return parseTrustAllowlist(json, name);
  },
});

export const REGISTRY_TRUSTED_KEYS = {
  name: 'REGISTRY_TRUSTED_KEYS',
  doc: 'The keys trusted to sign published agent cards, per publisher domain: a JWKS URL the registry fetches (never one a card names) or public JWKs inline.',
  format: trustAllowlist,
  default: EMPTY_TRUST_ALLOWLIST,
  defaultText: 'none: signed cards are `unverified`, unsigned ones `unsigned`',
  readBy: ['registry', 'registry-probe'],
} satisfies Setting<TrustAllowlist>;
