/**
 * The error codes as data (the protocol's table), and building messages: createMessage (checked like an
 * inbound message), ack, nack (the protocol's code at its HTTP status), the nack of a parse refusal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ack,
  createMessage,
  httpStatusOf,
  isSynapseErrorCode,
  nack,
  nackOf,
  parseSynapseMessage,
  SYNAPSE_ERROR_CODES,
  SYNAPSE_ERRORS,
  SynapseProtocolError,
} from '../../../../shared/protocol/synapse/index.ts';
import { envelopeOf, GIVEN_EXAMPLES, SENDER } from './examples.ts';

const HUB = { agent_id: 'hub-b', endpoint: 'https://b.example/synapse/callback' };

describe('error codes', () => {
  it('are the protocol’s ten, each at its HTTP status', () => {
    assert.deepEqual(Object.fromEntries(SYNAPSE_ERROR_CODES.map((c) => [c, SYNAPSE_ERRORS[c].status])), {
      message_format_invalid: 400,
      capability_lacking: 403,
      agent_not_ready: 503,
      task_not_found: 404,
      task_already_completed: 409,
      execution_timeout: 504,
      execution_failed: 500,
      permission_denied: 403,
      invalid_params: 400,
      rate_limited: 429,
    });
  });

  it('a code this hub does not know is 500, and not one of its codes', () => {
    assert.equal(httpStatusOf('execution_error'), 500);
    assert.equal(httpStatusOf('task_not_found'), 404);
    assert.equal(isSynapseErrorCode('toString'), false);
    assert.equal(isSynapseErrorCode('__proto__'), false);
    assert.equal(isSynapseErrorCode('rate_limited'), true);
  });

  it('a protocol error carries its status and the first field', () => {
    const e = new SynapseProtocolError('invalid_params', 'bad', {
      violations: [
        { field: 'payload.a', description: 'is required' },
        { field: 'payload.b', description: 'must be a string' },
      ],
    });
    assert.equal(e.status, 400);
    assert.equal(e.field, 'payload.a');
    assert.deepEqual(e.details, {
      field: 'payload.a',
      violations: [
        { field: 'payload.a', description: 'is required' },
        { field: 'payload.b', description: 'must be a string' },
      ],
    });
    assert.equal(new SynapseProtocolError('rate_limited', 'slow').details, undefined);
  });
});

describe('createMessage', () => {
  it('builds a message that parses back to itself', () => {
    const m = createMessage('p2p:task_request', GIVEN_EXAMPLES['p2p:task_request'], {
      sender: SENDER,
      recipient: { agent_id: 'hub-b' },
      correlation_id: 'corr-xxx',
      timestamp: new Date('2026-01-01T00:00:00Z'),
    });
    assert.equal(m.task_id, 'task-xxx', 'the task id comes from the payload');
    assert.match(m.message_id, /^[0-9a-f-]{36}$/);
    assert.equal(m.timestamp, '2026-01-01T00:00:00.000Z');
    assert.equal(m.protocol_version, '1.0');
    const again = parseSynapseMessage(JSON.stringify(m));
    assert.ok(again.ok);
    assert.deepEqual(again.message, m);
  });

  it('refuses to build what a peer would refuse', () => {
    assert.throws(
      () =>
        createMessage(
          'p2p:task_status_update',
          { task_id: 't1', status: 'executing', progress: 200 },
          {
            sender: SENDER,
          },
        ),
      (e: unknown) =>
        e instanceof SynapseProtocolError && e.code === 'invalid_params' && e.field === 'payload.progress',
    );
    assert.throws(
      () => createMessage('p2p:ack', {}, { sender: { agent_id: 'a', endpoint: 'not a url' } }),
      (e: unknown) => e instanceof SynapseProtocolError && e.code === 'message_format_invalid',
    );
  });
});

describe('ack and nack', () => {
  const original = (() => {
    const r = parseSynapseMessage(envelopeOf('p2p:task_cancel', { task_id: 'task-xxx' }));
    assert.ok(r.ok);
    return r.message;
  })();

  it('an ack answers the message: to its sender, same task and correlation, reply_to its id', () => {
    const a = ack(original, { sender: HUB, duplicate: true, status: 'cancelled' });
    assert.equal(a.type, 'p2p:ack');
    assert.equal(a.reply_to, 'msg-0001');
    assert.equal(a.task_id, 'task-xxx');
    assert.equal(a.correlation_id, 'corr-xxx');
    assert.deepEqual(a.recipient, { agent_id: 'agent-a' });
    assert.deepEqual(a.sender, HUB);
    assert.deepEqual(a.payload, { duplicate: true, status: 'cancelled' });
  });

  it('a nack carries the protocol’s code and is answered at its status', () => {
    for (const code of SYNAPSE_ERROR_CODES) {
      const n = nack(code, `refused: ${code}`, { sender: HUB, inReplyTo: original });
      assert.equal(n.status, SYNAPSE_ERRORS[code].status);
      assert.equal(n.message.type, 'p2p:nack');
      assert.equal(n.message.reply_to, 'msg-0001');
      assert.deepEqual(n.message.payload, { code, message: `refused: ${code}` });
    }
    const done = nack('task_already_completed', 'the task has finished', {
      sender: HUB,
      inReplyTo: original,
      details: { status: 'completed' },
    });
    assert.equal(done.status, 409);
    assert.deepEqual(done.message.payload.details, { status: 'completed' });
  });

  it('a nack of a message that could not be read answers what could be', () => {
    const r = parseSynapseMessage(envelopeOf('p2p:task_confirm', { task_id: 'task-xxx', confirmed: 'yes' }));
    assert.equal(r.ok, false);
    if (r.ok) return;
    const n = nackOf(r.error, { sender: HUB, inReplyTo: r.replyTo });
    assert.equal(n.status, 400);
    assert.equal(n.message.reply_to, 'msg-0001');
    assert.equal(n.message.task_id, 'task-xxx');
    assert.equal(n.message.payload.code, 'invalid_params');
    assert.deepEqual(n.message.payload.details, {
      field: 'payload.confirmed',
      violations: [
        { field: 'payload.confirmed', description: 'must be true (a refusal is a p2p:task_reject)' },
      ],
    });

    const garbage = parseSynapseMessage('not json');
    assert.equal(garbage.ok, false);
    if (garbage.ok) return;
    const g = nackOf(garbage.error, { sender: HUB, inReplyTo: garbage.replyTo });
    assert.equal(g.status, 400);
    assert.equal(g.message.payload.code, 'message_format_invalid');
    assert.equal(g.message.reply_to, undefined);
    assert.equal(g.message.recipient, undefined);
    assert.ok(parseSynapseMessage(JSON.stringify(g.message)).ok, 'the nack itself is a valid message');
  });

  it('a long message is clipped rather than refused', () => {
    const n = nack('execution_failed', 'x'.repeat(20_000), { sender: HUB });
    assert.equal(n.message.payload.message.length, 8192);
  });
});
