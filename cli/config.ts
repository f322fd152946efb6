/**
 * Where each option's value comes from (a2a-cli SPEC §4.5, §5.2, §6.4): an explicit flag, then the
 * environment (`A2ACLI_<OPTION>`), then a local `.env` (found walking up from the working directory, or
 * the file `--config` / `A2ACLI_CONFIG` names in its place), then the agent's own file
 * (`<config dir>/agents/<host>.env`, chosen by the agent card reference), then the global file
 * (`<config dir>/.env`, the config dir being `$XDG_CONFIG_HOME/a2a-cli`, default `~/.config/a2a-cli`),
 * then the built-in default. Files are dotenv, read with `dotenv`'s parser; only `A2ACLI_*` names count.
 * `--stream`, `--help`, `--version` and `--config` are never taken from a file or the environment
 * (SPEC §5.2, §9.3). A file that holds a credential must be readable by its owner alone (mode 0600,
 * SPEC §6.4). Nothing here is ever written: the CLI keeps no session state.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import type { Argv } from 'yargs';
import { Parser } from 'yargs/helpers';
import { CliError } from './errors.ts';
import { PROGRAM } from './output.ts';

export type Source = 'flag' | 'env' | 'local' | 'agent' | 'global' | 'default';
export type FileSource = 'local' | 'agent' | 'global';

export const ENV_PREFIX = 'A2ACLI_';
/** Options only ever given on the command line. */
export const EXPLICIT_ONLY = new Set(['stream', 'help', 'version', 'config']);
/** Options whose values are or may carry credentials (SPEC §10.1): redacted when shown, read from 0600 files only. */
export const SECRET_OPTIONS = new Set(['bearer', 'api-key', 'client-secret', 'svc-param']);

/** `--agent-card` → `A2ACLI_AGENT_CARD`. */
export const envNameOf = (option: string) => `${ENV_PREFIX}${option.toUpperCase().replace(/-/g, '_')}`;
/** `A2ACLI_AGENT_CARD` → `agent-card`. */
export const optionOf = (envName: string) =>
  envName.slice(ENV_PREFIX.length).toLowerCase().replace(/_/g, '-');
const camel = (option: string) => option.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The directory of the CLI's persisted configuration and logins. */
export const configDir = (env: NodeJS.ProcessEnv = process.env) =>
  join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'a2a-cli');

/**
 * The name an agent's scoped files carry: the host (and port) of its card reference, `:` written `_`
 * (`hub.example.com`, `127.0.0.1_8080`); none for a card file.
 */
export function agentKeyOf(ref: string | undefined): string | undefined {
  if (!ref || ref.startsWith('file://')) return undefined;
  let url: URL;
  try {
    if (/^https?:\/\//i.test(ref)) url = new URL(ref);
    else if (!existsSync(ref) && /^[a-z0-9.-]+(:\d+)?(\/.*)?$/i.test(ref)) url = new URL(`https://${ref}`);
    else return undefined;
  } catch {
    return undefined;
  }
  return url.host.toLowerCase().replace(/:/g, '_');
}

export interface ConfigFile {
  source: FileSource;
  path: string;
  found: boolean;
  /** Its `A2ACLI_*` entries, by option name. */
  values: Record<string, string>;
}

export interface Resolved {
  value: string;
  source: Exclude<Source, 'flag' | 'default'>;
  /** The file it was read from. */
  file?: string;
}

export interface ConfigLayers {
  dir: string;
  /** The environment's `A2ACLI_*` entries, by option name. */
  env: Record<string, string>;
  /** Highest first: local, agent, global. */
  files: ConfigFile[];
  /** The value an option takes from the environment or a file, and where from. */
  lookup(option: string): Resolved | undefined;
  /** Every option named by the environment or a file. */
  named(): string[];
}

const entriesOf = (record: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(record)
      .filter((e): e is [string, string] => e[0].startsWith(ENV_PREFIX) && e[1] !== undefined)
      .map(([k, v]) => [optionOf(k), v])
      .filter(([option]) => !EXPLICIT_ONLY.has(option!)),
  );

function readConfigFile(source: FileSource, path: string, required = false): ConfigFile {
  if (!existsSync(path)) {
    if (required)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `no config file at ${path}`,
        'give --config an existing .env file',
      );
    return { source, path, found: false, values: {} };
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CliError('A2ACLI_ERR_USAGE', `cannot read the config file ${path}: ${(e as Error).message}`);
  }
  const values = entriesOf(parseDotenv(text));
  const secrets = Object.keys(values).filter((o) => SECRET_OPTIONS.has(o));
  // a credential is read only from a file no one else can read (SPEC §6.4); ssh treats its keys the same way
  const mode = statSync(path).mode & 0o777;
  if (secrets.length > 0 && process.platform !== 'win32' && (mode & 0o077) !== 0)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `${path} holds a credential (${secrets.map(envNameOf).join(', ')}) but is readable by others (mode ${mode.toString(8).padStart(4, '0')})`,
      `chmod 600 ${path}`,
    );
  return { source, path, found: true, values };
}

/** The first `.env` from `cwd` up to the filesystem root, as git finds its repository. */
function localEnvFile(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, '.env');
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    if (dirname(dir) === dir) return join(resolve(cwd), '.env');
  }
}

/** The value of a string flag on the command line, before any parsing (the layers depend on it). */
export function flagValue(argv: readonly string[], long: string, short?: string): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === `--${long}` || (short && arg === `-${short}`)) found = argv[++i];
    else if (arg.startsWith(`--${long}=`)) found = arg.slice(long.length + 3);
    else if (short && arg.startsWith(`-${short}=`)) found = arg.slice(3);
    else if (short && arg.startsWith(`-${short}`) && !arg.startsWith('--') && arg.length > 2)
      found = arg.slice(2);
  }
  return found;
}

/** The layers of this run: the environment and the files, read once. */
export function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ConfigLayers {
  const dir = configDir(env);
  const envValues = entriesOf(env);
  const explicit = flagValue(argv, 'config') ?? env.A2ACLI_CONFIG;
  const local = explicit
    ? readConfigFile('local', resolve(cwd, explicit), true)
    : readConfigFile('local', localEnvFile(cwd));
  const global = readConfigFile('global', join(dir, '.env'));
  // the agent is known before its own file is read: from the flag, the environment, the local or global file
  const agentRef =
    flagValue(argv, 'agent-card', 'a') ??
    envValues['agent-card'] ??
    local.values['agent-card'] ??
    global.values['agent-card'];
  const key = agentKeyOf(agentRef);
  const files = [local, ...(key ? [readConfigFile('agent', join(dir, 'agents', `${key}.env`))] : []), global];
  const lookup = (option: string): Resolved | undefined => {
    if (EXPLICIT_ONLY.has(option)) return undefined;
    if (envValues[option] !== undefined) return { value: envValues[option], source: 'env' };
    for (const file of files)
      if (file.values[option] !== undefined)
        return { value: file.values[option], source: file.source, file: file.path };
    return undefined;
  };
  const named = () => [
    ...new Set([...Object.keys(envValues), ...files.flatMap((f) => Object.keys(f.values))]),
  ];
  return { dir, env: envValues, files, lookup, named };
}

/** What yargs knows of the options of the command being run. */
interface ParserOptions {
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  boolean: string[];
  number: string[];
  array: string[];
  string: string[];
  default: Record<string, unknown>;
}

export interface Setting {
  option: string;
  env: string;
  value: unknown;
  source: Source;
  file?: string;
  secret: boolean;
}

/** The settings of this run, as the middleware resolved them (read by `config show`). */
let settingsInUse: Setting[] = [];
export const currentSettings = (): readonly Setting[] => settingsInUse;
/** The layers of this run, once loaded. */
let layersInUse: ConfigLayers | undefined;
export const currentLayers = (): ConfigLayers | undefined => layersInUse;

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  '1': true,
  yes: true,
  on: true,
  false: false,
  '0': false,
  no: false,
  off: false,
};

/** A configured string as the option's type wants it. */
function coerce(option: string, r: Resolved, o: ParserOptions): unknown {
  const where = r.file ? `${envNameOf(option)} in ${r.file}` : envNameOf(option);
  if (o.boolean.includes(option)) {
    const b = BOOLEAN_WORDS[r.value.trim().toLowerCase()];
    if (b === undefined)
      throw new CliError('A2ACLI_ERR_USAGE', `${where} is ${JSON.stringify(r.value)}, not true or false`);
    return b;
  }
  if (o.number.includes(option)) {
    const n = Number(r.value);
    if (r.value.trim() === '' || !Number.isFinite(n))
      throw new CliError('A2ACLI_ERR_USAGE', `${where} is ${JSON.stringify(r.value)}, not a number`);
    return n;
  }
  if (o.array.includes(option)) return r.value.split(/[\s,]+/).filter(Boolean);
  return r.value;
}

/**
 * The yargs middleware (run before validation, so `choices` still hold) that gives each option of the
 * command its layered value, and records each one's source.
 */
export const configMiddleware =
  (layers: ConfigLayers, rawArgv: readonly string[]) => (argv: Record<string, unknown>, y: Argv) => {
    layersInUse = layers;
    const o = (y as unknown as { getOptions(): ParserOptions }).getOptions();
    const aliasOf = new Set(Object.values(o.alias).flat());
    const options = Object.keys(o.key).filter(
      (k) => !aliasOf.has(k) && !EXPLICIT_ONLY.has(k) && k !== '$0' && !k.includes('.'),
    );
    // what the command line itself says, without defaults or configuration
    const given = Parser(rawArgv as string[], {
      alias: o.alias,
      boolean: o.boolean,
      number: o.number,
      array: o.array,
      string: o.string,
      configuration: { 'unknown-options-as-args': false },
    });
    const settings: Setting[] = [];
    for (const option of options) {
      const secret = SECRET_OPTIONS.has(option);
      const base = { option, env: envNameOf(option), secret };
      if (option in given) {
        settings.push({ ...base, value: argv[option], source: 'flag' });
        continue;
      }
      const r = layers.lookup(option);
      if (r) {
        const value = coerce(option, r, o);
        for (const name of [option, camel(option), ...(o.alias[option] ?? [])]) argv[name] = value;
        settings.push({ ...base, value, source: r.source, ...(r.file ? { file: r.file } : {}) });
      } else settings.push({ ...base, value: argv[option], source: 'default' });
    }
    // what the environment or a file names for other commands is shown as it is written
    for (const option of layers.named())
      if (!options.includes(option)) {
        const r = layers.lookup(option)!;
        settings.push({
          option,
          env: envNameOf(option),
          value: r.value,
          source: r.source,
          secret: SECRET_OPTIONS.has(option),
          ...(r.file ? { file: r.file } : {}),
        });
      }
    settingsInUse = settings;
  };

/** The hint a credential error gives. */
export const loginHint = (agent: string | undefined) => `${PROGRAM} auth login -a ${agent ?? '<agent>'}`;
