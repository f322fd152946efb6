/**
 * The requests the fuzzer sends, as fast-check arbitraries. Each case says
 * what the hub must answer: a success (valid requests, edgy ones included),
 * an error (with the codes it may use), or either (hostile values a hub may
 * accept or refuse). The oracle (oracle.ts) holds every answer to the rules
 * all answers share; the case only adds what is specific to it.
 *
 * Families: malformed JSON, JSON-RPC envelopes, methods, wrong/hostile
 * values at every field of SendMessage/GetTask/ListTasks/CancelTask for
 * A2A v1.0 and v0.3, page tokens, content types and A2A-Version headers,
 * valid-but-edgy requests that must succeed, and bodies over the limit.
 */
import fc from 'fast-check';
import {
  Big,
  Bytes,
  Deep,
  Entries,
  Fresh,
  type Json,
  Mangled,
  Many,
  obj,
  put,
  Raw,
  TaskRef,
} from './json.ts';
import {
  BODY_LIMIT,
  benignJson,
  benignObject,
  bigString,
  deepValue,
  extremeNumber,
  hostileJson,
  hostileKey,
  hostileObject,
  hostileString,
  hugeArray,
  smallJson,
  unicodeString,
} from './values.ts';

// ---- cases --------------------------------------------------------------------------------------

export interface Expectation {
  /** required: the answer must be a success; forbidden: it must be an error; allowed: either. */
  success: 'required' | 'allowed' | 'forbidden';
  /** The error codes the request may be refused with (absent: any code of the protocol's set). */
  codes?: readonly number[];
}

export interface FuzzCase {
  /** The generator, e.g. `v1.SendMessage.wrong-type`: failures are grouped (and shrunk) by it. */
  family: string;
  /** What was done to the base request, for reports. */
  note: string;
  /** null: no Content-Type header. */
  contentType: string | null;
  /** A2A-Version: null for none, several values for several headers. */
  version: string | readonly string[] | null;
  extraHeaders?: Readonly<Record<string, string>>;
  body: Json | Mangled;
  expect: Expectation;
  /** When the request names an earlier task and the hub has none yet: what to expect instead. */
  expectWithoutTask?: Expectation;
}

export const C = {
  PARSE: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  TASK_NOT_FOUND: -32001,
  NOT_CANCELABLE: -32002,
  PUSH_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE: -32005,
  VERSION: -32009,
} as const;

/** Metadata a valid request may carry: a benign object within the 4 KiB bound (docs/security.md#limits). */
const benignMetadata = benignObject.filter((o) => Buffer.byteLength(JSON.stringify(o)) <= 4096);

const required: Expectation = { success: 'required' };
const allowed = (codes?: readonly number[]): Expectation =>
  codes ? { success: 'allowed', codes } : { success: 'allowed' };
const forbidden = (...codes: number[]): Expectation =>
  codes.length ? { success: 'forbidden', codes } : { success: 'forbidden' };

const JSON_TYPE = 'application/json';
const V1 = '1.0';

// ---- tree helpers -------------------------------------------------------------------------------

type Path = readonly (string | number)[];
const REMOVE = Symbol('remove');

const clone = (v: Json): Json => {
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v)) put(out, k, clone((v as { [k: string]: Json })[k] as Json));
    return out;
  }
  return v; // primitives and markers (immutable)
};

/** A copy of `tree` with the value at `path` replaced (missing objects on the way are created). */
const setAt = (tree: Json, path: Path, value: Json | typeof REMOVE): Json => {
  const root = clone(tree);
  let node = root as { [k: string]: Json } | Json[];
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    let next = (node as Record<string | number, Json>)[key];
    if (next === undefined || next === null || typeof next !== 'object' || !isContainer(next)) {
      next = typeof path[i + 1] === 'number' ? [] : {};
      putAny(node, key, next);
    }
    node = next as { [k: string]: Json } | Json[];
  }
  const last = path[path.length - 1]!;
  if (value === REMOVE) {
    if (Array.isArray(node) && typeof last === 'number') node.splice(last, 1);
    else delete (node as Record<string, Json>)[last];
  } else putAny(node, last, value);
  return root;
};

const isContainer = (v: Json): boolean =>
  Array.isArray(v) || (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);

const putAny = (node: { [k: string]: Json } | Json[], key: string | number, value: Json) => {
  if (Array.isArray(node) && typeof key === 'number') node[key] = value;
  else put(node as Record<string, unknown>, String(key), value);
};

const showPath = (path: Path) =>
  path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${k}` : k), '') || 'params';

const request = (method: Json, params?: Json, id: Json = 1): Json =>
  obj([
    ['jsonrpc', '2.0'],
    ['id', id],
    ['method', method],
    ...(params === undefined ? [] : [['params', params] as const]),
  ]);

const requestId: fc.Arbitrary<Json> = fc.oneof(fc.nat({ max: 1_000_000 }), fc.uuid(), fc.constant('req-1'));

// ---- valid building blocks ----------------------------------------------------------------------

/** Texts the demo agent answers at once (never `slow N`, which would keep working after the answer). */
const agentText: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('hello', 'hi there', 'ask', 'approve', 'fail', 'reject', 'echo this'),
  },
  {
    weight: 3,
    arbitrary: fc.string({ maxLength: 200, unit: 'grapheme' }).filter((t) => !/^\s*slow\b/i.test(t)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('مرحبا بالعالم', '\u202eevil', '😀👨‍👩‍👧 emoji', 'e\u0301\u0000nul', '\u2028'),
  },
  {
    weight: 1,
    // longer texts, a few KB each (up to three parts stay far below the 64 KiB message limit)
    arbitrary: fc.oneof(
      fc.integer({ min: 1, max: 400 }).map((n) => new Big('lorem ipsum ', n)),
      fc.integer({ min: 1, max: 2_400 }).map((n) => new Big('é', n)),
      fc.integer({ min: 1, max: 1_200 }).map((n) => new Big('😀', n)),
    ),
  },
);

/** One long, legal text: up to ~48 KB of UTF-8 (the message limit is 64 KiB, the echo artifact as much). */
const longText: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: 1, max: 4_000 }).map((n) => new Big('lorem ipsum ', n)),
  fc.integer({ min: 1, max: 24_000 }).map((n) => new Big('é', n)),
  fc.integer({ min: 1, max: 12_000 }).map((n) => new Big('😀', n)),
  fc.integer({ min: 1, max: 8_000 }).map((n) => new Big('مرح', n)), // 6 bytes
);

const base64Bytes = fc
  .uint8Array({ minLength: 1, maxLength: 3_000 })
  .map((b) => Buffer.from(b).toString('base64'));

const v1Part: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: agentText.map((text) => obj([['text', text]])) },
  {
    weight: 1,
    arbitrary: fc
      .record({ raw: base64Bytes, name: fc.constantFrom('a.bin', 'photo.png', 'ü.txt') })
      .map(({ raw, name }) =>
        obj([
          ['raw', raw],
          ['mediaType', 'application/octet-stream'],
          ['filename', name],
        ]),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('https://example.com/a.png', 'http://127.0.0.1/x', 's3://bucket/key', 'data:,hi')
      .map((url) =>
        obj([
          ['url', url],
          ['mediaType', 'image/png'],
        ]),
      ),
  },
  {
    weight: 1,
    // a null data part is a NullValue in ProtoJSON, or no content at all: a matter of reading, left out here
    arbitrary: benignJson
      .filter((data) => data !== null)
      .map((data) =>
        obj([
          ['data', data],
          ['mediaType', 'application/json'],
        ]),
      ),
  },
);

const v03Part: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 4,
    arbitrary: agentText.map((text) =>
      obj([
        ['kind', 'text'],
        ['text', text],
      ]),
    ),
  },
  {
    weight: 1,
    arbitrary: base64Bytes.map((bytes) =>
      obj([
        ['kind', 'file'],
        [
          'file',
          obj([
            ['bytes', bytes],
            ['mimeType', 'application/octet-stream'],
            ['name', 'a.bin'],
          ]),
        ],
      ]),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constant(
      obj([
        ['kind', 'file'],
        [
          'file',
          obj([
            ['uri', 'https://example.com/a.png'],
            ['mimeType', 'image/png'],
          ]),
        ],
      ]),
    ),
  },
  {
    weight: 1,
    arbitrary: benignObject.map((data) =>
      obj([
        ['kind', 'data'],
        ['data', data],
      ]),
    ),
  },
);

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const defined = (entries: readonly (readonly [string, Json | undefined])[]) =>
  obj(entries.filter((e): e is readonly [string, Json] => e[1] !== undefined));

/** A valid v1.0 SendMessage params object. */
const v1SendParams: fc.Arbitrary<Json> = fc
  .record({
    parts: fc.oneof(
      { weight: 5, arbitrary: fc.array(v1Part, { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: longText.map((text) => [obj([['text', text]])]) },
    ),
    contextId: optional(fc.constant(new Fresh('ctx'))),
    metadata: optional(benignMetadata),
    extensions: optional(fc.constant<Json>(['https://example.com/ext/v1'])),
    referenceTaskIds: optional(fc.nat().map((n) => [new TaskRef(n, 'id')])),
    configuration: optional(
      fc.record(
        {
          returnImmediately: fc.boolean(),
          historyLength: fc.integer({ min: 0, max: 10 }),
          acceptedOutputModes: fc.constant<Json>(['text/plain', 'application/json']),
        },
        { requiredKeys: [] },
      ),
    ),
    paramsMetadata: optional(benignMetadata),
  })
  .map((p) =>
    defined([
      [
        'message',
        defined([
          ['messageId', new Fresh('m')],
          ['role', 'ROLE_USER'],
          ['parts', p.parts],
          ['contextId', p.contextId],
          ['metadata', p.metadata],
          ['extensions', p.extensions],
          ['referenceTaskIds', p.referenceTaskIds],
        ]),
      ],
      ['configuration', p.configuration ? obj(Object.entries(p.configuration)) : undefined],
      ['metadata', p.paramsMetadata],
    ]),
  );

/** A valid v0.3 message/send params object. */
const v03SendParams: fc.Arbitrary<Json> = fc
  .record({
    parts: fc.oneof(
      { weight: 5, arbitrary: fc.array(v03Part, { minLength: 1, maxLength: 3 }) },
      {
        weight: 1,
        arbitrary: longText.map((text) => [
          obj([
            ['kind', 'text'],
            ['text', text],
          ]),
        ]),
      },
    ),
    contextId: optional(fc.constant(new Fresh('ctx'))),
    metadata: optional(benignMetadata),
    configuration: optional(
      fc.record(
        {
          blocking: fc.boolean(),
          historyLength: fc.integer({ min: 0, max: 10 }),
          acceptedOutputModes: fc.constant<Json>(['text/plain']),
        },
        { requiredKeys: [] },
      ),
    ),
  })
  .map((p) =>
    defined([
      [
        'message',
        defined([
          ['kind', 'message'],
          ['messageId', new Fresh('m')],
          ['role', 'user'],
          ['parts', p.parts],
          ['contextId', p.contextId],
          ['metadata', p.metadata],
        ]),
      ],
      ['configuration', p.configuration ? obj(Object.entries(p.configuration)) : undefined],
    ]),
  );

const STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

const v1ListParams: fc.Arbitrary<Json> = fc
  .record(
    {
      pageSize: fc.integer({ min: 1, max: 100 }),
      status: fc.constantFrom(...STATES),
      historyLength: fc.integer({ min: 0, max: 5 }),
      includeArtifacts: fc.boolean(),
      contextId: fc.oneof(fc.uuid(), fc.constant(new TaskRef(0, 'contextId'))),
      statusTimestampAfter: fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString()),
    },
    { requiredKeys: [] },
  )
  .map((p) => obj(Object.entries(p) as [string, Json][]));

// ---- fields and what is wrong for them ----------------------------------------------------------

type FieldType =
  | 'string'
  | 'requiredId'
  | 'base64'
  | 'uint'
  | 'pageSize'
  | 'bool'
  | 'roleV1'
  | 'roleV03'
  | 'state'
  | 'map'
  | 'any'
  | 'strings'
  | 'object'
  | 'partsV1'
  | 'partsV03'
  | 'msgKind'
  | 'partKind'
  | 'timestamp'
  | 'token';

interface Field {
  path: Path;
  type: FieldType;
  required: boolean;
}

const notString: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constantFrom<Json>({}, [], ['x'], [1], new Raw('1e400'), new Raw('-0'), 0),
  deepValue(),
);

/** Values of the right JSON type in lenient ProtoJSON forms, or the wrong type beyond doubt. */
const wrongValues = (type: FieldType, version: 'v1' | 'v03'): fc.Arbitrary<Json> | undefined => {
  switch (type) {
    case 'string':
    case 'base64':
    case 'timestamp':
    case 'token':
      return type === 'base64'
        ? fc.oneof(notString, fc.constantFrom('***', '@@@@', 'a', 'ab c', 'é', '===='))
        : type === 'timestamp'
          ? fc.oneof(
              notString,
              fc.constantFrom(
                'yesterday',
                '2025-02-30T00:00:00Z',
                '2025-13-01T00:00:00Z',
                '2025-01-01',
                '2025-01-01T24:00:00Z',
                '2025-01-01T00:00:60Z',
                '2025-01-01T00:00:00+01:00',
                '0000-01-01T00:00:00Z',
                '+275760-09-13T00:00:00.000Z',
                '2025-01-01T00:00:00.0000000000Z',
                '1735689600',
              ),
            )
          : notString;
    case 'requiredId':
      return fc.oneof(notString, fc.constant(''));
    case 'uint':
    case 'pageSize':
      return fc.oneof(
        fc.constantFrom<Json>('abc', true, false, {}, [], [1], 1.5, -1, -100, 2147483648, '-1', '1.5', 'NaN'),
        fc.constantFrom('1e400', '-1e400', '1e300', '-9007199254740993', '0.5').map((t) => new Raw(t)),
        ...(type === 'pageSize' ? [fc.constantFrom<Json>(0, 101, 1000, new Raw('-0'), '0', '101')] : []),
        ...(version === 'v03' ? [fc.constantFrom<Json>('10', '0')] : []),
        deepValue(),
      );
    case 'bool':
      return fc.constantFrom<Json>('true', 'false', 1, 0, {}, [], 'yes', [true], new Raw('1e400'));
    case 'roleV1':
      return fc.constantFrom<Json>(
        'user',
        'agent',
        'ROLE_AGENT',
        2,
        'ROLE_UNSPECIFIED',
        0,
        3,
        -1,
        'role_user',
        '',
        {},
        [],
        true,
        1.5,
      );
    case 'roleV03':
      return fc.constantFrom<Json>('ROLE_USER', 'agent', 'User', 'USER', '', 1, 0, {}, [], true);
    case 'state':
      return fc.constantFrom<Json>(
        'TASK_STATE_SLEEPING',
        'completed',
        'task_state_completed',
        9,
        -1,
        1.5,
        {},
        [],
        true,
        ' TASK_STATE_COMPLETED',
      );
    case 'map':
      return fc.constantFrom<Json>('x', 1, true, [], [1], [{}], new Raw('1e400'), '{}');
    case 'strings':
      return fc.constantFrom<Json>('x', 1, {}, [1], [{}], [[]], [true], true, [new Raw('1e400')]);
    case 'object':
      return fc.constantFrom<Json>('x', 1, true, [], [1], '{}', new Raw('1e400'));
    case 'partsV1':
      return fc.constantFrom<Json>(
        [],
        'x',
        [1],
        [{}],
        [[]],
        {},
        [
          obj([
            ['text', 'a'],
            ['url', 'b'],
          ]),
        ],
        [obj([['text', 1]])],
        [obj([['raw', 'not base64!']])],
        [obj([['mediaType', 'text/plain']])],
      );
    case 'partsV03':
      return fc.constantFrom<Json>(
        [],
        'x',
        [1],
        [{}],
        [obj([['kind', 'text']])],
        [
          obj([
            ['kind', 'text'],
            ['text', 'a'],
            ['data', {}],
          ]),
        ],
        [
          obj([
            ['kind', 'image'],
            ['text', 'a'],
          ]),
        ],
        [
          obj([
            ['kind', 'file'],
            ['text', 'a'],
          ]),
        ],
        [
          obj([
            ['kind', 'data'],
            ['data', 1],
          ]),
        ],
        [
          obj([
            ['kind', 'file'],
            ['file', {}],
          ]),
        ],
      );
    case 'msgKind':
      return fc.constantFrom<Json>('task', 'Message', 1, {}, '', []);
    case 'partKind':
      return fc.constantFrom<Json>('image', 'file', 'data', 'TEXT', 1, {}, '');
    case 'any':
      return undefined;
  }
};

/** Values that may or may not be acceptable: the hub may take them or refuse them, but never fail on them. */
const hostileValues = (type: FieldType): fc.Arbitrary<Json> => {
  switch (type) {
    case 'uint':
    case 'pageSize':
      return fc.oneof(
        extremeNumber,
        fc.constantFrom<Json>(
          '10',
          ' 3 ',
          '+5',
          '0x10',
          '1e1',
          new Raw('1e1'),
          new Raw('2.0'),
          new Raw('-0'),
          100,
          1,
          0,
        ),
      );
    case 'map':
      return hostileObject;
    case 'any':
      return hostileJson;
    case 'strings':
      return fc.oneof(
        hugeArray(fc.constantFrom<Json>('x', '', 'https://example.com/e')),
        fc
          .tuple(hostileString, fc.array(unicodeString, { maxLength: 2 }))
          .map(([odd, more]) => [...more, odd]),
      );
    case 'partsV1':
      return fc.oneof(
        hugeArray(fc.constant(obj([['text', 'a']]))).map((m) => new Many(m.item, Math.min(m.count, 60_000))),
        fc.tuple(hostileJson, fc.array(v1Part, { maxLength: 3 })).map(([odd, more]) => [...more, odd]),
      );
    case 'partsV03':
      return fc.oneof(
        hugeArray(
          fc.constant(
            obj([
              ['kind', 'text'],
              ['text', 'a'],
            ]),
          ),
        ).map((m) => new Many(m.item, Math.min(m.count, 40_000))),
        fc.tuple(hostileJson, fc.array(v03Part, { maxLength: 3 })).map(([odd, more]) => [...more, odd]),
      );
    case 'object':
      return hostileObject;
    case 'bool':
      return fc.constantFrom<Json>(true, false);
    case 'token':
      return pageToken;
    case 'timestamp':
      return fc.oneof(
        hostileString,
        fc.constantFrom(
          '2025-01-01T00:00:00Z',
          '2025-01-01t00:00:00z',
          '2025-01-01T00:00:00-00:00',
          '2025-01-01T00:00:00.123456789Z',
          '9999-12-31T23:59:59.999Z',
          '0001-01-01T00:00:00Z',
          '2024-02-29T12:00:00Z',
          '',
        ),
      );
    default:
      return hostileString;
  }
};

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** Page tokens: random bytes, JSON with the wrong fields, forged positions, odd strings. */
const pageToken: fc.Arbitrary<Json> = fc.oneof(
  fc.base64String({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b).toString('base64url')),
  fc
    .constantFrom<unknown>(
      {},
      { os: 1 },
      { os: 'x' },
      { os: null },
      { pk: 'T#x' },
      { os: '2025-01-01T00:00:00.000Z#a', extra: 1 },
      [],
      'os',
      null,
      { os: `2025-01-01T00:00:00.000Z#${'x'.repeat(300)}` },
      { pk: 'T#x', ca: 'y', cp: 'z', more: 1 },
    )
    .map((v) => b64(JSON.stringify(v))),
  fc
    .constantFrom(
      { os: '2025-01-01T00:00:00.000Z#abc' },
      { os: '9999-12-31T23:59:59.999Z#\u0000' },
      { os: '0000-00-00T00:00:00.000Z#\ud800' },
      { pk: 'T#x', ca: '2025', cp: 'x' },
    )
    .map((v) => b64(JSON.stringify(v))),
  fc.constantFrom('\u0000', '', ' ', '=', '====', '%00', '..', 'eyJvcyI6'),
  unicodeString,
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => new Big('A', n)),
);

const V1_SEND_FIELDS: readonly Field[] = [
  { path: ['message'], type: 'object', required: true },
  { path: ['message', 'messageId'], type: 'requiredId', required: true },
  { path: ['message', 'role'], type: 'roleV1', required: true },
  { path: ['message', 'parts'], type: 'partsV1', required: true },
  { path: ['message', 'parts', 0], type: 'object', required: true },
  { path: ['message', 'parts', 0, 'text'], type: 'string', required: true },
  { path: ['message', 'parts', 0, 'mediaType'], type: 'string', required: false },
  { path: ['message', 'parts', 0, 'filename'], type: 'string', required: false },
  { path: ['message', 'parts', 0, 'metadata'], type: 'map', required: false },
  { path: ['message', 'contextId'], type: 'string', required: false },
  { path: ['message', 'taskId'], type: 'string', required: false },
  { path: ['message', 'metadata'], type: 'map', required: false },
  { path: ['message', 'extensions'], type: 'strings', required: false },
  { path: ['message', 'referenceTaskIds'], type: 'strings', required: false },
  { path: ['configuration'], type: 'object', required: false },
  { path: ['configuration', 'acceptedOutputModes'], type: 'strings', required: false },
  { path: ['configuration', 'historyLength'], type: 'uint', required: false },
  { path: ['configuration', 'returnImmediately'], type: 'bool', required: false },
  { path: ['configuration', 'taskPushNotificationConfig'], type: 'object', required: false },
  { path: ['metadata'], type: 'map', required: false },
  { path: ['tenant'], type: 'string', required: false },
];

/** Fields of the other part kinds (each on a base whose part is of that kind). */
const V1_PART_FIELDS: readonly (Field & { part: Json })[] = [
  {
    path: ['message', 'parts', 0, 'raw'],
    type: 'base64',
    required: true,
    part: obj([
      ['raw', 'aGVsbG8='],
      ['mediaType', 'text/plain'],
      ['filename', 'h.txt'],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'url'],
    type: 'string',
    required: true,
    part: obj([
      ['url', 'https://example.com/a.png'],
      ['mediaType', 'image/png'],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'data'],
    type: 'any',
    required: true,
    part: obj([
      ['data', obj([['n', 1]])],
      ['mediaType', 'application/json'],
    ]),
  },
];

const V03_SEND_FIELDS: readonly Field[] = [
  { path: ['message'], type: 'object', required: true },
  { path: ['message', 'kind'], type: 'msgKind', required: false },
  { path: ['message', 'messageId'], type: 'requiredId', required: true },
  { path: ['message', 'role'], type: 'roleV03', required: true },
  { path: ['message', 'parts'], type: 'partsV03', required: true },
  { path: ['message', 'parts', 0], type: 'object', required: true },
  { path: ['message', 'parts', 0, 'kind'], type: 'partKind', required: false },
  { path: ['message', 'parts', 0, 'text'], type: 'string', required: true },
  { path: ['message', 'parts', 0, 'metadata'], type: 'map', required: false },
  { path: ['message', 'contextId'], type: 'string', required: false },
  { path: ['message', 'taskId'], type: 'string', required: false },
  { path: ['message', 'metadata'], type: 'map', required: false },
  { path: ['message', 'extensions'], type: 'strings', required: false },
  { path: ['message', 'referenceTaskIds'], type: 'strings', required: false },
  { path: ['configuration'], type: 'object', required: false },
  { path: ['configuration', 'blocking'], type: 'bool', required: false },
  { path: ['configuration', 'historyLength'], type: 'uint', required: false },
  { path: ['configuration', 'acceptedOutputModes'], type: 'strings', required: false },
  { path: ['configuration', 'pushNotificationConfig'], type: 'object', required: false },
  { path: ['metadata'], type: 'map', required: false },
];

const V03_PART_FIELDS: readonly (Field & { part: Json })[] = [
  {
    path: ['message', 'parts', 0, 'file'],
    type: 'object',
    required: true,
    part: obj([
      ['kind', 'file'],
      [
        'file',
        obj([
          ['bytes', 'aGVsbG8='],
          ['mimeType', 'text/plain'],
          ['name', 'h.txt'],
        ]),
      ],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'file', 'bytes'],
    type: 'base64',
    required: true,
    part: obj([
      ['kind', 'file'],
      [
        'file',
        obj([
          ['bytes', 'aGVsbG8='],
          ['mimeType', 'text/plain'],
          ['name', 'h.txt'],
        ]),
      ],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'file', 'uri'],
    type: 'string',
    required: true,
    part: obj([
      ['kind', 'file'],
      [
        'file',
        obj([
          ['uri', 'https://example.com/a'],
          ['mimeType', 'text/plain'],
        ]),
      ],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'file', 'mimeType'],
    type: 'string',
    required: false,
    part: obj([
      ['kind', 'file'],
      [
        'file',
        obj([
          ['uri', 'https://example.com/a'],
          ['mimeType', 'text/plain'],
        ]),
      ],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'file', 'name'],
    type: 'string',
    required: false,
    part: obj([
      ['kind', 'file'],
      [
        'file',
        obj([
          ['uri', 'https://example.com/a'],
          ['name', 'a'],
        ]),
      ],
    ]),
  },
  {
    path: ['message', 'parts', 0, 'data'],
    type: 'map',
    required: true,
    part: obj([
      ['kind', 'data'],
      ['data', obj([['n', 1]])],
    ]),
  },
];

const GET_FIELDS = (version: 'v1' | 'v03'): readonly Field[] => [
  { path: ['id'], type: 'requiredId', required: true },
  { path: ['historyLength'], type: 'uint', required: false },
  ...(version === 'v1'
    ? [{ path: ['tenant'], type: 'string', required: false } as const]
    : [{ path: ['metadata'], type: 'map', required: false } as const]),
];

const CANCEL_FIELDS = (version: 'v1' | 'v03'): readonly Field[] => [
  { path: ['id'], type: 'requiredId', required: true },
  { path: ['metadata'], type: 'map', required: false },
  ...(version === 'v1' ? [{ path: ['tenant'], type: 'string', required: false } as const] : []),
];

const LIST_FIELDS: readonly Field[] = [
  { path: ['contextId'], type: 'string', required: false },
  { path: ['status'], type: 'state', required: false },
  { path: ['pageSize'], type: 'pageSize', required: false },
  { path: ['pageToken'], type: 'token', required: false },
  { path: ['historyLength'], type: 'uint', required: false },
  { path: ['statusTimestampAfter'], type: 'timestamp', required: false },
  { path: ['includeArtifacts'], type: 'bool', required: false },
  { path: ['tenant'], type: 'string', required: false },
];

// ---- base requests that every field mutation starts from -----------------------------------------

const V1_FULL_SEND: Json = obj([
  [
    'message',
    obj([
      ['messageId', new Fresh('m')],
      ['role', 'ROLE_USER'],
      [
        'parts',
        [
          obj([
            ['text', 'hello'],
            ['mediaType', 'text/plain'],
            ['filename', 'a.txt'],
            ['metadata', obj([['k', 'v']])],
          ]),
        ],
      ],
      ['contextId', new Fresh('ctx')],
      ['metadata', obj([['k', 'v']])],
      ['extensions', ['https://example.com/ext/v1']],
      ['referenceTaskIds', ['ref-1']],
    ]),
  ],
  [
    'configuration',
    obj([
      ['acceptedOutputModes', ['text/plain']],
      ['historyLength', 2],
      ['returnImmediately', false],
    ]),
  ],
  ['metadata', obj([['k', 'v']])],
]);

const V03_FULL_SEND: Json = obj([
  [
    'message',
    obj([
      ['kind', 'message'],
      ['messageId', new Fresh('m')],
      ['role', 'user'],
      [
        'parts',
        [
          obj([
            ['kind', 'text'],
            ['text', 'hello'],
            ['metadata', obj([['k', 'v']])],
          ]),
        ],
      ],
      ['contextId', new Fresh('ctx')],
      ['metadata', obj([['k', 'v']])],
      ['extensions', ['https://example.com/ext/v1']],
      ['referenceTaskIds', ['ref-1']],
    ]),
  ],
  [
    'configuration',
    obj([
      ['acceptedOutputModes', ['text/plain']],
      ['historyLength', 2],
      ['blocking', true],
    ]),
  ],
  ['metadata', obj([['k', 'v']])],
]);

const V1_FULL_LIST: Json = obj([
  ['pageSize', 3],
  ['status', 'TASK_STATE_COMPLETED'],
  ['historyLength', 1],
  ['includeArtifacts', true],
  ['statusTimestampAfter', '2000-01-01T00:00:00.000Z'],
]);

interface Operation {
  family: string;
  method: string;
  version: 'v1' | 'v03';
  base: Json;
  fields: readonly Field[];
  /** What the unmutated base gets. */
  expect: Expectation;
  expectWithoutTask?: Expectation;
}

const taskId = (n: number) => new TaskRef(n, 'id');

const OPERATIONS: readonly Operation[] = [
  {
    family: 'v1.SendMessage',
    method: 'SendMessage',
    version: 'v1',
    base: V1_FULL_SEND,
    fields: V1_SEND_FIELDS,
    expect: required,
  },
  {
    family: 'v1.GetTask',
    method: 'GetTask',
    version: 'v1',
    base: obj([
      ['id', taskId(1)],
      ['historyLength', 3],
    ]),
    fields: GET_FIELDS('v1'),
    expect: required,
    expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
  },
  {
    family: 'v1.ListTasks',
    method: 'ListTasks',
    version: 'v1',
    base: V1_FULL_LIST,
    fields: LIST_FIELDS,
    expect: required,
  },
  {
    family: 'v1.CancelTask',
    method: 'CancelTask',
    version: 'v1',
    base: obj([['id', taskId(2)]]),
    fields: CANCEL_FIELDS('v1'),
    expect: allowed([C.NOT_CANCELABLE]),
    expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
  },
  {
    family: 'v03.message/send',
    method: 'message/send',
    version: 'v03',
    base: V03_FULL_SEND,
    fields: V03_SEND_FIELDS,
    expect: required,
  },
  {
    family: 'v03.tasks/get',
    method: 'tasks/get',
    version: 'v03',
    base: obj([
      ['id', taskId(3)],
      ['historyLength', 3],
    ]),
    fields: GET_FIELDS('v03'),
    expect: required,
    expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
  },
  {
    family: 'v03.tasks/cancel',
    method: 'tasks/cancel',
    version: 'v03',
    base: obj([['id', taskId(4)]]),
    fields: CANCEL_FIELDS('v03'),
    expect: allowed([C.NOT_CANCELABLE]),
    expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
  },
];

const headersOf = (version: 'v1' | 'v03') => ({
  contentType: JSON_TYPE,
  version: version === 'v1' ? V1 : null,
});

/** The object nodes of a base request (where an extra key can go). */
const objectPaths = (tree: Json, path: Path = []): Path[] => {
  if (!isContainer(tree) || Array.isArray(tree)) {
    if (Array.isArray(tree)) return tree.flatMap((v, i) => objectPaths(v, [...path, i]));
    return [];
  }
  const o = tree as { [k: string]: Json };
  return [path, ...Object.keys(o).flatMap((k) => objectPaths(o[k] as Json, [...path, k]))];
};

/** A field of an operation, mutated: a wrong type, removed, null, a hostile value, deep nesting. */
const fieldMutation = (op: Operation): fc.Arbitrary<FuzzCase> => {
  const partFields =
    op.family === 'v1.SendMessage' ? V1_PART_FIELDS : op.family === 'v03.message/send' ? V03_PART_FIELDS : [];
  const all: readonly (Field & { part?: Json })[] = [...op.fields, ...partFields];
  return fc.integer({ min: 0, max: all.length - 1 }).chain((i) => {
    const field = all[i]!;
    const base = field.part ? setAt(op.base, ['message', 'parts', 0], field.part) : op.base;
    const at = showPath(field.path);
    const make = (
      kind: string,
      value: Json | typeof REMOVE,
      expect: Expectation,
      note: string,
    ): FuzzCase => ({
      family: `${op.family}.${kind}`,
      note: `${at} ${note}`,
      ...headersOf(op.version),
      body: request(op.method, setAt(base, field.path, value)),
      expect,
      ...(op.expectWithoutTask && expect === op.expect ? { expectWithoutTask: op.expectWithoutTask } : {}),
    });
    const wrong = wrongValues(field.type, op.version);
    const choices: fc.Arbitrary<FuzzCase>[] = [
      hostileValues(field.type).map((v) => make('hostile-value', v, allowed(), '= hostile value')),
      fc.constant(
        make('removed', REMOVE, field.required ? forbidden(C.INVALID_PARAMS) : allowed(), 'removed'),
      ),
      fc.constant(make('null', null, field.required ? forbidden(C.INVALID_PARAMS) : allowed(), '= null')),
      deepValue(smallJson).map((v) => make('deep', v, allowed(), '= deep nesting')),
    ];
    if (wrong)
      choices.push(wrong.map((v) => make('wrong-type', v, forbidden(C.INVALID_PARAMS), '= wrong value')));
    return fc.oneof(...choices);
  });
};

/** An extra key (prototype-pollution names, the empty key, unicode) with any value, at any object of the request. */
const extraKey = (op: Operation): fc.Arbitrary<FuzzCase> => {
  const paths = objectPaths(op.base);
  return fc
    .record({
      at: fc.integer({ min: 0, max: paths.length - 1 }),
      key: hostileKey,
      value: fc.oneof({ weight: 3, arbitrary: smallJson }, { weight: 1, arbitrary: hostileJson }),
    })
    .map(({ at, key, value }) => {
      const path = paths[at]!;
      return {
        family: `${op.family}.extra-key`,
        note: `${showPath([...path, key])} added`,
        ...headersOf(op.version),
        body: request(op.method, setAt(op.base, [...path, key], value)),
        expect: allowed(),
      };
    });
};

// ---- families -----------------------------------------------------------------------------------

/** Valid requests to start the envelope and JSON families from. */
const validRequest: fc.Arbitrary<{ body: Json; version: 'v1' | 'v03'; expect: Expectation }> = fc
  .tuple(
    requestId,
    fc.oneof(
      v1SendParams.map((p) => ({ method: 'SendMessage', p, version: 'v1' as const, expect: required })),
      v1ListParams.map((p) => ({ method: 'ListTasks', p, version: 'v1' as const, expect: required })),
      fc.uuid().map((id) => ({
        method: 'GetTask',
        p: obj([['id', id]]),
        version: 'v1' as const,
        expect: forbidden(C.TASK_NOT_FOUND),
      })),
      v03SendParams.map((p) => ({ method: 'message/send', p, version: 'v03' as const, expect: required })),
      fc.uuid().map((id) => ({
        method: 'tasks/get',
        p: obj([['id', id]]),
        version: 'v03' as const,
        expect: forbidden(C.TASK_NOT_FOUND),
      })),
    ),
  )
  .map(([id, r]) => ({ body: request(r.method, r.p, id), version: r.version, expect: r.expect }));

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');

const malformedJson: fc.Arbitrary<FuzzCase> = fc.oneof(
  // truncated anywhere
  fc.record({ r: validRequest, at: fc.double({ min: 0, max: 0.999, noNaN: true }) }).map(({ r, at }) => ({
    family: 'json.truncated',
    note: `cut at ${(at * 100).toFixed(1)}%`,
    ...headersOf(r.version),
    body: new Mangled(r.body, 'truncate', at),
    expect: forbidden(C.PARSE),
  })),
  // bytes after the value
  fc
    .record({
      r: validRequest,
      tail: fc.constantFrom(
        'x',
        '}',
        ',',
        '{}',
        '\u0000',
        ' //c',
        ']',
        '\n{"jsonrpc":"2.0"}',
        '\ufeff',
        'null',
        '1',
      ),
    })
    .map(({ r, tail }) => ({
      family: 'json.trailing-garbage',
      note: `${JSON.stringify(tail)} appended`,
      ...headersOf(r.version),
      body: new Mangled(r.body, 'append', hex(tail)),
      expect: forbidden(C.PARSE),
    })),
  // whitespace after and before the value is JSON
  fc.record({ r: validRequest, ws: fc.constantFrom(' ', '\n', '\r\n\t ', '   \n\n') }).map(({ r, ws }) => ({
    family: 'json.whitespace',
    note: 'whitespace around',
    ...headersOf(r.version),
    body: new Mangled(r.body, 'wrap', hex(ws)),
    expect: r.expect,
  })),
  // a byte order mark
  validRequest.map((r) => ({
    family: 'json.bom',
    note: 'UTF-8 BOM first',
    ...headersOf(r.version),
    body: new Mangled(r.body, 'prepend', 'efbbbf'),
    expect: allowed([C.PARSE]),
  })),
  // literals JSON does not have, in the envelope or deep in the params
  fc
    .record({
      lit: fc.constantFrom(
        'NaN',
        'Infinity',
        '-Infinity',
        'undefined',
        "'x'",
        '0x10',
        '01',
        '+1',
        '.5',
        '1.',
        '1e',
        '--1',
        'True',
        'nul',
      ),
      where: fc.constantFrom<'id' | 'params' | 'text' | 'historyLength'>(
        'id',
        'params',
        'text',
        'historyLength',
      ),
    })
    .map(({ lit, where }) => {
      const raw = new Raw(lit);
      const body =
        where === 'id'
          ? request('ListTasks', obj([]), raw)
          : where === 'params'
            ? request('ListTasks', raw)
            : where === 'historyLength'
              ? request('ListTasks', obj([['historyLength', raw]]))
              : request(
                  'SendMessage',
                  obj([
                    [
                      'message',
                      obj([
                        ['messageId', new Fresh('m')],
                        ['role', 'ROLE_USER'],
                        ['parts', [obj([['text', raw]])]],
                      ]),
                    ],
                  ]),
                );
      return {
        family: 'json.bad-literal',
        note: `${lit} as ${where}`,
        ...headersOf('v1'),
        body,
        expect: forbidden(C.PARSE),
      };
    }),
  // syntax errors
  fc
    .constantFrom(
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks",}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{},}',
      "{'jsonrpc':'2.0','id':1,'method':'ListTasks'}",
      '{jsonrpc:"2.0",id:1,method:"ListTasks"}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks" /* c */}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks"\n// c\n}',
      '{"jsonrpc":"2.0","id":1,"method":"List\nTasks"}',
      '{"jsonrpc":"2.0","id":1,"method":"List\tTasks"}',
      '{"jsonrpc":"2.0","id":1,"method":"\\x41"}',
      '{"jsonrpc":"2.0","id":1,"method":"\\u12"}',
      '{"jsonrpc":"2.0","id":1,"method":"\\uZZZZ"}',
      '{"jsonrpc":"2.0","id":1,"method":"\\"}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks""params":{}}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks",,"params":{}}',
      '{"jsonrpc":"2.0" "id":1}',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"pageSize":1 2}}',
      '{"jsonrpc":"2.0","id":[1,,2],"method":"ListTasks"}',
      '{"a"}',
      '{:1}',
      '{',
      '}',
      '[',
      '"',
      '\u0000',
      '{"jsonrpc":"2.0","id":1,"method":"ListTasks"}\u0000',
    )
    .map((text) => ({
      family: 'json.syntax',
      note: text,
      ...headersOf('v1'),
      body: new Raw(text),
      expect: forbidden(C.PARSE),
    })),
  // duplicate keys: JSON.parse keeps the last one, and so must every reading of the request
  fc
    .record({
      key: fc.constantFrom('jsonrpc', 'id', 'method', 'params'),
      first: fc.boolean(),
      other: fc.constantFrom<Json>(
        '1.0',
        2,
        'GetTask',
        'tasks/get',
        obj([['id', 'x']]),
        null,
        [],
        obj([['__proto__', obj([['polluted', true]])]]),
      ),
    })
    .map(({ key, first, other }) => {
      const valid = new Map<string, Json>([
        ['jsonrpc', '2.0'],
        ['id', 5],
        ['method', 'ListTasks'],
        ['params', obj([['pageSize', 2]])],
      ]);
      const entries: [string, Json][] = [];
      for (const [k, v] of valid) {
        if (k === key)
          entries.push(
            ...(first
              ? ([
                  [k, v],
                  [k, other],
                ] as [string, Json][])
              : ([
                  [k, other],
                  [k, v],
                ] as [string, Json][])),
          );
        else entries.push([k, v]);
      }
      return {
        family: 'json.duplicate-keys',
        note: `${key} twice, the ${first ? 'second' : 'first'} one odd`,
        ...headersOf('v1'),
        body: new Entries(entries),
        expect: allowed(),
      };
    }),
  // duplicate keys deep in the params
  fc.constantFrom('messageId', 'role', 'parts', 'text').map((key) => {
    const part =
      key === 'text'
        ? new Entries([
            ['text', 'one'],
            ['text', 'two'],
          ])
        : obj([['text', 'hi']]);
    const msg: [string, Json][] = [
      ['messageId', new Fresh('m')],
      ['role', 'ROLE_USER'],
      ['parts', [part]],
    ];
    const dup: [string, Json] | undefined =
      key === 'messageId'
        ? ['messageId', new Fresh('m')]
        : key === 'role'
          ? ['role', 'ROLE_AGENT']
          : key === 'parts'
            ? ['parts', []]
            : undefined;
    return {
      family: 'json.duplicate-keys',
      note: `message.${key} twice`,
      ...headersOf('v1'),
      body: request('SendMessage', obj([['message', new Entries(dup ? [...msg, dup] : msg)]])),
      expect: allowed(),
    };
  }),
  // not an object: JSON, but no request
  fc
    .constantFrom('null', '1', '-0', '"SendMessage"', 'true', '[]', '{}', '[[]]', '""', '1e400')
    .map((text) => ({
      family: 'json.not-an-object',
      note: text,
      ...headersOf('v1'),
      body: new Raw(text),
      expect: forbidden(C.INVALID_REQUEST),
    })),
  fc.constantFrom('', ' ', '\n\n', '\t').map((text) => ({
    family: 'json.empty',
    note: JSON.stringify(text),
    ...headersOf('v1'),
    body: new Raw(text),
    expect: forbidden(C.PARSE, C.INVALID_REQUEST),
  })),
  // bytes that are not UTF-8, in a string or around the value
  fc
    .record({
      bad: fc.constantFrom(
        'c080',
        'e08080',
        'f0808080',
        '80',
        'bf',
        'fe',
        'ff',
        'ed a0 80'.replaceAll(' ', ''),
        'f4908080',
        'c3',
        'e282',
      ),
      where: fc.constantFrom<'text' | 'method' | 'outside'>('text', 'method', 'outside'),
    })
    .map(({ bad, where }) => {
      const str = new Bytes(`22${hex('a')}${bad}${hex('b')}22`);
      const body =
        where === 'text'
          ? request(
              'SendMessage',
              obj([
                [
                  'message',
                  obj([
                    ['messageId', new Fresh('m')],
                    ['role', 'ROLE_USER'],
                    ['parts', [obj([['text', str]])]],
                  ]),
                ],
              ]),
            )
          : where === 'method'
            ? request(str, obj([]))
            : new Mangled(request('ListTasks', obj([])), 'append', bad);
      return {
        family: 'json.invalid-utf8',
        note: `0x${bad} in ${where}`,
        ...headersOf('v1'),
        body,
        expect: where === 'outside' ? forbidden(C.PARSE) : allowed(),
      };
    }),
  // escapes: every character escaped, escaped surrogates, escaped NUL
  fc
    .constantFrom(
      '\\u0041sk',
      '\\u0000',
      '\\ud800',
      '\\udfff\\ud800',
      '\\uD83D\\uDE00',
      '\\u202e',
      '\\/\\b\\f',
      '\\u0061\\u0073\\u006b',
    )
    .map((esc) => ({
      family: 'json.escapes',
      note: esc,
      ...headersOf('v1'),
      body: request(
        'SendMessage',
        obj([
          [
            'message',
            obj([
              ['messageId', new Fresh('m')],
              ['role', 'ROLE_USER'],
              ['parts', [obj([['text', new Raw(`"${esc}"`)]])]],
            ]),
          ],
        ]),
      ),
      expect: allowed(),
    })),
);

const envelope: fc.Arbitrary<FuzzCase> = fc.oneof(
  // jsonrpc missing or wrong
  fc
    .record({
      jsonrpc: fc.oneof(
        fc.constantFrom<Json | typeof REMOVE>(
          REMOVE,
          '1.0',
          '2',
          2,
          new Raw('2.0'),
          '2.0 ',
          ' 2.0',
          null,
          true,
          {},
          [],
          '２.０',
          '',
          '2.00',
        ),
        hostileString,
      ),
      r: validRequest,
    })
    .map(({ jsonrpc, r }) => ({
      family: 'envelope.jsonrpc',
      note: jsonrpc === REMOVE ? 'jsonrpc missing' : `jsonrpc = ${JSON.stringify(jsonrpc)}`,
      ...headersOf(r.version),
      body: setAt(r.body, ['jsonrpc'], jsonrpc),
      expect: forbidden(C.INVALID_REQUEST),
    })),
  // ids that are valid (echoed) …
  fc
    .record({
      id: fc.oneof(
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string(),
        unicodeString,
        bigString.map((b) => new Big(b.unit, Math.min(b.count, 100_000))),
        fc.constantFrom<Json>(
          null,
          0,
          -0,
          new Raw('-0'),
          new Raw('1e308'),
          new Raw('9007199254740993'),
          new Raw('1e-400'),
          new Raw('1.0'),
          '',
          '__proto__',
        ),
      ),
      r: fc.constantFrom(
        { method: 'ListTasks', params: obj([['pageSize', 1]]), expect: required },
        { method: 'GetTask', params: obj([['id', 'no-such-task']]), expect: forbidden(C.TASK_NOT_FOUND) },
      ),
    })
    .map(({ id, r }) => ({
      family: 'envelope.id',
      note: `id = ${id instanceof Big ? `${JSON.stringify(id.unit)} × ${id.count}` : (JSON.stringify(id) ?? String(id))}`,
      ...headersOf('v1'),
      body: request(r.method, r.params, id),
      // a hub may bound the length of ids (-32600), but it must still echo the id it was given
      expect: id instanceof Big ? allowed([C.INVALID_REQUEST, ...(r.expect.codes ?? [])]) : r.expect,
    })),
  // … and ids that are not
  fc
    .record({
      id: fc.oneof(
        fc.constantFrom<Json>(
          true,
          false,
          {},
          obj([['no', 1]]),
          [],
          [1],
          obj([['__proto__', obj([['x', 1]])]]),
          new Raw('1e400'),
          new Raw('-1e400'),
        ),
        deepValue(),
      ),
      r: validRequest,
    })
    .map(({ id, r }) => ({
      family: 'envelope.bad-id',
      note: 'id of the wrong type',
      ...headersOf(r.version),
      body: setAt(r.body, ['id'], id),
      expect: forbidden(C.INVALID_REQUEST),
    })),
  // no id: a notification, which A2A does not have
  validRequest.map((r) => ({
    family: 'envelope.no-id',
    note: 'id missing',
    ...headersOf(r.version),
    body: setAt(r.body, ['id'], REMOVE),
    expect: forbidden(C.INVALID_REQUEST),
  })),
  // method missing or not a string
  fc
    .record({
      method: fc.oneof(
        fc.constantFrom<Json | typeof REMOVE>(
          REMOVE,
          null,
          1,
          {},
          [],
          ['SendMessage'],
          '',
          true,
          new Raw('1e400'),
        ),
        deepValue(),
      ),
      r: validRequest,
    })
    .map(({ method, r }) => ({
      family: 'envelope.method',
      note: method === REMOVE ? 'method missing' : 'method not a string',
      ...headersOf(r.version),
      body: setAt(r.body, ['method'], method),
      expect: forbidden(C.INVALID_REQUEST),
    })),
  // params not an object
  fc
    .record({
      params: fc.oneof(
        fc.constantFrom<Json>([], [obj([['id', 'x']])], 1, 'x', true, new Raw('1e400'), ''),
        hugeArray(fc.constant<Json>(1)),
        deepValue().map((d) => new Deep(d.depth, 'array', d.leaf)),
      ),
      method: fc.constantFrom('SendMessage', 'GetTask', 'ListTasks', 'CancelTask'),
    })
    .map(({ params, method }) => ({
      family: 'envelope.params',
      note: 'params not an object',
      ...headersOf('v1'),
      body: request(method, params),
      expect: forbidden(C.INVALID_REQUEST, C.INVALID_PARAMS),
    })),
  fc.constantFrom('SendMessage', 'GetTask', 'ListTasks', 'CancelTask', 'message/send').map((method) => ({
    family: 'envelope.params-null',
    note: `${method} with params null`,
    ...headersOf(method.includes('/') ? 'v03' : 'v1'),
    body: request(method, null),
    expect:
      method === 'ListTasks'
        ? allowed([C.INVALID_REQUEST, C.INVALID_PARAMS])
        : forbidden(C.INVALID_REQUEST, C.INVALID_PARAMS),
  })),
  // params absent: only ListTasks has nothing required
  fc.constantFrom('SendMessage', 'GetTask', 'ListTasks', 'CancelTask').map((method) => ({
    family: 'envelope.params-absent',
    note: `${method} without params`,
    ...headersOf('v1'),
    body: request(method),
    expect: method === 'ListTasks' ? required : forbidden(C.INVALID_PARAMS),
  })),
  // members JSON-RPC does not define
  fc
    .record({
      key: fc.oneof(hostileKey, fc.constantFrom('result', 'error', 'ID', 'Method', 'jsonrpc2')),
      value: smallJson,
      r: validRequest,
    })
    .map(({ key, value, r }) => ({
      family: 'envelope.extra-member',
      note: `${JSON.stringify(key)} added to the envelope`,
      ...headersOf(r.version),
      body: setAt(r.body, [key], value),
      expect: ['jsonrpc', 'id', 'method', 'params'].includes(key)
        ? allowed()
        : { ...r.expect, success: r.expect.success === 'required' ? 'allowed' : r.expect.success },
    })),
  // batches
  fc.record({ items: fc.array(validRequest, { maxLength: 3 }) }).map(({ items }) => ({
    family: 'envelope.batch',
    note: `batch of ${items.length}`,
    ...headersOf('v1'),
    body: items.map((r) => r.body),
    expect: forbidden(C.INVALID_REQUEST),
  })),
);

/** Streaming methods: `{id: "x"}` is no SendMessage request (-32602) and no task of the caller (-32001). */
const STREAMING_V1 = ['SendStreamingMessage', 'SubscribeToTask'];
const STREAMING_V03 = ['message/stream', 'tasks/resubscribe'];
/** Push-config methods (served only where the delivery pipeline is configured). */
const NOT_OFFERED_V1 = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
];
const NOT_OFFERED_V03 = [
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
];
/** The demo agent has an extended card: any object params (unknown fields ignored) get it. */
const EXTENDED_CARD = { v1: 'GetExtendedAgentCard', v03: 'agent/getAuthenticatedExtendedCard' } as const;
const V03_METHODS = ['message/send', 'tasks/get', 'tasks/cancel'];
const V1_METHODS = ['SendMessage', 'GetTask', 'ListTasks', 'CancelTask'];

const methods: fc.Arbitrary<FuzzCase> = fc.oneof(
  // names no version has
  fc
    .record({
      method: fc.oneof(
        fc.string({ minLength: 1, maxLength: 30 }),
        unicodeString,
        fc.constantFrom(
          'sendmessage',
          'SENDMESSAGE',
          ' SendMessage',
          'SendMessage ',
          'Send Message',
          'message/send/',
          '/message/send',
          'message.send',
          'rpc.discover',
          '__proto__',
          'constructor',
          'toString',
          'hasOwnProperty',
          'valueOf',
          'prototype',
          'tasks/list',
          'tasks/send',
          'SendMessage\u0000',
          'Send\u200bMessage',
        ),
        fc.integer({ min: 1_000, max: 500_000 }).map((n) => new Big('M', n)),
      ),
      v1: fc.boolean(),
      params: fc.constantFrom<Json>(obj([]), obj([['id', 'x']])),
    })
    .filter(
      ({ method }) =>
        typeof method !== 'string' ||
        ![
          ...V1_METHODS,
          ...V03_METHODS,
          ...STREAMING_V1,
          ...STREAMING_V03,
          ...NOT_OFFERED_V1,
          ...NOT_OFFERED_V03,
        ].includes(method),
    )
    .map(({ method, v1, params }) => ({
      family: 'method.unknown',
      note: `method ${typeof method === 'string' ? JSON.stringify(method) : 'huge'}`,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(method, params),
      // "" is a string, so a method not found, or no method name at all
      expect:
        method === '' ? forbidden(C.METHOD_NOT_FOUND, C.INVALID_REQUEST) : forbidden(C.METHOD_NOT_FOUND),
    })),
  // the other version's names
  fc.record({ v1: fc.boolean(), i: fc.nat() }).map(({ v1, i }) => {
    const names = v1 ? V03_METHODS : V1_METHODS;
    const method = names[i % names.length]!;
    return {
      family: 'method.other-version',
      note: `${method} with${v1 ? '' : 'out'} A2A-Version: 1.0`,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(method, obj([['id', 'x']])),
      expect: forbidden(C.METHOD_NOT_FOUND),
    };
  }),
  // push-config operations with params that name no config of the caller: -32003 where push is not
  // configured, else invalid params (v1.0 `{id}` lacks taskId) or an unknown task (v0.3 `{id}` is the task)
  fc.record({ v1: fc.boolean(), i: fc.nat() }).map(({ v1, i }) => {
    const names = v1 ? NOT_OFFERED_V1 : NOT_OFFERED_V03;
    const method = names[i % names.length]!;
    return {
      family: 'method.push-config',
      note: method,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(method, obj([['id', 'x']])),
      expect: forbidden(C.PUSH_NOT_SUPPORTED, C.INVALID_PARAMS, C.TASK_NOT_FOUND),
    };
  }),
  fc.record({ v1: fc.boolean(), withId: fc.boolean() }).map(({ v1, withId }) => {
    const method = v1 ? EXTENDED_CARD.v1 : EXTENDED_CARD.v03;
    return {
      family: 'method.extended-card',
      note: method,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(method, withId ? obj([['id', 'x']]) : obj([])),
      expect: required,
    };
  }),
  // streaming methods with params that are no request of theirs: plain JSON-RPC errors, never a stream
  fc.record({ v1: fc.boolean(), i: fc.nat() }).map(({ v1, i }) => {
    const names = v1 ? STREAMING_V1 : STREAMING_V03;
    const method = names[i % names.length]!;
    return {
      family: 'method.streaming',
      note: method,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(method, obj([['id', 'x']])),
      expect: forbidden(C.INVALID_PARAMS, C.TASK_NOT_FOUND),
    };
  }),
);

const CONTENT_TYPES = [
  null,
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/a2a+json',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json;charset=iso-8859-1',
  '',
  'application/xml',
  'image/png',
  '*/*',
  'application/json, text/plain',
  'application/jsonx',
  'json',
] as const;

const VERSION_VALUES = [
  '1.0',
  '1',
  '1.0.0',
  '1.0.1',
  ' 1.0 ',
  '01.0',
  '1.00',
  '1.0-rc',
  'v1.0',
  '2.0',
  '0.2',
  '0.3',
  '0.3.0',
  '',
  '   ',
  'null',
  'undefined',
  '1.0,0.3',
  '1.0, 0.3',
  '-1',
  '1e0',
  '0x1',
  'NaN',
  '99999999999999999999.0',
  '1.0\u00e9',
  'é',
  '1'.repeat(5000),
] as const;

const headers: fc.Arbitrary<FuzzCase> = fc.oneof(
  fc
    .record({ contentType: fc.constantFrom(...CONTENT_TYPES), r: validRequest })
    .map(({ contentType, r }) => ({
      family: 'headers.content-type',
      note: `Content-Type: ${contentType ?? '(none)'}`,
      contentType,
      version: r.version === 'v1' ? V1 : null,
      body: r.body,
      expect: allowed([C.CONTENT_TYPE, C.INVALID_REQUEST, C.PARSE, ...(r.expect.codes ?? [])]),
    })),
  validRequest.map((r) => ({
    family: 'headers.multipart',
    note: 'the request as a multipart/form-data field',
    contentType: `multipart/form-data; boundary=fuzzboundary`,
    version: r.version === 'v1' ? V1 : null,
    body: new Mangled(r.body, 'multipart', 0),
    expect: forbidden(C.CONTENT_TYPE, C.INVALID_REQUEST, C.PARSE),
  })),
  fc
    .record({ encoding: fc.constantFrom('gzip', 'br', 'identity', 'x-unknown'), r: validRequest })
    .map(({ encoding, r }) => ({
      family: 'headers.content-encoding',
      note: `Content-Encoding: ${encoding} (body not encoded)`,
      contentType: JSON_TYPE,
      version: r.version === 'v1' ? V1 : null,
      extraHeaders: { 'content-encoding': encoding },
      body: r.body,
      expect: allowed([C.CONTENT_TYPE, C.INVALID_REQUEST, C.PARSE, ...(r.expect.codes ?? [])]),
    })),
  fc
    .record({
      version: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<string | readonly string[]>(...VERSION_VALUES) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<readonly string[]>(
            ['1.0', '0.3'],
            ['0.3', '1.0'],
            ['1.0', '1.0'],
            ['2.0', '1.0'],
          ),
        },
      ),
      name: fc.constantFrom('A2A-Version', 'a2a-version', 'A2A-VERSION'),
      r: validRequest,
    })
    .map(({ version, name, r }) => ({
      family: 'headers.a2a-version',
      note: `${name}: ${JSON.stringify(version)} with a v${r.version === 'v1' ? '1.0' : '0.3'} request`,
      contentType: JSON_TYPE,
      version: name === 'A2A-Version' ? version : null,
      ...(name === 'A2A-Version'
        ? {}
        : { extraHeaders: { [name]: Array.isArray(version) ? version.join(', ') : String(version) } }),
      body: r.body,
      expect: allowed([C.VERSION, C.METHOD_NOT_FOUND, C.INVALID_PARAMS, ...(r.expect.codes ?? [])]),
    })),
);

/** Benign names no version of A2A uses, so a hub that ignores unknown fields must accept them. */
const unknownName = fc.stringMatching(/^x[A-Z][a-zA-Z]{2,10}$/);

/** Requests that are valid, if unusual: the hub must answer them with a success. */
const validEdgy: fc.Arbitrary<FuzzCase> = fc.oneof(
  {
    weight: 4,
    arbitrary: v1SendParams.map((p) => ({
      family: 'valid.v1.SendMessage',
      note: 'valid',
      ...headersOf('v1'),
      body: request('SendMessage', p),
      expect: required,
    })),
  },
  {
    weight: 2,
    arbitrary: v03SendParams.map((p) => ({
      family: 'valid.v03.message/send',
      note: 'valid',
      ...headersOf('v03'),
      body: request('message/send', p),
      expect: required,
    })),
  },
  {
    weight: 2,
    arbitrary: v1ListParams.map((p) => ({
      family: 'valid.v1.ListTasks',
      note: 'valid',
      ...headersOf('v1'),
      body: request('ListTasks', p),
      expect: required,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ n: fc.nat(), h: optional(fc.integer({ min: 0, max: 20 })), v1: fc.boolean() })
      .map(({ n, h, v1 }) => ({
        family: `valid.${v1 ? 'v1.GetTask' : 'v03.tasks/get'}`,
        note: 'an existing task',
        ...headersOf(v1 ? 'v1' : 'v03'),
        body: request(
          v1 ? 'GetTask' : 'tasks/get',
          defined([
            ['id', taskId(n)],
            ['historyLength', h],
          ]),
        ),
        expect: required,
        expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
      })),
  },
  // the answer to a task waiting for input
  {
    weight: 1,
    arbitrary: fc
      .record({ n: fc.nat(), text: fc.constantFrom('42', 'blue', 'yes please'), v1: fc.boolean() })
      .map(({ n, text, v1 }) => ({
        family: `valid.${v1 ? 'v1' : 'v03'}.continue-task`,
        note: 'answers a task waiting for input',
        ...headersOf(v1 ? 'v1' : 'v03'),
        body: request(
          v1 ? 'SendMessage' : 'message/send',
          obj([
            [
              'message',
              v1
                ? obj([
                    ['messageId', new Fresh('m')],
                    ['role', 'ROLE_USER'],
                    ['taskId', new TaskRef(n, 'id', true)],
                    ['parts', [obj([['text', text]])]],
                  ])
                : obj([
                    ['kind', 'message'],
                    ['messageId', new Fresh('m')],
                    ['role', 'user'],
                    ['taskId', new TaskRef(n, 'id', true)],
                    [
                      'parts',
                      [
                        obj([
                          ['kind', 'text'],
                          ['text', text],
                        ]),
                      ],
                    ],
                  ]),
            ],
          ]),
        ),
        expect: required,
        expectWithoutTask: forbidden(C.TASK_NOT_FOUND),
      })),
  },
  // ProtoJSON: snake_case names and enum numbers
  {
    weight: 1,
    arbitrary: fc
      .record({ snake: fc.boolean(), enumNumber: fc.boolean(), text: agentText })
      .map(({ snake, enumNumber, text }) => ({
        family: 'valid.v1.protojson',
        note: `${snake ? 'snake_case names' : 'camelCase names'}, role ${enumNumber ? 'as 1' : 'by name'}`,
        ...headersOf('v1'),
        body: request(
          'SendMessage',
          obj([
            [
              'message',
              obj([
                [snake ? 'message_id' : 'messageId', new Fresh('m')],
                ['role', enumNumber ? 1 : 'ROLE_USER'],
                [
                  'parts',
                  [
                    obj([
                      ['text', text],
                      [snake ? 'media_type' : 'mediaType', 'text/plain'],
                    ]),
                  ],
                ],
                [snake ? 'context_id' : 'contextId', new Fresh('ctx')],
              ]),
            ],
            [
              'configuration',
              obj([
                [snake ? 'history_length' : 'historyLength', '2'],
                [snake ? 'return_immediately' : 'returnImmediately', false],
              ]),
            ],
          ]),
        ),
        expect: required,
      })),
  },
  // unknown fields: "Unrecognized fields SHOULD be ignored" (A2A's serialization rules: forward compatibility)
  {
    weight: 3,
    arbitrary: fc
      .record({
        v1: fc.boolean(),
        params: fc.boolean().chain((v1) => (v1 ? v1SendParams : v03SendParams).map((p) => ({ v1, p }))),
        extras: fc.array(fc.tuple(fc.nat(), unknownName, benignJson), { minLength: 1, maxLength: 3 }),
      })
      .map(({ params: { v1, p }, extras }) => {
        // only the objects the protocol defines (not the free-form maps, where any key is data anyway)
        const nodes = objectPaths(p).filter((path) => !path.includes('metadata') && !path.includes('data'));
        let params = p;
        const notes: string[] = [];
        for (const [i, name, value] of extras) {
          const path = [...nodes[i % nodes.length]!, name];
          params = setAt(params, path, value);
          notes.push(showPath(path));
        }
        return {
          family: `valid.${v1 ? 'v1' : 'v03'}.unknown-fields`,
          note: `unknown ${notes.join(', ')}`,
          ...headersOf(v1 ? 'v1' : 'v03'),
          body: request(v1 ? 'SendMessage' : 'message/send', params),
          expect: required,
        };
      }),
  },
  // ListTasks with unknown fields
  {
    weight: 1,
    arbitrary: fc
      .record({ p: v1ListParams, name: unknownName, value: benignJson })
      .map(({ p, name, value }) => ({
        family: 'valid.v1.unknown-fields',
        note: `unknown ${name} in ListTasks`,
        ...headersOf('v1'),
        body: request('ListTasks', setAt(p, [name], value)),
        expect: required,
      })),
  },
);

/** Bodies over the handler's 1 MiB limit (and a few over the gateway's 10 MiB). */
const oversize: fc.Arbitrary<FuzzCase> = fc
  .record({
    size: fc.oneof(
      { weight: 20, arbitrary: fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 600_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 10 * BODY_LIMIT + 1, max: 11 * BODY_LIMIT }) },
    ),
    id: fc.oneof(fc.nat(), fc.constantFrom('big-1', 'ü-id')),
    v1: fc.boolean(),
    idLast: fc.boolean(),
  })
  .map(({ size, id, v1, idLast }) => {
    const message = v1
      ? obj([
          ['messageId', new Fresh('m')],
          ['role', 'ROLE_USER'],
          ['parts', [obj([['text', new Big('y', size)]])]],
        ])
      : obj([
          ['kind', 'message'],
          ['messageId', new Fresh('m')],
          ['role', 'user'],
          [
            'parts',
            [
              obj([
                ['kind', 'text'],
                ['text', new Big('y', size)],
              ]),
            ],
          ],
        ]);
    const method = v1 ? 'SendMessage' : 'message/send';
    const entries: [string, Json][] = idLast
      ? [
          ['jsonrpc', '2.0'],
          ['method', method],
          ['params', obj([['message', message]])],
          ['id', id],
        ]
      : [
          ['jsonrpc', '2.0'],
          ['id', id],
          ['method', method],
          ['params', obj([['message', message]])],
        ];
    return {
      family: 'oversize',
      note: `~${size} bytes, id ${idLast ? 'last' : 'first'}`,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: new Entries(entries),
      expect: forbidden(C.INVALID_REQUEST),
    };
  });

const operationCases = (ops: readonly Operation[]) =>
  fc.oneof(
    ...ops.flatMap((op) => [
      { weight: 3, arbitrary: fieldMutation(op) },
      { weight: 1, arbitrary: extraKey(op) },
    ]),
  );

const V1_OPS = OPERATIONS.filter((o) => o.version === 'v1');
const V03_OPS = OPERATIONS.filter((o) => o.version === 'v03');

/** Page tokens get a family of their own (they are opaque strings the hub decodes). */
const pageTokens: fc.Arbitrary<FuzzCase> = fc
  .record({ token: pageToken, contextId: optional(fc.constant(new TaskRef(0, 'contextId'))) })
  .map(({ token, contextId }) => ({
    family: 'v1.ListTasks.page-token',
    note: 'bogus pageToken',
    ...headersOf('v1'),
    body: request(
      'ListTasks',
      defined([
        ['pageToken', token],
        ['contextId', contextId],
      ]),
    ),
    expect: allowed([C.INVALID_PARAMS]),
  }));

/** Hostile JSON where the protocol takes any JSON: data parts and the metadata of the part, message and request. */
const hostileData: fc.Arbitrary<FuzzCase> = fc
  .record({
    v1: fc.boolean(),
    where: fc.constantFrom('data', 'part.metadata', 'message.metadata', 'metadata'),
    value: fc.oneof(
      { weight: 2, arbitrary: fc.tuple(hostileKey, extremeNumber).map(([k, n]) => obj([[k, n]])) },
      { weight: 2, arbitrary: hostileJson },
      { weight: 1, arbitrary: hostileObject },
    ),
  })
  .map(({ v1, where, value }) => {
    // v0.3 data parts and every metadata hold objects: anything else is wrapped in one
    const asObject = (v: Json): Json => (isContainer(v) && !Array.isArray(v) ? v : obj([['value', v]]));
    const part: Json =
      where === 'data'
        ? v1
          ? obj([['data', value]])
          : obj([
              ['kind', 'data'],
              ['data', asObject(value)],
            ])
        : v1
          ? obj([
              ['text', 'hello'],
              ...(where === 'part.metadata' ? [['metadata', asObject(value)] as const] : []),
            ])
          : obj([
              ['kind', 'text'],
              ['text', 'hello'],
              ...(where === 'part.metadata' ? [['metadata', asObject(value)] as const] : []),
            ]);
    const message = obj([
      ...(v1 ? [] : [['kind', 'message'] as const]),
      ['messageId', new Fresh('m')],
      ['role', v1 ? 'ROLE_USER' : 'user'],
      ['parts', [part]],
      ...(where === 'message.metadata' ? [['metadata', asObject(value)] as const] : []),
    ]);
    return {
      family: `${v1 ? 'v1.SendMessage' : 'v03.message/send'}.hostile-data`,
      note: `hostile JSON in ${where}`,
      ...headersOf(v1 ? 'v1' : 'v03'),
      body: request(
        v1 ? 'SendMessage' : 'message/send',
        obj([
          ['message', message],
          ...(where === 'metadata' ? [['metadata', asObject(value)] as const] : []),
        ]),
      ),
      expect: allowed(),
    };
  });

/** Every request the fuzzer sends. */
export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 22, arbitrary: malformedJson },
  { weight: 12, arbitrary: envelope },
  { weight: 5, arbitrary: methods },
  { weight: 26, arbitrary: operationCases(V1_OPS) },
  { weight: 12, arbitrary: operationCases(V03_OPS) },
  { weight: 3, arbitrary: pageTokens },
  { weight: 4, arbitrary: hostileData },
  { weight: 6, arbitrary: headers },
  { weight: 13, arbitrary: validEdgy },
  { weight: 1, arbitrary: oversize },
);
