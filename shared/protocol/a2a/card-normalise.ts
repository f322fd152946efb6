/**
 * Accepting an agent card a tenant publishes to the registry (docs/registry.md): read it in either shape
 * A2A has had, check it, and hand back the one shape the registry keeps, A2A v1.0's AgentCard
 * (a2a-protocol digest §2.2). Pure: the caller fetched or received the card, and keeps the original
 * document beside the result (a card's signature covers the document as published, §2.5).
 *
 * Shapes (§1.5, §2.7):
 * - '1.0': a card with `supportedInterfaces`. A hybrid card also carries the v0.3 top-level fields
 *   (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`) for older clients: they are
 *   ignored, `supportedInterfaces` is the card's list of endpoints.
 * - '0.3': a card with `protocolVersion` "0.3" or "0.3.x" and `url` (no `supportedInterfaces`). `url` +
 *   `preferredTransport` (default JSONRPC) + `additionalInterfaces` become `supportedInterfaces` with
 *   `protocolVersion` "0.3".
 * Anything else is refused as not an A2A agent card.
 *
 * Whatever the shape, the fields v1.0 renamed are read in either form, the v1.0 one winning when both are
 * given (a2a-js serves v0.3-shaped security with v1.0 interfaces, and so does this hub's own v0.3 card):
 * a security scheme with a `type` is v0.3's OpenAPI-like form and becomes its oneof wrapper (`in` →
 * `location`); `security` becomes `securityRequirements` (`{schemes: {name: {list}}}`), on the card and
 * on each skill; `supportsAuthenticatedExtendedCard` becomes `capabilities.extendedAgentCard`;
 * `stateTransitionHistory` is dropped. `signatures` are kept as given.
 *
 * Leniency as ProtoJSON asks (§3.1): a null field is an absent one, proto snake_case names are accepted
 * (`supported_interfaces`), and fields A2A does not define are dropped from the normalised card (the
 * original document keeps them). Free-form values (`params`, a signature's `header`) are kept as given.
 *
 * Choices of the registry, beyond the protocol:
 * - every error is reported at once, each naming its field (`skills[2].tags: expected an array of
 *   strings`), up to CARD_LIMITS.maxErrors;
 * - the limits of CARD_LIMITS bound what one card may make the registry store and index;
 * - interface URLs are absolute http(s) URLs (`host:port` for gRPC, as §2.2 allows); the provider's,
 *   documentation and icon URLs are absolute http(s) URLs too (they end up as links in a catalog);
 * - an interface's `protocolVersion` keeps Major.Minor only (§1.2: a patch number must not be there);
 * - the core bindings are written as v1.0 spells them (`jsonrpc`, v0.3 `GRPC` … → `JSONRPC`, `GRPC`,
 *   `HTTP+JSON`); others are kept as given (open strings, §2.2);
 * - the HTTP auth schemes Basic, Bearer and Digest are written as IANA's registry spells them (they are
 *   case-insensitive, RFC 9110 §11.1; v0.3 cards commonly say `bearer`);
 * - a v0.3 scheme with several OAuth flows keeps one (v1.0's `flows` is a oneof): authorizationCode,
 *   else clientCredentials, else implicit, else password.
 */
import type { RegistryCard } from '../../domain/registry/record.ts';
import { findBoundsViolation, formatPath } from '../../validation/bounds.ts';
import { clip } from '../../validation/text.ts';
import * as z from '../../validation/zod.ts';

/** What one published card may be. */
export const CARD_LIMITS = {
  /** The card's JSON, in UTF-8 bytes. */
  maxCardBytes: 64 * 1024,
  maxSkills: 100,
  maxInterfaces: 16,
  /** Any string, in characters (UTF-16 code units), unless a tighter limit below says otherwise. */
  maxStringChars: 4096,
  /** The card's name, a skill's id and name, a security scheme's name. */
  maxNameChars: 256,
  maxTagsPerSkill: 32,
  maxExamplesPerSkill: 32,
  /** Media types in each of `defaultInputModes`, `defaultOutputModes`, a skill's `inputModes`, `outputModes`. */
  maxModes: 32,
  maxExtensions: 32,
  maxSecuritySchemes: 32,
  /** Requirements (alternatives) of the card or a skill; schemes in one requirement; scopes of a flow or requirement. */
  maxSecurityRequirements: 32,
  maxSchemesPerRequirement: 32,
  maxScopes: 64,
  maxSignatures: 8,
  /** Nesting of free-form values (an extension's `params`, a signature's `header`) below the card. */
  maxDepth: 16,
  /** Errors reported for one card; the rest are counted. */
  maxErrors: 50,
} as const;

export type CardShape = '1.0' | '0.3';

export type NormalisedCard =
  | { ok: true; card: RegistryCard; shape: CardShape }
  | { ok: false; errors: string[] };

// ---------------------------------------------------------------------------------------------------
// Messages

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a value is, for an error (never the value itself, beyond a short clipped string). */
const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'string':
      return `the string ${JSON.stringify(clip(v, 60))}`;
    case 'number':
      return `the number ${v}`;
    case 'boolean':
      return String(v);
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
};

/** A schema's own type error: `required` when absent, else what was expected and what came. */
const expected = (what: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? 'required' : `expected ${what}, got ${describe(issue.input)}`,
});

// ---------------------------------------------------------------------------------------------------
// Read before the schemas and after them

const camelToSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The core bindings as v1.0 spells them; v0.3's transport names are the same words (§1.5). */
const CORE_BINDINGS: Readonly<Record<string, string>> = {
  JSONRPC: 'JSONRPC',
  'JSON-RPC': 'JSONRPC',
  GRPC: 'GRPC',
  'HTTP+JSON': 'HTTP+JSON',
  'HTTP-JSON': 'HTTP+JSON',
  REST: 'HTTP+JSON',
};
const bindingOf = (value: string): string => CORE_BINDINGS[value.toUpperCase()] ?? value;

const majorMinor = (version: string): string => version.split('.').slice(0, 2).join('.');

type Requirement = { schemes: Record<string, { list: string[] }> };
const requirementsOf = (v03: Record<string, string[]>[]): Requirement[] =>
  v03.map((set) => ({
    schemes: Object.fromEntries(Object.entries(set).map(([name, list]) => [name, { list }])),
  }));

/**
 * The schemas, built on the first card read rather than when the module loads: the registry function
 * and the probe import this module at cold start, and most of their requests read no card.
 */
const buildSchemas = () => {
  // ---------------------------------------------------------------------------------------------------
  // Building blocks

  const text = (max: number = CARD_LIMITS.maxStringChars) =>
    z.string(expected('a string')).check(
      z.maxLength(max, {
        error: (issue) => `has ${(issue.input as string).length} characters; at most ${max} are accepted`,
      }),
    );

  const nonEmptyText = (max?: number) => text(max).check(z.minLength(1, 'must not be empty'));

  const flag = z.boolean(expected('a boolean (true or false)'));

  /**
   * A list of at most `max` items: the count is checked first, so a list over the limit is refused without
   * looking at its items; then each item.
   */
  const list = <T extends z.ZodMiniType>(item: T, what: string, max: number, min = 0) =>
    z.pipe(
      z.array(z.unknown(), expected(`an array of ${what}`)).check(
        z.maxLength(max, {
          error: (issue) =>
            `has ${(issue.input as unknown[]).length} items; at most ${max} ${what} are accepted`,
        }),
        z.minLength(min, `at least ${min} ${min === 1 ? what.replace(/s$/, '') : what} required`),
      ),
      z.array(item),
    );

  const stringList = (max: number, what = 'strings') => list(text(), what, max);

  /** A map with string keys of at most `maxKeys` entries (each key at most `maxKeyChars`). */
  const map = <T extends z.ZodMiniType>(value: T, what: string, maxKeys: number, maxKeyChars: number) =>
    z.record(z.string(), value, expected(`an object (a map of ${what})`)).check(
      z.superRefine((record: Record<string, unknown>, ctx) => {
        const keys = Object.keys(record);
        if (keys.length > maxKeys) {
          ctx.issues.push({
            code: 'custom',
            message: `has ${keys.length} entries; at most ${maxKeys} ${what} are accepted`,
            input: record,
          });
        }
        for (const key of keys) {
          if (key.length === 0 || key.length > maxKeyChars) {
            ctx.issues.push({
              code: 'custom',
              message: `a key must have 1 to ${maxKeyChars} characters`,
              input: key,
              path: [key],
            });
          }
        }
      }),
    );

  /** A free-form JSON object (google.protobuf.Struct), kept as given. */
  const struct = z.record(z.string(), z.unknown(), expected('an object'));

  /** Own data property even for keys like "__proto__" (plain assignment would replace the prototype). */
  const define = (o: Record<string, unknown>, key: string, value: unknown): void => {
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  };

  /**
   * A card object: null fields dropped (ProtoJSON: not set), proto snake_case names read as their
   * camelCase field, then the fields of `shape` validated and every other one dropped. `oneOf`: exactly
   * one of these members must be set (a proto oneof).
   */
  const obj = <S extends z.core.$ZodLooseShape>(
    shape: S,
    options: { what?: string; oneOf?: readonly string[] } = {},
  ) => {
    const aliases = new Map(
      Object.keys(shape)
        .map((key) => [camelToSnake(key), key] as const)
        .filter(([snake, key]) => snake !== key),
    );
    const prepare = z.transform((input: unknown, ctx) => {
      if (!isPlainObject(input)) return input;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(input)) {
        if (value === null) continue;
        const target = aliases.get(key) ?? key;
        if (target !== key && input[target] !== undefined && input[target] !== null) {
          ctx.issues.push({
            code: 'custom',
            message: `given both as "${target}" and as "${key}"; give it once`,
            input: value,
            path: [key],
          });
          continue;
        }
        if (Object.hasOwn(shape, target)) define(out, target, value);
      }
      const members = options.oneOf;
      if (members) {
        const present = members.filter((m) => out[m] !== undefined);
        if (present.length !== 1) {
          ctx.issues.push({
            code: 'custom',
            message: `expected exactly one of ${members.join(', ')}, got ${present.length === 0 ? 'none' : present.join(' and ')}`,
            input,
          });
        }
      }
      return out;
    });
    return z.pipe(prepare, z.object(shape, expected(options.what ?? 'an object')));
  };

  const opt = <T extends z.ZodMiniType>(t: T) => z.optional(t);

  // ---------------------------------------------------------------------------------------------------
  // URLs

  const isHttpUrl = (value: string): boolean => {
    if (/\s/.test(value) || !/^https?:\/\/[^/]/i.test(value)) return false;
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  };

  /** gRPC's `host:port` (a2a-protocol §2.2): a DNS name or address, and a port. */
  const isHostPort = (value: string): boolean => {
    const match = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?):(\d{1,5})$/i.exec(value);
    return match !== null && Number(match[3]) >= 1 && Number(match[3]) <= 65535;
  };

  const httpUrl = text().check(
    z.refine(isHttpUrl, {
      error: (issue) => `expected an absolute http(s) URL, got ${describe(issue.input)}`,
    }),
  );

  /**
   * An interface's `url`: an absolute http(s) URL, or `host:port` (gRPC's form). Checked on the field, so
   * it is reported whatever else is wrong; that `host:port` is for gRPC only is checked on the interface.
   */
  const endpointUrl = nonEmptyText().check(
    z.refine((url: string) => isHttpUrl(url) || isHostPort(url), {
      error: (issue) =>
        `expected an absolute http(s) URL (or host:port for gRPC), got ${describe(issue.input)}`,
    }),
  );

  /** Major.Minor, with an optional patch number (dropped, §1.2). */
  const interfaceVersion = nonEmptyText(32).check(
    z.regex(/^\d+\.\d+(\.\d+)?$/, {
      error: (issue) => `expected a protocol version such as "1.0" or "0.3", got ${describe(issue.input)}`,
    }),
  );

  /** A `host:port` endpoint on an interface whose binding is not gRPC (runs once the interface is valid). */
  const endpointCheck = (urlKey: string, bindingOf: (o: Record<string, unknown>) => string) =>
    z.superRefine((o: Record<string, unknown>, ctx) => {
      const url = o[urlKey];
      if (typeof url !== 'string' || !isHostPort(url) || bindingOf(o) === 'GRPC') return;
      ctx.issues.push({
        code: 'custom',
        message: `expected an absolute http(s) URL (host:port is for gRPC only), got ${describe(url)}`,
        input: url,
        path: [urlKey],
      });
    });

  // ---------------------------------------------------------------------------------------------------
  // Fields common to both shapes

  const AgentInterface = obj({
    url: endpointUrl,
    protocolBinding: nonEmptyText(256),
    protocolVersion: interfaceVersion,
    tenant: opt(text(256)),
  }).check(endpointCheck('url', (o) => bindingOf(String(o.protocolBinding ?? ''))));

  const AgentExtension = obj({
    uri: nonEmptyText(),
    description: opt(text()),
    required: opt(flag),
    params: opt(struct),
  });

  const Capabilities = obj({
    streaming: opt(flag),
    pushNotifications: opt(flag),
    extendedAgentCard: opt(flag),
    extensions: opt(list(AgentExtension, 'extensions', CARD_LIMITS.maxExtensions)),
    // v0.3 only, removed in v1.0: read (so a wrong type is still named) and dropped
    stateTransitionHistory: opt(flag),
  });

  const scopes = map(text(), 'scopes', CARD_LIMITS.maxScopes, CARD_LIMITS.maxStringChars);

  /** v1.0 SecurityRequirement: `{schemes: {name: {list: [scope]}}}`. */
  const SecurityRequirement = obj({
    schemes: map(
      obj({ list: stringList(CARD_LIMITS.maxScopes, 'scopes') }),
      'schemes',
      CARD_LIMITS.maxSchemesPerRequirement,
      CARD_LIMITS.maxNameChars,
    ),
  });
  /** v0.3 `security`: `{name: [scope]}`. */
  const V03SecurityRequirement = map(
    stringList(CARD_LIMITS.maxScopes, 'scopes'),
    'schemes',
    CARD_LIMITS.maxSchemesPerRequirement,
    CARD_LIMITS.maxNameChars,
  );
  const securityRequirements = list(
    SecurityRequirement,
    'security requirements',
    CARD_LIMITS.maxSecurityRequirements,
  );
  const v03Security = list(
    V03SecurityRequirement,
    'security requirements',
    CARD_LIMITS.maxSecurityRequirements,
  );

  // OAuth flows: v1.0 a oneof; v0.3 OpenAPI's object of optional flows
  const flowShapes = {
    authorizationCode: { authorizationUrl: httpUrl, tokenUrl: httpUrl, refreshUrl: opt(httpUrl), scopes },
    clientCredentials: { tokenUrl: httpUrl, refreshUrl: opt(httpUrl), scopes },
    implicit: { authorizationUrl: httpUrl, refreshUrl: opt(httpUrl), scopes },
    password: { tokenUrl: httpUrl, refreshUrl: opt(httpUrl), scopes },
  };
  const OAuthFlows = obj(
    {
      authorizationCode: opt(obj({ ...flowShapes.authorizationCode, pkceRequired: opt(flag) })),
      clientCredentials: opt(obj(flowShapes.clientCredentials)),
      deviceCode: opt(
        obj({ deviceAuthorizationUrl: httpUrl, tokenUrl: httpUrl, refreshUrl: opt(httpUrl), scopes }),
      ),
      implicit: opt(obj(flowShapes.implicit)),
      password: opt(obj(flowShapes.password)),
    },
    { oneOf: ['authorizationCode', 'clientCredentials', 'deviceCode', 'implicit', 'password'] },
  );
  const V03_FLOW_ORDER = ['authorizationCode', 'clientCredentials', 'implicit', 'password'] as const;
  const V03OAuthFlows = obj({
    authorizationCode: opt(obj(flowShapes.authorizationCode)),
    clientCredentials: opt(obj(flowShapes.clientCredentials)),
    implicit: opt(obj(flowShapes.implicit)),
    password: opt(obj(flowShapes.password)),
  }).check(
    z.refine((flows: Record<string, unknown>) => V03_FLOW_ORDER.some((f) => flows[f] !== undefined), {
      error: `expected at least one of ${V03_FLOW_ORDER.join(', ')}`,
    }),
  );

  const IANA_AUTH_SCHEMES: Readonly<Record<string, string>> = {
    basic: 'Basic',
    bearer: 'Bearer',
    digest: 'Digest',
  };
  const authScheme = (scheme: string): string => IANA_AUTH_SCHEMES[scheme.toLowerCase()] ?? scheme;

  const description = { description: opt(text()) };
  const apiKeyLocation = z.enum(['header', 'query', 'cookie'], {
    error: (issue) =>
      issue.input === undefined
        ? 'required'
        : `expected "header", "query" or "cookie", got ${describe(issue.input)}`,
  });

  const V1_SCHEMES = [
    'apiKeySecurityScheme',
    'httpAuthSecurityScheme',
    'oauth2SecurityScheme',
    'openIdConnectSecurityScheme',
    'mtlsSecurityScheme',
  ] as const;
  const V1SecurityScheme = obj(
    {
      apiKeySecurityScheme: opt(obj({ ...description, location: apiKeyLocation, name: nonEmptyText(256) })),
      httpAuthSecurityScheme: opt(
        obj({ ...description, scheme: nonEmptyText(256), bearerFormat: opt(text(256)) }),
      ),
      oauth2SecurityScheme: opt(obj({ ...description, flows: OAuthFlows, oauth2MetadataUrl: opt(httpUrl) })),
      openIdConnectSecurityScheme: opt(obj({ ...description, openIdConnectUrl: httpUrl })),
      mtlsSecurityScheme: opt(obj({ ...description })),
    },
    { oneOf: V1_SCHEMES },
  );

  const V03_SCHEME_TYPES = {
    apiKey: obj({ ...description, in: apiKeyLocation, name: nonEmptyText(256) }),
    http: obj({ ...description, scheme: nonEmptyText(256), bearerFormat: opt(text(256)) }),
    oauth2: obj({ ...description, flows: V03OAuthFlows, oauth2MetadataUrl: opt(httpUrl) }),
    openIdConnect: obj({ ...description, openIdConnectUrl: httpUrl }),
    mutualTLS: obj({ ...description }),
  } as const;
  type V03SchemeType = keyof typeof V03_SCHEME_TYPES;

  type Described = { description?: string };
  const withDescription = (d: Described) =>
    d.description !== undefined ? { description: d.description } : {};

  /** A v0.3 scheme, validated, as its v1.0 oneof wrapper. */
  const upgradeScheme = (type: V03SchemeType, s: Record<string, unknown>): Record<string, unknown> => {
    switch (type) {
      case 'apiKey':
        return { apiKeySecurityScheme: { ...withDescription(s), location: s.in, name: s.name } };
      case 'http':
        return {
          httpAuthSecurityScheme: {
            ...withDescription(s),
            scheme: authScheme(String(s.scheme)),
            ...(s.bearerFormat !== undefined ? { bearerFormat: s.bearerFormat } : {}),
          },
        };
      case 'oauth2': {
        const flows = s.flows as Record<string, unknown>;
        const kept = V03_FLOW_ORDER.find((f) => flows[f] !== undefined) as string;
        return {
          oauth2SecurityScheme: {
            ...withDescription(s),
            flows: { [kept]: flows[kept] },
            ...(s.oauth2MetadataUrl !== undefined ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
          },
        };
      }
      case 'openIdConnect':
        return {
          openIdConnectSecurityScheme: { ...withDescription(s), openIdConnectUrl: s.openIdConnectUrl },
        };
      case 'mutualTLS':
        return { mtlsSecurityScheme: { ...withDescription(s) } };
    }
  };

  /** Re-reports a nested parse's issues where they are (paths relative to the value being parsed). */
  const forward = (
    issues: readonly z.core.$ZodIssue[],
    ctx: { issues: unknown[] },
    prefix: PropertyKey[] = [],
  ) => {
    for (const issue of issues) {
      ctx.issues.push({
        code: 'custom',
        message: issue.message,
        input: issue.input,
        path: [...prefix, ...issue.path],
      });
    }
  };

  /** A security scheme in either form: v0.3's `type`-discriminated object becomes v1.0's oneof wrapper. */
  const SecurityScheme = z.pipe(
    z.unknown(),
    z.transform((value: unknown, ctx): Record<string, unknown> => {
      if (isPlainObject(value) && value.type !== undefined && value.type !== null) {
        const type = value.type;
        if (typeof type !== 'string' || !Object.hasOwn(V03_SCHEME_TYPES, type)) {
          ctx.issues.push({
            code: 'custom',
            message: `expected one of ${Object.keys(V03_SCHEME_TYPES).join(', ')} (an A2A v0.3 scheme), got ${describe(type)}`,
            input: type,
            path: ['type'],
          });
          return z.NEVER;
        }
        const parsed = V03_SCHEME_TYPES[type as V03SchemeType].safeParse(value);
        if (!parsed.success) {
          forward(parsed.error.issues, ctx);
          return z.NEVER;
        }
        return upgradeScheme(type as V03SchemeType, parsed.data as Record<string, unknown>);
      }
      const parsed = V1SecurityScheme.safeParse(value);
      if (!parsed.success) {
        forward(parsed.error.issues, ctx);
        return z.NEVER;
      }
      // the schemes' own fields, as v1.0 spells an HTTP auth scheme
      const scheme = parsed.data as Record<string, Record<string, unknown> | undefined>;
      const http = scheme.httpAuthSecurityScheme;
      if (http) return { httpAuthSecurityScheme: { ...http, scheme: authScheme(String(http.scheme)) } };
      return scheme as Record<string, unknown>;
    }),
  );

  const Skill = obj({
    id: nonEmptyText(CARD_LIMITS.maxNameChars),
    name: nonEmptyText(CARD_LIMITS.maxNameChars),
    description: text(),
    tags: stringList(CARD_LIMITS.maxTagsPerSkill),
    examples: opt(stringList(CARD_LIMITS.maxExamplesPerSkill)),
    inputModes: opt(stringList(CARD_LIMITS.maxModes, 'media types')),
    outputModes: opt(stringList(CARD_LIMITS.maxModes, 'media types')),
    securityRequirements: opt(securityRequirements),
    security: opt(v03Security),
  });

  const Signature = obj({ protected: nonEmptyText(), signature: nonEmptyText(), header: opt(struct) });

  const commonFields = {
    name: nonEmptyText(CARD_LIMITS.maxNameChars),
    description: text(),
    provider: opt(obj({ organization: nonEmptyText(), url: httpUrl })),
    version: nonEmptyText(256),
    documentationUrl: opt(httpUrl),
    iconUrl: opt(httpUrl),
    capabilities: Capabilities,
    securitySchemes: opt(
      map(SecurityScheme, 'security schemes', CARD_LIMITS.maxSecuritySchemes, CARD_LIMITS.maxNameChars),
    ),
    securityRequirements: opt(securityRequirements),
    security: opt(v03Security),
    supportsAuthenticatedExtendedCard: opt(flag),
    defaultInputModes: stringList(CARD_LIMITS.maxModes, 'media types'),
    defaultOutputModes: stringList(CARD_LIMITS.maxModes, 'media types'),
    skills: list(Skill, 'skills', CARD_LIMITS.maxSkills),
    signatures: opt(list(Signature, 'signatures', CARD_LIMITS.maxSignatures)),
  };

  const V1Card = obj({
    ...commonFields,
    supportedInterfaces: list(AgentInterface, 'interfaces', CARD_LIMITS.maxInterfaces, 1),
  });

  const V03Interface = obj({ url: endpointUrl, transport: nonEmptyText(256) }).check(
    endpointCheck('url', (o) => bindingOf(String(o.transport ?? ''))),
  );
  const V03Card = obj({
    ...commonFields,
    protocolVersion: text(32),
    url: endpointUrl,
    preferredTransport: opt(nonEmptyText(256)),
    // v0.3 lists the main interface here again (its spec says SHOULD); counted with it against the limit
    additionalInterfaces: opt(list(V03Interface, 'interfaces', CARD_LIMITS.maxInterfaces)),
  }).check(endpointCheck('url', (o) => bindingOf(String(o.preferredTransport ?? 'JSONRPC'))));

  return { V1Card, V03Card };
};

let schemas: ReturnType<typeof buildSchemas> | undefined;
const cardSchemas = () => {
  schemas ??= buildSchemas();
  return schemas;
};

type Schemas = ReturnType<typeof buildSchemas>;
type Parsed<T extends z.ZodMiniType> = z.output<T>;
type CommonParsed = Parsed<Schemas['V1Card']>;

// ---------------------------------------------------------------------------------------------------
// The normalised card

const present = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

type Interface = RegistryCard['supportedInterfaces'][number];

const buildCard = (
  card: Omit<CommonParsed, 'supportedInterfaces'>,
  interfaces: Interface[],
): RegistryCard => {
  const caps = card.capabilities;
  const extendedAgentCard = caps.extendedAgentCard ?? card.supportsAuthenticatedExtendedCard;
  const requirements =
    card.securityRequirements ?? (card.security ? requirementsOf(card.security) : undefined);
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: interfaces,
    ...present('provider', card.provider),
    version: card.version,
    ...present('documentationUrl', card.documentationUrl),
    capabilities: {
      ...present('streaming', caps.streaming),
      ...present('pushNotifications', caps.pushNotifications),
      // an empty repeated field is unset in ProtoJSON
      ...(caps.extensions?.length ? { extensions: caps.extensions } : {}),
      ...present('extendedAgentCard', extendedAgentCard),
    },
    ...present('securitySchemes', card.securitySchemes),
    ...present('securityRequirements', requirements),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => {
      const skillRequirements =
        s.securityRequirements ?? (s.security ? requirementsOf(s.security) : undefined);
      return {
        id: s.id,
        name: s.name,
        description: s.description,
        tags: s.tags,
        ...present('examples', s.examples),
        ...present('inputModes', s.inputModes),
        ...present('outputModes', s.outputModes),
        ...present('securityRequirements', skillRequirements),
      };
    }),
    ...present('signatures', card.signatures),
    ...present('iconUrl', card.iconUrl),
  };
};

/** v0.3's endpoints as v1.0 interfaces: the main one first (preferred), the additional ones once each. */
const v03Interfaces = (card: Parsed<Schemas['V03Card']>): Interface[] => {
  const all = [
    { url: card.url, binding: card.preferredTransport ?? 'JSONRPC' },
    ...(card.additionalInterfaces ?? []).map((i) => ({ url: i.url, binding: i.transport })),
  ];
  const seen = new Set<string>();
  const out: Interface[] = [];
  for (const { url, binding } of all) {
    const protocolBinding = bindingOf(binding);
    const key = `${protocolBinding} ${url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ url, protocolBinding, protocolVersion: '0.3' });
  }
  return out;
};

const errorsOf = (issues: readonly z.core.$ZodIssue[]): string[] => {
  const lines = [...new Set(issues.map((i) => `${formatPath(i.path, 'card', 64, 256)}: ${i.message}`))];
  const max = CARD_LIMITS.maxErrors;
  return lines.length <= max ? lines : [...lines.slice(0, max), `… and ${lines.length - max} more errors`];
};

const notACard = (why: string): NormalisedCard => ({ ok: false, errors: [`not an A2A agent card: ${why}`] });

const V03_VERSION = /^0\.3(\.\d+)?$/;

/**
 * A published card (the parsed JSON document) as the registry keeps it, and the shape it came in; or
 * every reason it is refused, each naming its field.
 */
export function normaliseCard(raw: unknown): NormalisedCard {
  if (!isPlainObject(raw)) return notACard(`expected a JSON object, got ${describe(raw)}`);

  // iterative, before anything recursive (JSON.stringify, the schemas) sees the document
  const deep = findBoundsViolation(raw, {
    maxDepth: CARD_LIMITS.maxDepth,
    maxArrayItems: CARD_LIMITS.maxCardBytes,
    nonFinite: 'is a number JSON cannot carry',
  });
  if (deep) return { ok: false, errors: [`${formatPath(deep.path, 'card', 64, 256)}: ${deep.description}`] };
  const bytes = Buffer.byteLength(JSON.stringify(raw));
  if (bytes > CARD_LIMITS.maxCardBytes) {
    return {
      ok: false,
      errors: [`card: is ${bytes} bytes of JSON; at most ${CARD_LIMITS.maxCardBytes} are accepted`],
    };
  }

  const field = (name: string) => raw[name] ?? raw[camelToSnake(name)];
  if (field('supportedInterfaces') !== undefined && field('supportedInterfaces') !== null) {
    const parsed = cardSchemas().V1Card.safeParse(raw);
    if (!parsed.success) return { ok: false, errors: errorsOf(parsed.error.issues) };
    const interfaces = parsed.data.supportedInterfaces.map((i) => ({
      url: i.url,
      protocolBinding: bindingOf(i.protocolBinding),
      protocolVersion: majorMinor(i.protocolVersion),
      ...present('tenant', i.tenant),
    }));
    return { ok: true, card: buildCard(parsed.data, interfaces), shape: '1.0' };
  }

  const version = field('protocolVersion');
  if (typeof version === 'string' && V03_VERSION.test(version)) {
    const parsed = cardSchemas().V03Card.safeParse(raw);
    if (!parsed.success) return { ok: false, errors: errorsOf(parsed.error.issues) };
    return { ok: true, card: buildCard(parsed.data, v03Interfaces(parsed.data)), shape: '0.3' };
  }
  if (version !== undefined && version !== null) {
    return notACard(
      `protocolVersion ${describe(version)} is not one the registry reads (A2A v1.0 cards list supportedInterfaces; v0.3 cards say "0.3.x")`,
    );
  }
  return notACard('it has neither supportedInterfaces (A2A v1.0) nor protocolVersion "0.3.x" (A2A v0.3)');
}
