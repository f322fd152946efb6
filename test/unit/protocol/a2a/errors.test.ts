import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConflictError,
  DuplicateMessageError,
  InvalidTransitionError,
  PayloadTooLargeError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnavailableError,
  ValidationError,
} from '../../../../shared/domain/errors.ts';
import {
  A2A_ERROR_DOMAIN,
  A2AProtocolError,
  BAD_REQUEST_TYPE,
  ERROR_CODES,
  ERROR_INFO_TYPE,
  errorHeaders,
  fromDomainError,
  httpStatusOf,
  jsonRpcError,
  toProtocolError,
  v1Codec,
  v03Codec,
} from '../../../../shared/protocol/a2a/index.ts';
import { restErrorBody, restStatusOf } from '../../../../shared/protocol/a2a/rest.ts';

/** Every constructor, with the code, reason and a message fragment it must produce. */
const CASES: [string, () => A2AProtocolError, number, string, RegExp][] = [
  ['parseError', () => A2AProtocolError.parseError('x'), -32700, 'PARSE_ERROR', /not valid JSON \(x\)/],
  [
    'invalidRequest',
    () => A2AProtocolError.invalidRequest('bad'),
    -32600,
    'INVALID_REQUEST',
    /Invalid request: bad/,
  ],
  [
    'methodNotFound',
    () => A2AProtocolError.methodNotFound('Foo'),
    -32601,
    'METHOD_NOT_FOUND',
    /Method not found: Foo/,
  ],
  [
    'invalidParams',
    () => A2AProtocolError.invalidParams([{ field: 'id', description: 'is required' }]),
    -32602,
    'INVALID_PARAMS',
    /Invalid params: id: is required/,
  ],
  ['internalError', () => A2AProtocolError.internalError(), -32603, 'INTERNAL_ERROR', /Internal error/],
  [
    'unauthenticated',
    () => A2AProtocolError.unauthenticated('The token has expired', 'invalid_token'),
    401,
    'UNAUTHENTICATED',
    /The token has expired/,
  ],
  [
    'permissionDenied',
    () => A2AProtocolError.permissionDenied('not valid for tenant "b"'),
    403,
    'PERMISSION_DENIED',
    /not valid for tenant/,
  ],
  ['rateLimited', () => A2AProtocolError.rateLimited('slow down'), 429, 'RATE_LIMITED', /slow down/],
  ['taskNotFound', () => A2AProtocolError.taskNotFound('t9'), -32001, 'TASK_NOT_FOUND', /Task not found: t9/],
  [
    'taskNotCancelable',
    () => A2AProtocolError.taskNotCancelable('t9', 'TASK_STATE_COMPLETED'),
    -32002,
    'TASK_NOT_CANCELABLE',
    /t9 is in state TASK_STATE_COMPLETED and cannot be canceled/,
  ],
  [
    'pushNotificationNotSupported',
    () => A2AProtocolError.pushNotificationNotSupported(),
    -32003,
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
    /Push notifications are not supported/,
  ],
  [
    'unsupportedOperation',
    () => A2AProtocolError.unsupportedOperation('nope'),
    -32004,
    'UNSUPPORTED_OPERATION',
    /nope/,
  ],
  [
    'contentTypeNotSupported',
    () => A2AProtocolError.contentTypeNotSupported('image/x', ['text/plain']),
    -32005,
    'CONTENT_TYPE_NOT_SUPPORTED',
    /image\/x \(supported: text\/plain\)/,
  ],
  [
    'invalidAgentResponse',
    () => A2AProtocolError.invalidAgentResponse('no task'),
    -32006,
    'INVALID_AGENT_RESPONSE',
    /Invalid agent response: no task/,
  ],
  [
    'extendedAgentCardNotConfigured',
    () => A2AProtocolError.extendedAgentCardNotConfigured(),
    -32007,
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    /not configured/,
  ],
  [
    'extensionSupportRequired',
    () => A2AProtocolError.extensionSupportRequired(['urn:a', 'urn:b']),
    -32008,
    'EXTENSION_SUPPORT_REQUIRED',
    /urn:a, urn:b.*A2A-Extensions/,
  ],
  [
    'versionNotSupported',
    () => A2AProtocolError.versionNotSupported('2.0', ['1.0', '0.3']),
    -32009,
    'VERSION_NOT_SUPPORTED',
    /"2.0" is not supported; supported versions: 1.0, 0.3/,
  ],
  [
    'taskGenerationMismatch',
    () => A2AProtocolError.taskGenerationMismatch('t9', 3, 5),
    -32010,
    'TASK_GENERATION_MISMATCH',
    /Task t9 is at generation 5, not 3/,
  ],
  ['conflict', () => A2AProtocolError.conflict('t9', 25), -32050, 'CONFLICT', /modified concurrently.*retry/],
  [
    'unavailable',
    () => A2AProtocolError.unavailable('The hub could not reach DynamoDB PutItem: try again', 2),
    503,
    'UNAVAILABLE',
    /could not reach DynamoDB PutItem/,
  ],
];

describe('A2AProtocolError constructors', () => {
  for (const [name, make, code, reason, message] of CASES) {
    it(`${name} → ${code} ${reason}`, () => {
      const err = make();
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'A2AProtocolError');
      assert.equal(err.code, code);
      assert.equal(err.reason, reason);
      assert.match(err.message, message);

      const v1 = jsonRpcError(v1Codec, err);
      assert.equal(v1.code, code);
      assert.equal(v1.message, err.message);
      assert.ok(Array.isArray(v1.data));
      const [info] = v1.data;
      assert.equal(info['@type'], ERROR_INFO_TYPE);
      assert.equal(info.reason, reason);
      assert.equal(info.domain, A2A_ERROR_DOMAIN);

      const v03 = jsonRpcError(v03Codec, err);
      assert.equal(v03.code, code);
      assert.equal(v03.message, err.message);
      assert.equal(v03.data.reason, reason);
      assert.ok(!Array.isArray(v03.data));
    });
  }

  it('covers every code in ERROR_CODES', () => {
    const covered = new Set(CASES.map(([, make]) => make().code));
    for (const code of Object.values(ERROR_CODES)) assert.ok(covered.has(code), `no case for ${code}`);
  });

  it('carries metadata where the spec suggests it (string values only)', () => {
    assert.deepEqual(A2AProtocolError.taskNotFound('t9').metadata, { taskId: 't9' });
    assert.deepEqual(A2AProtocolError.versionNotSupported('9', ['1.0', '0.3']).metadata, {
      requestedVersion: '9',
      supportedVersions: '1.0,0.3',
    });
    assert.deepEqual(A2AProtocolError.conflict('t9', 3).metadata, {
      taskId: 't9',
      retryable: 'true',
      attempts: '3',
    });
    for (const [, make] of CASES) {
      for (const v of Object.values(make().metadata)) assert.equal(typeof v, 'string');
    }
  });

  it('invalidParams summarises several violations in its message', () => {
    const err = A2AProtocolError.invalidParams([
      { field: 'a', description: 'x' },
      { field: 'b', description: 'y' },
      { field: 'c', description: 'z' },
    ]);
    assert.equal(err.message, 'Invalid params: a: x (and 2 more problems)');
    assert.equal(A2AProtocolError.invalidParams('free text').message, 'Invalid params: free text');
    assert.equal(A2AProtocolError.invalidParams('free text').fieldViolations, undefined);
  });
});

describe('error encoding', () => {
  it('v1.0: data is [ErrorInfo] with metadata only when there is some', () => {
    assert.deepEqual(jsonRpcError(v1Codec, A2AProtocolError.taskNotFound('t9')), {
      code: -32001,
      message: 'Task not found: t9',
      data: [
        {
          '@type': ERROR_INFO_TYPE,
          reason: 'TASK_NOT_FOUND',
          domain: A2A_ERROR_DOMAIN,
          metadata: { taskId: 't9' },
        },
      ],
    });
    assert.deepEqual(jsonRpcError(v1Codec, A2AProtocolError.pushNotificationNotSupported()).data, [
      { '@type': ERROR_INFO_TYPE, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', domain: A2A_ERROR_DOMAIN },
    ]);
  });

  it('v1.0: validation errors add a google.rpc.BadRequest with the field violations', () => {
    const err = A2AProtocolError.invalidParams([
      { field: 'message.parts', description: 'must not be empty' },
    ]);
    assert.deepEqual(jsonRpcError(v1Codec, err), {
      code: -32602,
      message: 'Invalid params: message.parts: must not be empty',
      data: [
        { '@type': ERROR_INFO_TYPE, reason: 'INVALID_PARAMS', domain: A2A_ERROR_DOMAIN },
        {
          '@type': BAD_REQUEST_TYPE,
          fieldViolations: [{ field: 'message.parts', description: 'must not be empty' }],
        },
      ],
    });
  });

  it('v0.3: data is a free-form object {reason, ...metadata, fieldViolations?}', () => {
    assert.deepEqual(jsonRpcError(v03Codec, A2AProtocolError.taskNotFound('t9')), {
      code: -32001,
      message: 'Task not found: t9',
      data: { reason: 'TASK_NOT_FOUND', taskId: 't9' },
    });
    const err = A2AProtocolError.invalidParams([{ field: 'id', description: 'is required' }]);
    assert.deepEqual(jsonRpcError(v03Codec, err).data, {
      reason: 'INVALID_PARAMS',
      fieldViolations: [{ field: 'id', description: 'is required' }],
    });
  });
});

describe('httpStatusOf', () => {
  it('is 200 for every JSON-RPC error except -32603 (500), like a2a-js, and the transport-level auth errors', () => {
    const transport = [401, 403, 429, 503];
    for (const code of Object.values(ERROR_CODES))
      assert.equal(httpStatusOf(code), code === -32603 ? 500 : transport.includes(code) ? code : 200);
  });
});

describe('fromDomainError', () => {
  it('UnavailableError → 503 UNAVAILABLE, retryable, with its Retry-After', () => {
    const cause = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    const err = fromDomainError(new UnavailableError('SQS SendMessage (ThrottlingException)', 2, { cause }));
    assert.equal(err.code, 503);
    assert.equal(httpStatusOf(err.code), 503);
    assert.match(
      err.message,
      /could not reach SQS SendMessage \(ThrottlingException\); try again \(a retried messageId applies once\)/,
    );
    assert.equal(err.metadata.retryable, 'true');
    assert.deepEqual(errorHeaders(err), { 'retry-after': '2' });
    assert.equal(err.cause instanceof UnavailableError, true, 'the cause is kept for the log');
  });
  it('TaskNotFoundError → -32001 with the task id', () => {
    const err = fromDomainError(new TaskNotFoundError('t1'));
    assert.equal(err.code, -32001);
    assert.equal(err.message, 'Task not found: t1');
    assert.deepEqual(err.metadata, { taskId: 't1' });
  });

  it('TaskNotCancelableError → -32002 naming the A2A state (checked before InvalidTransitionError)', () => {
    const err = fromDomainError(new TaskNotCancelableError('t1', 'completed'));
    assert.equal(err.code, -32002);
    assert.equal(err.message, 'Task t1 is in state TASK_STATE_COMPLETED and cannot be canceled');
    assert.deepEqual(err.metadata, { taskId: 't1', state: 'TASK_STATE_COMPLETED' });
  });

  it('InvalidTransitionError → -32004 saying the state and what cannot be accepted', () => {
    const terminal = fromDomainError(new InvalidTransitionError('t1', 'completed', 'info_provided'));
    assert.equal(terminal.code, -32004);
    assert.equal(terminal.reason, 'UNSUPPORTED_OPERATION');
    assert.match(
      terminal.message,
      /Task t1 is in state TASK_STATE_COMPLETED and cannot accept a new message/,
    );
    assert.match(terminal.message, /start a new task in the same contextId/);
    assert.deepEqual(terminal.metadata, {
      taskId: 't1',
      state: 'TASK_STATE_COMPLETED',
      event: 'info_provided',
    });

    const busy = fromDomainError(new InvalidTransitionError('t2', 'executing', 'submit'));
    assert.equal(busy.message, 'Task t2 is in state TASK_STATE_WORKING and cannot accept a new message');

    const other = fromDomainError(new InvalidTransitionError('t3', 'pending', 'complete'));
    assert.match(other.message, /TASK_STATE_SUBMITTED and cannot accept the "complete" event/);
  });

  it('ValidationError → -32602 with a field violation naming the field', () => {
    const err = fromDomainError(new ValidationError('tenant must match …', 'tenant'));
    assert.equal(err.code, -32602);
    assert.deepEqual(err.fieldViolations, [{ field: 'tenant', description: 'tenant must match …' }]);
    const v1 = jsonRpcError(v1Codec, err);
    assert.equal(v1.data[1]?.['@type'], BAD_REQUEST_TYPE);

    const noField = fromDomainError(new ValidationError('bad'));
    assert.deepEqual(noField.fieldViolations, [{ field: 'params', description: 'bad' }]);
  });

  it('PayloadTooLargeError → -32602 naming the field and the limit', () => {
    const err = fromDomainError(new PayloadTooLargeError('message', 70000, 65536));
    assert.equal(err.code, -32602);
    assert.deepEqual(err.fieldViolations, [
      { field: 'message', description: 'is 70000 bytes; the limit is 65536 bytes' },
    ]);
    assert.deepEqual(err.metadata, { field: 'message', sizeBytes: '70000', limitBytes: '65536' });
    assert.match(err.message, /limit is 65536 bytes/);
    const hinted = fromDomainError(new PayloadTooLargeError('message', 70000, 65536, 'send a url part'));
    assert.equal(
      hinted.fieldViolations?.[0]?.description,
      'is 70000 bytes; the limit is 65536 bytes: send a url part',
    );
  });

  it('ConflictError → implementation-defined -32050 CONFLICT telling the client to retry', () => {
    const err = fromDomainError(new ConflictError('t1', 25));
    assert.equal(err.code, -32050);
    assert.ok(err.code <= -32000 && err.code >= -32099);
    assert.equal(err.reason, 'CONFLICT');
    assert.match(err.message, /retry/);
    assert.equal(httpStatusOf(err.code), 200);
  });

  it('DuplicateMessageError (should not reach the wire) → -32602 on message.messageId', () => {
    const err = fromDomainError(new DuplicateMessageError('m1', 't1'));
    assert.equal(err.code, -32602);
    assert.equal(err.fieldViolations?.[0]?.field, 'message.messageId');
  });
});

describe('toProtocolError', () => {
  it('passes protocol errors through, maps domain errors, hides anything else behind -32603', () => {
    const p = A2AProtocolError.taskNotFound('x');
    assert.equal(toProtocolError(p), p);
    assert.equal(toProtocolError(new TaskNotFoundError('y')).code, -32001);
    const internal = toProtocolError(new Error('secret table name'));
    assert.equal(internal.code, -32603);
    assert.doesNotMatch(internal.message, /secret/);
    assert.equal(toProtocolError('weird').code, -32603);
  });
});

/**
 * A2A 1.0.1 §5.4, written out here apart from shared/protocol/a2a/rest.ts: each error's
 * HTTP+JSON status and google.rpc.Status code name. 1.0.1 moved TaskNotCancelable 409→400,
 * ContentTypeNotSupported 415→400 and InvalidAgentResponse 502→500, and several gRPC UNIMPLEMENTED to
 * FAILED_PRECONDITION. The hub's own: auth and limits at the transport, the dev-1.1 generation mismatch
 * and the concurrent-change conflict as ABORTED/409.
 */
const SPEC_1_0_1: Array<[string, () => A2AProtocolError, number, string]> = [
  ['JSONParseError', () => A2AProtocolError.parseError('x'), 400, 'INVALID_ARGUMENT'],
  ['InvalidRequestError', () => A2AProtocolError.invalidRequest('x'), 400, 'INVALID_ARGUMENT'],
  ['MethodNotFoundError', () => A2AProtocolError.methodNotFound('X'), 404, 'NOT_FOUND'],
  ['InvalidParamsError', () => A2AProtocolError.invalidParams([]), 400, 'INVALID_ARGUMENT'],
  ['InternalError', () => A2AProtocolError.internalError(), 500, 'INTERNAL'],
  ['TaskNotFoundError', () => A2AProtocolError.taskNotFound('t'), 404, 'NOT_FOUND'],
  [
    'TaskNotCancelableError',
    () => A2AProtocolError.taskNotCancelable('t', 'TASK_STATE_COMPLETED'),
    400,
    'FAILED_PRECONDITION',
  ],
  [
    'PushNotificationNotSupportedError',
    () => A2AProtocolError.pushNotificationNotSupported(),
    400,
    'FAILED_PRECONDITION',
  ],
  ['UnsupportedOperationError', () => A2AProtocolError.unsupportedOperation('x'), 400, 'FAILED_PRECONDITION'],
  [
    'ContentTypeNotSupportedError',
    () => A2AProtocolError.contentTypeNotSupported('image/x', ['text/plain']),
    400,
    'INVALID_ARGUMENT',
  ],
  ['InvalidAgentResponseError', () => A2AProtocolError.invalidAgentResponse('x'), 500, 'INTERNAL'],
  [
    'ExtendedAgentCardNotConfiguredError',
    () => A2AProtocolError.extendedAgentCardNotConfigured(),
    400,
    'FAILED_PRECONDITION',
  ],
  [
    'ExtensionSupportRequiredError',
    () => A2AProtocolError.extensionSupportRequired(['urn:a']),
    400,
    'FAILED_PRECONDITION',
  ],
  [
    'VersionNotSupportedError',
    () => A2AProtocolError.versionNotSupported('2.0', ['1.0']),
    400,
    'FAILED_PRECONDITION',
  ],
  ['TaskGenerationMismatchError', () => A2AProtocolError.taskGenerationMismatch('t', 1, 2), 409, 'ABORTED'],
  ['conflict (hub, -32050)', () => A2AProtocolError.conflict('t', 25), 409, 'ABORTED'],
  ['unauthenticated', () => A2AProtocolError.unauthenticated('x', 'invalid_token'), 401, 'UNAUTHENTICATED'],
  ['permission denied', () => A2AProtocolError.permissionDenied('x'), 403, 'PERMISSION_DENIED'],
  ['rate limited', () => A2AProtocolError.rateLimited('x'), 429, 'RESOURCE_EXHAUSTED'],
  ['unavailable', () => A2AProtocolError.unavailable('x', 1), 503, 'UNAVAILABLE'],
];

describe('A2A 1.0.1 error mappings over HTTP+JSON', () => {
  for (const [name, make, http, status] of SPEC_1_0_1) {
    it(`${name} → HTTP ${http} ${status}`, () => {
      const err = make();
      assert.deepEqual(restStatusOf(err), { http, status });
      const body = restErrorBody(err);
      assert.equal(body.error.code, http);
      assert.equal(body.error.status, status);
      const [info] = body.error.details as Array<{ '@type': string; reason: string; domain: string }>;
      assert.equal(info?.['@type'], ERROR_INFO_TYPE);
      assert.equal(info?.reason, err.reason);
      assert.equal(info?.domain, A2A_ERROR_DOMAIN);
    });
  }
  it('covers every error the hub can raise', () => {
    const named = new Set(SPEC_1_0_1.map(([, make]) => make().code));
    for (const code of Object.values(ERROR_CODES)) assert.ok(named.has(code), `code ${code} has a row`);
  });
});
