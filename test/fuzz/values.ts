/**
 * Hostile values, the building blocks of every request the fuzzer sends:
 * unicode edge cases, huge strings and arrays, deep nesting, extreme
 * numbers, prototype-pollution keys, and JSON values made of all of them.
 */
import fc from 'fast-check';
import { Big, Deep, type Json, Many, obj, Raw, serialize } from './json.ts';

/**
 * The handler's body limit (MAX_REQUEST_BYTES of shared/app/a2a/jsonrpc.ts, which fuzz.test.ts checks this
 * against; not imported here, as that module builds the handlers' logger before the hub sets its level):
 * only the oversize family goes past it.
 */
export const BODY_LIMIT = 1024 * 1024;
/** What one hostile value may take of a request, so every request but the oversize ones stays under BODY_LIMIT. */
export const VALUE_BUDGET = 900 * 1024;

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Keys that are dangerous or odd somewhere: prototype members, the empty key, separators of the table's keys. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PROTO_KEYS, '') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
      '__lookupGetter__',
      'then',
      'toJSON',
      'length',
      '$where',
      '$ref',
      'a.b',
      '#',
      'T#',
      'pk',
      'sk',
      ':',
      '0',
      '-1',
      '\u0000',
      '\ud800',
      '\u202e',
      ' ',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 20_000 }).map((n) => 'k'.repeat(n)) },
);

const EDGE_CHARS = [
  '\u0000', // NUL
  '\u0001',
  '\u001f',
  '\u007f',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\udbff\udfff', // U+10FFFF
  '\ud83d\ude00', // emoji
  '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67', // ZWJ family
  '\u202e', // RTL override
  '\u200f', // RTL mark
  '\u061c',
  'مرحبا',
  'שלום',
  '\u200b', // zero width space
  '\ufeff', // BOM inside a string
  '\ufffe',
  '\uffff',
  '\ufffd',
  'e\u0301', // combining accent
  '\u2028\u2029', // JS line separators
  '\r\n\t',
  '"\\',
  '</script>',
  "'; --",
  '%00',
  'é',
  '\u00a0',
];

/** Strings that stress encoders: NUL, lone surrogates, RTL, emoji, combining marks. */
export const unicodeString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...EDGE_CHARS) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

/** A huge string as a marker: up to VALUE_BUDGET bytes once encoded. */
export const bigString: fc.Arbitrary<Big> = fc.oneof(
  fc.integer({ min: 1_000, max: 900_000 }).map((n) => new Big('x', n)),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => new Big('\ud83d\ude00', n)),
  fc.integer({ min: 1_000, max: 140_000 }).map((n) => new Big('\u0000', n)), // \u0000 is 6 bytes escaped
  fc.integer({ min: 100, max: 170_000 }).map((n) => new Big('é\u202e', n)),
);

export const hostileString: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: unicodeString },
  { weight: 2, arbitrary: bigString },
  { weight: 1, arbitrary: fc.constantFrom<string>(...PROTO_KEYS, '', ' ', '\u0000', 'null', 'undefined') },
  { weight: 1, arbitrary: fc.integer({ min: 257, max: 5_000 }).map((n) => 'i'.repeat(n)) },
);

/** Number literals: beyond DynamoDB's range and precision, beyond doubles, -0, and as strings. */
const EXTREME_NUMBER_TEXTS = [
  '1e300',
  '-1e300',
  '1e-200',
  '9007199254740993',
  '-9007199254740993',
  '-0',
  '-0.0',
  '1e400',
  '-1e400',
  '1e-400',
  '5e-324',
  '1.7976931348623157e308',
  '123456789012345678901234567890',
  '100000000000000000000000000000000000000000',
  '0.000000000000000000000000000000000000001234567890123456789',
  '1.2345678901234567890123456789012345678901',
  '1e126',
  '1e125',
  '9.9999999999999999999999999999999999999e125',
  '1e-130',
  '1e-131',
  '-9223372036854775809',
  '18446744073709551616',
  '2147483648',
  '-2147483649',
  '1E+2',
  '0e0',
  '1.0',
];

export const extremeNumber: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...EXTREME_NUMBER_TEXTS).map((t) => new Raw(t)) },
  { weight: 1, arbitrary: fc.constantFrom(...EXTREME_NUMBER_TEXTS) }, // the same as strings
  { weight: 1, arbitrary: fc.double() },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 20, max: 5_000 }).map((n) => new Raw(`1${'0'.repeat(n)}`)), // huge integers
  },
);

/** Nesting thousands of levels deep, of arrays or objects. */
export const deepValue = (leaf: fc.Arbitrary<Json> = fc.constantFrom<Json>(1, 'x', null, {})) =>
  fc
    .record({
      depth: fc.oneof(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 41, max: 6_000 })),
      shape: fc.constantFrom<'array' | 'object'>('array', 'object'),
      key: fc.constantFrom('a', '__proto__', '', 'constructor'),
      leaf,
    })
    .map(({ depth, shape, key, leaf }) => new Deep(depth, shape, leaf, key));

const noRefs = { task: () => 'task-id', fresh: () => 'fresh-value' };

/** A huge array of small items (at most VALUE_BUDGET bytes). */
export const hugeArray = (item: fc.Arbitrary<Json>) =>
  fc
    .record({
      item,
      count: fc.oneof(fc.integer({ min: 2, max: 1_000 }), fc.integer({ min: 1_001, max: 100_000 })),
    })
    .map(({ item, count }) => {
      const size = serialize(item, noRefs).length + 1;
      return new Many(item, Math.min(count, Math.floor(VALUE_BUDGET / size)));
    });

/** Small JSON values of every kind, hostile keys and numbers included (no huge ones: see `hostileJson`). */
export const smallJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<Json>(null, true, false, 0, 1, -1),
    fc.integer(),
    extremeNumber,
    unicodeString,
    fc.string({ maxLength: 10 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(hostileKey, fc.string({ maxLength: 6 })), tie('value')), { maxLength: 4 })
      .map((entries) => obj(entries)),
  ),
})).value;

/** Any hostile JSON value: small odd ones, deep ones, huge ones. */
export const hostileJson: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: smallJson },
  { weight: 2, arbitrary: deepValue(smallJson) },
  { weight: 1, arbitrary: bigString },
  { weight: 1, arbitrary: hugeArray(fc.constantFrom<Json>(1, 'x', null, {}, [], new Raw('1e300'))) },
  { weight: 1, arbitrary: extremeNumber },
);

/** A JSON object with hostile keys and values (metadata, data parts). */
export const hostileObject: fc.Arbitrary<Json> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({
        // one value may be huge, the others are small: the request stays under the body limit
        odd: fc.tuple(fc.oneof(hostileKey, fc.string({ maxLength: 6 })), hostileJson),
        more: fc.array(fc.tuple(fc.oneof(hostileKey, fc.string({ maxLength: 6 })), smallJson), {
          maxLength: 3,
        }),
        at: fc.nat(),
      })
      .map(({ odd, more, at }) => {
        const entries = [...more];
        entries.splice(at % (more.length + 1), 0, odd);
        return obj(entries);
      }),
  },
  { weight: 1, arbitrary: deepValue(smallJson).map((d) => new Deep(d.depth, 'object', d.leaf, d.key)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 100, max: 20_000 })
      .map((n) => obj(Array.from({ length: n }, (_, i) => [`k${i}`, i] as const))),
  },
);

/** JSON values an agent would plausibly send: no extreme numbers, no hostile keys, shallow. */
export const benignJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom<Json>(null, true, false, 0, 1, -1, 0.5, 'x', ''),
    fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
    fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((n) => n / 1000),
    fc.string({ maxLength: 20 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,11}$/), tie('value')), { maxLength: 4 })
      .map((entries) => obj(entries)),
  ),
})).value;

export const benignObject: fc.Arbitrary<{ [key: string]: Json }> = fc
  .array(fc.tuple(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,11}$/), benignJson), { maxLength: 4 })
  .map((entries) => obj(entries));
