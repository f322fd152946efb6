/**
 * How a setting is declared and read (docs/configuration.md). Each environment variable the hub reads
 * is one `Setting`: its name, format, default, a line of documentation and the functions that read it,
 * in the file of its concern (deployment.ts, delivery.ts, …), so a bundle imports the declarations of
 * what it reads and nothing else. A value is parsed when first read and again only when the variable
 * changes (a local hub started again in the same process); a bad value throws an error naming the
 * variable, so a container with a bad setting fails its first invocation, saying which.
 *
 * The formats are small checks written here rather than zod schemas: the authorizer, JWKS and
 * key-rotation bundles load no zod at all, and the cold start of each bundle is measured
 * (docs/benchmarks.md). JSON documents are checked by the parsers of their concern.
 */
import { type Env, processEnv } from './environment.ts';

export type { Env } from './environment.ts';

/** The Lambda functions (functions/<name>.ts) and the local runtime (`npm start`, local/). */
export type Reader =
  | 'agent-card'
  | 'authorizer'
  | 'deliver'
  | 'executor'
  | 'heartbeat'
  | 'inspector'
  | 'jsonrpc'
  | 'jwks'
  | 'registry'
  | 'registry-probe'
  | 'relay'
  | 'rest'
  | 'signing-key-rotation'
  | 'sweeper'
  | 'synapse'
  | 'npm start';

/** Every Lambda function. */
export const ALL_FUNCTIONS: readonly Reader[] = [
  'agent-card',
  'authorizer',
  'deliver',
  'executor',
  'heartbeat',
  'inspector',
  'jsonrpc',
  'jwks',
  'registry',
  'registry-probe',
  'relay',
  'rest',
  'signing-key-rotation',
  'sweeper',
  'synapse',
];

export interface Format<T> {
  /** What a valid value is, as errors and docs/configuration.md say it ("a whole number from 1 to 100"). */
  readonly text: string;
  /**
   * The value of a trimmed, non-blank text, or undefined when it is not one (the caller then names the
   * variable and the format); may throw an error of its own that names `name`.
   */
  parse(text: string, name: string): T | undefined;
}

/**
 * One environment variable. Declared as a plain object (`{ … } satisfies Setting<number>`), its format
 * built only when a value is parsed: a declaration no code reads is then dropped from a bundle
 * (esbuild keeps any call, and with it the declaration around it).
 */
export interface Setting<T> {
  readonly name: string;
  /** One line: what it does. */
  readonly doc: string;
  readonly format: () => Format<T>;
  /** The value while unset; without one, undefined. */
  readonly default?: T;
  /** For docs/configuration.md when the default is not a value of the format (computed, or none). */
  readonly defaultText?: string;
  readonly readBy: readonly Reader[];
  /** The value is never shown in an error (keys, peers' secrets). */
  readonly secret?: boolean;
  /** A blank value is a value (an empty string); otherwise blank counts as unset. */
  readonly keepBlank?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: any setting, whatever its value's type
type AnySetting = Setting<any>;

/** The value of a setting: its format's, or undefined while unset when it has no default. */
export type ValueOf<S extends AnySetting> =
  S extends Setting<infer T> ? (S extends { readonly default: unknown } ? T : T | undefined) : never;

/** A setting that cannot be read, naming each variable and what it must be. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'ConfigError';
  }
}

/** The value of `raw` (undefined: unset), or the ConfigError naming the variable and what it must be. */
const parse = (s: AnySetting, raw: string | undefined): unknown => {
  const text = raw?.trim();
  if (text === undefined || (text === '' && !s.keepBlank)) return s.default;
  const format = s.format();
  let value: unknown;
  try {
    value = format.parse(text, s.name);
  } catch (e) {
    throw new ConfigError([e instanceof Error ? e.message : String(e)]);
  }
  if (value === undefined) {
    const shown = s.secret ? '(a value not shown: it holds secrets)' : JSON.stringify(text);
    throw new ConfigError([`${s.name} must be ${format.text}, got ${shown}`]);
  }
  return value;
};

const parsed = new WeakMap<AnySetting, { raw: string | undefined; value: unknown }>();

/** The setting's value in `env` (the process environment by default), parsed once per distinct value. */
export const readSetting = <S extends AnySetting>(s: S, env: Env = processEnv()): ValueOf<S> => {
  const raw = env[s.name];
  const last = parsed.get(s);
  if (last && last.raw === raw) return last.value as ValueOf<S>;
  const value = parse(s, raw);
  parsed.set(s, { raw, value });
  return value as ValueOf<S>;
};

/** The setting's value, or the error every composition root gives for a variable it cannot do without. */
export const requireSetting = <S extends AnySetting>(s: S, env?: Env): NonNullable<ValueOf<S>> => {
  const value = readSetting(s, env);
  if (value === undefined || value === '') throw new Error(`Environment variable ${s.name} is not set`);
  return value as NonNullable<ValueOf<S>>;
};

type Settings = Readonly<Record<string, AnySetting>>;
export type ValuesOf<S extends Settings> = { readonly [K in keyof S]: ValueOf<S[K]> };

/**
 * A group of settings read together, every one checked (one error lists every bad value), then
 * `finish`ed (a check across them, or the shape a use case takes). The result is the same object while
 * none of the variables changes, so a composition root can tell whether what it built is still current.
 * A call: declare it `/* @__PURE__ *\/` so a bundle that reads none of it drops it.
 */
export const section = <S extends Settings, R = ValuesOf<S>>(
  settings: S,
  finish: (values: ValuesOf<S>) => R = (values) => values as unknown as R,
): ((env?: Env) => R) => {
  const entries = Object.entries(settings);
  let last: { raws: (string | undefined)[]; result: R } | undefined;
  return (env = processEnv()) => {
    const raws = entries.map(([, s]) => env[s.name]);
    if (last?.raws.every((raw, i) => raw === raws[i])) return last.result;
    const values: Record<string, unknown> = {};
    const problems: string[] = [];
    entries.forEach(([key, s], i) => {
      try {
        values[key] = parse(s, raws[i]);
      } catch (e) {
        problems.push(...(e as ConfigError).problems);
      }
    });
    if (problems.length) throw new ConfigError(problems);
    const result = finish(Object.freeze(values) as ValuesOf<S>);
    last = { raws, result };
    return result;
  };
};

// ---- formats ----

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

const rangeText = (min: number, max: number | undefined, unit: string | undefined, above = false): string =>
  `${unit ? ` of ${unit}` : ''} ${max !== undefined ? `from ${min} to ${max}` : above ? `> ${min}` : `≥ ${min}`}`;

/** Any text. */
export const text = (what = 'a text'): Format<string> => ({ text: what, parse: (t) => t });

/** An absolute http(s) URL. */
export const url = (what = 'an http(s) URL'): Format<string> => ({
  text: what,
  parse: (t) => (/^https?:\/\/[^/]/i.test(t) && URL.canParse(t) ? t : undefined),
});

/** A whole number (digits only) in [min, max]. */
export const wholeNumber = (min: number, max?: number, unit?: string): Format<number> => ({
  text: `a whole number${rangeText(min, max, unit)}`,
  parse: (t) => {
    const n = Number(t);
    return /^\d+$/.test(t) && n >= min && (max === undefined || n <= max) ? n : undefined;
  },
});

/** A decimal number in [min, max], or above `min` (`{ above: true }`). */
export const decimal = (
  min: number,
  options: { max?: number; unit?: string; above?: boolean } = {},
): Format<number> => ({
  text: `a number${rangeText(min, options.max, options.unit, options.above)}`,
  parse: (t) => {
    const n = Number(t);
    const inRange = (options.above ? n > min : n >= min) && (options.max === undefined || n <= options.max);
    return DECIMAL.test(t) && Number.isFinite(n) && inRange ? n : undefined;
  },
});

/** A TCP port: a whole number from 0 to 65535. */
export const port = (): Format<number> => ({ ...wholeNumber(0, 65535), text: 'a port number' });

/** One of `values` (as written), mapped to what each stands for. */
export const oneOf = <T>(values: Readonly<Record<string, T>>): Format<T> => {
  const names = Object.keys(values);
  return {
    text: names.length === 2 ? `${names[0]} or ${names[1]}` : `one of ${names.join(', ')}`,
    parse: (t) => (Object.hasOwn(values, t) ? values[t] : undefined),
  };
};

/** A switch that is never wrong: one of `on` (any case) turns it on, anything else is off. */
export const switchOn = (on: readonly string[], what: string): Format<boolean> => ({
  text: what,
  parse: (t) => on.includes(t.toLowerCase()),
});

/** A text checked as a JSON object (its contents are checked by the parser of its concern). */
export const jsonObject = (what: string): Format<string> => ({
  text: what,
  parse: (t) => {
    try {
      const value: unknown = JSON.parse(t);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? t : undefined;
    } catch {
      return undefined;
    }
  },
});
