import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYNAPSE_STATES, toA2AState } from '../../../../shared/domain/states.ts';
import { v1Codec } from '../../../../shared/protocol/a2a/index.ts';
import { encodeMessage } from '../../../../shared/protocol/a2a/v1.ts';
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
  messageId: 'm1',
  role: 'ROLE_USER',
  parts: [{ text: 'hi' }],
  ...extra,
});
const send = (params: unknown) => v1Codec.parseSendMessage(params);

describe('v1.0 SendMessage parsing', () => {
  it('minimal request → blocking command', () => {
    assert.deepEqual(send({ message: msg() }), {
      message: { messageId: 'm1', role: 'user', parts: [{ text: 'hi' }] },
      returnImmediately: false,
    });
  });

  it('accepts every field the spec defines; taskId/contextId come from the message', () => {
    const cmd = send({
      tenant: 'acme',
      message: msg({
        contextId: 'c1',
        taskId: 't1',
        role: 'ROLE_AGENT',
        parts: [
          { text: 'a', mediaType: 'text/plain', metadata: { x: 1 } },
          { raw: 'aGk=', filename: 'hi.txt', mediaType: 'text/plain' },
          { url: 'https://x/y.png', mediaType: 'image/png', filename: 'y.png' },
          { data: { k: [1, 2] }, mediaType: 'application/json' },
          { data: 'a string is a JSON value too' },
        ],
        metadata: { 'urn:ext': { a: 1 } },
        extensions: ['urn:ext'],
        referenceTaskIds: ['t0'],
      }),
      configuration: {
        acceptedOutputModes: ['text/plain', 'application/json'],
        historyLength: 3,
        returnImmediately: true,
      },
      metadata: { trace: 'abc' },
    });
    assert.deepEqual(cmd, {
      tenant: 'acme',
      message: {
        messageId: 'm1',
        role: 'agent',
        parts: [
          { text: 'a', mediaType: 'text/plain', metadata: { x: 1 } },
          { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
          { url: 'https://x/y.png', mediaType: 'image/png', filename: 'y.png' },
          { data: { k: [1, 2] }, mediaType: 'application/json' },
          { data: 'a string is a JSON value too' },
        ],
        contextId: 'c1',
        taskId: 't1',
        metadata: { 'urn:ext': { a: 1 } },
        extensions: ['urn:ext'],
        referenceTaskIds: ['t0'],
      },
      taskId: 't1',
      contextId: 'c1',
      returnImmediately: true,
      historyLength: 3,
      acceptedOutputModes: ['text/plain', 'application/json'],
      metadata: { trace: 'abc' },
    });
  });

  it('accepts proto snake_case aliases everywhere', () => {
    const cmd = send({
      message: {
        message_id: 'm1',
        context_id: 'c1',
        task_id: 't1',
        role: 'ROLE_USER',
        parts: [{ text: 'x', media_type: 'text/plain' }],
        reference_task_ids: ['t0'],
      },
      configuration: {
        accepted_output_modes: ['text/plain'],
        history_length: 2,
        return_immediately: true,
      },
    });
    assert.equal(cmd.message.messageId, 'm1');
    assert.equal(cmd.taskId, 't1');
    assert.equal(cmd.contextId, 'c1');
    assert.deepEqual(cmd.message.parts, [{ text: 'x', mediaType: 'text/plain' }]);
    assert.deepEqual(cmd.message.referenceTaskIds, ['t0']);
    assert.deepEqual(cmd.acceptedOutputModes, ['text/plain']);
    assert.equal(cmd.historyLength, 2);
    assert.equal(cmd.returnImmediately, true);
  });

  it('rejects a field given in both spellings', () => {
    expectViolation(() => send({ message: msg({ message_id: 'm2' }) }), 'message.message_id', /both/);
  });

  it('accepts ProtoJSON integer enums for role and int32 values as strings', () => {
    assert.equal(send({ message: msg({ role: 1 }) }).message.role, 'user');
    assert.equal(send({ message: msg({ role: 2 }) }).message.role, 'agent');
    assert.equal(send({ message: msg(), configuration: { historyLength: '4' } }).historyLength, 4);
  });

  it('treats null as "not set" and ProtoJSON defaults ("" / []) as absent', () => {
    const cmd = send({
      tenant: '',
      message: msg({ contextId: '', taskId: null, extensions: [], metadata: null }),
      configuration: { acceptedOutputModes: [], returnImmediately: null },
      metadata: null,
    });
    assert.deepEqual(cmd, {
      message: { messageId: 'm1', role: 'user', parts: [{ text: 'hi' }] },
      returnImmediately: false,
    });
  });

  it('normalizes raw bytes to standard padded base64 (URL-safe / unpadded accepted)', () => {
    const cmd = send({ message: msg({ parts: [{ raw: '-_8' }] }) });
    assert.deepEqual(cmd.message.parts, [{ raw: '+/8=' }]);
    expectViolation(
      () => send({ message: msg({ parts: [{ raw: 'not base64!' }] }) }),
      'message.parts[0].raw',
      /base64/,
    );
  });

  it('an empty text part is a text part', () => {
    assert.deepEqual(send({ message: msg({ parts: [{ text: '' }] }) }).message.parts, [{ text: '' }]);
  });

  it('inline push config → -32003 (push not supported), after validating its shape', () => {
    const err = expectProtocolError(
      () =>
        send({
          message: msg(),
          configuration: { taskPushNotificationConfig: { url: 'https://h/x', token: 't' } },
        }),
      -32003,
    );
    assert.equal(err.reason, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    expectViolation(
      () => send({ message: msg(), configuration: { taskPushNotificationConfig: { token: 't' } } }),
      'configuration.taskPushNotificationConfig.url',
      /required/,
    );
    const cmd = v1Codec.parseSendMessage(
      {
        message: msg(),
        configuration: {
          task_push_notification_config: {
            url: 'https://h/x',
            token: 'tok',
            task_id: '',
            authentication: { scheme: 'Bearer', credentials: 'secret' },
          },
        },
      },
      { pushNotifications: true },
    );
    assert.deepEqual(cmd.pushNotificationConfig, {
      url: 'https://h/x',
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    });
  });

  describe('invalid params (-32602 with field violations)', () => {
    it('missing message', () => {
      const err = expectViolation(() => send({}), 'message', /required/);
      assert.equal(err.message, 'Invalid params: message: is required (an object)');
    });

    it('empty parts / missing parts', () => {
      const err = expectViolation(() => send({ message: msg({ parts: [] }) }), 'message.parts', /at least 1/);
      assert.match(err.message, /message\.parts/);
      expectViolation(
        () => send({ message: { messageId: 'm', role: 'ROLE_USER' } }),
        'message.parts',
        /required/,
      );
    });

    it('missing / empty / too long / non-string messageId', () => {
      expectViolation(
        () => send({ message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
        'message.messageId',
        /required/,
      );
      expectViolation(
        () => send({ message: msg({ messageId: '' }) }),
        'message.messageId',
        /must not be empty/,
      );
      expectViolation(
        () => send({ message: msg({ messageId: 5 }) }),
        'message.messageId',
        /must be a string/,
      );
      // the domain's own limit, enforced before the engine sees the message
      expectViolation(
        () => send({ message: msg({ messageId: 'x'.repeat(257) }) }),
        'message.messageId',
        /256/,
      );
    });

    it('missing role, v0.3 role spelling, unspecified or unknown role', () => {
      expectViolation(
        () => send({ message: { messageId: 'm', parts: [{ text: 'x' }] } }),
        'message.role',
        /required/,
      );
      expectViolation(
        () => send({ message: msg({ role: 'user' }) }),
        'message.role',
        /"user" is the A2A v0\.3 spelling/,
      );
      expectViolation(
        () => send({ message: msg({ role: 'ROLE_UNSPECIFIED' }) }),
        'message.role',
        /not unspecified/,
      );
      expectViolation(() => send({ message: msg({ role: 0 }) }), 'message.role', /not unspecified/);
      expectViolation(
        () => send({ message: msg({ role: 'ROLE_BOT' }) }),
        'message.role',
        /ROLE_USER or ROLE_AGENT/,
      );
    });

    it('part with zero or several content members', () => {
      expectViolation(
        () => send({ message: msg({ parts: [{ mediaType: 'text/plain' }] }) }),
        'message.parts[0]',
        /exactly one of text, raw, url, data \(none given\)/,
      );
      expectViolation(
        () => send({ message: msg({ parts: [{ text: 'a' }, { text: 'a', url: 'https://x' }] }) }),
        'message.parts[1]',
        /\(got text and url\)/,
      );
    });

    it('unknown fields are ignored at every level (spec: SHOULD ignore), never passed on', () => {
      const cmd = send({
        message: msg({
          kind: 'message',
          foo: { deep: [1] },
          parts: [
            { kind: 'text', text: 'x', size: 1 },
            { data: { kept: true }, extra: 'x' },
          ],
        }),
        configuration: {
          historyLength: 2,
          blocking: true,
          pushNotificationConfig: { url: 'https://x' },
          unknown: null,
        },
        surprise: true,
        bogus: { a: 1 },
      });
      assert.deepEqual(cmd, {
        message: { messageId: 'm1', role: 'user', parts: [{ text: 'x' }, { data: { kept: true } }] },
        returnImmediately: false,
        historyLength: 2,
      });
    });

    it('known fields next to unknown ones are still validated', () => {
      expectViolation(
        () => send({ message: msg({ extra: 1, parts: [{ text: 5, size: 1 }] }), bogus: 1 }),
        'message.parts[0].text',
        /string/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { blocking: false, historyLength: -1 } }),
        'configuration.historyLength',
      );
    });

    it('a v0.3 part (kind/file) has no v1.0 content: the error says how to write it in v1.0', () => {
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'file', file: { uri: 'https://x' } }] }) }),
        'message.parts[0]',
        /none given.*"file".*"url"/,
      );
      expectViolation(
        () => send({ message: msg({ parts: [{ kind: 'text' }] }) }),
        'message.parts[0]',
        /none given.*"kind" is an A2A v0\.3 field/,
      );
    });

    it('unknown fields of the push config and its authentication are ignored too', () => {
      const err = expectProtocolError(
        () =>
          send({
            message: msg(),
            configuration: {
              taskPushNotificationConfig: {
                url: 'https://x',
                extra: 1,
                authentication: { scheme: 'B', y: 2 },
              },
            },
          }),
        -32003,
      );
      assert.equal(err.fieldViolations, undefined);
    });

    it('free-form maps stay free-form but must be objects', () => {
      assert.deepEqual(send({ message: msg(), metadata: { anything: { goes: [1] } } }).metadata, {
        anything: { goes: [1] },
      });
      expectViolation(
        () => send({ message: msg(), metadata: [1] }),
        'metadata',
        /must be an object, got an array/,
      );
      expectViolation(
        () => send({ message: msg({ metadata: 'x' }) }),
        'message.metadata',
        /must be an object/,
      );
    });

    it('bad configuration values', () => {
      expectViolation(
        () => send({ message: msg(), configuration: { historyLength: -1 } }),
        'configuration.historyLength',
        />= 0/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { historyLength: 1.5 } }),
        'configuration.historyLength',
        /integer/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { returnImmediately: 'yes' } }),
        'configuration.returnImmediately',
        /boolean/,
      );
      expectViolation(
        () => send({ message: msg(), configuration: { acceptedOutputModes: 'text/plain' } }),
        'configuration.acceptedOutputModes',
        /array/,
      );
    });

    it('"__proto__" keys: dropped like any unknown field, kept as given in free-form maps', () => {
      const parsed = JSON.parse(
        '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x","metadata":{"__proto__":{"p":1}}}],' +
          '"metadata":{"__proto__":{"m":1}}},"metadata":{"__proto__":{"x":1}},"__proto__":{"x":1}}',
      );
      const cmd = send(parsed);
      assert.equal(Object.getPrototypeOf(cmd), Object.prototype);
      assert.ok(!Object.hasOwn(cmd, '__proto__'), 'the unknown top-level field is dropped');
      for (const [map, value] of [
        [cmd.metadata, { x: 1 }],
        [cmd.message.metadata, { m: 1 }],
        [cmd.message.parts[0]?.metadata, { p: 1 }],
      ] as const) {
        assert.ok(map && Object.hasOwn(map, '__proto__'), 'the key is kept');
        assert.equal(Object.getPrototypeOf(map), Object.prototype, 'no prototype was set');
        assert.deepEqual(Object.getOwnPropertyDescriptor(map, '__proto__')?.value, value);
      }
      expectViolation(
        () => send({ message: msg({ role: '__proto__' }) }),
        'message.role',
        /ROLE_USER or ROLE_AGENT/,
      );
    });

    it('reports every problem at once', () => {
      const err = expectProtocolError(() => send({ message: { parts: [] }, x: 1 }), -32602);
      assert.deepEqual(
        err.fieldViolations?.map((v) => v.field),
        ['message.messageId', 'message.role', 'message.parts'],
      );
      assert.match(err.message, /and 2 more problems/);
    });
  });
});

describe('v1.0 GetTask / CancelTask parsing', () => {
  it('GetTask: id and historyLength (camel or snake), tenant', () => {
    assert.deepEqual(v1Codec.parseGetTask({ id: 't1' }), { id: 't1' });
    assert.deepEqual(v1Codec.parseGetTask({ id: 't1', history_length: 0, tenant: 'x' }), {
      tenant: 'x',
      id: 't1',
      historyLength: 0,
    });
  });

  it('GetTask: bad input', () => {
    expectViolation(() => v1Codec.parseGetTask({}), 'id', /required/);
    expectViolation(() => v1Codec.parseGetTask({ id: '' }), 'id', /empty/);
    expectViolation(() => v1Codec.parseGetTask({ id: 't', historyLength: -2 }), 'historyLength', />= 0/);
    assert.deepEqual(v1Codec.parseGetTask({ id: 't', metadata: {}, extra: [1] }), { id: 't' });
  });

  it('CancelTask: id, metadata, tenant', () => {
    assert.deepEqual(v1Codec.parseCancelTask({ id: 't1', metadata: { why: 'x' }, tenant: '' }), {
      id: 't1',
      metadata: { why: 'x' },
    });
    expectViolation(() => v1Codec.parseCancelTask({ taskId: 't1' }), 'id', /required/);
    assert.deepEqual(v1Codec.parseCancelTask({ id: 't1', taskId: 't1' }), { id: 't1' });
  });
});

describe('v1.0 ListTasks parsing', () => {
  const list = (p: unknown) => v1Codec.parseListTasks(p);

  it('defaults: pageSize 50, includeArtifacts false', () => {
    assert.deepEqual(list({}), { pageSize: 50, includeArtifacts: false });
  });

  it('all fields, camel and snake', () => {
    const expected = {
      tenant: 't',
      contextId: 'c1',
      status: 'TASK_STATE_WORKING',
      pageSize: 10,
      pageToken: 'tok',
      historyLength: 2,
      statusTimestampAfter: '2025-11-09T10:30:00.000Z',
      includeArtifacts: true,
    };
    assert.deepEqual(
      list({
        tenant: 't',
        contextId: 'c1',
        status: 'TASK_STATE_WORKING',
        pageSize: 10,
        pageToken: 'tok',
        historyLength: 2,
        statusTimestampAfter: '2025-11-09T10:30:00Z',
        includeArtifacts: true,
      }),
      expected,
    );
    assert.deepEqual(
      list({
        tenant: 't',
        context_id: 'c1',
        status: 2,
        page_size: '10',
        page_token: 'tok',
        history_length: 2,
        status_timestamp_after: '2025-11-09T10:30:00Z',
        include_artifacts: true,
      }),
      expected,
    );
  });

  it('status: every enum name and number; UNSPECIFIED means no filter', () => {
    const numbers: Record<string, number> = {
      TASK_STATE_SUBMITTED: 1,
      TASK_STATE_WORKING: 2,
      TASK_STATE_COMPLETED: 3,
      TASK_STATE_FAILED: 4,
      TASK_STATE_CANCELED: 5,
      TASK_STATE_INPUT_REQUIRED: 6,
      TASK_STATE_REJECTED: 7,
      TASK_STATE_AUTH_REQUIRED: 8,
    };
    for (const [name, n] of Object.entries(numbers)) {
      assert.equal(list({ status: name }).status, name);
      assert.equal(list({ status: n }).status, name);
    }
    assert.equal(list({ status: 'TASK_STATE_UNSPECIFIED' }).status, undefined);
    assert.equal(list({ status: 0 }).status, undefined);
  });

  it('status: unknown enum values', () => {
    for (const status of ['working', 'TASK_STATE_CANCELLED', 9, true]) {
      expectViolation(() => list({ status }), 'status', /must be a TaskState/);
    }
  });

  it('pageSize must be an integer in 1..100', () => {
    assert.equal(list({ pageSize: 1 }).pageSize, 1);
    assert.equal(list({ pageSize: 100 }).pageSize, 100);
    for (const pageSize of [0, 101, -5]) {
      expectViolation(() => list({ pageSize }), 'pageSize', /between 1 and 100/);
    }
    expectViolation(() => list({ pageSize: 2.5 }), 'pageSize', /integer/);
    expectViolation(() => list({ pageSize: 'ten' }), 'pageSize', /integer/);
  });

  it('statusTimestampAfter: RFC 3339 UTC, normalized to ms precision', () => {
    const norm = (s: string) => list({ statusTimestampAfter: s }).statusTimestampAfter;
    assert.equal(norm('2025-01-31T10:30:00Z'), '2025-01-31T10:30:00.000Z');
    assert.equal(norm('2025-01-31T10:30:00.5Z'), '2025-01-31T10:30:00.500Z');
    assert.equal(norm('2025-01-31t10:30:00.123z'), '2025-01-31T10:30:00.123Z');
    assert.equal(norm('2025-01-31T10:30:00+00:00'), '2025-01-31T10:30:00.000Z');
    // sub-millisecond digits round up, keeping ">= value" exact against ms timestamps
    assert.equal(norm('2025-01-31T10:30:00.123000001Z'), '2025-01-31T10:30:00.124Z');
    assert.equal(norm('2025-12-31T23:59:59.9999Z'), '2026-01-01T00:00:00.000Z');
    assert.equal(norm('2024-02-29T00:00:00Z'), '2024-02-29T00:00:00.000Z');
  });

  it('statusTimestampAfter: bad timestamps', () => {
    expectViolation(
      () => list({ statusTimestampAfter: '2025-01-31T10:30:00+02:00' }),
      'statusTimestampAfter',
      /UTC/,
    );
    for (const s of [
      '2025-01-31',
      '2025-01-31 10:30:00Z',
      '2025-01-31T10:30:00',
      'yesterday',
      '1700000000',
    ]) {
      expectViolation(() => list({ statusTimestampAfter: s }), 'statusTimestampAfter', /RFC 3339/);
    }
    for (const s of [
      '2025-02-29T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-01-31T24:00:00Z',
      '2025-01-31T10:60:00Z',
    ]) {
      expectViolation(() => list({ statusTimestampAfter: s }), 'statusTimestampAfter', /not a valid date/);
    }
    expectViolation(() => list({ statusTimestampAfter: 1700000000 }), 'statusTimestampAfter', /string/);
  });

  it('other bad values', () => {
    expectViolation(() => list({ historyLength: -1 }), 'historyLength', />= 0/);
    expectViolation(() => list({ includeArtifacts: 'true' }), 'includeArtifacts', /boolean/);
    assert.deepEqual(list({ cursor: 'x', limit: 5 }), list({}), 'unknown fields are ignored');
  });
});

describe('v1.0 Task encoding', () => {
  it('encodes a full task: status (state, message, timestamp), artifacts, history, metadata', () => {
    const v = view({
      state: 'info_needed',
      head: { statusMessage: agentMessage(), metadata: { k: 1 } },
      history: [
        userMessage({
          parts: [
            { text: 'a', mediaType: 'text/plain', metadata: { m: 1 } },
            { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
            { url: 'https://x/y', mediaType: 'image/png' },
            { data: [1, 2] },
          ],
        }),
      ],
      artifacts: [artifact({ description: 'd', extensions: ['urn:e'], metadata: { z: 1 } })],
    });
    assert.deepEqual(v1Codec.encodeTask(v, { includeArtifacts: true }), {
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: {
          messageId: 'a1',
          contextId: 'c1',
          taskId: 't1',
          role: 'ROLE_AGENT',
          parts: [{ text: 'which city?' }],
        },
        timestamp: T1,
      },
      artifacts: [
        {
          artifactId: 'r1',
          name: 'result',
          description: 'd',
          parts: [{ text: 'done' }],
          metadata: { z: 1 },
          extensions: ['urn:e'],
        },
      ],
      history: [
        {
          messageId: 'm1',
          contextId: 'c1',
          taskId: 't1',
          role: 'ROLE_USER',
          parts: [
            { text: 'a', mediaType: 'text/plain', metadata: { m: 1 } },
            { raw: 'aGk=', mediaType: 'text/plain', filename: 'hi.txt' },
            { url: 'https://x/y', mediaType: 'image/png' },
            { data: [1, 2] },
          ],
        },
      ],
      metadata: { k: 1 },
    });
  });

  it('maps every Synapse state through toA2AState', () => {
    for (const state of SYNAPSE_STATES) {
      const t = v1Codec.encodeTask(view({ state }), { includeArtifacts: false });
      assert.equal(t.status.state, toA2AState(state));
    }
  });

  it('artifacts key: absent unless includeArtifacts, then present even when empty', () => {
    const v = view({ artifacts: [] });
    assert.equal('artifacts' in v1Codec.encodeTask(v, { includeArtifacts: false }), false);
    assert.deepEqual(v1Codec.encodeTask(v, { includeArtifacts: true }).artifacts, []);
    const withOne = view({ artifacts: [artifact()] });
    assert.equal('artifacts' in v1Codec.encodeTask(withOne, { includeArtifacts: false }), false);
  });

  it('history: omitted when empty or historyLength 0, trimmed to the N most recent', () => {
    const h = [
      userMessage({ messageId: 'a' }),
      agentMessage({ messageId: 'b' }),
      userMessage({ messageId: 'c' }),
    ];
    const enc = (historyLength?: number, history = h) =>
      v1Codec.encodeTask(view({ history }), {
        includeArtifacts: false,
        ...(historyLength !== undefined ? { historyLength } : {}),
      });
    assert.deepEqual(
      enc()?.history?.map((m) => m.messageId),
      ['a', 'b', 'c'],
    );
    assert.deepEqual(
      enc(2)?.history?.map((m) => m.messageId),
      ['b', 'c'],
    );
    assert.deepEqual(
      enc(10)?.history?.map((m) => m.messageId),
      ['a', 'b', 'c'],
    );
    assert.equal('history' in enc(0), false);
    assert.equal('history' in enc(undefined, []), false);
  });

  it('no status message, no metadata → those keys are absent', () => {
    const t = v1Codec.encodeTask(view({ state: 'pending' }), { includeArtifacts: false });
    assert.deepEqual(t.status, { state: 'TASK_STATE_SUBMITTED', timestamp: T1 });
    assert.equal('metadata' in t, false);
  });

  it('never emits v0.3 leftovers (kind, lower-case states/roles, file/mimeType)', () => {
    const v = view({
      head: { statusMessage: agentMessage() },
      history: [userMessage({ parts: [{ raw: 'aGk=', mediaType: 'text/plain', filename: 'a' }] })],
      artifacts: [artifact()],
    });
    const keys = allKeys(v1Codec.encodeSendResult(v, { includeArtifacts: true }));
    for (const k of ['kind', 'file', 'mimeType', 'bytes', 'uri', 'name_'])
      assert.equal(keys.has(k), false, k);
    const json = JSON.stringify(v1Codec.encodeTask(v, { includeArtifacts: true }));
    assert.doesNotMatch(json, /"role":"(user|agent)"/);
  });

  it('SendMessage result is wrapped in {task}; Get/Cancel return the bare Task', () => {
    const v = view();
    const task = v1Codec.encodeTask(v, { includeArtifacts: true });
    assert.deepEqual(v1Codec.encodeSendResult(v, { includeArtifacts: true }), { task });
    assert.deepEqual(v1Codec.encodeGetResult(v, { includeArtifacts: true }), task);
    assert.deepEqual(v1Codec.encodeCancelResult(v, { includeArtifacts: true }), task);
  });

  it('a message reply (no task) is wrapped in {message}: role ROLE_AGENT, contextId, no taskId, no kind', () => {
    const { taskId: _none, ...reply } = agentMessage({
      messageId: 'r1',
      contextId: 'c9',
      parts: [{ text: 'pong' }, { data: { n: 1 }, mediaType: 'application/json' }],
      metadata: { m: true },
    });
    assert.deepEqual(v1Codec.encodeSendReply(reply), {
      message: {
        messageId: 'r1',
        contextId: 'c9',
        role: 'ROLE_AGENT',
        parts: [{ text: 'pong' }, { data: { n: 1 }, mediaType: 'application/json' }],
        metadata: { m: true },
      },
    });
  });

  it('ListTasks result always carries tasks, nextPageToken, pageSize, totalSize', () => {
    assert.deepEqual(
      v1Codec.encodeListResult(
        { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 },
        { includeArtifacts: false },
      ),
      { tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 },
    );
    const r = v1Codec.encodeListResult(
      { tasks: [view({ artifacts: [artifact()] })], nextPageToken: 'n', pageSize: 1, totalSize: 7 },
      { includeArtifacts: false, historyLength: 0 },
    );
    assert.equal(r.tasks.length, 1);
    assert.equal('artifacts' in (r.tasks[0] ?? {}), false);
    assert.equal('history' in (r.tasks[0] ?? {}), false);
    assert.deepEqual([r.nextPageToken, r.pageSize, r.totalSize], ['n', 1, 7]);
  });
});

describe('v1.0 round trip', () => {
  it('a wire message parses to a domain message that encodes back to the same wire message', () => {
    const wire = {
      messageId: 'm9',
      contextId: 'c9',
      taskId: 't9',
      role: 'ROLE_USER',
      parts: [
        { text: 'hello', mediaType: 'text/plain' },
        { raw: 'AAEC', mediaType: 'application/octet-stream', filename: 'b.bin', metadata: { s: 1 } },
        { url: 'https://files.example/x.pdf', mediaType: 'application/pdf', filename: 'x.pdf' },
        { data: { nested: { ok: true } }, mediaType: 'application/json' },
      ],
      metadata: { 'urn:e': 1 },
      extensions: ['urn:e'],
      referenceTaskIds: ['t8'],
    };
    const cmd = send({ message: wire });
    assert.deepEqual(encodeMessage(cmd.message), wire);
  });
});
