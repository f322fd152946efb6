/**
 * Bearer JWTs of one OIDC issuer, verified with jose against the issuer's JWKS (fetched once, then
 * refreshed by jose when a token names an unknown key). Refused: a bad signature, `alg: none` or any
 * algorithm not listed, another issuer or audience, an expired or not-yet-valid token, a token with no
 * `exp` or `sub`, one issued (`iat`) in the future, and one issued longer ago than the token age (24 h by
 * default; a leaked long-lived token stops working then whatever its `exp` says). Every time check
 * allows the same clock tolerance (5 s by default). The tenant comes from a claim (AUTH_JWT_TENANT_CLAIM, default `tenant`) or the
 * configured default; the rights from the `scope`/`scp` claim (`tasks:read`, `tasks:write`), or the
 * configured default when it names neither.
 */
import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { AuthError } from '../../domain/errors.ts';
import { DEFAULT_RIGHTS, type Principal, type Right } from '../../domain/principal.ts';
import type { TokenVerifier } from '../../ports/token-verifier.ts';

export interface JwtVerifierConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Default RS256, ES256, PS256, EdDSA. */
  algorithms?: string[];
  tenantClaim?: string;
  defaultTenant?: string;
  /** The rights of a token whose scopes name none of ours; default read and write. */
  defaultRights?: readonly Right[];
  /** How far the issuer's clock may be from ours for `exp`, `nbf` and `iat`; default 5 s. */
  clockToleranceSeconds?: number;
  /**
   * The oldest token accepted, by its `iat` (then required); default DEFAULT_MAX_TOKEN_AGE_SECONDS.
   * 0: no bound by age (a token without `iat` is accepted; one issued in the future still is not).
   */
  maxTokenAgeSeconds?: number;
}

export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
/** No issuer we know hands out access tokens living longer than a day. */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 86_400;

export const SCOPE_RIGHTS: Readonly<Record<string, Right>> = {
  'tasks:read': 'read',
  'tasks:write': 'write',
  'registry:approve': 'approve',
};
const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'];

const scopesOf = (payload: JWTPayload): string[] => {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(/\s+/);
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
};

const reasonOf = (e: unknown): string => {
  if (e instanceof errors.JWTExpired && e.claim === 'iat')
    return 'The token was issued too long ago ("iat" older than this hub accepts)';
  if (e instanceof errors.JWTExpired) return 'The token has expired';
  if (e instanceof errors.JWTClaimValidationFailed)
    return `The token's "${e.claim}" claim is not valid: ${e.reason}`;
  if (e instanceof errors.JOSEAlgNotAllowed)
    return 'The token is signed with an algorithm this hub does not accept';
  if (e instanceof errors.JWSSignatureVerificationFailed) return 'The token signature does not verify';
  if (e instanceof errors.JWKSNoMatchingKey)
    return 'The token is signed with a key the issuer does not publish';
  if (e instanceof errors.JWKSTimeout || (e instanceof Error && e.name === 'TypeError'))
    return 'The issuer keys could not be fetched';
  return 'The token is not a valid JWT';
};

export class JwtVerifier implements TokenVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly config: JwtVerifierConfig,
    keys?: JWTVerifyGetKey,
  ) {
    this.keys = keys ?? createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 3000 });
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    const tolerance = this.config.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    const maxAge = this.config.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.algorithms ?? DEFAULT_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: tolerance,
        // with maxTokenAge jose also refuses an iat in the future (beyond the tolerance)
        ...(maxAge > 0 ? { maxTokenAge: maxAge } : {}),
      }));
    } catch (e) {
      throw new AuthError('unauthenticated', reasonOf(e), 'invalid_token');
    }
    // without an age bound jose leaves iat unchecked: a token "issued" later than now is still refused
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + tolerance)
      throw new AuthError(
        'unauthenticated',
        'The token\'s "iat" claim is not valid: it is in the future',
        'invalid_token',
      );
    // jose checks that sub is present, not what it is: the owner of tasks must be a real name
    if (typeof payload.sub !== 'string' || payload.sub === '')
      throw new AuthError(
        'unauthenticated',
        'The token\'s "sub" claim is not a non-empty string',
        'invalid_token',
      );
    const claimed = payload[this.config.tenantClaim ?? 'tenant'];
    const tenant = typeof claimed === 'string' && claimed !== '' ? claimed : this.config.defaultTenant;
    if (!tenant)
      throw new AuthError(
        'permission_denied',
        `The token names no tenant (claim "${this.config.tenantClaim ?? 'tenant'}") and no default is configured`,
      );
    const named = scopesOf(payload)
      .map((s) => (Object.hasOwn(SCOPE_RIGHTS, s) ? SCOPE_RIGHTS[s] : undefined))
      .filter((r): r is Right => r !== undefined);
    const rights =
      named.length > 0 ? [...new Set(named)] : [...(this.config.defaultRights ?? DEFAULT_RIGHTS)];
    return {
      tenant,
      owner: payload.sub,
      rights,
      scheme: 'bearer',
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    };
  }
}
