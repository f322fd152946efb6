/**
 * A local OIDC issuer, for trying the hub's bearer JWTs without an identity provider and for the tests:
 * serves `/.well-known/openid-configuration` and its JWKS on 127.0.0.1, and signs tokens with its own
 * keys (ES256 and RS256). Point the hub at it with AUTH_JWT_ISSUER = `issuer.url`, AUTH_JWT_JWKS_URL =
 * `issuer.jwksUrl` and AUTH_JWT_AUDIENCE. Not for production: the keys live in this process only.
 *
 * It is an OAuth 2.1 authorization server too, for `synapse auth login`: a token endpoint (`/token`) for
 * the client-credentials grant (registered clients, secret by HTTP Basic or in the form), the device
 * grant (RFC 8628: `/device_authorization` gives the codes, a person approves or denies the user code at
 * `/device`, a form page) and the refresh-token grant (rotating: a refresh token is good once). Its
 * access tokens are its JWTs, for the client's subject and claims (client credentials) or for whoever
 * approved the device code.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
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

/** An OAuth client the issuer knows. */
export interface IssuerClient {
  clientId: string;
  /** A confidential client's secret; none for a public client (the device flow). */
  clientSecret?: string;
  /** The subject of its client-credentials tokens; default the client id. */
  subject?: string;
  /** The claims of its client-credentials tokens (e.g. `{ tenant: 'acme' }`). */
  claims?: JWTPayload;
}

/** Each grant the token endpoint answered, in order (for the tests). */
export interface GrantRecord {
  grantType: string;
  clientId: string;
  outcome: 'issued' | string;
}

export interface LocalIssuer {
  url: string;
  jwksUrl: string;
  audience: string;
  tokenEndpoint: string;
  deviceAuthorizationEndpoint: string;
  /** A signed token for `sub` with these claims (e.g. `{ tenant: 'acme', scope: 'tasks:read' }`). */
  token(sub: string, claims?: JWTPayload, options?: TokenOptions): Promise<string>;
  /** Registers an OAuth client. */
  addClient(client: IssuerClient): void;
  /** The grants answered so far. */
  readonly grants: readonly GrantRecord[];
  stop(): Promise<void>;
}

interface DeviceGrant {
  clientId: string;
  userCode: string;
  scope?: string;
  expiresAt: number;
  decision?: { approved: true; sub: string; claims: JWTPayload } | { approved: false };
}

interface RefreshGrant {
  clientId: string;
  sub: string;
  claims: JWTPayload;
  scope?: string;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 65_536) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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
  options: {
    audience?: string;
    port?: number;
    /** Seconds an access token lives; default 300. */
    accessTokenTtl?: number;
    /** Seconds a device code lives; default 600. */
    deviceCodeTtl?: number;
    /** Seconds the client waits between device polls; default 1 (short: it serves tests). */
    deviceInterval?: number;
  } = {},
): Promise<LocalIssuer> => {
  const keys = { ES256: await keyFor('ES256'), RS256: await keyFor('RS256') };
  const strangers = { ES256: await keyFor('ES256'), RS256: await keyFor('RS256') };
  const audience = options.audience ?? 'synapse-local';
  const accessTokenTtl = options.accessTokenTtl ?? 300;
  let url = '';
  const clients = new Map<string, IssuerClient>();
  const devices = new Map<string, DeviceGrant>();
  const refreshTokens = new Map<string, RefreshGrant>();
  const grants: GrantRecord[] = [];

  const sign = async (sub: string, claims: JWTPayload = {}, o: TokenOptions = {}) => {
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
  };

  /** The token response (RFC 6749 §5.1): a JWT access token, and a refresh token unless `refresh` is false. */
  const issue = async (
    clientId: string,
    sub: string,
    claims: JWTPayload,
    scope: string | undefined,
    refresh: boolean,
  ) => {
    const accessToken = await sign(
      sub,
      { ...claims, client_id: clientId, ...(scope ? { scope } : {}) },
      {
        expiresIn: accessTokenTtl,
      },
    );
    const refreshToken = refresh ? randomBytes(32).toString('base64url') : undefined;
    if (refreshToken) refreshTokens.set(refreshToken, { clientId, sub, claims, ...(scope ? { scope } : {}) });
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: accessTokenTtl,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      ...(scope ? { scope } : {}),
    };
  };

  /** The client a token request authenticates as (HTTP Basic or form), or why not. */
  const clientOf = (req: IncomingMessage, form: URLSearchParams): IssuerClient | string => {
    let id = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const client = id === undefined ? undefined : clients.get(id);
    if (!client) return 'unknown client';
    if (client.clientSecret !== undefined && client.clientSecret !== secret) return 'wrong client secret';
    return client;
  };

  const tokenEndpoint = async (req: IncomingMessage, form: URLSearchParams) => {
    const grantType = form.get('grant_type') ?? '';
    const client = clientOf(req, form);
    const record = (outcome: string) =>
      grants.push({
        grantType,
        clientId: typeof client === 'string' ? (form.get('client_id') ?? '') : client.clientId,
        outcome,
      });
    const fail = (status: number, error: string, description?: string) => {
      record(error);
      return { status, body: { error, ...(description ? { error_description: description } : {}) } };
    };
    if (typeof client === 'string') return fail(401, 'invalid_client', client);
    if (grantType === 'client_credentials') {
      if (client.clientSecret === undefined)
        return fail(400, 'unauthorized_client', 'a public client has no client credentials');
      record('issued');
      const scope = form.get('scope') ?? undefined;
      return {
        status: 200,
        body: await issue(
          client.clientId,
          client.subject ?? client.clientId,
          client.claims ?? {},
          scope,
          false,
        ),
      };
    }
    if (grantType === 'urn:ietf:params:oauth:grant-type:device_code') {
      const deviceCode = form.get('device_code') ?? '';
      const device = devices.get(deviceCode);
      if (!device || device.clientId !== client.clientId)
        return fail(400, 'invalid_grant', 'unknown device code');
      if (Date.now() > device.expiresAt) {
        devices.delete(deviceCode);
        return fail(400, 'expired_token');
      }
      if (!device.decision) return fail(400, 'authorization_pending');
      devices.delete(deviceCode);
      if (!device.decision.approved) return fail(400, 'access_denied', 'the user denied the request');
      record('issued');
      return {
        status: 200,
        body: await issue(client.clientId, device.decision.sub, device.decision.claims, device.scope, true),
      };
    }
    if (grantType === 'refresh_token') {
      const token = form.get('refresh_token') ?? '';
      const grant = refreshTokens.get(token);
      if (!grant || grant.clientId !== client.clientId)
        return fail(400, 'invalid_grant', 'unknown or used refresh token');
      // rotation (OAuth 2.1 §4.3.1): this refresh token is spent
      refreshTokens.delete(token);
      record('issued');
      return { status: 200, body: await issue(client.clientId, grant.sub, grant.claims, grant.scope, true) };
    }
    return fail(400, 'unsupported_grant_type');
  };

  const deviceAuthorization = (req: IncomingMessage, form: URLSearchParams) => {
    const client = clientOf(req, form);
    if (typeof client === 'string')
      return { status: 401, body: { error: 'invalid_client', error_description: client } };
    const deviceCode = randomBytes(32).toString('base64url');
    // RFC 8628 §6.1: letters without vowels, easy to read and type
    const letters = 'BCDFGHJKLMNPQRSTVWXZ';
    const pick = randomBytes(8);
    const userCode = [...pick].map((b, i) => `${i === 4 ? '-' : ''}${letters[b % letters.length]}`).join('');
    const scope = form.get('scope') ?? undefined;
    devices.set(deviceCode, {
      clientId: client.clientId,
      userCode,
      ...(scope ? { scope } : {}),
      expiresAt: Date.now() + (options.deviceCodeTtl ?? 600) * 1000,
    });
    return {
      status: 200,
      body: {
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: `${url}/device`,
        verification_uri_complete: `${url}/device?user_code=${encodeURIComponent(userCode)}`,
        expires_in: options.deviceCodeTtl ?? 600,
        interval: options.deviceInterval ?? 1,
      },
    };
  };

  /** The person's side: approve (as `subject`, with `claims` as JSON) or deny a user code. */
  const decide = (form: URLSearchParams): { status: number; text: string } => {
    const userCode = (form.get('user_code') ?? '').trim().toUpperCase();
    const device = [...devices.values()].find((d) => d.userCode === userCode && Date.now() <= d.expiresAt);
    if (!device) return { status: 404, text: 'no pending request with this code' };
    if (form.get('action') === 'deny') {
      device.decision = { approved: false };
      return { status: 200, text: 'denied' };
    }
    const sub = form.get('subject') ?? '';
    if (!sub) return { status: 400, text: 'say who you are (subject)' };
    let claims: JWTPayload = {};
    try {
      claims = JSON.parse(form.get('claims') || '{}') as JWTPayload;
    } catch {
      return { status: 400, text: 'claims must be a JSON object' };
    }
    device.decision = { approved: true, sub, claims };
    return { status: 200, text: 'approved: return to your terminal' };
  };

  const devicePage = (userCode: string) =>
    `<!doctype html><title>Approve a device</title><form method="post" action="/device">
<p><label>Code <input name="user_code" value="${escapeHtml(userCode)}"></label></p>
<p><label>Subject <input name="subject" value="local-user"></label></p>
<p><label>Claims (JSON) <input name="claims" value="{}"></label></p>
<p><button name="action" value="approve">Approve</button> <button name="action" value="deny">Deny</button></p></form>`;

  const server: Server = createServer((req, res) => {
    const requestUrl = new URL(req.url ?? '/', 'http://local');
    const path = requestUrl.pathname;
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      res.end(JSON.stringify(body));
    };
    const answer = (r: { status: number; body: unknown }) => {
      res.writeHead(r.status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(r.body));
    };
    const failed = (e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e));
    };
    if (path === '/.well-known/openid-configuration')
      return send({
        issuer: url,
        jwks_uri: `${url}/jwks.json`,
        token_endpoint: `${url}/token`,
        device_authorization_endpoint: `${url}/device_authorization`,
        grant_types_supported: [
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:device_code',
          'refresh_token',
        ],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        response_types_supported: [],
        id_token_signing_alg_values_supported: ['ES256', 'RS256'],
      });
    if (path === '/jwks.json') return send({ keys: [keys.ES256.jwk, keys.RS256.jwk] });
    if (path === '/device' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(devicePage(requestUrl.searchParams.get('user_code') ?? ''));
    }
    const forms: Record<string, (form: URLSearchParams) => Promise<void> | void> = {
      '/token': async (form) => answer(await tokenEndpoint(req, form)),
      '/device_authorization': (form) => answer(deviceAuthorization(req, form)),
      '/device': (form) => {
        const r = decide(form);
        res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end(`${r.text}\n`);
      },
    };
    const handle = forms[path];
    if (handle && req.method === 'POST') {
      readBody(req)
        .then((body) => handle(new URLSearchParams(body)))
        .catch(failed);
      return;
    }
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
    tokenEndpoint: `${url}/token`,
    deviceAuthorizationEndpoint: `${url}/device_authorization`,
    token: sign,
    addClient: (client) => {
      clients.set(client.clientId, client);
    },
    grants,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
