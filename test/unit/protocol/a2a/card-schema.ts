/**
 * Strict schemas of the A2A agent card, written from the protocol (a2a.proto's AgentCard and its
 * security schemes) and not from our code: every object
 * is strict (an unknown field anywhere fails), every REQUIRED field is required.
 * `V03AgentCardSchema` checks the v0.3 card's own fields (it stays open: our v0.3
 * card also carries `supportedInterfaces` for v1.0 clients).
 */
import * as z from '../../../../shared/validation/zod.ts';

const str = z.string();
const opt = <T extends z.ZodMiniType>(t: T) => z.optional(t);
const stringList = z.array(str);
const struct = z.record(z.string(), z.unknown());
/** Exactly one member of a oneof set. */
const oneOf = (members: Record<string, z.ZodMiniType>) =>
  z
    .strictObject(Object.fromEntries(Object.entries(members).map(([k, v]) => [k, opt(v)])))
    .check(
      z.refine(
        (o) => Object.values(o).filter((v) => v !== undefined).length === 1,
        `exactly one of ${Object.keys(members).join(', ')}`,
      ),
    );

/** Only Major.Minor on the wire (as `A2A-Version` carries it). */
const protocolVersion = str.check(z.regex(/^\d+\.\d+$/));

export const AgentInterfaceSchema = z.strictObject({
  url: z.url(),
  protocolBinding: str.check(z.minLength(1)),
  protocolVersion,
  tenant: opt(str),
});

export const AgentProviderSchema = z.strictObject({ url: str, organization: str });

export const AgentExtensionSchema = z.strictObject({
  uri: str,
  description: opt(str),
  required: opt(z.boolean()),
  params: opt(struct),
});

export const AgentCapabilitiesSchema = z.strictObject({
  streaming: opt(z.boolean()),
  pushNotifications: opt(z.boolean()),
  extensions: opt(z.array(AgentExtensionSchema)),
  extendedAgentCard: opt(z.boolean()),
});

export const SecurityRequirementSchema = z.strictObject({
  schemes: z.record(z.string(), z.strictObject({ list: stringList })),
});

const scopes = z.record(z.string(), str);
const OAuthFlowsSchema = oneOf({
  authorizationCode: z.strictObject({
    authorizationUrl: str,
    tokenUrl: str,
    refreshUrl: opt(str),
    scopes,
    pkceRequired: opt(z.boolean()),
  }),
  clientCredentials: z.strictObject({ tokenUrl: str, refreshUrl: opt(str), scopes }),
  deviceCode: z.strictObject({ deviceAuthorizationUrl: str, tokenUrl: str, refreshUrl: opt(str), scopes }),
  implicit: z.strictObject({ authorizationUrl: str, refreshUrl: opt(str), scopes }),
  password: z.strictObject({ tokenUrl: str, refreshUrl: opt(str), scopes }),
});

export const SecuritySchemeSchema = oneOf({
  apiKeySecurityScheme: z.strictObject({
    description: opt(str),
    location: z.enum(['header', 'query', 'cookie']),
    name: str,
  }),
  httpAuthSecurityScheme: z.strictObject({ description: opt(str), scheme: str, bearerFormat: opt(str) }),
  oauth2SecurityScheme: z.strictObject({
    description: opt(str),
    flows: OAuthFlowsSchema,
    oauth2MetadataUrl: opt(str),
  }),
  openIdConnectSecurityScheme: z.strictObject({ description: opt(str), openIdConnectUrl: str }),
  mtlsSecurityScheme: z.strictObject({ description: opt(str) }),
});

export const AgentSkillSchema = z.strictObject({
  id: str,
  name: str,
  description: str,
  tags: stringList,
  examples: opt(stringList),
  inputModes: opt(stringList),
  outputModes: opt(stringList),
  securityRequirements: opt(z.array(SecurityRequirementSchema)),
});

export const AgentCardSignatureSchema = z.strictObject({
  protected: str,
  signature: str,
  header: opt(struct),
});

/** The v1.0 AgentCard: these fields and no others. */
export const V1AgentCardSchema = z.strictObject({
  name: str,
  description: str,
  supportedInterfaces: z.array(AgentInterfaceSchema).check(z.minLength(1)),
  provider: opt(AgentProviderSchema),
  version: str,
  documentationUrl: opt(str),
  capabilities: AgentCapabilitiesSchema,
  securitySchemes: opt(z.record(z.string(), SecuritySchemeSchema)),
  securityRequirements: opt(z.array(SecurityRequirementSchema)),
  defaultInputModes: stringList,
  defaultOutputModes: stringList,
  skills: z.array(AgentSkillSchema),
  signatures: opt(z.array(AgentCardSignatureSchema)),
  iconUrl: opt(str),
});

/** The v0.3 card's own required fields (url, preferredTransport, card-level protocolVersion: v1.0 dropped them). */
export const V03AgentCardSchema = z.object({
  protocolVersion: z.literal('0.3.0'),
  name: str,
  description: str,
  url: z.url(),
  preferredTransport: z.literal('JSONRPC'),
  version: str,
  capabilities: z.object({
    streaming: opt(z.boolean()),
    pushNotifications: opt(z.boolean()),
    stateTransitionHistory: opt(z.boolean()),
    extensions: opt(z.array(AgentExtensionSchema)),
  }),
  defaultInputModes: stringList,
  defaultOutputModes: stringList,
  skills: z.array(z.object({ id: str, name: str, description: str, tags: stringList })),
  supportsAuthenticatedExtendedCard: opt(z.boolean()),
});

/** Parse `card` strictly; on failure the assertion message lists every issue with its path. */
export const parseStrict = <T extends z.ZodMiniType>(schema: T, card: unknown): z.output<T> => {
  const r = schema.safeParse(card);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`);
  throw new Error(`the card does not match the schema:\n  ${issues.join('\n  ')}`);
};
