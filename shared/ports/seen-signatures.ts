/**
 * Replay protection: what the verifier remembers. Adapters: DynamoDB (a conditional put, its TTL at
 * `until`: shared/adapters/dynamodb/seen-signatures.ts) and memory (shared/adapters/memory/seen-signatures.ts).
 */
export interface SeenSignatures {
  /**
   * Records that `peer` sent the signed request whose signature (the HMAC, lowercase hex) is `signature`,
   * signed at `signedAt` (epoch seconds), to be kept until `until` (epoch seconds). Resolves false when
   * that request was recorded before.
   */
  remember(peer: string, signature: string, signedAt: number, until: number): Promise<boolean>;
}
