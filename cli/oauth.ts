/**
 * OAuth 2.1 for `synapse auth login` (a2a-cli SPEC §10.2): the device-code flow (RFC 8628) and the
 * client-credentials flow, and the refresh of a stored login, all by `oauth4webapi`. The authorization
 * server is the one the agent card names — an `oauth2` scheme's flow (its token and device authorization
 * URLs) or an `openIdConnect` scheme's discovery document — unless `--token-url` and
 * `--device-authorization-url` say otherwise. Plain http is allowed to a loopback issuer only.
 */
import type { AgentCard } from '@a2a-js/sdk';
import * as oauth from 'oauth4webapi';
import { configDir, currentLayers, loginHint } from './config.ts';
import { CliError } from './errors.ts';
import { type Flow, isExpired, loginKeyOf, readLogin, type StoredLogin, writeLogin } from './token-store.ts';

export interface Endpoints {
  as: oauth.AuthorizationServer;
  /** The scopes the card lists for the flow, if it lists any. */
  scopes: string[];
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The options every oauth4webapi request of this run takes. */
const requestOptions = (url: string, fetchImpl: typeof fetch) => {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:' && !(protocol === 'http:' && LOOPBACK.has(hostname)))
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `${url}: an OAuth endpoint must be https (plain http only on loopback)`,
    );
  return {
    [oauth.customFetch]: fetchImpl as typeof fetch,
    [oauth.allowInsecureRequests]: protocol === 'http:',
  };
};

/** oauth4webapi's failures as the CLI's: a refusal is an auth failure (exit 4), a dead issuer unreachable. */
export function oauthError(e: unknown, doing: string): CliError {
  if (e instanceof CliError) return e;
  if (e instanceof oauth.ResponseBodyError)
    return new CliError(
      'A2ACLI_ERR_AUTH_FAILED',
      `${doing}: the authorization server said ${e.error}${e.error_description ? ` (${e.error_description})` : ''}`,
    );
  if (e instanceof TypeError && (e as { cause?: { code?: string } }).cause?.code)
    return new CliError(
      'A2ACLI_ERR_UNREACHABLE',
      `${doing}: cannot reach the authorization server (${(e as { cause: { code: string } }).cause.code})`,
    );
  return new CliError('A2ACLI_ERR_AUTH_FAILED', `${doing}: ${e instanceof Error ? e.message : String(e)}`);
}

const WELL_KNOWN_OIDC = '/.well-known/openid-configuration';

/** The authorization server an OpenID Connect discovery URL describes. */
async function discover(discoveryUrl: string, fetchImpl: typeof fetch): Promise<oauth.AuthorizationServer> {
  const options = requestOptions(discoveryUrl, fetchImpl);
  try {
    if (discoveryUrl.endsWith(WELL_KNOWN_OIDC)) {
      const issuer = new URL(discoveryUrl.slice(0, -WELL_KNOWN_OIDC.length));
      return await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oidc' }),
      );
    }
    const response = await fetchImpl(discoveryUrl, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const as = (await response.json()) as oauth.AuthorizationServer;
    if (typeof as?.issuer !== 'string') throw new Error('not a discovery document (no issuer)');
    return as;
  } catch (e) {
    throw oauthError(e, `reading ${discoveryUrl}`);
  }
}

export interface EndpointFlags {
  tokenUrl?: string;
  deviceAuthorizationUrl?: string;
}

/**
 * The authorization server of `flow` for this agent: the flags, else the first of the card's schemes
 * that offers the flow (an `oauth2` scheme naming it, or an `openIdConnect` scheme whose issuer has the
 * endpoint the flow needs).
 */
export async function endpointsFor(
  card: AgentCard,
  flow: Flow,
  flags: EndpointFlags,
  fetchImpl: typeof fetch,
): Promise<Endpoints> {
  if (flags.tokenUrl) {
    if (flow === 'device_code' && !flags.deviceAuthorizationUrl)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        '--token-url with the device flow needs --device-authorization-url too',
      );
    return {
      as: {
        issuer: new URL(flags.tokenUrl).origin,
        token_endpoint: flags.tokenUrl,
        ...(flags.deviceAuthorizationUrl
          ? { device_authorization_endpoint: flags.deviceAuthorizationUrl }
          : {}),
      },
      scopes: [],
    };
  }
  const schemes = Object.values(card.securitySchemes ?? {}).map((s) => s.scheme);
  for (const s of schemes) {
    if (s?.$case !== 'oauth2SecurityScheme') continue;
    const f = s.value.flows?.flow;
    if (flow === 'device_code' && f?.$case === 'deviceCode')
      return {
        as: {
          issuer: new URL(f.value.tokenUrl).origin,
          token_endpoint: f.value.tokenUrl,
          device_authorization_endpoint: f.value.deviceAuthorizationUrl,
        },
        scopes: Object.keys(f.value.scopes ?? {}),
      };
    if (flow === 'client_credentials' && f?.$case === 'clientCredentials')
      return {
        as: { issuer: new URL(f.value.tokenUrl).origin, token_endpoint: f.value.tokenUrl },
        scopes: Object.keys(f.value.scopes ?? {}),
      };
  }
  for (const s of schemes) {
    if (s?.$case !== 'openIdConnectSecurityScheme' || !s.value.openIdConnectUrl) continue;
    const as = await discover(s.value.openIdConnectUrl, fetchImpl);
    if (!as.token_endpoint) continue;
    if (flow === 'device_code' && !as.device_authorization_endpoint) continue;
    return { as, scopes: [] };
  }
  throw new CliError(
    'A2ACLI_ERR_CREDENTIALS_MISSING',
    `the agent card names no OAuth ${flow === 'device_code' ? 'device-code' : 'client-credentials'} flow (no oauth2 or openIdConnect scheme offering it)`,
    'give the endpoints: --token-url (and --device-authorization-url for the device flow)',
  );
}

export interface Client {
  clientId: string;
  clientSecret?: string;
}

const clientAuthOf = (c: Client) => (c.clientSecret ? oauth.ClientSecretBasic(c.clientSecret) : oauth.None());

const loginOf = (
  response: oauth.TokenEndpointResponse,
  base: Omit<StoredLogin, 'accessToken' | 'tokenType' | 'obtainedAt'>,
): StoredLogin => {
  const now = Math.floor(Date.now() / 1000);
  return {
    ...base,
    accessToken: response.access_token,
    tokenType: response.token_type,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    ...(response.expires_in !== undefined ? { expiresAt: now + response.expires_in } : {}),
    ...(response.scope ? { scope: response.scope } : base.scope ? { scope: base.scope } : {}),
    obtainedAt: now,
  };
};

export async function clientCredentialsLogin(
  agent: string,
  e: Endpoints,
  client: Client,
  scope: string | undefined,
  fetchImpl: typeof fetch,
): Promise<StoredLogin> {
  const endpoint = e.as.token_endpoint!;
  const options = requestOptions(endpoint, fetchImpl);
  try {
    const params = new URLSearchParams(scope ? { scope } : {});
    const response = await oauth.clientCredentialsGrantRequest(
      e.as,
      { client_id: client.clientId },
      clientAuthOf(client),
      params,
      options,
    );
    const tokens = await oauth.processClientCredentialsResponse(
      e.as,
      { client_id: client.clientId },
      response,
    );
    return loginOf(tokens, {
      agent,
      flow: 'client_credentials',
      issuer: e.as.issuer,
      tokenEndpoint: endpoint,
      clientId: client.clientId,
      ...(scope ? { scope } : {}),
    });
  } catch (err) {
    throw oauthError(err, 'client-credentials login');
  }
}

export interface DeviceAuthorization {
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  expiresIn: number;
}

/**
 * The device flow: asks for a device code, tells the person where to approve it (`prompt`), then polls
 * the token endpoint at the interval the server set (slower on `slow_down`) until approval, refusal or
 * expiry.
 */
export async function deviceCodeLogin(
  agent: string,
  e: Endpoints,
  client: Client,
  scope: string | undefined,
  fetchImpl: typeof fetch,
  prompt: (d: DeviceAuthorization) => void,
): Promise<StoredLogin> {
  const endpoint = e.as.device_authorization_endpoint!;
  const options = requestOptions(endpoint, fetchImpl);
  requestOptions(e.as.token_endpoint!, fetchImpl);
  const c = { client_id: client.clientId };
  let authorization: oauth.DeviceAuthorizationResponse;
  try {
    authorization = await oauth.processDeviceAuthorizationResponse(
      e.as,
      c,
      await oauth.deviceAuthorizationRequest(
        e.as,
        c,
        clientAuthOf(client),
        new URLSearchParams(scope ? { scope } : {}),
        options,
      ),
    );
  } catch (err) {
    throw oauthError(err, 'device authorization');
  }
  prompt({
    userCode: authorization.user_code,
    verificationUri: authorization.verification_uri,
    ...(authorization.verification_uri_complete
      ? { verificationUriComplete: authorization.verification_uri_complete }
      : {}),
    expiresIn: authorization.expires_in,
  });
  let interval = (authorization.interval ?? 5) * 1000;
  const deadline = Date.now() + authorization.expires_in * 1000;
  for (;;) {
    await new Promise((r) => setTimeout(r, interval));
    try {
      const tokens = await oauth.processDeviceCodeResponse(
        e.as,
        c,
        await oauth.deviceCodeGrantRequest(e.as, c, clientAuthOf(client), authorization.device_code, options),
      );
      return loginOf(tokens, {
        agent,
        flow: 'device_code',
        issuer: e.as.issuer,
        tokenEndpoint: e.as.token_endpoint!,
        clientId: client.clientId,
        ...(scope ? { scope } : {}),
      });
    } catch (err) {
      if (
        err instanceof oauth.ResponseBodyError &&
        err.error === 'authorization_pending' &&
        Date.now() < deadline
      )
        continue;
      if (err instanceof oauth.ResponseBodyError && err.error === 'slow_down' && Date.now() < deadline) {
        interval += 5000;
        continue;
      }
      if (err instanceof oauth.ResponseBodyError && err.error === 'expired_token')
        throw new CliError(
          'A2ACLI_ERR_TIMEOUT',
          'the device code expired before it was approved',
          'log in again',
        );
      throw oauthError(err, 'device-code login');
    }
  }
}

/** A new access token for an expired login, by its refresh token (which the server may rotate). */
export async function refreshLogin(
  login: StoredLogin,
  clientSecret: string | undefined,
  fetchImpl: typeof fetch,
): Promise<StoredLogin> {
  if (!login.refreshToken) throw new CliError('A2ACLI_ERR_INTERNAL', 'no refresh token');
  const as: oauth.AuthorizationServer = {
    issuer: login.issuer ?? new URL(login.tokenEndpoint).origin,
    token_endpoint: login.tokenEndpoint,
  };
  const c = { client_id: login.clientId };
  try {
    const tokens = await oauth.processRefreshTokenResponse(
      as,
      c,
      await oauth.refreshTokenGrantRequest(
        as,
        c,
        clientAuthOf({ clientId: login.clientId, ...(clientSecret ? { clientSecret } : {}) }),
        login.refreshToken,
        requestOptions(login.tokenEndpoint, fetchImpl),
      ),
    );
    const refreshed = loginOf(tokens, login);
    // a server that does not rotate the refresh token keeps the old one valid
    return refreshed.refreshToken ? refreshed : { ...refreshed, refreshToken: login.refreshToken };
  } catch (err) {
    throw oauthError(err, 'refreshing the stored login');
  }
}

/**
 * The access token of the stored login for this agent, if there is one (SPEC §10.2: attached to later
 * calls): refreshed first when it has expired, by its refresh token, or for a client-credentials login by
 * asking again with the configured client secret.
 */
export async function storedBearer(
  ref: string,
  card: AgentCard,
  fetchImpl: typeof fetch,
): Promise<string | undefined> {
  const layers = currentLayers();
  const dir = layers?.dir ?? configDir();
  const key = loginKeyOf(ref, card);
  if (!key) return undefined;
  const login = readLogin(dir, key);
  if (!login) return undefined;
  if (!isExpired(login)) return login.accessToken;
  const clientSecret = layers?.lookup('client-secret')?.value;
  let fresh: StoredLogin | undefined;
  if (login.refreshToken) fresh = await refreshLogin(login, clientSecret, fetchImpl);
  else if (login.flow === 'client_credentials' && clientSecret)
    fresh = await clientCredentialsLogin(
      login.agent,
      {
        as: {
          issuer: login.issuer ?? new URL(login.tokenEndpoint).origin,
          token_endpoint: login.tokenEndpoint,
        },
        scopes: [],
      },
      { clientId: login.clientId, clientSecret },
      login.scope,
      fetchImpl,
    );
  if (!fresh)
    throw new CliError(
      'A2ACLI_ERR_CREDENTIALS_MISSING',
      `the stored login for ${ref} has expired and cannot be renewed`,
      loginHint(ref),
    );
  writeLogin(dir, key, fresh);
  return fresh.accessToken;
}
