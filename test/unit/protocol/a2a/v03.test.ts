import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYNAPSE_STATES, toA2AState } from '../../../../shared/domain/states.ts';
import { v1Codec, v03Codec } from '../../../../shared/protocol/a2a/index.ts';
import { encodeMessage, V03_STATE_OF } from '../../../../shared/protocol/a2a/v03.ts';
import {
  agentMessage,
  allKeys,
  artifact,
  expectProtocolError,
  expectViolation,
  T1,
  userMessage,
  view,
} from './fixtures.ts';

const msg = (extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: 'm1',
  role: 'user',
  parts: [{ kind: 'text', text: 'hi' }],
  ...extra,
});
const send = (params: unknown) => v03Codec.parseSendMessage(params);

describe('v0.3 message/send parsing', () => {
  it('minimal request → blocking command (blocking defaults to true)', () => {
    assert.deepEqual(send({ message: msg() }), {
      message: { messageId: 'm1', role: 'user', parts: [{ text: 'hi' }] },
      returnImmediately: false,
    });
  });

  it('configuration.blocking: true ⇒ returnImmediately false, false ⇒ true', () => {
    assert.equal(send({ message: msg(), configuration: { blocking: true } }).returnImmediately, false);
    assert.equal(send({ message: msg(), configuration: { blocking: false } }).returnImmediately, true);
  });

  it('accepts every v0.3 field and translates kind parts to the domain model', () => {
    const cmd = send({
      message: msg({
        contextId: 'c1',
        taskId: 't1',
        parts: [
          { kind: 'text', text: 'a', metadata: { x: 1 } },
          { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
          { kind: 'file', file: { uri: 'https://x/y.png', mimeType: 'image/png' } },
          { kind: 'data', data: { k: 1 }, metadata: { y: 2 } },
        ],
        metadata: { m: 1 },
        extensions: ['urn:e'],
        referenceTaskIds: ['t0'],
      }),
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2, blocking: false },
      metadata: { req: 1 },
    });
    assert.deepEqual(cmd, {
      message: {
        messageId: 'm1',
        role: 'user',
        parts: [
          { text: 'a', metadata: { x: 1 } },
          { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
          { url: 'https://x/y.png', mediaType: 'image/png' },
          { data: { k: 1 }, metadata: { y: 2 } },
        ],
        contextId: 'c1',
        taskId: 't1',
        metadata: { m: 1 },
        extensions: ['urn:e'],
        referenceTaskIds: ['t0'],
      },
      taskId: 't1',
      contextId: 'c1',
      returnImmediately: true,
      historyLength: 2,
      acceptedOutputModes: ['text/plain'],
      metadata: { req: 1 },
    });
  });

  it('kind discriminators are optional (parts are recognized by their member)', () => {
    const cmd = send({ message: { messageId: 'm', role: 'agent', parts: [{ text: 'x' }, { data: {} }] } });
    assert.deepEqual(cmd.message.parts, [{ text: 'x' }, { data: {} }]);
  });

  it('unwraps a2a-js compat data parts ({value} + data_part_compat)', () => {
    const cmd = send({
      message: msg({
        parts: [{ kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true, k: 1 } }],
      }),
    });
    assert.deepEqual(cmd.message.parts, [{ data: [1, 2], metadata: { k: 1 } }]);
  });

  it('pushNotificationConfig → -32003; with push enabled it is translated (first scheme kept)', () => {
    const params = {
      message: msg(),
      configuration: {
        pushNotificationConfig: {
          url: 'https://hook/x',
          token: 't',
          authentication: { schemes: ['Bearer', 'Basic'], credentials: 'c' },
        },
      },
    };
    expectProtocolError(() => send(params), -32003);
    assert.deepEqual(v03Codec.parseSendMessage(params, { pushNotifications: true }).pushNotificationConfig, {
      url: 'https://hook/x',
      token: 't',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
  });

  describe('invalid params', () => {
    it('empty or missing parts, missing messageId', () => {
      expectViolation(() => send({ message: msg({ parts: [] }) }), 'message.parts', /at least 1/);
      expectViolation(
        () => send({ message: { kind: 'message', messageId: 'm', role: 'user' } }),
        'message.parts',
        /required/,
      );
      expectViolation(
        () => send({ message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'x' }] } }),
        'message.messageId',
        /required/,
      );
    });

    it('missing role and v1.0 role spelling', () => {
      expectViolation(
        () => send({ message: { messageId: 'm', parts: [{ kind: 'text', text: 'x' }] } }),
        'message.role',
        /required/,
      );
      expectViolation(() => send({ message: msg({ role: 'ROLE_USER' }) }), 'message.role', /v1\.0 spelling/);
      expectViolation(() => send({ message: msg({ role: 1 }) }), 'message.role', /"user" or "agent"/);
    });

    it('wrong or mismatching kind', () => {
      expectViolation(() => send({ message: msg({ kind: 'task' }) }), 'message.kind', /"message"/);
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'image', text: 'x' }] }) }),
        'message.parts[0].kind',
      );
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'text', data: { a: 1 } }] }) }),
        'message.parts[0].kind',
        /is "text" but the part carries "data"/,
      );
    });

    it('parts and files with zero or several content members', () => {
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'text' }] }) }),
        'message.parts[0]',
        /none given/,
      );
      expectViolation(
        () => send({ message: msg({ parts: [{ text: 'x', data: {} }] }) }),
        'message.parts[0]',
        /got text and data/,
      );
      expectViolation(
        () =>
          send({ message: msg({ parts: [{ kind: 'file', file: { bytes: 'aGk=', uri: 'https://x' } }] }) }),
        'message.parts[0].file',
        /exactly one of bytes, uri/,
      );
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'file', file: { mimeType: 'a/b' } }] }) }),
        'message.parts[0].file',
        /none given/,
      );
    });

    it('v0.3 data parts must be objects', () => {
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'data', data: [1] }] }) }),
        'message.parts[0].data',
        /object/,
      );
    });

    it('unknown fields (v1.0 ones included) are ignored at every level, never passed on', () => {
      const cmd = send({
        tenant: 't',
        extra: { a: 1 },
        message: msg({
          foo: 'bar',
          message_id: 'ignored',
          parts: [
            { kind: 'text', text: 'x', mediaType: 'text/plain', size: 3 },
            { kind: 'file', file: { uri: 'https://x/y', mimeType: 'image/png', width: 3 }, filename: 'y' },
          ],
        }),
        configuration: { returnImmediately: true, blocking: false, taskPushNotificationConfig: {} },
      });
      assert.deepEqual(cmd, {
        message: {
          messageId: 'm1',
          role: 'user',
          parts: [{ text: 'x' }, { url: 'https://x/y', mediaType: 'image/png' }],
        },
        returnImmediately: true,
      });
    });

    it('known fields next to unknown ones are still validated', () => {
      expectViolation(
        () => send({ message: msg({ extra: 1, parts: [{ kind: 'text', text: 5, x: 1 }] }), tenant: 't' }),
        'message.parts[0].text',
        /string/,
      );
      expectViolation(
        () => send({ message: msg({ message_id: 'x', messageId: undefined }) }),
        'message.messageId',
      );
    });

    it('a v1.0 part (raw/url) has no v0.3 content: the error says how to write it in v0.3', () => {
      expectViolation(
        () => send({ message: msg({ parts: [{ raw: 'aGk=' }] }) }),
        'message.parts[0]',
        /none given.*"raw".*kind":"file"/,
      );
    });

    it('bad configuration values', () => {
      expectViolation(
        () => send({ message: msg(), configuration: { blocking: 'no' } }),
        'configuration.blocking',
        /boolean/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { historyLength: -3 } }),
        'configuration.historyLength',
        />= 0/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { historyLength: '3' } }),
        'configuration.historyLength',
      );
    });
  });
});

describe('v0.3 tasks/get, tasks/cancel, (no) list', () => {
  it('tasks/get accepts TaskQueryParams (id, historyLength, metadata)', () => {
    assert.deepEqual(v03Codec.parseGetTask({ id: 't1', historyLength: 2, metadata: { a: 1 } }), {
      id: 't1',
      historyLength: 2,
    });
    assert.deepEqual(v03Codec.parseGetTask({ id: 't1', history_length: 2 }), { id: 't1' });
    expectViolation(() => v03Codec.parseGetTask({}), 'id', /required/);
  });

  it('tasks/cancel accepts TaskIdParams (id, metadata)', () => {
    assert.deepEqual(v03Codec.parseCancelTask({ id: 't1', metadata: { why: 'x' } }), {
      id: 't1',
      metadata: { why: 'x' },
    });
    expectViolation(() => v03Codec.parseCancelTask({ id: 1 }), 'id', /string/);
  });

  it('ListTasks does not exist in v0.3', () => {
    const err = expectProtocolError(() => v03Codec.parseListTasks({}), -32601);
    assert.match(err.message, /A2A-Version: 1\.0/);
  });
});

describe('v0.3 Task encoding', () => {
  it('bare Task with kind, lower-case state, user/agent roles and kind parts', () => {
    const v = view({
      state: 'info_needed',
      head: { statusMessage: agentMessage(), metadata: { k: 1 } },
      history: [
        userMessage({
          parts: [
            { text: 'a', mediaType: 'text/plain', metadata: { m: 1 } },
            { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
            { url: 'https://x/y', mediaType: 'image/png' },
            { data: { a: 1 } },
            { data: [1, 2] },
          ],
        }),
      ],
      artifacts: [artifact()],
    });
    const task = v03Codec.encodeSendResult(v, { includeArtifacts: true });
    assert.deepEqual(task, {
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'input-required',
        message: {
          kind: 'message',
          messageId: 'a1',
          role: 'agent',
          parts: [{ kind: 'text', text: 'which city?' }],
          contextId: 'c1',
          taskId: 't1',
        },
        timestamp: T1,
      },
      artifacts: [{ artifactId: 'r1', name: 'result', parts: [{ kind: 'text', text: 'done' }] }],
      history: [
        {
          kind: 'message',
          messageId: 'm1',
          role: 'user',
          parts: [
            { kind: 'text', text: 'a', metadata: { m: 1 } },
            { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
            { kind: 'file', file: { uri: 'https://x/y', mimeType: 'image/png' } },
            { kind: 'data', data: { a: 1 } },
            { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
          ],
          contextId: 'c1',
          taskId: 't1',
        },
      ],
      metadata: { k: 1 },
    });
    assert.deepEqual(v03Codec.encodeGetResult(v, { includeArtifacts: true }), task);
    assert.deepEqual(v03Codec.encodeCancelResult(v, { includeArtifacts: true }), task);
  });

  it('maps every state to the v0.3 spelling', () => {
    assert.deepEqual(Object.values(V03_STATE_OF).sort(), [
      'auth-required',
      'canceled',
      'completed',
      'failed',
      'input-required',
      'rejected',
      'submitted',
      'working',
    ]);
    for (const state of SYNAPSE_STATES) {
      const t = v03Codec.encodeTask(view({ state }), { includeArtifacts: false });
      assert.equal(t.status.state, V03_STATE_OF[toA2AState(state)]);
    }
    assert.equal(
      v03Codec.encodeTask(view({ state: 'cancelled' }), { includeArtifacts: false }).status.state,
      'canceled',
    );
  });

  it('same artifact/history rules as v1.0 (shared projection)', () => {
    const v = view({ artifacts: [] });
    assert.equal('artifacts' in v03Codec.encodeTask(v, { includeArtifacts: false }), false);
    assert.deepEqual(v03Codec.encodeTask(v, { includeArtifacts: true }).artifacts, []);
    assert.equal('history' in v03Codec.encodeTask(v, { includeArtifacts: false, historyLength: 0 }), false);
  });

  it('never emits v1.0-only names', () => {
    const v = view({
      history: [userMessage({ parts: [{ raw: 'aGk=', mediaType: 'a/b', filename: 'f' }, { url: 'u' }] })],
    });
    const keys = allKeys(v03Codec.encodeTask(v, { includeArtifacts: true }));
    for (const k of ['raw', 'url', 'mediaType', 'filename']) assert.equal(keys.has(k), false, k);
    assert.doesNotMatch(
      JSON.stringify(v03Codec.encodeTask(v, { includeArtifacts: true })),
      /TASK_STATE_|ROLE_/,
    );
  });

  it('a message reply (no task) is the bare Message with kind "message"', () => {
    const { taskId: _none, ...reply } = agentMessage({
      messageId: 'r1',
      contextId: 'c9',
      parts: [{ text: 'pong' }, { data: [1, 2] }],
    });
    assert.deepEqual(v03Codec.encodeSendReply(reply), {
      kind: 'message',
      messageId: 'r1',
      contextId: 'c9',
      role: 'agent',
      parts: [
        { kind: 'text', text: 'pong' },
        { kind: 'data', data: { value: [1, 2] }, metadata: { data_part_compat: true } },
      ],
    });
  });

  it('the two codecs encode the same view to equivalent tasks', () => {
    const v = view({ state: 'completed', artifacts: [artifact()] });
    const a = v1Codec.encodeTask(v, { includeArtifacts: true });
    const b = v03Codec.encodeTask(v, { includeArtifacts: true });
    assert.equal(a.id, b.id);
    assert.equal(a.status.timestamp, b.status.timestamp);
    assert.equal(a.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(b.status.state, 'completed');
  });
});

describe('v0.3 round trip', () => {
  it('a wire message parses and encodes back to the same wire message', () => {
    const wire = {
      kind: 'message',
      messageId: 'm9',
      role: 'user',
      parts: [
        { kind: 'text', text: 'hello', metadata: { a: 1 } },
        { kind: 'file', file: { bytes: 'AAEC', mimeType: 'application/octet-stream', name: 'b.bin' } },
        { kind: 'file', file: { uri: 'https://files.example/x.pdf', mimeType: 'application/pdf' } },
        { kind: 'data', data: { nested: { ok: true } } },
        { kind: 'data', data: { value: 'scalar' }, metadata: { data_part_compat: true } },
      ],
      contextId: 'c9',
      taskId: 't9',
      metadata: { m: 1 },
      extensions: ['urn:e'],
      referenceTaskIds: ['t8'],
    };
    assert.deepEqual(encodeMessage(send({ message: wire }).message), wire);
  });
});
