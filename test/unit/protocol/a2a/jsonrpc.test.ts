import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  A2AProtocolError,
  type EnvelopeResult,
  failure,
  jsonRpcError,
  parseEnvelope,
  success,
  v1Codec,
} from '../../../../shared/protocol/a2a/index.ts';

const req = (o: Record<string, unknown>) => JSON.stringify(o);

function expectFailure(
  result: EnvelopeResult,
  code: number,
  id: unknown,
  message?: RegExp,
): A2AProtocolError {
  assert.equal(result.ok, false, 'expected a failure');
  if (result.ok) throw new Error('unreachable');
  assert.ok(result.error instanceof A2AProtocolError);
  assert.equal(result.error.code, code, result.error.message);
  assert.equal(result.id, id);
  if (message) assert.match(result.error.message, message);
  return result.error;
}

describe('parseEnvelope', () => {
  it('accepts a request with a string id, number id or null id', () => {
    for (const id of ['abc', 7, 0, -1.5, null]) {
      const r = parseEnvelope(req({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't1' } }));
      assert.deepEqual(r, { ok: true, id, method: 'GetTask', params: { id: 't1' } });
    }
  });

  it('leaves params undefined when absent', () => {
    const r = parseEnvelope(req({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard' }));
    assert.deepEqual(r, { ok: true, id: 1, method: 'GetExtendedAgentCard', params: undefined });
  });

  it('ignores envelope members JSON-RPC does not define', () => {
    const r = parseEnvelope(req({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {}, extra: true }));
    assert.equal(r.ok, true);
  });

  it('-32700 with id null for a body that is not JSON', () => {
    const err = expectFailure(parseEnvelope('{"jsonrpc": "2.0", '), -32700, null, /not valid JSON/);
    assert.equal(err.reason, 'PARSE_ERROR');
  });

  it('-32700 for an empty, missing or null body', () => {
    for (const body of ['', '   ', undefined, null])
      expectFailure(parseEnvelope(body), -32700, null, /empty body/);
  });

  it('-32600 for batches (A2A defines no batch semantics)', () => {
    const body = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: {} }]);
    expectFailure(parseEnvelope(body), -32600, null, /batch/);
    expectFailure(parseEnvelope('[]'), -32600, null, /batch/);
  });

  it('-32600 for JSON that is not an object', () => {
    for (const body of ['42', '"x"', 'null', 'true']) {
      const err = expectFailure(parseEnvelope(body), -32600, null, /JSON object/);
      assert.equal(err.reason, 'INVALID_REQUEST');
    }
  });

  it('-32600 when jsonrpc is missing or not exactly "2.0", echoing a valid id', () => {
    for (const jsonrpc of [undefined, '1.0', 2.0, '2.0 ', '2']) {
      expectFailure(
        parseEnvelope(req({ jsonrpc, id: 5, method: 'GetTask' })),
        -32600,
        5,
        /"jsonrpc" must be exactly "2.0"/,
      );
    }
  });

  it('-32600 with id null for a notification (no id): A2A has no notifications', () => {
    expectFailure(
      parseEnvelope(req({ jsonrpc: '2.0', method: 'SendMessage', params: {} })),
      -32600,
      null,
      /notification/,
    );
  });

  it('-32600 with id null for an id of the wrong type', () => {
    for (const id of [{}, [], true, [1]]) {
      expectFailure(
        parseEnvelope(req({ jsonrpc: '2.0', id, method: 'GetTask' })),
        -32600,
        null,
        /"id" must be a string \(at most 256 characters\), a number or null/,
      );
    }
  });

  it('-32600 with id null for a string id over 256 characters (it would be echoed in every answer)', () => {
    const ok = 'i'.repeat(256);
    assert.equal(parseEnvelope(req({ jsonrpc: '2.0', id: ok, method: 'GetTask' })).id, ok);
    for (const id of ['i'.repeat(257), 'i'.repeat(900_000)]) {
      const err = expectFailure(
        parseEnvelope(req({ jsonrpc: '2.0', id, method: 'GetTask' })),
        -32600,
        null,
        /"id" must be .*at most 256 characters/,
      );
      assert.ok(err.message.length < 200);
    }
    // a number JSON cannot represent (1e400 parses to Infinity) is not an id either
    expectFailure(parseEnvelope('{"jsonrpc":"2.0","id":1e400,"method":"GetTask"}'), -32600, null, /"id"/);
  });

  it('-32600 for a missing, empty or non-string method, echoing the id', () => {
    for (const method of [undefined, '', 42, null, ['GetTask']]) {
      expectFailure(parseEnvelope(req({ jsonrpc: '2.0', id: 'r1', method })), -32600, 'r1', /"method"/);
    }
  });

  it('-32602 for params that are present but not an object, echoing the id', () => {
    for (const params of [[], [1, 2], 'x', 3, null, true]) {
      const err = expectFailure(
        parseEnvelope(req({ jsonrpc: '2.0', id: 9, method: 'GetTask', params })),
        -32602,
        9,
        /params/,
      );
      assert.deepEqual(err.fieldViolations, [
        { field: 'params', description: 'must be an object (by-name parameters)' },
      ]);
    }
  });
});

describe('success / failure', () => {
  it('build JSON-RPC 2.0 response objects', () => {
    assert.deepEqual(success(1, { a: 1 }), { jsonrpc: '2.0', id: 1, result: { a: 1 } });
    const error = jsonRpcError(v1Codec, A2AProtocolError.taskNotFound('t9'));
    assert.deepEqual(failure('x', error), { jsonrpc: '2.0', id: 'x', error });
    assert.deepEqual(failure(null, { code: -32700, message: 'm' }), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'm' },
    });
  });
});
