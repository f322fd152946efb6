/**
 * The envelope: what is message_format_invalid (not JSON, not an envelope, wrong version, unknown
 * type, a bad header field, over the bounds outside the payload) and what is invalid_params (the
 * payload: over the bounds inside it). The refusal names the field and what it could read of the
 * message, for the nack.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_DEPTH,
  MAX_MESSAGE_BYTES,
  parseSynapseMessage,
  SYNAPSE_ERRORS,
  SYNAPSE_PROTOCOL_VERSION,
} from '../../../../shared/protocol/synapse/index.ts';
import { envelopeOf, SENDER } from './examples.ts';

const refused = (raw: unknown) => {
  const r = parseSynapseMessage(raw);
  assert.equal(r.ok, false, 'accepted');
  if (r.ok) throw new Error('unreachable');
  return r;
};

const assertFormat = (raw: unknown, field: string, description?: RegExp) => {
  const { error } = refused(raw);
  assert.equal(error.code, 'message_format_invalid', error.message);
  assert.equal(error.status, 400);
  assert.equal(error.field, field, error.message);
  if (description) assert.match(error.violations[0]?.description ?? '', description);
  return error;
};

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe('the envelope', () => {
  it('parses a whole message, in the envelope’s field order', () => {
    const r = parseSynapseMessage(JSON.stringify(envelopeOf('p2p:task_cancel', { task_id: 'task-xxx' })));
    assert.ok(r.ok);
    assert.deepEqual(Object.keys(r.message), [
      'protocol_version',
      'type',
      'message_id',
      'task_id',
      'sender',
      'recipient',
      'timestamp',
      'correlation_id',
      'payload',
    ]);
    assert.equal(r.message.protocol_version, SYNAPSE_PROTOCOL_VERSION);
    assert.deepEqual(r.message.sender, SENDER);
  });

  it('accepts bytes as well as text, and a value already parsed', () => {
    const message = envelopeOf('p2p:heartbeat');
    assert.ok(parseSynapseMessage(Buffer.from(JSON.stringify(message))).ok);
    assert.ok(parseSynapseMessage(new TextEncoder().encode(JSON.stringify(message))).ok);
    assert.ok(parseSynapseMessage(message).ok);
  });

  it('reads optional header fields sent as null as absent, and ignores unknown ones', () => {
    const r = parseSynapseMessage(
      envelopeOf('p2p:ack', {}, { reply_to: null, recipient: null, signature: 'abc', trace: { id: 1 } }),
    );
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.equal('reply_to' in r.message, false);
    assert.equal('recipient' in r.message, false);
    assert.equal('signature' in r.message, false);
  });

  it('accepts minor versions of 1.x and timestamps with an offset', () => {
    assert.ok(parseSynapseMessage(envelopeOf('p2p:ack', {}, { protocol_version: '1.7' })).ok);
    assert.ok(
      parseSynapseMessage(envelopeOf('p2p:ack', {}, { timestamp: '2026-01-01T08:00:00.123+08:00' })).ok,
    );
  });

  it('the four messages that concern no task need no task_id', () => {
    for (const type of ['p2p:ack', 'p2p:nack', 'p2p:capability_query', 'p2p:capability_response'] as const) {
      const r = parseSynapseMessage(envelopeOf(type));
      assert.ok(r.ok, type);
      assert.equal('task_id' in r.message, false);
    }
  });
});

describe('message_format_invalid', () => {
  it('not JSON', () => {
    assertFormat('{"protocol_version":"1.0",', '(message)', /not JSON/);
    assertFormat('', '(message)', /not JSON/);
    assertFormat('\ufeff{}', '(message)', /not JSON/);
  });

  it('not UTF-8', () => {
    assertFormat(new Uint8Array([0x7b, 0xff, 0x7d]), '(message)', /UTF-8/);
  });

  it('over the size limit, before it is parsed', () => {
    const body = `{"x":"${'a'.repeat(MAX_MESSAGE_BYTES)}"}`;
    assertFormat(body, '(message)', /at most 1048576/);
  });

  it('not an envelope', () => {
    assertFormat('[]', '(message)', /JSON object/);
    assertFormat('"p2p:task_request"', '(message)', /JSON object/);
    assertFormat('null', '(message)', /JSON object/);
    assertFormat(42, '(message)', /JSON object/);
  });

  it('a missing or wrong protocol version', () => {
    const { protocol_version: _, ...noVersion } = envelopeOf('p2p:ack');
    assertFormat(noVersion, 'protocol_version', /required/);
    assertFormat(envelopeOf('p2p:ack', {}, { protocol_version: '2.0' }), 'protocol_version', /not supported/);
    assertFormat(envelopeOf('p2p:ack', {}, { protocol_version: '1' }), 'protocol_version', /not supported/);
    assertFormat(envelopeOf('p2p:ack', {}, { protocol_version: '1.0.0' }), 'protocol_version');
    assertFormat(envelopeOf('p2p:ack', {}, { protocol_version: 1.0 }), 'protocol_version');
    assertFormat(envelopeOf('p2p:ack', {}, { protocol_version: '0.9' }), 'protocol_version');
  });

  it('a missing or unknown type', () => {
    const { type: _, ...noType } = envelopeOf('p2p:ack');
    assertFormat(noType, 'type', /required/);
    assertFormat(
      envelopeOf('p2p:ack', {}, { type: 'p2p:task_progress' }),
      'type',
      /not a Synapse message type/,
    );
    assertFormat(envelopeOf('p2p:ack', {}, { type: 'task_request' }), 'type');
    assertFormat(envelopeOf('p2p:ack', {}, { type: 'tasks/send' }), 'type');
    assertFormat(envelopeOf('p2p:ack', {}, { type: ['p2p:ack'] }), 'type');
  });

  it('a wrong header field, named', () => {
    assertFormat(envelopeOf('p2p:ack', {}, { message_id: undefined }), 'message_id', /required/);
    assertFormat(envelopeOf('p2p:ack', {}, { message_id: 'msg.1' }), 'message_id', /letters, digits/);
    assertFormat(envelopeOf('p2p:ack', {}, { message_id: 'x'.repeat(129) }), 'message_id', /at most 128/);
    assertFormat(envelopeOf('p2p:ack', {}, { sender: undefined }), 'sender', /required/);
    assertFormat(envelopeOf('p2p:ack', {}, { sender: { agent_id: 'a' } }), 'sender.endpoint', /required/);
    assertFormat(
      envelopeOf('p2p:ack', {}, { sender: { ...SENDER, endpoint: 'ftp://a.example/x' } }),
      'sender.endpoint',
      /http\(s\) URL/,
    );
    assertFormat(
      envelopeOf('p2p:ack', {}, { sender: { ...SENDER, endpoint: '/synapse/callback' } }),
      'sender.endpoint',
    );
    assertFormat(envelopeOf('p2p:ack', {}, { recipient: {} }), 'recipient.agent_id', /required/);
    assertFormat(envelopeOf('p2p:ack', {}, { timestamp: '2026-01-01 00:00:00' }), 'timestamp', /RFC 3339/);
    assertFormat(envelopeOf('p2p:ack', {}, { timestamp: undefined }), 'timestamp', /required/);
    assertFormat(envelopeOf('p2p:ack', {}, { reply_to: 42 }), 'reply_to', /a string/);
    assertFormat(envelopeOf('p2p:ack', {}, { correlation_id: '' }), 'correlation_id', /empty/);
  });

  it('a task message without task_id', () => {
    assertFormat(envelopeOf('p2p:task_confirm', undefined, { task_id: undefined }), 'task_id', /required/);
    assertFormat(envelopeOf('p2p:heartbeat', undefined, { task_id: undefined }), 'task_id', /required/);
  });

  it('a payload that is not an object', () => {
    assertFormat(envelopeOf('p2p:ack', undefined, { payload: undefined }), 'payload', /required/);
    assertFormat(envelopeOf('p2p:ack', []), 'payload', /object/);
    assertFormat(envelopeOf('p2p:ack', 'ok'), 'payload', /object/);
  });

  it('hostile nesting or sizes outside the payload', () => {
    assertFormat(
      envelopeOf('p2p:ack', {}, { extra: nested(MAX_DEPTH + 5) }),
      `extra${'.a'.repeat(MAX_DEPTH - 1)}`,
    );
    assertFormat(envelopeOf('p2p:ack', {}, { extra: new Array(1001).fill(0) }), 'extra', /at most 1000/);
    assertFormat(envelopeOf('p2p:ack', {}, { extra: Number.POSITIVE_INFINITY }), 'extra', /finite/);
    assertFormat('{"protocol_version":"1.0","n":1e400}', 'n', /finite/);
  });

  it('the protocol’s HTTP status', () => {
    assert.equal(SYNAPSE_ERRORS.message_format_invalid.status, 400);
  });
});

describe('the payload’s bounds are invalid_params', () => {
  it('hostile nesting inside a free-form value', () => {
    const payload = { task: { id: 'task-xxx', type: 'echo', payload: nested(MAX_DEPTH + 10) } };
    const { error } = refused(envelopeOf('p2p:task_request', payload));
    assert.equal(error.code, 'invalid_params');
    assert.match(error.field ?? '', /^payload\.task\.payload\.a\.a/);
    assert.match(error.message, /deeper than 32/);
  });

  it('a huge free-form array, refused before any schema sees it', () => {
    const payload = { task_id: 'task-xxx', result: { output: new Array(5000).fill({}) } };
    const { error } = refused(envelopeOf('p2p:task_complete', payload));
    assert.equal(error.code, 'invalid_params');
    assert.equal(error.field, 'payload.result.output');
  });

  it('but an unknown type with a hostile payload is still message_format_invalid', () => {
    const { error } = refused(envelopeOf('p2p:ack', nested(100), { type: 'p2p:unknown' }));
    assert.equal(error.code, 'message_format_invalid');
    assert.equal(error.field, 'type');
  });
});

describe('what a refusal could read of the message (for the nack)', () => {
  it('the valid pieces of the envelope', () => {
    const { replyTo } = refused(envelopeOf('p2p:task_confirm', { task_id: 'task-xxx', confirmed: false }));
    assert.deepEqual(replyTo, {
      message_id: 'msg-0001',
      task_id: 'task-xxx',
      correlation_id: 'corr-xxx',
      type: 'p2p:task_confirm',
      sender: { agent_id: 'agent-a' },
    });
  });

  it('nothing it cannot trust', () => {
    assert.deepEqual(refused('nope').replyTo, {});
    const { replyTo } = refused(
      envelopeOf('p2p:ack', {}, { message_id: 'bad id', type: 'p2p:x', sender: { agent_id: '' } }),
    );
    assert.deepEqual(replyTo, { correlation_id: 'corr-xxx' });
  });

  it('errors stay small whatever the input', () => {
    const { error } = refused(envelopeOf('p2p:ack', {}, { message_id: 'x'.repeat(100_000) }));
    assert.ok(error.message.length < 1100);
    assert.ok(JSON.stringify(error.details).length < 2000);
    const wide = refused(envelopeOf('p2p:ack', {}, { type: 'p2p:'.padEnd(10_000, 'y') }));
    assert.ok(wide.error.message.length < 200, wide.error.message);
  });
});
