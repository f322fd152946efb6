/**
 * How long the hub's request parser (shared/protocol/a2a: parseRequest, the entry point of both bindings)
 * takes on the worst requests of about 1 MiB that fuzzing found: many keys, many unknown fields, long data
 * arrays, many text parts, and 300,000 empty parts (refused at once with one small -32602). Each shape is
 * parsed `runs` times, interleaved; the worst time is the figure (docs/agent-api.md's bounds: well under a
 * second). The unit tests (test/unit/protocol/a2a/bounds.test.ts) check what each shape is answered.
 */
import { parseRequest, v1Codec } from '../../shared/protocol/a2a/index.ts';

export interface HostileShape {
  name: string;
  /** Bytes of the params as JSON. */
  bytes: number;
  p50Ms: number;
  maxMs: number;
}

export interface HostileBenchResult {
  runs: number;
  shapes: HostileShape[];
}

// the documented bounds (shared/protocol/a2a/bounds.ts)
const MAX_ARRAY_ITEMS = 10_000;
const MAX_PARTS = 1_000;

const message = (extra: Record<string, unknown> = {}) => ({
  messageId: 'm1',
  role: 'ROLE_USER',
  parts: [{ text: 'x' }],
  ...extra,
});

/** The worst params the fuzzing found, each about 1 MiB. */
const SHAPES: Record<string, () => unknown> = {
  'many keys (80,000 metadata keys)': () => ({
    message: message(),
    metadata: Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`k${i}`, i])),
  }),
  'many unknown fields (80,000)': () => ({
    message: message(Object.fromEntries(Array.from({ length: 80_000 }, (_, i) => [`u${i}`, 0]))),
  }),
  'long data arrays (50 parts of 10,000 items)': () => ({
    message: message({ parts: Array.from({ length: 50 }, () => ({ data: Array(MAX_ARRAY_ITEMS).fill(1) })) }),
  }),
  'many text parts (1,000 of 900 characters)': () => ({
    message: message({ parts: Array.from({ length: MAX_PARTS }, () => ({ text: 'y'.repeat(900) })) }),
  }),
  '300,000 empty parts (refused)': () => ({
    message: message({ parts: Array.from({ length: 300_000 }, () => ({})) }),
  }),
};

const parseMs = (params: unknown): number => {
  const started = performance.now();
  try {
    parseRequest(v1Codec, 'SendMessage', params);
  } catch {
    // a refusal is an answer too: its time is what is measured
  }
  return performance.now() - started;
};

export function benchHostile(runs = 9): HostileBenchResult {
  const shapes = Object.entries(SHAPES).map(([name, make]) => ({ name, params: make(), ms: [] as number[] }));
  // one unmeasured round: the parser's code compiled
  for (const s of shapes) parseMs(s.params);
  for (let i = 0; i < runs; i++) for (const s of shapes) s.ms.push(parseMs(s.params));
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    runs,
    shapes: shapes.map((s) => {
      const sorted = [...s.ms].sort((a, b) => a - b);
      return {
        name: s.name,
        bytes: Buffer.byteLength(JSON.stringify(s.params)),
        p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        maxMs: round(sorted.at(-1) ?? 0),
      };
    }),
  };
}

export function printHostile(r: HostileBenchResult) {
  console.table(r.shapes);
}
