/**
 * What every request to an agent carries beyond the call itself (a2a-cli SPEC §5.2, §10.1, §11): the
 * service parameters given with `--svc-param` (headers, distinct from credentials and from `--metadata`),
 * the `A2A-Version` negotiated from the card (never below 1.0, §11.2), TLS verification unless `--insecure`
 * (with a warning, louder when a credential goes out), and an answer of 401/403 read as the authentication
 * failure it is (exit 4, Appendix E).
 */
import type { AgentCard } from '@a2a-js/sdk';
import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { CliError } from './errors.ts';
import { PROGRAM } from './output.ts';

/** The A2A versions this tool speaks (the SDK's v1.0 transports), highest first. */
export const SUPPORTED_A2A_VERSIONS = ['1.0'] as const;

/** Bindings the a2a-cli spec names; gRPC is known but not spoken here (SPEC §11.1: skipped). */
export const KNOWN_TRANSPORTS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;

export interface WireOptions {
  /** One or many (the flag is repeatable). */
  svcParam?: string | string[];
  a2aVersion?: string;
  insecure?: boolean;
  bearer?: string;
  apiKey?: string;
}

/** A service parameter's name and value: `key:value` as the spec writes it, or `key=value`. */
export function svcParamsOf(options: WireOptions): [string, string][] {
  return [options.svcParam ?? []].flat().map((given) => {
    const at = given.search(/[:=]/);
    const key = at > 0 ? given.slice(0, at).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(key))
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `--svc-param ${JSON.stringify(given)} is not key:value (or key=value) with a header name as key`,
        `${PROGRAM} send --svc-param x-trace-id:abc123 …`,
      );
    return [key, given.slice(at + 1).trim()];
  });
}

/** Service parameters that carry a credential, by the name of the header (redacted in --debug, §10.1). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|session|credential|password/i;

/** Every secret of this run: the credentials and the values of credential-bearing service parameters. */
export const secretsOf = (options: WireOptions): string[] => [
  options.bearer ?? '',
  options.apiKey ?? '',
  ...svcParamsOf(options)
    .filter(([key]) => CREDENTIAL_HEADER.test(key))
    .map(([, value]) => value),
];

/** Whether this run sends a credential: a credential flag, or a credential-bearing service parameter. */
export const sendsCredential = (options: WireOptions): boolean => secretsOf(options).some((s) => s !== '');

const versionNumbers = (v: string): [number, number] | undefined => {
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};
const majorMinor = (v: string): string | undefined => versionNumbers(v)?.join('.');

/** The version `--a2a-version` asks for, checked: one this tool speaks, never below 1.0. */
export function askedVersion(options: WireOptions): string | undefined {
  if (options.a2aVersion === undefined) return undefined;
  const numbers = versionNumbers(options.a2aVersion);
  const version = majorMinor(options.a2aVersion);
  if (!numbers || !version)
    throw new CliError('A2ACLI_ERR_USAGE', `--a2a-version ${options.a2aVersion} is not a version like 1.0`);
  if (numbers[0] < 1)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `--a2a-version ${options.a2aVersion}: versions below 1.0 are legacy and not spoken by this tool`,
      `${PROGRAM} … --a2a-version 1.0`,
    );
  if (!(SUPPORTED_A2A_VERSIONS as readonly string[]).includes(version))
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `--a2a-version ${options.a2aVersion}: this tool speaks A2A ${SUPPORTED_A2A_VERSIONS.join(', ')}`,
    );
  return version;
}

/** The version a request carries before the card is known: the one asked for, else this tool's highest. */
export const requestVersion = (options: WireOptions): string =>
  askedVersion(options) ?? SUPPORTED_A2A_VERSIONS[0];

/**
 * The version to speak with this agent and the card's interfaces at that version: the one asked for, or the
 * highest both this tool and one of the card's interfaces speak (SPEC §11.2). None: the agent's own error
 * name, VersionNotSupportedError, before anything is sent.
 */
export function negotiateVersion(
  card: AgentCard,
  options: WireOptions,
): { version: string; card: AgentCard } {
  const asked = askedVersion(options);
  const offered = new Set(card.supportedInterfaces.map((i) => majorMinor(i.protocolVersion)));
  const version = asked
    ? offered.has(asked)
      ? asked
      : undefined
    : SUPPORTED_A2A_VERSIONS.find((v) => offered.has(v));
  if (!version)
    throw new VersionNotSupportedError(
      `the agent offers A2A ${[...offered].filter(Boolean).join(', ') || '(no version)'}; this tool speaks ${
        asked ?? SUPPORTED_A2A_VERSIONS.join(', ')
      } (never below 1.0)`,
    );
  return {
    version,
    card: {
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => majorMinor(i.protocolVersion) === version),
    },
  };
}

/** `--transport` with the bindings this tool does not speak taken out, each named on stderr. */
export function spokenTransports<T extends string>(
  asked: readonly string[] | undefined,
  spoken: readonly T[],
) {
  const kept: T[] = [];
  for (const name of asked ?? []) {
    if ((spoken as readonly string[]).includes(name)) kept.push(name as T);
    else process.stderr.write(`note: --transport ${name}: this tool does not speak it; skipped\n`);
  }
  return kept;
}

let insecureWarned = false;
let credentialWarned = false;

/** The fetch with TLS verification off, loaded only when --insecure asks for it. */
function insecureFetch(): typeof fetch {
  let dispatcher: unknown;
  return async (input, init) => {
    const loaded = await import('undici');
    // bundled, the CommonJS package is its default export; run from source, its exports are named
    const undici = loaded.Agent ? loaded : (loaded as unknown as { default: typeof loaded }).default;
    dispatcher ??= new undici.Agent({ connect: { rejectUnauthorized: false } });
    return (await undici.fetch(input as Parameters<typeof undici.fetch>[0], {
      ...(init as Parameters<typeof undici.fetch>[1]),
      dispatcher: dispatcher as InstanceType<typeof undici.Agent>,
    })) as unknown as Response;
  };
}

/** The fetch at the bottom of this run: the platform's, or one that skips TLS verification (warned). */
export function transportFetch(options: WireOptions): typeof fetch {
  if (!options.insecure) return fetch;
  if (!insecureWarned) {
    insecureWarned = true;
    process.stderr.write('warning: --insecure: TLS certificates are not verified (development only)\n');
  }
  return insecureFetch();
}

/** Warns, once and loudly, that a credential goes over a connection whose certificate is not verified. */
export function warnInsecureCredential(options: WireOptions): void {
  if (!options.insecure || credentialWarned || !sendsCredential(options)) return;
  credentialWarned = true;
  process.stderr.write(
    [
      '',
      '!!! WARNING: a credential is being sent with TLS certificate verification disabled (--insecure).',
      '!!! Anyone between you and the agent can read it and use it. Use --insecure only for development.',
      '',
      '',
    ].join('\n'),
  );
}

/** The hint for an agent that refused: the flags that carry a credential, and the schemes the card names. */
const credentialHint = (card: AgentCard | undefined): string => {
  const schemes = Object.entries(card?.securitySchemes ?? {}).map(([name, s]) => {
    const kind = s.scheme?.$case;
    if (kind === 'oauth2SecurityScheme' || kind === 'openIdConnectSecurityScheme')
      return `${name}: auth login -a <agent> (OAuth), or --bearer (or A2ACLI_BEARER)`;
    return kind === 'apiKeySecurityScheme'
      ? `${name}: --api-key (or A2ACLI_API_KEY)`
      : `${name}: --bearer (or A2ACLI_BEARER)`;
  });
  return schemes.length ? `the card asks for ${schemes.join('; ')}` : 'give --bearer or --api-key';
};

/**
 * Refuses, before sending anything, to call an agent whose card requires a security scheme when no credential
 * is given (A2ACLI_ERR_CREDENTIALS_MISSING). A requirement with no scheme in it means anonymous calls are
 * fine too (as in OpenAPI), so only a card whose every requirement names a scheme requires one.
 */
export function requireCredentials(card: AgentCard, options: WireOptions): void {
  const requirements = card.securityRequirements ?? [];
  const required =
    requirements.length > 0 && requirements.every((r) => Object.keys(r.schemes ?? {}).length > 0);
  if (required && !sendsCredential(options))
    throw new CliError(
      'A2ACLI_ERR_CREDENTIALS_MISSING',
      `the agent requires credentials (${requirements
        .map((r) => Object.keys(r.schemes).join(' and '))
        .join(', or ')}) and none were given`,
      credentialHint(card),
    );
}

/**
 * `send` with the service parameters and the A2A version on every request; with `authErrors` (an agent's
 * requests), a 401 or 403 answer thrown as the CLI's authentication error: credentials missing when none
 * were sent, rejected when some were.
 */
export function wireFetch(
  send: typeof fetch,
  options: WireOptions,
  { version, authErrors = false, card }: { version: string; authErrors?: boolean; card?: AgentCard },
): typeof fetch {
  const params = svcParamsOf(options);
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [key, value] of params) headers.set(key, value);
    // the negotiated version, once the card is known, is set by the caller (agent.ts connect)
    if (!headers.has('A2A-Version')) headers.set('A2A-Version', version);
    const response = await send(input, { ...init, headers });
    if (authErrors && (response.status === 401 || response.status === 403)) {
      const body = await response.text().catch(() => '');
      const detail = body ? `: ${body.slice(0, 200)}` : '';
      if (!sendsCredential(options))
        throw new CliError(
          'A2ACLI_ERR_CREDENTIALS_MISSING',
          `the agent requires credentials (HTTP ${response.status})${detail}`,
          credentialHint(card),
          response.status,
        );
      throw new CliError(
        'A2ACLI_ERR_AUTH_FAILED',
        `the agent refused the credentials (HTTP ${response.status})${detail}`,
        'check the token or key, and that it grants this call',
        response.status,
      );
    }
    return response;
  };
}
