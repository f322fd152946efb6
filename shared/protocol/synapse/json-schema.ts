/**
 * JSON Schemas (draft 2020-12) of the envelope, of every payload and of whole messages, generated
 * from the zod schemas the hub validates with (zod's toJSONSchema, input side: what a sender may
 * write), so the published schemas and the checks cannot drift apart. `npx tsx scripts/synapse-schemas.ts`
 * writes them to docs/synapse-schemas/; the future `/synapse/schemas` route can serve these.
 *
 * Kept apart from the parser: only code that publishes schemas pays for the generator.
 */
import * as z from '../../validation/zod.ts';
import { SYNAPSE_PROTOCOL_VERSION } from './compose.ts';
import { messageSchemaOf, SynapseEnvelopeSchema, synapseMessageSchema } from './envelope.ts';
import {
  MESSAGE_TYPES,
  PAYLOAD_SCHEMAS,
  SYNAPSE_MESSAGE_TYPES,
  type SynapseMessageType,
} from './payloads.ts';

export type JsonSchema = Record<string, unknown>;

export interface SynapseJsonSchemas {
  /** The envelope, its payload any object (checked before the payload: message_format_invalid). */
  envelope: JsonSchema;
  /** Any whole message: one of `messages`, chosen by `type`. */
  message: JsonSchema;
  /** The payload of each type (invalid_params). */
  payloads: Record<SynapseMessageType, JsonSchema>;
  /** The whole message of each type: the envelope with that type's payload. */
  messages: Record<SynapseMessageType, JsonSchema>;
}

const generate = (schema: z.ZodMiniType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', unrepresentable: 'throw' }) as JsonSchema;

/** `task_request` for `p2p:task_request`: the file-name-safe name of a type. */
export const shortName = (type: SynapseMessageType): string => type.slice('p2p:'.length);

const titled = (title: string, description: string, schema: JsonSchema): JsonSchema => {
  const { $schema, ...rest } = schema;
  return { $schema, title, description, ...rest };
};

export function synapseJsonSchemas(): SynapseJsonSchemas {
  const v = SYNAPSE_PROTOCOL_VERSION;
  const envelope = titled(
    `Synapse P2P ${v} envelope`,
    'The envelope of every p2p:* message; its payload is checked by the schema of its type.',
    generate(SynapseEnvelopeSchema),
  );
  const properties = envelope.properties as Record<string, JsonSchema>;
  properties.payload = { type: 'object', description: 'The payload of the message type (payloads/<type>).' };
  const payloads = {} as Record<SynapseMessageType, JsonSchema>;
  const messages = {} as Record<SynapseMessageType, JsonSchema>;
  for (const type of SYNAPSE_MESSAGE_TYPES) {
    const { description } = MESSAGE_TYPES[type];
    payloads[type] = titled(`${type} payload`, description, generate(PAYLOAD_SCHEMAS[type]));
    messages[type] = titled(`${type} message`, description, generate(messageSchemaOf(type)));
  }
  const message = titled(
    `Synapse P2P ${v} message`,
    'Any p2p:* message: the envelope with the payload of its type.',
    generate(synapseMessageSchema()),
  );
  return { envelope, message, payloads, messages };
}

/**
 * The files scripts/synapse-schemas.ts writes, by path under docs/synapse-schemas/: the envelope,
 * any message (it holds every type's whole message), and each payload.
 */
export function synapseSchemaFiles(): Record<string, JsonSchema> {
  const { envelope, message, payloads } = synapseJsonSchemas();
  const files: Record<string, JsonSchema> = { 'envelope.json': envelope, 'message.json': message };
  for (const type of SYNAPSE_MESSAGE_TYPES) files[`payloads/${shortName(type)}.json`] = payloads[type];
  return files;
}

let byName: Readonly<Record<string, JsonSchema>> | undefined;

/**
 * The schemas as `GET /synapse/schemas/{name}` serves them: `index.json` (what there is), `envelope.json`,
 * `message.json` and `<type>.json` (a payload, e.g. `task_request.json`); undefined for any other name.
 */
export function synapseSchemaByName(name: string, basePath: string): JsonSchema | undefined {
  if (!byName) {
    const files = synapseSchemaFiles();
    const named: Record<string, JsonSchema> = {
      'envelope.json': files['envelope.json']!,
      'message.json': files['message.json']!,
    };
    for (const type of SYNAPSE_MESSAGE_TYPES)
      named[`${shortName(type)}.json`] = files[`payloads/${shortName(type)}.json`]!;
    named['index.json'] = {
      schemas: Object.keys(named).map((n) => `${basePath}/${n}`),
      payloads: Object.fromEntries(SYNAPSE_MESSAGE_TYPES.map((t) => [t, `${basePath}/${shortName(t)}.json`])),
    };
    byName = named;
  }
  return Object.hasOwn(byName, name) ? byName[name] : undefined;
}
