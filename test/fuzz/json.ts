/**
 * The fuzzer's request bodies: JSON-like trees with markers for what plain
 * values cannot say (literal JSON text, raw bytes, duplicate keys, nesting
 * thousands of levels deep, strings and arrays of a million elements, tasks
 * of the running hub), serialized to bytes when the request is sent. Markers
 * keep the generated values small, so fast-check can shrink a 5,000-level
 * nesting or a 900 KB string to the smallest one that still fails.
 */

/** Literal JSON text, inserted as is (NaN, 1e400, -0, "\u12", comments, …). */
export class Raw {
  constructor(readonly text: string) {}
}

/** Bytes inserted as is (overlong UTF-8, lone continuation bytes, …). */
export class Bytes {
  constructor(readonly hex: string) {}
}

/** An object written with its entries in order, duplicate keys included. */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, Json])[]) {}
}

/** `depth` levels of `[` or `{"k":` around `leaf`. */
export class Deep {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
    readonly leaf: Json,
    readonly key = 'a',
  ) {}
}

/** A string of `unit` repeated `count` times (serialized once, never held as a fast-check value). */
export class Big {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  get value(): string {
    return this.unit.repeat(this.count);
  }
}

/** An array holding `item` `count` times. */
export class Many {
  constructor(
    readonly item: Json,
    readonly count: number,
  ) {}
}

/** A task the hub created earlier in the run (resolved when the request is sent). */
export class TaskRef {
  constructor(
    readonly slot: number,
    readonly field: 'id' | 'contextId',
    /** Only tasks waiting for input (a message may continue them); any task otherwise. */
    readonly waiting = false,
  ) {}
}

/** A value unique to each request (a messageId that no earlier request used). */
export class Fresh {
  constructor(readonly prefix = 'fuzz') {}
}

export type Json =
  | null
  | boolean
  | number
  | string
  | Json[]
  | { [key: string]: Json }
  | Raw
  | Bytes
  | Entries
  | Deep
  | Big
  | Many
  | TaskRef
  | Fresh;

/** An own, enumerable property even for "__proto__" (an assignment would set the prototype). */
export const put = <T extends Record<string, unknown>>(o: T, key: string, value: unknown): T => {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
};

/** A plain object from entries, safe for any key. */
export const obj = (entries: Iterable<readonly [string, Json]>): { [key: string]: Json } => {
  const o: { [key: string]: Json } = {};
  for (const [k, v] of entries) put(o, k, v);
  return o;
};

export const isMarker = (v: unknown): boolean =>
  v instanceof Raw ||
  v instanceof Bytes ||
  v instanceof Entries ||
  v instanceof Deep ||
  v instanceof Big ||
  v instanceof Many ||
  v instanceof TaskRef ||
  v instanceof Fresh;

export interface Resolver {
  task(ref: TaskRef): string;
  fresh(prefix: string): string;
}

const COMMA = Buffer.from(',');

/** Serializes a tree to the bytes of a request body. */
export function serialize(value: Json, resolver: Resolver): Buffer {
  const out: (string | Buffer)[] = [];
  const write = (v: Json): void => {
    if (v === null || typeof v === 'boolean') out.push(String(v));
    else if (typeof v === 'number') out.push(Object.is(v, -0) ? '-0' : (JSON.stringify(v) ?? 'null'));
    else if (typeof v === 'string') out.push(JSON.stringify(v));
    else if (v instanceof Raw) out.push(v.text);
    else if (v instanceof Bytes) out.push(Buffer.from(v.hex, 'hex'));
    else if (v instanceof Big) out.push(JSON.stringify(v.value));
    else if (v instanceof TaskRef) out.push(JSON.stringify(resolver.task(v)));
    else if (v instanceof Fresh) out.push(JSON.stringify(resolver.fresh(v.prefix)));
    else if (v instanceof Deep) {
      const open = v.shape === 'array' ? '[' : `{${JSON.stringify(v.key)}:`;
      out.push(open.repeat(v.depth));
      write(v.leaf);
      out.push((v.shape === 'array' ? ']' : '}').repeat(v.depth));
    } else if (v instanceof Many) {
      const one = serialize(v.item, resolver);
      const parts: Buffer[] = [Buffer.from('[')];
      for (let i = 0; i < v.count; i++) parts.push(i === 0 ? one : Buffer.concat([COMMA, one]));
      parts.push(Buffer.from(']'));
      out.push(Buffer.concat(parts));
    } else if (v instanceof Entries) {
      out.push('{');
      v.entries.forEach(([k, item], i) => {
        if (i > 0) out.push(',');
        out.push(`${JSON.stringify(k)}:`);
        write(item);
      });
      out.push('}');
    } else if (Array.isArray(v)) {
      out.push('[');
      v.forEach((item, i) => {
        if (i > 0) out.push(',');
        write(item);
      });
      out.push(']');
    } else {
      out.push('{');
      Object.keys(v).forEach((k, i) => {
        if (i > 0) out.push(',');
        out.push(`${JSON.stringify(k)}:`);
        write(v[k] as Json);
      });
      out.push('}');
    }
  };
  write(value);
  return Buffer.concat(out.map((c) => (typeof c === 'string' ? Buffer.from(c, 'utf8') : c)));
}

/** A short, readable description of a tree (markers by name), for reports. */
export function describe(value: Json, budget = 600): string {
  const text = (() => {
    const show = (v: Json): string => {
      if (v instanceof Raw) return `raw(${JSON.stringify(clip(v.text, 80))}${lengthNote(v.text.length)})`;
      if (v instanceof Bytes) return `bytes(0x${clip(v.hex, 64)})`;
      if (v instanceof Big) return `${JSON.stringify(clip(v.unit, 40))} × ${v.count}`;
      if (v instanceof Many) return `[${show(v.item)} × ${v.count}]`;
      if (v instanceof Deep)
        return `${v.shape === 'array' ? '[' : `{"${v.key}":`}…${show(v.leaf)}…${v.shape === 'array' ? ']' : '}'} depth ${v.depth}`;
      if (v instanceof TaskRef) return `<${v.waiting ? 'waiting ' : ''}task ${v.field} #${v.slot}>`;
      if (v instanceof Fresh) return `<fresh ${v.prefix}>`;
      if (v instanceof Entries)
        return `{${v.entries.map(([k, x]) => `${JSON.stringify(clip(k, 40))}:${show(x)}`).join(',')}}`;
      if (Array.isArray(v)) return `[${v.map(show).join(',')}]`;
      if (v !== null && typeof v === 'object')
        return `{${Object.keys(v)
          .map((k) => `${JSON.stringify(clip(k, 40))}:${show(v[k] as Json)}`)
          .join(',')}}`;
      if (typeof v === 'string') return JSON.stringify(clip(v, 120)) + lengthNote(v.length, 120);
      if (typeof v === 'number' && Object.is(v, -0)) return '-0';
      return JSON.stringify(v) ?? String(v);
    };
    return show(value);
  })();
  return clip(text, budget);
}

const lengthNote = (length: number, limit = 80) => (length > limit ? ` (${length} chars)` : '');

export const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n)}…`);

/** A whole body derived from a serialized request: cut short, with bytes after it, or wrapped. */
export class Mangled {
  constructor(
    readonly base: Json,
    readonly op: 'truncate' | 'append' | 'prepend' | 'wrap' | 'multipart',
    /** truncate: the fraction of the bytes kept; append/prepend/wrap: the bytes (hex) added. */
    readonly arg: number | string,
  ) {}

  apply(bytes: Buffer): Buffer {
    switch (this.op) {
      case 'truncate': {
        const keep = Math.min(bytes.length - 1, Math.max(0, Math.floor(bytes.length * Number(this.arg))));
        return bytes.subarray(0, keep);
      }
      case 'append':
        return Buffer.concat([bytes, Buffer.from(String(this.arg), 'hex')]);
      case 'prepend':
        return Buffer.concat([Buffer.from(String(this.arg), 'hex'), bytes]);
      case 'wrap':
        return Buffer.concat([
          Buffer.from(String(this.arg), 'hex'),
          bytes,
          Buffer.from(String(this.arg), 'hex'),
        ]);
      case 'multipart':
        return Buffer.concat([
          Buffer.from(
            `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="request"\r\n` +
              'Content-Type: application/json\r\n\r\n',
          ),
          bytes,
          Buffer.from(`\r\n--${MULTIPART_BOUNDARY}--\r\n`),
        ]);
    }
  }

  describe(): string {
    const arg = typeof this.arg === 'string' ? Buffer.from(this.arg, 'hex').toString('utf8') : this.arg;
    return `${this.op}(${JSON.stringify(arg)}) of ${describe(this.base)}`;
  }
}

export const MULTIPART_BOUNDARY = 'fuzzboundary';

export type Body = Json | Mangled;

export const serializeBody = (body: Body, resolver: Resolver): Buffer =>
  body instanceof Mangled ? body.apply(serialize(body.base, resolver)) : serialize(body, resolver);

export const describeBody = (body: Body, budget = 600): string =>
  clip(body instanceof Mangled ? body.describe() : describe(body, budget), budget);
