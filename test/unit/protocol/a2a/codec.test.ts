import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type A2ACodec,
  cardVersionFor,
  errorCodecFor,
  JSONRPC_METHODS,
  negotiateVersion,
  PROTOCOL_OPERATIONS,
  parseRequest,
  resolveOperation,
  selectCodec,
  v1Codec,
  v03Codec,
} from '../../../../shared/protocol/a2a/index.ts';
import { expectProtocolError } from './fixtures.ts';

describe('version negotiation', () => {
  it('"1.0" selects v1.0; absent, empty or "0.3" select v0.3', () => {
    assert.equal(selectCodec('1.0'), v1Codec);
    assert.equal(selectCodec(' 1.0 '), v1Codec);
    assert.equal(selectCodec(undefined), v03Codec);
    assert.equal(selectCodec(null), v03Codec);
    assert.equal(selectCodec(''), v03Codec);
    assert.equal(selectCodec('0.3'), v03Codec);
  });

  it('only Major.Minor counts: patch numbers are ignored, "1" means 1.0', () => {
    assert.equal(negotiateVersion('1.0.1'), '1.0');
    assert.equal(negotiateVersion('0.3.0'), '0.3');
    assert.equal(negotiateVersion('1'), '1.0');
  });

  it('anything else → -32009 listing the supported versions', () => {
    for (const header of ['2.0', '1.1', '0.2', '0.2.6', 'latest', '1.0, 0.3', 'v1']) {
      const err = expectProtocolError(() => selectCodec(header), -32009);
      assert.equal(err.reason, 'VERSION_NOT_SUPPORTED');
      assert.equal(err.metadata.supportedVersions, '1.0,0.3');
      assert.equal(err.metadata.requestedVersion, header);
      assert.match(err.message, /supported versions: 1\.0, 0\.3/);
    }
  });

  it('errorCodecFor falls back to v1.0 for unsupported versions', () => {
    assert.equal(errorCodecFor('2.0'), v1Codec);
    assert.equal(errorCodecFor('1.0'), v1Codec);
    assert.equal(errorCodecFor(undefined), v03Codec);
  });

  it('cardVersionFor: the v1.0 card unless 0.3 is asked for (no header means 1.0 for cards)', () => {
    assert.equal(cardVersionFor(undefined), '1.0');
    assert.equal(cardVersionFor(''), '1.0');
    assert.equal(cardVersionFor('1.0'), '1.0');
    assert.equal(cardVersionFor('2.0'), '1.0');
    assert.equal(cardVersionFor('0.3'), '0.3');
    assert.equal(cardVersionFor(' 0.3.0 '), '0.3');
  });

  it('cardVersionFor: the A2A-Version query parameter wins over the header', () => {
    assert.equal(cardVersionFor(undefined, '0.3'), '0.3');
    assert.equal(cardVersionFor('1.0', '0.3'), '0.3');
    assert.equal(cardVersionFor('0.3', '1.0'), '1.0');
    assert.equal(cardVersionFor('0.3', ''), '0.3', 'an empty query value is no value');
    assert.equal(cardVersionFor(undefined, 'nonsense'), '1.0');
  });
});

describe('method tables', () => {
  it('v1.0 uses PascalCase names', () => {
    assert.equal(v1Codec.version, '1.0');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('SendMessage'), 'SendMessage');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('GetTask'), 'GetTask');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('ListTasks'), 'ListTasks');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('CancelTask'), 'CancelTask');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('message/send'), undefined);
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('SendStreamingMessage'), 'SendStreamingMessage');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('SubscribeToTask'), 'SubscribeToTask');
    assert.equal(JSONRPC_METHODS['1.0'].operationOf('message/stream'), undefined);
    for (const op of PROTOCOL_OPERATIONS) assert.equal(JSONRPC_METHODS['1.0'].methodOf(op), op);
  });

  it('v0.3 uses slash names and has no list method', () => {
    assert.equal(v03Codec.version, '0.3');
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('message/send'), 'SendMessage');
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('tasks/get'), 'GetTask');
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('tasks/cancel'), 'CancelTask');
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('SendMessage'), undefined);
    assert.equal(JSONRPC_METHODS['0.3'].methodOf('ListTasks'), undefined);
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('message/stream'), 'SendStreamingMessage');
    assert.equal(JSONRPC_METHODS['0.3'].operationOf('tasks/resubscribe'), 'SubscribeToTask');
    assert.equal(
      JSONRPC_METHODS['0.3'].protocolOperationOf('agent/getAuthenticatedExtendedCard'),
      'GetExtendedAgentCard',
    );
  });
});

describe('resolveOperation', () => {
  it('returns the operation for supported methods', () => {
    assert.equal(resolveOperation(v1Codec, 'ListTasks'), 'ListTasks');
    assert.equal(resolveOperation(v03Codec, 'tasks/cancel'), 'CancelTask');
  });

  it('v1.0 name without the header → -32601 saying to send A2A-Version: 1.0', () => {
    const err = expectProtocolError(() => resolveOperation(selectCodec(undefined), 'SendMessage'), -32601);
    assert.match(err.message, /^Method not found: SendMessage\. /);
    assert.match(err.message, /send the HTTP header A2A-Version: 1\.0/);
    assert.match(err.message, /"message\/send"/);
    assert.deepEqual(err.metadata, {
      method: 'SendMessage',
      requiredVersion: '1.0',
      v03Method: 'message/send',
    });
  });

  it('ListTasks without the header → -32601 noting v0.3 has no such operation', () => {
    const err = expectProtocolError(() => resolveOperation(v03Codec, 'ListTasks'), -32601);
    assert.match(err.message, /A2A-Version: 1\.0/);
    assert.match(err.message, /no such operation/);
  });

  it('v0.3 name with A2A-Version: 1.0 → -32601 naming the v1.0 method and the header to drop', () => {
    const err = expectProtocolError(() => resolveOperation(selectCodec('1.0'), 'message/send'), -32601);
    assert.match(err.message, /v0\.3 method name but the request declares A2A-Version: 1\.0/);
    assert.match(err.message, /use SendMessage/);
    assert.match(err.message, /omit the A2A-Version header/);
    assert.equal(err.metadata.v1Method, 'SendMessage');
  });

  it('unknown methods → plain -32601', () => {
    for (const codec of [v1Codec, v03Codec] as A2ACodec[]) {
      const err = expectProtocolError(() => resolveOperation(codec, 'tasks/list'), -32601);
      assert.equal(err.message, 'Method not found: tasks/list');
      assert.deepEqual(err.metadata, { method: 'tasks/list' });
    }
  });

  it("streaming methods are supported, by each version's names only", () => {
    assert.equal(resolveOperation(v1Codec, 'SendStreamingMessage'), 'SendStreamingMessage');
    assert.equal(resolveOperation(v1Codec, 'SubscribeToTask'), 'SubscribeToTask');
    assert.equal(resolveOperation(v03Codec, 'message/stream'), 'SendStreamingMessage');
    assert.equal(resolveOperation(v03Codec, 'tasks/resubscribe'), 'SubscribeToTask');
    const err = expectProtocolError(() => resolveOperation(v1Codec, 'message/stream'), -32601);
    assert.match(err.message, /use SendStreamingMessage/);
    expectProtocolError(() => resolveOperation(v03Codec, 'SubscribeToTask'), -32601);
  });

  it('push-config methods → -32003', () => {
    for (const [codec, method] of [
      [v1Codec, 'CreateTaskPushNotificationConfig'],
      [v1Codec, 'GetTaskPushNotificationConfig'],
      [v1Codec, 'ListTaskPushNotificationConfigs'],
      [v1Codec, 'DeleteTaskPushNotificationConfig'],
      [v03Codec, 'tasks/pushNotificationConfig/set'],
      [v03Codec, 'tasks/pushNotificationConfig/get'],
      [v03Codec, 'tasks/pushNotificationConfig/list'],
      [v03Codec, 'tasks/pushNotificationConfig/delete'],
    ] as [A2ACodec, string][]) {
      expectProtocolError(() => resolveOperation(codec, method), -32003);
    }
  });

  it('the extended card is an operation of both versions; its params may be omitted', () => {
    assert.equal(resolveOperation(v1Codec, 'GetExtendedAgentCard'), 'GetExtendedAgentCard');
    assert.equal(resolveOperation(v03Codec, 'agent/getAuthenticatedExtendedCard'), 'GetExtendedAgentCard');
    for (const params of [undefined, null, {}]) {
      assert.deepEqual(parseRequest(v1Codec, 'GetExtendedAgentCard', params).command, {});
      assert.deepEqual(parseRequest(v03Codec, 'agent/getAuthenticatedExtendedCard', params).command, {});
    }
    assert.deepEqual(parseRequest(v1Codec, 'GetExtendedAgentCard', { tenant: 'acme' }).command, {
      tenant: 'acme',
    });
    // unknown fields are ignored (A2A: SHOULD, for forward compatibility), anything but an object is refused
    assert.deepEqual(parseRequest(v1Codec, 'GetExtendedAgentCard', { nope: 1 }).command, {});
    for (const params of [[1], 'x', 3]) {
      expectProtocolError(() => parseRequest(v1Codec, 'GetExtendedAgentCard', params), -32602);
      expectProtocolError(() => parseRequest(v03Codec, 'agent/getAuthenticatedExtendedCard', params), -32602);
    }
  });
});

describe('parseRequest', () => {
  it('returns the operation and its command', () => {
    const get = parseRequest(v1Codec, 'GetTask', { id: 't1' });
    assert.deepEqual(get, { operation: 'GetTask', command: { id: 't1' } });
    const list = parseRequest(v1Codec, 'ListTasks', undefined);
    assert.deepEqual(list, { operation: 'ListTasks', command: { pageSize: 50, includeArtifacts: false } });
    const cancel = parseRequest(v03Codec, 'tasks/cancel', { id: 't1' });
    assert.deepEqual(cancel, { operation: 'CancelTask', command: { id: 't1' } });
    const send = parseRequest(v03Codec, 'message/send', {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
    });
    assert.equal(send.operation, 'SendMessage');
  });

  it('streaming operations: SendStreamingMessage takes SendMessage params, SubscribeToTask a task id', () => {
    const stream = parseRequest(v1Codec, 'SendStreamingMessage', {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { historyLength: 2 },
    });
    assert.equal(stream.operation, 'SendStreamingMessage');
    if (stream.operation === 'SendStreamingMessage') {
      assert.equal(stream.command.message.parts[0]?.text, 'x');
      assert.equal(stream.command.historyLength, 2);
    }
    assert.deepEqual(parseRequest(v1Codec, 'SubscribeToTask', { id: 't1', tenant: 'a', extra: 1 }), {
      operation: 'SubscribeToTask',
      command: { tenant: 'a', id: 't1' },
    });
    assert.deepEqual(parseRequest(v03Codec, 'tasks/resubscribe', { id: 't1', metadata: { k: 1 } }), {
      operation: 'SubscribeToTask',
      command: { id: 't1' },
    });
    const v03 = parseRequest(v03Codec, 'message/stream', {
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }] },
    });
    assert.equal(v03.operation, 'SendStreamingMessage');
    for (const [codec, method] of [
      [v1Codec, 'SubscribeToTask'],
      [v03Codec, 'tasks/resubscribe'],
    ] as [A2ACodec, string][]) {
      for (const params of [undefined, {}, { id: '' }, { id: 7 }]) {
        const err = expectProtocolError(() => parseRequest(codec, method, params), -32602);
        assert.equal(err.fieldViolations?.[0]?.field, 'id', JSON.stringify(params));
      }
    }
    expectProtocolError(() => parseRequest(v1Codec, 'SendStreamingMessage', { id: 'x' }), -32602);
  });

  it('passes ParseOptions to SendMessage (push configs allowed once the server supports them)', () => {
    const params = {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] },
      configuration: { taskPushNotificationConfig: { url: 'https://hook.example/x' } },
    };
    expectProtocolError(() => parseRequest(v1Codec, 'SendMessage', params), -32003);
    const ok = parseRequest(v1Codec, 'SendMessage', params, { pushNotifications: true });
    assert.equal(ok.operation, 'SendMessage');
    if (ok.operation === 'SendMessage') {
      assert.deepEqual(ok.command.pushNotificationConfig, { url: 'https://hook.example/x' });
    }
  });

  it('missing params (undefined) are validated like an empty object', () => {
    const err = expectProtocolError(() => parseRequest(v1Codec, 'GetTask', undefined), -32602);
    assert.deepEqual(err.fieldViolations, [{ field: 'id', description: 'is required (a string)' }]);
  });
});
