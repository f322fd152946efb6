/**
 * Hostile input (found by fuzzing) meets bounded work and bounded errors:
 * huge lists, deep nesting, non-finite numbers and huge strings all end in a
 * small -32602 (or the error they deserve), in both wire versions. How long the
 * worst of them take is measured by the bench (test/bench/hostile.ts), not here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type A2ACodec,
  A2AProtocolError,
  jsonRpcError,
  parseRequest,
  toProtocolError,
  v1Codec,
  v03Codec,
} from '../../../../shared/protocol/a2a/index.ts';

// the documented bounds (shared/protocol/a2a/bounds.ts, docs/agent-api.md)
const MAX_ARRAY_ITEMS = 10_000;
const MAX_LIST_ITEMS = 100;
const MAX_PARAMS_DEPTH = 64;
const MAX_PARTS = 1_000;
const MAX_VIOLATIONS = 10;

const SEND = { '1.0': 'SendMessage', '0.3': 'message/send' } as const;
const ROLE = { '1.0': 'ROLE_USER', '0.3': 'user' } as const;
const CODECS: A2ACodec[] = [v1Codec, v03Codec];

/** Parse through the real entry point; the error as the wire would carry it, and its size. */
function refused(codec: A2ACodec, method: string, params: unknown) {
  let error: A2AProtocolError | undefined;
  try {
    parseRequest(codec, method, params);
  } catch (e) {
    error = toProtocolError(e);
  }
  assert.ok(error, `${method}: expected an error`);
  const wire = JSON.stringify(jsonRpcError(codec, error));
  return { error, wire, bytes: Buffer.byteLength(wire) };
}

const message = (codec: A2ACodec, extra: Record<string, unknown> = {}) => ({
  messageId: 'm1',
  role: ROLE[codec.version],
  parts: [{ text: 'x' }],
  ...extra,
});

/** `value` wrapped in `levels` arrays. */
const nested = (levels: number, value: unknown = 1): unknown => {
  let v = value;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe('bounded work: lists', () => {
  it('300,000 empty parts (a 900 KB request): one small -32602 at once, naming message.parts', () => {
    const parts = JSON.parse(`[${Array(300_000).fill('{}').join(',')}]`);
    for (const codec of CODECS) {
      const r = refused(codec, SEND[codec.version], { message: message(codec, { parts }) });
      assert.equal(r.error.code, -32602);
      assert.deepEqual(r.error.fieldViolations, [
        { field: 'message.parts', description: `has 300000 items; at most ${MAX_ARRAY_ITEMS} are accepted` },
      ]);
      assert.ok(r.bytes < 2048, `${r.bytes} bytes`);
    }
  });

  it(`more than ${MAX_PARTS} parts: refused before any part is validated`, () => {
    const parts = Array.from({ length: MAX_PARTS + 1 }, () => ({}));
    for (const codec of CODECS) {
      const r = refused(codec, SEND[codec.version], { message: message(codec, { parts }) });
      assert.deepEqual(r.error.fieldViolations, [
        {
          field: 'message.parts',
          description: `must contain at most ${MAX_PARTS} items (got ${MAX_PARTS + 1})`,
        },
      ]);
    }
    // at the limit, the parts are validated one by one
    const ok = Array.from({ length: MAX_PARTS }, () => ({ text: 'x' }));
    assert.equal(
      v1Codec.parseSendMessage({ message: message(v1Codec, { parts: ok }) }).message.parts.length,
      MAX_PARTS,
    );
  });

  it(`other lists: at most ${MAX_LIST_ITEMS} items`, () => {
    const many = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `urn:x:${i}`);
    for (const codec of CODECS) {
      for (const [params, field] of [
        [{ message: message(codec, { extensions: many }) }, 'message.extensions'],
        [{ message: message(codec, { referenceTaskIds: many }) }, 'message.referenceTaskIds'],
        [
          { message: message(codec), configuration: { acceptedOutputModes: many } },
          'configuration.acceptedOutputModes',
        ],
      ] as const) {
        const r = refused(codec, SEND[codec.version], params);
        assert.equal(r.error.fieldViolations?.[0]?.field, field);
        assert.match(r.error.fieldViolations?.[0]?.description ?? '', /at most 100 items/);
      }
    }
  });

  it(`free-form data may hold long arrays, up to ${MAX_ARRAY_ITEMS} items`, () => {
    const data = { rows: Array(MAX_ARRAY_ITEMS).fill(0) };
    const cmd = v1Codec.parseSendMessage({ message: message(v1Codec, { parts: [{ data }] }) });
    assert.equal(
      (cmd.message.parts[0]?.data as { rows: unknown[] } | undefined)?.rows.length,
      MAX_ARRAY_ITEMS,
    );
    const r = refused(v1Codec, 'SendMessage', {
      message: message(v1Codec, { parts: [{ data: { rows: Array(MAX_ARRAY_ITEMS + 1).fill(0) } }] }),
    });
    assert.equal(r.error.fieldViolations?.[0]?.field, 'message.parts[0].data.rows');
  });

  it(`many bad parts: the first ${MAX_VIOLATIONS} violations and the count of all`, () => {
    const parts = Array.from({ length: 900 }, () => ({}));
    for (const codec of CODECS) {
      const r = refused(codec, SEND[codec.version], { message: message(codec, { parts }) });
      assert.equal(r.error.fieldViolations?.length, MAX_VIOLATIONS);
      assert.equal(r.error.fieldViolations?.[9]?.field, 'message.parts[9]');
      assert.match(r.error.message, /^Invalid params: message\.parts\[0\]: .* \(and 899 more problems\)$/);
      assert.equal(r.error.metadata.totalViolations, '900');
      assert.ok(r.bytes < 4096, `${r.bytes} bytes`);
    }
  });
});

describe('bounded work: nesting', () => {
  it('a value nested 5,000+ levels deep in role or status: -32602 naming the path, no stack overflow', () => {
    const deep = nested(6000);
    for (const codec of CODECS) {
      const r = refused(codec, SEND[codec.version], { message: message(codec, { role: deep }) });
      assert.equal(r.error.code, -32602);
      const [v] = r.error.fieldViolations ?? [];
      assert.match(v?.field ?? '', /^message\.role(\[0\])+$/);
      assert.match(v?.description ?? '', new RegExp(`deeper than ${MAX_PARAMS_DEPTH} levels`));
      assert.ok(r.bytes < 2048);
    }
    const status = refused(v1Codec, 'ListTasks', { status: { a: nested(10_000) } });
    assert.match(status.error.fieldViolations?.[0]?.field ?? '', /^status\.a(\[0\])+$/);
  });

  it('deep nesting anywhere: metadata, data parts, unknown fields, the params themselves', () => {
    const deep = nested(MAX_PARAMS_DEPTH + 1);
    for (const codec of CODECS) {
      for (const params of [
        { message: message(codec), metadata: { x: deep } },
        { message: message(codec, { metadata: deep }) },
        { message: message(codec, { parts: [{ data: { v: deep } }] }) },
        { message: message(codec), surprise: deep },
      ]) {
        const r = refused(codec, SEND[codec.version], params);
        assert.match(r.error.message, /deeper than 64 levels/);
      }
      const get = codec.version === '1.0' ? 'GetTask' : 'tasks/get';
      assert.match(refused(codec, get, { id: deep }).error.message, /^Invalid params: id\[0\]/);
    }
  });

  it(`nesting up to ${MAX_PARAMS_DEPTH} levels below params is accepted`, () => {
    // message(1) parts(2) [0](3) data(4): data may nest 60 more levels
    const data = nested(MAX_PARAMS_DEPTH - 4, 'leaf');
    const cmd = v1Codec.parseSendMessage({ message: message(v1Codec, { parts: [{ data }] }) });
    assert.deepEqual(cmd.message.parts[0]?.data, data);
    const r = refused(v1Codec, 'SendMessage', { message: message(v1Codec, { parts: [{ data: [data] }] }) });
    assert.match(r.error.message, /deeper than 64 levels/);
  });
});

describe('non-finite numbers', () => {
  const inf = (json: string) => JSON.parse(json.replaceAll('INF', '1e400')) as Record<string, unknown>;

  it('1e400 (Infinity after JSON.parse) is refused anywhere in params, naming the field', () => {
    const cases: Array<[A2ACodec, string, string, string]> = [
      [
        v1Codec,
        'SendMessage',
        '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"x":INF}}]}}',
        'message.parts[0].data.x',
      ],
      [
        v1Codec,
        'SendMessage',
        '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"n":[-INF]}}}',
        'message.metadata.n[0]',
      ],
      [
        v1Codec,
        'SendMessage',
        '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]},"configuration":{"historyLength":INF}}',
        'configuration.historyLength',
      ],
      [
        v1Codec,
        'SendMessage',
        '{"message":{"messageId":"m","role":INF,"parts":[{"text":"x"}]}}',
        'message.role',
      ],
      [v1Codec, 'ListTasks', '{"pageSize":INF}', 'pageSize'],
      [v1Codec, 'GetTask', '{"id":"t","historyLength":-INF}', 'historyLength'],
      [v1Codec, 'CancelTask', '{"id":"t","metadata":{"a":{"b":INF}}}', 'metadata.a.b'],
      [
        v03Codec,
        'message/send',
        '{"message":{"messageId":"m","role":"user","parts":[{"kind":"data","data":{"x":INF}}]}}',
        'message.parts[0].data.x',
      ],
      [v03Codec, 'tasks/get', '{"id":"t","historyLength":INF}', 'historyLength'],
    ];
    for (const [codec, method, json, field] of cases) {
      const r = refused(codec, method, inf(json));
      assert.equal(r.error.code, -32602, json);
      assert.deepEqual(
        r.error.fieldViolations?.map((v) => v.field),
        [field],
        json,
      );
      assert.match(r.error.message, /finite number/);
    }
  });
});

describe('bounded errors', () => {
  const huge = 'x'.repeat(900_000);

  it('a huge string where an enum or a known value belongs is not echoed', () => {
    for (const codec of CODECS) {
      const r = refused(codec, SEND[codec.version], { message: message(codec, { role: huge }) });
      assert.equal(r.error.fieldViolations?.[0]?.field, 'message.role');
      assert.ok(r.bytes < 1024, `${r.bytes} bytes`);
    }
    assert.ok(refused(v1Codec, 'ListTasks', { status: huge }).bytes < 1024);
    assert.ok(refused(v1Codec, 'ListTasks', { statusTimestampAfter: huge }).bytes < 1024);
    assert.ok(
      refused(v1Codec, 'SendMessage', { message: message(v1Codec, { parts: [{ raw: `${huge}!` }] }) }).bytes <
        1024,
    );
  });

  it('huge keys in a path are clipped', () => {
    const params = { message: message(v1Codec), metadata: { [huge]: { [huge]: nested(70) } } };
    const r = refused(v1Codec, 'SendMessage', params);
    assert.ok((r.error.fieldViolations?.[0]?.field.length ?? 0) <= 256);
    assert.ok(r.bytes < 2048, `${r.bytes} bytes`);
  });

  it('a huge method name, task id or version: small errors', () => {
    for (const codec of CODECS) assert.ok(refused(codec, huge, {}).bytes < 2048);
    const cases = [
      A2AProtocolError.taskNotFound(huge),
      A2AProtocolError.versionNotSupported(huge, ['1.0', '0.3']),
      A2AProtocolError.contentTypeNotSupported(huge, ['application/json']),
      A2AProtocolError.methodNotFound(huge, huge, { method: huge }),
      A2AProtocolError.invalidParams([{ field: huge, description: huge }]),
      A2AProtocolError.parseError(huge),
    ];
    for (const error of cases) {
      for (const codec of CODECS) {
        const bytes = Buffer.byteLength(JSON.stringify(jsonRpcError(codec, error)));
        assert.ok(bytes < 4096, `${error.reason}: ${bytes} bytes`);
      }
    }
    assert.match(A2AProtocolError.taskNotFound(huge).message, /^Task not found: x+…$/);
  });
});

describe('bounded work: the worst 1 MiB requests', () => {
  it('wide, long or many-keyed params of about 1 MiB get a protocol answer, never an internal error', () => {
    const shapes: Record<string, unknown> = {
      'many keys': {
        message: message(v1Codec),
        metadata: Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, i])),
      },
      'many unknown fields': {
        message: message(v1Codec, Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`u${i}`, 0]))),
      },
      'long data arrays': {
        message: message(v1Codec, {
          parts: Array.from({ length: 50 }, () => ({ data: Array(MAX_ARRAY_ITEMS).fill(1) })),
        }),
      },
      'many text parts': {
        message: message(v1Codec, {
          parts: Array.from({ length: MAX_PARTS }, () => ({ text: 'y'.repeat(900) })),
        }),
      },
    };
    for (const [name, params] of Object.entries(shapes)) {
      try {
        parseRequest(v1Codec, 'SendMessage', params);
      } catch (e) {
        const err = toProtocolError(e);
        assert.notEqual(err.code, -32603, `${name}: ${err.message}`);
        assert.ok(JSON.stringify(jsonRpcError(v1Codec, err)).length < 4096, name);
      }
    }
  });
});
