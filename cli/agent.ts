/**
 * From an agent card reference to a client (a2a-cli SPEC §8.1, §10.1, §11.1): the reference is a host
 * (`hub.example.com`: https and the well-known path), an origin or a card URL, or a card file. The card is
 * fetched here, so what goes wrong names itself (not found, unreachable, not a card); the client is the
 * official @a2a-js/sdk's, on the card's first interface this CLI speaks unless `--transport` says otherwise.
 * Credentials go where the card's security schemes say: a bearer token in `Authorization`, an API key in
 * the header, query parameter or cookie its scheme names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentCard } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { resolveCard } from './catalog.ts';
import { configDir, currentLayers } from './config.ts';
import { debugFetch } from './debug.ts';
import { CliError } from './errors.ts';
import { PROGRAM } from './output.ts';
import { hasLogin } from './token-store.ts';
import {
  negotiateVersion,
  requestVersion,
  requireCredentials,
  secretsOf,
  spokenTransports,
  transportFetch,
  type WireOptions,
  warnInsecureCredential,
  wireFetch,
} from './wire.ts';

export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

/** The bindings this CLI speaks, as the card names them. */
export const TRANSPORTS = ['JSONRPC', 'HTTP+JSON'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export interface AgentOptions extends WireOptions {
  agentCard?: string;
  /** Preferred bindings; a known one this CLI does not speak (GRPC) is skipped with a note. */
  transport?: string[];
  bearer?: string;
  apiKey?: string;
  /** Log every exchange to stderr, credentials redacted. */
  debug?: boolean;
}

/**
 * The fetch every request of this run goes through: TLS verified unless --insecure, logged by `--debug`,
 * with the service parameters and the A2A version (wire.ts). `agent`: the requests go to an A2A agent
 * (its card or its interfaces), whose 401 or 403 is the CLI's authentication error; `card` names its schemes
 * in the hint.
 */
export const baseFetch = (options: AgentOptions, agent?: { card?: AgentCard }): typeof fetch => {
  const send = transportFetch(options);
  return wireFetch(options.debug ? debugFetch(send, secretsOf(options)) : send, options, {
    version: requestVersion(options),
    ...(agent ? { authErrors: true, card: agent.card } : {}),
  });
};

/** The fetch of OAuth requests (a stored login's refresh): this run's TLS settings and --debug, no A2A headers. */
export const oauthFetch = (options: AgentOptions, secrets: readonly string[] = []): typeof fetch => {
  const send = transportFetch(options);
  return options.debug ? debugFetch(send, [...secretsOf(options), ...secrets]) : send;
};

/** The agent reference given, or the usage error that names how to give one. */
export const requireAgent = (ref: string | undefined): string => {
  if (!ref)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      'no agent: give --agent-card (-a) or set A2ACLI_AGENT_CARD',
      `${PROGRAM} card get -a http://127.0.0.1:8080`,
    );
  return ref;
};

/** Where the card of `ref` is: a URL to fetch, or a file to read. */
export function cardLocationOf(ref: string): { url: string } | { file: string } {
  if (ref.startsWith('file://')) return { file: fileURLToPath(ref) };
  if (/^https?:\/\//i.test(ref)) {
    const url = new URL(ref);
    if (url.pathname === '/' || url.pathname === '') url.pathname = WELL_KNOWN_CARD_PATH;
    return { url: url.toString() };
  }
  if (existsSync(ref)) return { file: ref };
  if (/^[a-z0-9.-]+(:\d+)?(\/.*)?$/i.test(ref)) return cardLocationOf(`https://${ref}`);
  throw new CliError(
    'A2ACLI_ERR_USAGE',
    `--agent-card ${JSON.stringify(ref)} is neither a URL, a host nor a card file`,
    'give a host (hub.example.com), a URL (http://127.0.0.1:8080) or a file (./card.json)',
  );
}

/**
 * The card JSON of `ref`, fetched or read; a catalog or registry entry is followed to its card
 * (cli/catalog.ts, a2a-cli SPEC §8.1).
 */
export async function fetchCard(ref: string, fetchImpl: typeof fetch = fetch): Promise<unknown> {
  return (await resolveCard(ref, fetchImpl)).card;
}

/** The JSON document at `ref` (a URL, host or file, as `cardLocationOf` reads it), and its URL if fetched. */
export async function fetchDocument(
  ref: string,
  fetchImpl: typeof fetch = fetch,
): Promise<{ json: unknown; url?: string }> {
  const where = cardLocationOf(ref);
  let text: string;
  if ('file' in where) {
    try {
      text = readFileSync(where.file, 'utf8');
    } catch (e) {
      throw new CliError('A2ACLI_ERR_CARD_NOT_FOUND', `cannot read ${where.file}: ${(e as Error).message}`);
    }
  } else {
    let response: Response;
    try {
      response = await fetchImpl(where.url, { headers: { accept: 'application/json' } });
    } catch (e) {
      if (e instanceof CliError) throw e;
      const code = (e as { cause?: { code?: string } }).cause?.code;
      const tls = code !== undefined && /CERT|SSL|TLS/i.test(code);
      throw new CliError(
        'A2ACLI_ERR_UNREACHABLE',
        `cannot reach ${where.url}${code ? ` (${code})` : ''}`,
        tls
          ? 'the certificate is not trusted; --insecure skips the check (development only)'
          : 'is the agent running, and is the address right?',
      );
    }
    if (response.status === 404)
      throw new CliError('A2ACLI_ERR_CARD_NOT_FOUND', `no agent card at ${where.url} (HTTP 404)`);
    if (!response.ok)
      throw new CliError('A2ACLI_ERR_CARD_NOT_FOUND', `${where.url} answered HTTP ${response.status}`);
    text = await response.text();
  }
  try {
    return { json: JSON.parse(text), ...('url' in where ? { url: where.url } : {}) };
  } catch {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', 'the agent card is not JSON');
  }
}

/** The card as the SDK reads it; refused when it names no interface to call. */
export function agentCardOf(json: unknown): AgentCard {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new CliError('A2ACLI_ERR_CARD_INVALID', 'the agent card is not a JSON object');
  const card = AgentCard.fromJSON(json);
  if (!card.name || card.supportedInterfaces.length === 0)
    throw new CliError(
      'A2ACLI_ERR_CARD_INVALID',
      'the agent card has no name or no supportedInterfaces (an A2A v1.0 card lists where to call it)',
    );
  return card;
}

/** A fetch that adds the caller's credentials where the card's schemes want them. */
export function credentialedFetch(card: AgentCard, options: AgentOptions): typeof fetch {
  const schemes = Object.values(card.securitySchemes ?? {});
  const apiKey = schemes.map((s) => s.scheme).find((s) => s?.$case === 'apiKeySecurityScheme')?.value;
  // a card that declares no API-key scheme but an HTTP bearer one (this hub's: its keys are bearer
  // credentials, docs/security.md) takes the key there, as its scheme says, rather than in a guessed header
  const keyAsBearer =
    !apiKey &&
    schemes.some(
      (s) => s.scheme?.$case === 'httpAuthSecurityScheme' && s.scheme.value.scheme.toLowerCase() === 'bearer',
    );
  const send = baseFetch(options, { card });
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const url =
      typeof input === 'string' || input instanceof URL ? new URL(input.toString()) : new URL(input.url);
    if (options.bearer) headers.set('authorization', `Bearer ${options.bearer}`);
    if (options.apiKey && keyAsBearer) {
      if (!options.bearer) headers.set('authorization', `Bearer ${options.apiKey}`);
    } else if (options.apiKey) {
      const name = apiKey?.name || 'x-api-key';
      const location = apiKey?.location ?? 'header';
      if (location === 'query') url.searchParams.set(name, options.apiKey);
      else if (location === 'cookie')
        headers.append('cookie', `${name}=${encodeURIComponent(options.apiKey)}`);
      else headers.set(name, options.apiKey);
    }
    return send(url, { ...init, headers });
  };
}

/** A client of the card's agent, and the card. */
export async function connect(options: AgentOptions): Promise<{ client: Client; card: AgentCard }> {
  const ref = requireAgent(options.agentCard);
  const card = agentCardOf(await fetchCard(ref, baseFetch(options, {})));
  // without a credential given, the stored login for this agent is used (SPEC §10.2)
  const stored =
    options.bearer || options.apiKey || !hasLogin(currentLayers()?.dir ?? configDir(), ref, card)
      ? undefined
      : await (await import('./oauth.ts')).storedBearer(ref, card, oauthFetch(options));
  const withLogin: AgentOptions = stored ? { ...options, bearer: stored } : options;
  requireCredentials(card, withLogin);
  // only the card's interfaces at the negotiated version are candidates (SPEC §11.1, §11.2)
  const { version, card: callable } = negotiateVersion(card, withLogin);
  warnInsecureCredential(withLogin);
  const credentialed = credentialedFetch(card, withLogin);
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('A2A-Version', version);
    return credentialed(input, { ...init, headers });
  };
  const preferred = spokenTransports(options.transport, TRANSPORTS);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      ...(preferred.length ? { preferredTransports: preferred } : {}),
    }),
  );
  try {
    return { client: await factory.createFromAgentCard(callable), card };
  } catch (e) {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `cannot call this agent: ${(e as Error).message}`);
  }
}
