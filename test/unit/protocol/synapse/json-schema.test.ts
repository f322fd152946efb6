/**
 * The published JSON Schemas (docs/synapse-schemas/, generated from the zod schemas).
 *
 * No JSON Schema validator is installed (no ajv in node_modules), so their structure is asserted:
 * the keywords used are exactly the small set below, every string and list is bounded, the required
 * fields are the documented ones, and a walk of that keyword set over the examples (`conforms`,
 * test-only, not a general validator: `format` is an annotation, as in draft 2020-12) accepts every
 * example and refuses the malformed ones, agreeing with the parser.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { staleSchemaFiles } from '../../../../scripts/synapse-schemas.ts';
import {
  MESSAGE_TYPES,
  parseSynapseMessage,
  SYNAPSE_MESSAGE_TYPES,
  type SynapseMessageType,
} from '../../../../shared/protocol/synapse/index.ts';
import {
  type JsonSchema,
  synapseJsonSchemas,
  synapseSchemaFiles,
} from '../../../../shared/protocol/synapse/json-schema.ts';
import { EXAMPLES, envelopeOf } from './examples.ts';

const schemas = synapseJsonSchemas();

const KEYWORDS = new Set([
  '$schema',
  'title',
  'description',
  'type',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'const',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
]);

/** Every subschema of `schema`, with its path. */
function* subschemas(schema: JsonSchema, path = '#'): Generator<[string, JsonSchema]> {
  yield [path, schema];
  for (const [key, value] of Object.entries(schema.properties ?? {})) {
    yield* subschemas(value as JsonSchema, `${path}/properties/${key}`);
  }
  if (schema.items) yield* subschemas(schema.items as JsonSchema, `${path}/items`);
  for (const k of ['anyOf', 'oneOf'] as const) {
    for (const [i, s] of ((schema[k] ?? []) as JsonSchema[]).entries())
      yield* subschemas(s, `${path}/${k}/${i}`);
  }
}

const typeOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** The reasons `value` does not conform to `schema` (empty: it conforms), for the keywords above. */
function conforms(schema: JsonSchema, value: unknown, path = '$'): string[] {
  const out: string[] = [];
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[];
    const ok = types.includes(t) || (types.includes('number') && t === 'integer');
    if (!ok) return [`${path}: expected ${types.join(' or ')}, got ${t}`];
  }
  if ('const' in schema && schema.const !== value)
    out.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) out.push(`${path}: not in enum`);
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) out.push(`${path}: too short`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) out.push(`${path}: too long`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
      out.push(`${path}: does not match ${schema.pattern}`);
    }
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) out.push(`${path}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) out.push(`${path}: above maximum`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      out.push(`${path}: too few items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      out.push(`${path}: too many items`);
    if (schema.items) {
      for (const [i, v] of value.entries())
        out.push(...conforms(schema.items as JsonSchema, v, `${path}[${i}]`));
    }
  }
  if (t === 'object') {
    const o = value as Record<string, unknown>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!Object.hasOwn(o, key)) out.push(`${path}.${key}: required`);
    }
    for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      if (Object.hasOwn(o, key)) out.push(...conforms(sub, o[key], `${path}.${key}`));
    }
  }
  if (schema.anyOf) {
    const branches = (schema.anyOf as JsonSchema[]).map((s) => conforms(s, value, path));
    if (!branches.some((b) => b.length === 0)) out.push(...(branches[0] ?? []));
  }
  if (schema.oneOf) {
    const matching = (schema.oneOf as JsonSchema[]).filter((s) => conforms(s, value, path).length === 0);
    if (matching.length !== 1) out.push(`${path}: matches ${matching.length} of oneOf`);
  }
  return out;
}

const parserAccepts = (type: SynapseMessageType, payload: unknown): boolean =>
  parseSynapseMessage(envelopeOf(type, payload)).ok;

describe('the published JSON Schemas', () => {
  it('are the committed files in docs/synapse-schemas (run scripts/synapse-schemas.ts when they differ)', () => {
    assert.deepEqual(staleSchemaFiles(), []);
    assert.equal(Object.keys(synapseSchemaFiles()).length, 2 + 17);
  });

  it('are draft 2020-12, titled, and use only the keywords checked here', () => {
    const all: JsonSchema[] = [
      schemas.envelope,
      schemas.message,
      ...Object.values(schemas.payloads),
      ...Object.values(schemas.messages),
    ];
    for (const schema of all) {
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(typeof schema.title, 'string');
      for (const [path, sub] of subschemas(schema)) {
        for (const key of Object.keys(sub)) assert.ok(KEYWORDS.has(key), `${schema.title} ${path}: ${key}`);
      }
    }
  });

  it('bound every string and every list', () => {
    for (const schema of [schemas.envelope, ...Object.values(schemas.payloads)]) {
      for (const [path, sub] of subschemas(schema)) {
        if (sub.type === 'string' && sub.enum === undefined && sub.const === undefined) {
          assert.equal(typeof sub.maxLength, 'number', `${schema.title} ${path}: unbounded string`);
        }
        if (sub.type === 'array')
          assert.equal(typeof sub.maxItems, 'number', `${schema.title} ${path}: unbounded list`);
      }
    }
  });

  it('the envelope: its fields, those required, the types and versions it accepts', () => {
    const e = schemas.envelope;
    assert.deepEqual(Object.keys(e.properties as object), [
      'protocol_version',
      'type',
      'message_id',
      'task_id',
      'sender',
      'recipient',
      'timestamp',
      'correlation_id',
      'reply_to',
      'payload',
    ]);
    assert.deepEqual(e.required, [
      'protocol_version',
      'type',
      'message_id',
      'sender',
      'timestamp',
      'payload',
    ]);
    const props = e.properties as Record<string, JsonSchema>;
    assert.deepEqual(props.type?.enum, [...SYNAPSE_MESSAGE_TYPES]);
    assert.deepEqual((props.sender as JsonSchema).required, ['agent_id', 'endpoint']);
    assert.equal(props.message_id?.maxLength, 128);
    for (const type of SYNAPSE_MESSAGE_TYPES) assert.deepEqual(conforms(e, envelopeOf(type)), [], type);
    assert.notDeepEqual(conforms(e, envelopeOf('p2p:ack', {}, { protocol_version: '2.0' })), []);
    assert.notDeepEqual(conforms(e, envelopeOf('p2p:ack', {}, { type: 'p2p:task_progress' })), []);
    assert.notDeepEqual(conforms(e, envelopeOf('p2p:ack', {}, { message_id: 'msg.1' })), []);
    assert.notDeepEqual(conforms(e, envelopeOf('p2p:ack', [])), []);
    assert.notDeepEqual(conforms(e, []), []);
  });

  it('the given payloads require what the protocol’s examples show as essential', () => {
    const required = (t: SynapseMessageType) => schemas.payloads[t].required;
    assert.deepEqual(required('p2p:task_request'), ['task']);
    assert.deepEqual(required('p2p:task_confirm'), ['task_id', 'confirmed']);
    assert.deepEqual(required('p2p:task_reject'), ['task_id', 'reason']);
    assert.deepEqual(required('p2p:task_need_info'), ['task_id', 'missing_fields']);
    assert.deepEqual(required('p2p:task_status_update'), ['task_id', 'status']);
    assert.deepEqual(required('p2p:task_complete'), ['task_id', 'result']);
    assert.deepEqual(required('p2p:task_failed'), ['task_id', 'error']);
    assert.deepEqual(required('p2p:task_need_human'), ['task_id', 'reason']);
    assert.deepEqual(required('p2p:human_decision'), ['task_id', 'decision_id', 'decided_by', 'decision']);
  });

  it('every payload schema accepts its example; every message schema the whole message', () => {
    for (const type of SYNAPSE_MESSAGE_TYPES) {
      assert.deepEqual(conforms(schemas.payloads[type], EXAMPLES[type]), [], type);
      assert.deepEqual(conforms(schemas.messages[type], envelopeOf(type)), [], type);
      assert.deepEqual(conforms(schemas.message, envelopeOf(type)), [], `${type} in message.json`);
    }
  });

  it('a message schema requires task_id when its type concerns a task', () => {
    for (const type of SYNAPSE_MESSAGE_TYPES) {
      const required = schemas.messages[type].required as string[];
      assert.equal(required.includes('task_id'), MESSAGE_TYPES[type].taskScoped, type);
    }
    assert.notDeepEqual(
      conforms(schemas.message, envelopeOf('p2p:task_cancel', undefined, { task_id: undefined })),
      [],
    );
  });

  it('refuse the malformed payloads the parser refuses, and accept what it accepts', () => {
    const cases: Array<[SynapseMessageType, unknown]> = [
      ['p2p:task_request', { task: { id: 'task-xxx' } }],
      ['p2p:task_request', { task: { id: 'task-xxx', type: '' } }],
      ['p2p:task_request', { task: { id: 'task-xxx', type: 'x', deadline: 'soon' } }],
      ['p2p:task_request', { task: { id: 'task-xxx', type: 'x', payload: 'text' } }],
      ['p2p:task_request', { task: { id: 'task-xxx', type: 'x', priority: null } }],
      ['p2p:task_confirm', { task_id: 'task-xxx', confirmed: false }],
      ['p2p:task_confirm', { task_id: 'task-xxx', confirmed: true, estimated_duration: 1.5 }],
      [
        'p2p:task_confirm',
        { task_id: 'task-xxx', confirmed: true, capabilities_used: new Array(101).fill('x') },
      ],
      ['p2p:task_reject', { task_id: 'task-xxx', reason: { code: 'x' } }],
      ['p2p:task_reject', { task_id: 'task-xxx', reason: { code: 'x', message: '' }, alternatives: null }],
      ['p2p:task_need_info', { task_id: 'task-xxx', missing_fields: [] }],
      ['p2p:task_info_provided', { task_id: 'task-xxx', provided_fields: [] }],
      ['p2p:task_status_update', { task_id: 'task-xxx', status: 'executing', progress: 100.5 }],
      ['p2p:task_status_update', { task_id: 'task-xxx', status: 'running' }],
      ['p2p:task_complete', { task_id: 'task-xxx', result: { output: null } }],
      ['p2p:task_failed', { task_id: 'task-xxx', error: { code: 'x', message: 'y', recoverable: 'no' } }],
      ['p2p:task_cancel', { task_id: 'task\u0000xxx' }],
      ['p2p:task_ack', { task_id: 'task-xxx', acked_type: 'task_complete' }],
      ['p2p:ack', { status: 'done' }],
      ['p2p:nack', { code: '', message: 'x' }],
      ['p2p:heartbeat', { task_id: 'task-xxx', interval: 3601 }],
      ['p2p:capability_query', { task_types: [1] }],
      ['p2p:capability_response', { task_types: ['a'], capabilities: [{ task_type: 'a', tags: [''] }] }],
      ['p2p:task_need_human', { task_id: 'task-xxx', reason: { code: 'x', message: 'y' }, options: [{}] }],
      [
        'p2p:human_decision',
        { task_id: 'task-xxx', decision_id: 'd', decided_by: {}, decision: { action: 'approve' } },
      ],
      [
        'p2p:human_decision',
        {
          task_id: 'task-xxx',
          decision_id: 'd',
          decided_by: { user_id: 'u' },
          decision: { action: 'defer' },
        },
      ],
    ];
    let refused = 0;
    for (const [type, payload] of cases) {
      const bySchema = conforms(schemas.payloads[type], payload).length === 0;
      const byMessageSchema = conforms(schemas.message, envelopeOf(type, payload)).length === 0;
      const byParser = parserAccepts(type, payload);
      assert.equal(
        bySchema,
        byParser,
        `${type} ${JSON.stringify(payload)}: schema ${bySchema}, parser ${byParser}`,
      );
      assert.equal(byMessageSchema, byParser, `${type} in message.json`);
      if (!byParser) refused++;
    }
    assert.ok(refused >= 22, `${refused} refused`);
  });
});
