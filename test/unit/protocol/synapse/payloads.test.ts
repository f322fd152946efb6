/**
 * The 17 p2p:* payloads: each accepts its example (the protocol's own for the nine it gives) and
 * refuses malformed payloads with invalid_params naming the field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_LIST_ITEMS,
  MAX_TEXT_LENGTH,
  MESSAGE_TYPES,
  parseSynapseMessage,
  SYNAPSE_MESSAGE_TYPES,
  type SynapseMessageType,
} from '../../../../shared/protocol/synapse/index.ts';
import { EXAMPLES, envelopeOf, GIVEN_EXAMPLES } from './examples.ts';

/** The protocol's message types, in its order. */
const PROTOCOL_TYPES = [
  'p2p:task_request',
  'p2p:task_confirm',
  'p2p:task_reject',
  'p2p:task_need_info',
  'p2p:task_info_provided',
  'p2p:task_status_update',
  'p2p:task_complete',
  'p2p:task_failed',
  'p2p:task_cancel',
  'p2p:task_ack',
  'p2p:ack',
  'p2p:nack',
  'p2p:heartbeat',
  'p2p:capability_query',
  'p2p:capability_response',
  'p2p:task_need_human',
  'p2p:human_decision',
];

/** The example with nulls dropped where the schema reads null as absent (free-form values keep theirs). */
const withoutNulls = (v: unknown, keep: ReadonlySet<string>, key = ''): unknown => {
  if (Array.isArray(v)) return v.map((x) => withoutNulls(x, keep));
  if (typeof v !== 'object' || v === null || keep.has(key)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => x !== null || keep.has(k))
      .map(([k, x]) => [k, withoutNulls(x, keep, k)]),
  );
};
const FREE_FORM = new Set([
  'details',
  'intermediate_result',
  'partial_result',
  'output',
  'value',
  'suggested_value',
  'payload',
  'metadata',
  'approved_fields',
  'provided_fields',
]);

const refusal = (type: SynapseMessageType, payload: unknown) => {
  const r = parseSynapseMessage(envelopeOf(type, payload));
  assert.equal(r.ok, false, `${type} accepted ${JSON.stringify(payload)}`);
  if (r.ok) throw new Error('unreachable');
  return r.error;
};

const assertInvalid = (type: SynapseMessageType, payload: unknown, field: string, description?: RegExp) => {
  const error = refusal(type, payload);
  assert.equal(error.code, 'invalid_params', `${type}: ${error.message}`);
  assert.equal(error.status, 400);
  assert.ok(
    error.violations.some((v) => v.field === field && (!description || description.test(v.description))),
    `${type}: expected a violation at ${field}${description ? ` matching ${description}` : ''}, got ${JSON.stringify(error.violations)}`,
  );
  assert.equal(error.details?.field, error.violations[0]?.field);
};

describe('the p2p:* message types', () => {
  it('are the protocol’s 17, in its order', () => {
    assert.deepEqual([...SYNAPSE_MESSAGE_TYPES], PROTOCOL_TYPES);
    assert.equal(new Set(SYNAPSE_MESSAGE_TYPES).size, 17);
    assert.deepEqual(Object.keys(MESSAGE_TYPES).sort(), [...PROTOCOL_TYPES].sort());
  });

  it('record the protocol’s directions', () => {
    const executor = ['task_confirm', 'task_reject', 'task_need_info', 'task_status_update', 'task_complete'];
    for (const t of [...executor, 'task_failed', 'task_need_human']) {
      assert.equal(MESSAGE_TYPES[`p2p:${t}` as SynapseMessageType].direction, 'executor_to_requester', t);
    }
    for (const t of ['task_request', 'task_info_provided', 'task_cancel', 'human_decision']) {
      assert.equal(MESSAGE_TYPES[`p2p:${t}` as SynapseMessageType].direction, 'requester_to_executor', t);
    }
    for (const t of ['task_ack', 'ack', 'nack', 'heartbeat', 'capability_query', 'capability_response']) {
      assert.equal(MESSAGE_TYPES[`p2p:${t}` as SynapseMessageType].direction, 'both', t);
    }
  });

  it('mark the nine payloads the protocol gives', () => {
    const given = SYNAPSE_MESSAGE_TYPES.filter((t) => MESSAGE_TYPES[t].payloadGiven);
    assert.deepEqual(given.sort(), Object.keys(GIVEN_EXAMPLES).sort());
  });
});

describe('every payload accepts its example', () => {
  for (const type of SYNAPSE_MESSAGE_TYPES) {
    it(type, () => {
      const r = parseSynapseMessage(JSON.stringify(envelopeOf(type)));
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.equal(r.message.type, type);
      assert.deepEqual(r.message.payload, withoutNulls(EXAMPLES[type], FREE_FORM));
    });
  }

  it('keeps free-form nulls and reads other nulls as absent', () => {
    const r = parseSynapseMessage(envelopeOf('p2p:task_reject'));
    assert.ok(r.ok);
    assert.equal((r.message.payload as { reason: { details: unknown } }).reason.details, null);
    const c = parseSynapseMessage(
      envelopeOf('p2p:task_confirm', {
        task_id: 'task-xxx',
        confirmed: true,
        constraints: null,
        capabilities_used: null,
      }),
    );
    assert.ok(c.ok, c.ok ? '' : c.error.message);
    assert.deepEqual(c.message.payload, { task_id: 'task-xxx', confirmed: true });
  });

  it('ignores unknown fields (a later minor version may add some)', () => {
    const r = parseSynapseMessage(
      envelopeOf('p2p:task_status_update', { ...EXAMPLES['p2p:task_status_update'], eta_seconds: 12 }),
    );
    assert.ok(r.ok);
    assert.equal('eta_seconds' in r.message.payload, false);
  });

  it('keeps a free-form object as sent, `__proto__` keys included', () => {
    const body = `{"protocol_version":"1.0","type":"p2p:task_request","message_id":"m1","task_id":"t1",
      "sender":{"agent_id":"a","endpoint":"http://127.0.0.1:8080/synapse/callback"},"timestamp":"2026-01-01T00:00:00+08:00",
      "payload":{"task":{"id":"t1","type":"echo","payload":{"__proto__":{"polluted":true},"text":"hi"}}}}`;
    const r = parseSynapseMessage(body);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    const inner = (r.message.payload as { task: { payload: Record<string, unknown> } }).task.payload;
    assert.deepEqual(Object.keys(inner), ['__proto__', 'text']);
    assert.equal(Object.getPrototypeOf(inner), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('accepts the minimal payload of every type', () => {
    const minimal: Record<SynapseMessageType, unknown> = {
      'p2p:task_request': { task: { id: 'task-xxx', type: 'echo' } },
      'p2p:task_confirm': { task_id: 'task-xxx', confirmed: true },
      'p2p:task_reject': { task_id: 'task-xxx', reason: { code: 'capability_lacking', message: '' } },
      'p2p:task_need_info': { task_id: 'task-xxx', missing_fields: [{ field: 'style' }] },
      'p2p:task_info_provided': { task_id: 'task-xxx', provided_fields: {} },
      'p2p:task_status_update': { task_id: 'task-xxx', status: 'executing' },
      'p2p:task_complete': { task_id: 'task-xxx', result: {} },
      'p2p:task_failed': { task_id: 'task-xxx', error: { code: 'execution_failed', message: 'boom' } },
      'p2p:task_cancel': { task_id: 'task-xxx' },
      'p2p:task_ack': { task_id: 'task-xxx', acked_type: 'p2p:task_cancel' },
      'p2p:ack': {},
      'p2p:nack': { code: 'rate_limited', message: 'slow down' },
      'p2p:heartbeat': { task_id: 'task-xxx' },
      'p2p:capability_query': {},
      'p2p:capability_response': { task_types: [] },
      'p2p:task_need_human': { task_id: 'task-xxx', reason: { code: 'ethical_decision', message: 'review' } },
      'p2p:human_decision': {
        task_id: 'task-xxx',
        decision_id: 'dec-1',
        decided_by: { user_id: 'user-1' },
        decision: { action: 'reject' },
      },
    };
    for (const type of SYNAPSE_MESSAGE_TYPES) {
      const r = parseSynapseMessage(envelopeOf(type, minimal[type]));
      assert.ok(r.ok, `${type}: ${r.ok ? '' : r.error.message}`);
    }
  });
});

describe('malformed payloads are invalid_params, naming the field', () => {
  const long = 'x'.repeat(MAX_TEXT_LENGTH + 1);
  const many = (n: number, item: unknown) => Array.from({ length: n }, () => item);

  it('p2p:task_request', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_request'];
    assertInvalid('p2p:task_request', {}, 'payload.task', /is required/);
    assertInvalid('p2p:task_request', { task: { id: 'task-xxx' } }, 'payload.task.type', /is required/);
    assertInvalid(
      'p2p:task_request',
      { ...ex, task: { ...ex.task, type: 7 } },
      'payload.task.type',
      /a string/,
    );
    assertInvalid(
      'p2p:task_request',
      { ...ex, task: { ...ex.task, type: '' } },
      'payload.task.type',
      /empty/,
    );
    assertInvalid(
      'p2p:task_request',
      { ...ex, task: { ...ex.task, deadline: 'tomorrow' } },
      'payload.task.deadline',
      /RFC 3339/,
    );
    assertInvalid(
      'p2p:task_request',
      { ...ex, task: { ...ex.task, payload: ['a'] } },
      'payload.task.payload',
      /object/,
    );
    assertInvalid(
      'p2p:task_request',
      { ...ex, context: { ...ex.context, metadata: 'x' } },
      'payload.context.metadata',
    );
    assertInvalid(
      'p2p:task_request',
      { ...ex, task: { ...ex.task, id: 'a\nb' } },
      'payload.task.id',
      /control/,
    );
  });

  it('p2p:task_confirm', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_confirm'];
    assertInvalid('p2p:task_confirm', { ...ex, confirmed: false }, 'payload.confirmed', /task_reject/);
    assertInvalid(
      'p2p:task_confirm',
      { ...ex, estimated_duration: -5 },
      'payload.estimated_duration',
      />= 0/,
    );
    assertInvalid('p2p:task_confirm', { ...ex, estimated_duration: 1.5 }, 'payload.estimated_duration');
    assertInvalid(
      'p2p:task_confirm',
      { ...ex, capabilities_used: many(MAX_LIST_ITEMS + 1, 'x') },
      'payload.capabilities_used',
      /at most 100/,
    );
    assertInvalid(
      'p2p:task_confirm',
      { ...ex, constraints: { max_retries: 'three' } },
      'payload.constraints.max_retries',
    );
  });

  it('p2p:task_reject (with alternatives)', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_reject'];
    assertInvalid('p2p:task_reject', { task_id: 'task-xxx' }, 'payload.reason', /is required/);
    assertInvalid('p2p:task_reject', { ...ex, reason: { message: 'no' } }, 'payload.reason.code');
    assertInvalid(
      'p2p:task_reject',
      { ...ex, alternatives: { ...ex.alternatives, retry_after: -1 } },
      'payload.alternatives.retry_after',
    );
    assertInvalid(
      'p2p:task_reject',
      { ...ex, alternatives: { ...ex.alternatives, partial_support: 'no' } },
      'payload.alternatives.partial_support',
      /boolean/,
    );
  });

  it('p2p:task_need_info', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_need_info'];
    assertInvalid(
      'p2p:task_need_info',
      { ...ex, missing_fields: [] },
      'payload.missing_fields',
      /at least 1/,
    );
    assertInvalid('p2p:task_need_info', { ...ex, missing_fields: [{}] }, 'payload.missing_fields[0].field');
    assertInvalid('p2p:task_need_info', { ...ex, question: long }, 'payload.question', /at most 8192/);
    assertInvalid('p2p:task_need_info', { ...ex, required_by: 1 }, 'payload.required_by');
  });

  it('p2p:task_info_provided', () => {
    assertInvalid('p2p:task_info_provided', { task_id: 'task-xxx' }, 'payload.provided_fields', /required/);
    assertInvalid(
      'p2p:task_info_provided',
      { task_id: 'task-xxx', provided_fields: {}, reply_to: 'not.an.id' },
      'payload.reply_to',
    );
  });

  it('p2p:task_status_update (progress)', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_status_update'];
    assertInvalid('p2p:task_status_update', { ...ex, progress: 101 }, 'payload.progress', /<= 100/);
    assertInvalid('p2p:task_status_update', { ...ex, progress: -1 }, 'payload.progress', />= 0/);
    assertInvalid('p2p:task_status_update', { ...ex, status: 'running' }, 'payload.status', /one of/);
    assertInvalid('p2p:task_status_update', { task_id: 'task-xxx' }, 'payload.status', /required/);
  });

  it('p2p:task_complete', () => {
    assertInvalid('p2p:task_complete', { task_id: 'task-xxx' }, 'payload.result', /required/);
    assertInvalid('p2p:task_complete', { task_id: 'task-xxx', result: 'done' }, 'payload.result', /object/);
    assertInvalid(
      'p2p:task_complete',
      { task_id: 'task-xxx', result: { metadata: [] } },
      'payload.result.metadata',
    );
  });

  it('p2p:task_failed', () => {
    assertInvalid('p2p:task_failed', { task_id: 'task-xxx', error: { code: 'x' } }, 'payload.error.message');
    assertInvalid(
      'p2p:task_failed',
      { task_id: 'task-xxx', error: { code: 'x', message: 'y', recoverable: 1 } },
      'payload.error.recoverable',
    );
  });

  it('p2p:task_cancel', () => {
    assertInvalid('p2p:task_cancel', {}, 'payload.task_id', /required/);
    assertInvalid('p2p:task_cancel', { task_id: 'task-xxx', reason: 'bored' }, 'payload.reason', /object/);
  });

  it('p2p:task_ack', () => {
    assertInvalid('p2p:task_ack', { task_id: 'task-xxx' }, 'payload.acked_type', /required/);
    assertInvalid(
      'p2p:task_ack',
      { task_id: 'task-xxx', acked_type: 'p2p:done' },
      'payload.acked_type',
      /one of/,
    );
  });

  it('p2p:ack and p2p:nack', () => {
    assertInvalid('p2p:ack', { duplicate: 'yes' }, 'payload.duplicate');
    assertInvalid('p2p:nack', { message: 'x' }, 'payload.code', /required/);
    assertInvalid('p2p:nack', { code: 'rate_limited' }, 'payload.message', /required/);
  });

  it('p2p:heartbeat', () => {
    assertInvalid('p2p:heartbeat', { task_id: 'task-xxx', interval: 0 }, 'payload.interval', />= 1/);
    assertInvalid('p2p:heartbeat', { task_id: 'task-xxx', status: 'alive' }, 'payload.status');
  });

  it('p2p:capability_query and p2p:capability_response', () => {
    assertInvalid('p2p:capability_query', { task_types: 'text_generation' }, 'payload.task_types', /array/);
    assertInvalid('p2p:capability_response', {}, 'payload.task_types', /required/);
    assertInvalid(
      'p2p:capability_response',
      { task_types: [], capabilities: [{ description: 'x' }] },
      'payload.capabilities[0].task_type',
    );
  });

  it('p2p:task_need_human', () => {
    const ex = GIVEN_EXAMPLES['p2p:task_need_human'];
    assertInvalid('p2p:task_need_human', { ...ex, reason: undefined }, 'payload.reason', /required/);
    assertInvalid(
      'p2p:task_need_human',
      { ...ex, options: [{ ...ex.options[0], confidence: 170 }] },
      'payload.options[0].confidence',
    );
    assertInvalid(
      'p2p:task_need_human',
      { ...ex, context: { ...ex.context, current_progress: '30%' } },
      'payload.context.current_progress',
    );
    assertInvalid('p2p:task_need_human', { ...ex, escalation_level: -1 }, 'payload.escalation_level');
  });

  it('p2p:human_decision (decided_by, notes)', () => {
    const ex = GIVEN_EXAMPLES['p2p:human_decision'];
    assertInvalid('p2p:human_decision', { ...ex, decided_by: undefined }, 'payload.decided_by', /required/);
    assertInvalid(
      'p2p:human_decision',
      { ...ex, decided_by: { user_name: '张三' } },
      'payload.decided_by.user_id',
    );
    assertInvalid(
      'p2p:human_decision',
      { ...ex, decision: { ...ex.decision, action: 'maybe' } },
      'payload.decision.action',
      /"approve", "reject"/,
    );
    assertInvalid('p2p:human_decision', { ...ex, notes: long }, 'payload.notes', /at most/);
    assertInvalid('p2p:human_decision', { ...ex, decision_id: '' }, 'payload.decision_id', /empty/);
  });

  it('a payload naming another task than the envelope', () => {
    assertInvalid(
      'p2p:task_request',
      { task: { id: 'task-other', type: 'echo' } },
      'payload.task.id',
      /envelope's task_id/,
    );
    assertInvalid('p2p:task_complete', { task_id: 'task-other', result: {} }, 'payload.task_id', /envelope/);
  });

  it('reports at most 10 violations, and how many there were', () => {
    const payload = {
      task_id: 'task-xxx',
      missing_fields: Array.from({ length: 30 }, () => ({ field: 5 })),
    };
    const error = refusal('p2p:task_need_info', payload);
    assert.equal(error.violations.length, 10);
    assert.equal(error.totalViolations, 30);
    assert.equal(error.details?.total_violations, 30);
    assert.match(error.message, /and 29 more/);
  });
});
