/**
 * The parts of a message `send` builds (a2a-cli SPEC §8.2): `--text`, `--file` and `--data`, each
 * repeatable, in the order given on the command line; `--media-type` sets the media type of the part flag
 * just before it (inferred from the file's extension only when none is given). A local file is sent inline
 * (its bytes, base64 on the wire); a URL is sent as a URL, for the agent to fetch — the CLI does not fetch it.
 * `--data` is JSON: inline, a JSON file, or `-` for standard input.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Part } from '@a2a-js/sdk';
import { CliError } from './errors.ts';
import { PROGRAM } from './output.ts';

export type PartFlag = 'text' | 'file' | 'data';

/** The part flags as yargs parsed them: each flag's values in its own order (one value: a string). */
export interface PartArgs {
  text?: string | string[];
  file?: string | string[];
  data?: string | string[];
  mediaType?: string | string[];
}

interface PartSpec {
  flag: PartFlag;
  value: string;
  mediaType?: string;
}

/** A part flag as written; yargs also takes `--mediaType` for `--media-type`. */
const PART_FLAG = /^--(text|file|data|media-type|mediaType)(=.*)?$/;

/**
 * The part flags in command-line order, with each `--media-type` bound to the part flag before it. yargs
 * gives each option's values in order but not how options interleave, so the order is read from `argv`
 * (which yargs has already accepted); the values are yargs's. Values it has beyond `argv` (set in the
 * environment) come last.
 */
export function partSpecsOf(argv: readonly string[], args: PartArgs): PartSpec[] {
  const values = {
    text: [args.text ?? []].flat(),
    file: [args.file ?? []].flat(),
    data: [args.data ?? []].flat(),
    'media-type': [args.mediaType ?? []].flat(),
  };
  const taken = { text: 0, file: 0, data: 0, 'media-type': 0 };
  const specs: PartSpec[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    const match = PART_FLAG.exec(arg);
    if (!match) continue;
    const flag = (match[1] === 'mediaType' ? 'media-type' : match[1]) as keyof typeof values;
    if (match[2] === undefined) i++; // the value is the next word
    const value = values[flag][taken[flag]++];
    if (value === undefined) continue;
    if (flag !== 'media-type') {
      specs.push({ flag, value });
      continue;
    }
    const last = specs.at(-1);
    if (!last)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `--media-type ${value} follows no part flag: it sets the type of the --text, --file or --data before it`,
        `${PROGRAM} send --file report.bin --media-type application/pdf`,
      );
    if (last.mediaType !== undefined)
      throw new CliError(
        'A2ACLI_ERR_USAGE',
        `--${last.flag} ${last.value} has two media types (${last.mediaType}, ${value})`,
      );
    if (!/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/.test(value))
      throw new CliError('A2ACLI_ERR_USAGE', `--media-type ${value} is not a media type like text/plain`);
    last.mediaType = value;
  }
  for (const flag of ['text', 'file', 'data'] as const)
    for (const value of values[flag].slice(taken[flag])) specs.push({ flag, value });
  if (values['media-type'].length > taken['media-type'])
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      '--media-type binds to the part flag before it on the command line',
    );
  return specs;
}

const REMOTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

const part = (content: Part['content'], mediaType: string, filename = '', metadata?: Part['metadata']) => ({
  content,
  metadata,
  filename,
  mediaType,
});

const filePart = (spec: PartSpec, lookup: Lookup): Part => {
  const given = spec.value;
  if (REMOTE_URL.test(given) && !given.toLowerCase().startsWith('file://')) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new CliError('A2ACLI_ERR_USAGE', `--file ${given} is not a valid URL`);
    }
    const name = decodeURIComponent(basename(url.pathname));
    return part({ $case: 'url', value: url.toString() }, spec.mediaType ?? (lookup(name) || ''), name);
  }
  const path = given.toLowerCase().startsWith('file://') ? fileURLToPath(given) : given;
  if (!existsSync(path) || !statSync(path).isFile())
    throw new CliError('A2ACLI_ERR_USAGE', `--file ${given}: no such file`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new CliError('A2ACLI_ERR_USAGE', `--file ${given}: ${(e as Error).message}`);
  }
  const name = basename(path);
  return part(
    { $case: 'raw', value: bytes },
    spec.mediaType ?? (lookup(name) || 'application/octet-stream'),
    name,
  );
};

const dataPart = (spec: PartSpec, stdin: () => string): Part => {
  const given = spec.value;
  const fromFile = given !== '-' && existsSync(given) && statSync(given).isFile();
  const text = given === '-' ? stdin() : fromFile ? readFileSync(given, 'utf8') : given;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `--data ${given === '-' ? '- (standard input)' : fromFile ? given : 'value'} is not JSON`,
      `${PROGRAM} send --data '{"k":"v"}' (or a JSON file, or - to read standard input)`,
    );
  }
  return part({ $case: 'data', value }, spec.mediaType ?? 'application/json');
};

type Lookup = (path: string) => string | false;

/** mime-types, loaded only for a file part: its database is most of its size, and few commands need it. */
export async function mimeTypes(): Promise<typeof import('mime-types')> {
  // a CommonJS package: its exports are the default export, whether bundled or run from source
  return (await import('mime-types')).default;
}

/** The message's parts, in the order given. Standard input is read once, for the one `--data -`. */
export async function partsOf(argv: readonly string[], args: PartArgs): Promise<Part[]> {
  const specs = partSpecsOf(argv, args);
  const lookup: Lookup = specs.some((s) => s.flag === 'file' && s.mediaType === undefined)
    ? (await mimeTypes()).lookup
    : () => false;
  let stdinRead = false;
  const stdin = () => {
    if (stdinRead)
      throw new CliError('A2ACLI_ERR_USAGE', '--data - is given twice: standard input is read once');
    stdinRead = true;
    return readFileSync(0, 'utf8');
  };
  return specs.map((spec) =>
    spec.flag === 'text'
      ? part({ $case: 'text', value: spec.value }, spec.mediaType ?? 'text/plain')
      : spec.flag === 'file'
        ? filePart(spec, lookup)
        : dataPart(spec, stdin),
  );
}

/** `--metadata`: a JSON object, for the message's metadata (the payload, SPEC §5.2; not a header). */
export function metadataOf(given: string | undefined): Record<string, unknown> | undefined {
  if (given === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(given);
  } catch {
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      '--metadata is not JSON',
      `${PROGRAM} send --metadata '{"k":"v"}' …`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError('A2ACLI_ERR_USAGE', '--metadata must be a JSON object');
  return value as Record<string, unknown>;
}
