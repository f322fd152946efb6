/**
 * A local OIDC issuer, for trying the hub's bearer JWTs without an identity provider and for the tests:
 * serves `/.well-known/openid-configuration` and its JWKS on 127.0.0.1, and signs tokens with its own
 * keys (ES256 and RS256). Point the hub at it with AUTH_JWT_ISSUER = `issuer.url`, AUTH_JWT_JWKS_URL =
 * `issuer.jwksUrl` and AUTH_JWT_AUDIENCE. Not for production: the keys live in this process only.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';

export interface TokenOptions {
  /** Default the issuer's audience. */
  audience?: string;
  /** Default this issuer's URL. */
  issuer?: string;
  /** Seconds from now (negative: already expired); default 300. */
  expiresIn?: number;
  /** Seconds from now the token becomes valid (nbf). */
  notBefore?: number;
  /** Seconds from now the token says it was issued (iat); default now. */
  issuedAt?: number;
  alg?: 'ES256' | 'RS256';
  /** Sign with a key the JWKS does not publish, under a published key's id (a forged signature). */
  forged?: boolean;
}

export interface LocalIssuer {
  url: string;
  jwksUrl: string;
  audience: string;
  /** A signed token for `sub` with these claims (e.g. `{ tenant: 'acme', scope: 'tasks:read' }`). */
  token(sub: string, claims?: JWTPayload, options?: TokenOptions): Promise<string>;
  stop(): Promise<void>;
}

interface SigningKey {
  alg: 'ES256' | 'RS256';
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

const keyFor = async (alg: 'ES256' | 'RS256'): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
};

export const startLocalIssuer = async (
  options: { audience?: string; port?: number } = {},
): Promise<LocalIssuer> => {
  const keys = { ES256: await keyFor('ES256'), RS256: await keyFor('RS256') };
  const strangers = { ES256: await keyFor('ES256'), RS256: await keyFor('RS256') };
  const audience = options.audience ?? 'synapse-local';
  let url = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      res.end(JSON.stringify(body));
    };
    if (path === '/.well-known/openid-configuration')
      return send({
        issuer: url,
        jwks_uri: `${url}/jwks.json`,
        id_token_signing_alg_values_supported: ['ES256', 'RS256'],
      });
    if (path === '/jwks.json') return send({ keys: [keys.ES256.jwk, keys.RS256.jwk] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    jwksUrl: `${url}/jwks.json`,
    audience,
    token: async (sub, claims = {}, o = {}) => {
      const alg = o.alg ?? 'ES256';
      const key = keys[alg];
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
        .setSubject(sub)
        .setIssuer(o.issuer ?? url)
        .setAudience(o.audience ?? audience)
        .setIssuedAt(now + (o.issuedAt ?? 0))
        .setExpirationTime(now + (o.expiresIn ?? 300));
      if (o.notBefore !== undefined) jwt.setNotBefore(now + o.notBefore);
      return jwt.sign(o.forged ? strangers[alg].privateKey : key.privateKey);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
