/** Verifies a bearer JWT (shared/adapters/auth/jwt-verifier.ts); throws AuthError. */
import type { Principal } from '../domain/principal.ts';
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}
