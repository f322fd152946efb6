/**
 * What every `synapse` command shares: the global options (a2a-cli SPEC §5.2), printing a payload in the
 * format asked for, and how a command's handler is run. Each command group lives in `cli/commands/` and
 * is registered in `cli/main.ts`.
 */
import { Task } from '@a2a-js/sdk';
import type { Argv } from 'yargs';
import type { AgentOptions } from './agent.ts';
import {
  isInterrupted,
  isTerminal,
  type OutputFormat,
  PROGRAM,
  stateName,
  taskText,
  useVerbose,
} from './output.ts';
import { KNOWN_TRANSPORTS } from './wire.ts';

export interface Common extends AgentOptions {
  output: OutputFormat;
  /** The full view of what was exchanged (every part's type, history, metadata), not the concise one. */
  verbose?: boolean;
}

/** The format of this run, as the command's parsed options say once a handler runs. */
let formatInUse: OutputFormat = 'text';
export const currentFormat = (): OutputFormat => formatInUse;
export const useFormat = (format: OutputFormat) => {
  formatInUse = format;
};

/** An exit code a command asks for without an error (a report that found failures). */
let exitAsked = 0;
export const exitWith = (code: number) => {
  exitAsked = code;
};
export const exitCodeAsked = () => exitAsked;

/** A command's handler, given its arguments as yargs parsed them (camel-cased, defaults applied). */
export const run =
  <A>(fn: (args: A & Common) => Promise<void>) =>
  async (parsed: unknown) => {
    const args = parsed as A & Common;
    useFormat(args.output);
    useVerbose(args.verbose === true);
    await fn(args);
  };

/** The payload on stdout: one JSON document, or the text. */
export const print = (format: OutputFormat, json: unknown, text: string) =>
  process.stdout.write(format === 'json' ? `${JSON.stringify(json)}\n` : text);

/** The resume command for an interrupted task: the same agent, the task's ids. */
export const resumeCommand = (agentCard: string | undefined, task: Task) =>
  `${PROGRAM} send -a ${agentCard ?? '<agent>'} --task-id ${task.id} --context-id ${task.contextId} --text '…'`;

/** A task that ended other than completed, or waits, is named on stderr; the exit stays 0 (SPEC §9.6). */
export const warnOutcome = (task: Task) => {
  const state = task.status?.state;
  if (state === undefined) return;
  const name = stateName(state);
  if ((isTerminal(state) && name !== 'COMPLETED') || isInterrupted(state))
    process.stderr.write(`note: the task is ${name}\n`);
};

/** A task printed, and its outcome named when it is not a plain completion. */
export const taskOut = (format: OutputFormat, task: Task, agentCard?: string) => {
  print(format, Task.toJSON(task), taskText(task, resumeCommand(agentCard, task)));
  warnOutcome(task);
};

export const waitOptions = {
  'poll-interval': { type: 'number', default: 2, describe: 'seconds between polls while waiting' },
  timeout: { type: 'number', describe: 'give up waiting after this many seconds (exit 5)' },
} as const;

/** The options every command takes. */
export const commonOptions = (y: Argv) =>
  y
    .option('agent-card', {
      alias: 'a',
      type: 'string',
      describe: 'the agent: a host, a URL, or a card file',
    })
    .option('output', {
      alias: 'o',
      choices: ['text', 'json'] as const,
      default: 'text' as const,
      describe: 'text (for people and grep) or json (the protocol’s own types)',
    })
    .option('transport', {
      type: 'array',
      string: true,
      choices: KNOWN_TRANSPORTS,
      describe: 'preferred bindings, in order (default: the card’s order; GRPC is skipped)',
    })
    .option('a2a-version', {
      type: 'string',
      describe: 'the A2A version to speak (default: the highest both sides speak, never below 1.0)',
    })
    .option('svc-param', {
      type: 'string',
      describe: 'a service parameter key:value, sent as a header (repeatable)',
    })
    .option('insecure', {
      type: 'boolean',
      default: false,
      describe: 'do not verify TLS certificates (development only; warns)',
    })
    .option('verbose', {
      type: 'boolean',
      default: false,
      describe: 'the full view: every part’s type, the history, metadata (default: concise)',
    })
    .option('bearer', { type: 'string', describe: 'a bearer token (or A2ACLI_BEARER)' })
    .option('api-key', { type: 'string', describe: 'an API key (or A2ACLI_API_KEY)' })
    .option('debug', {
      type: 'boolean',
      default: false,
      describe: 'every request and answer on stderr, credentials redacted',
    });

/** A command group: registers its commands on the parser. */
export type CommandGroup = (y: Argv) => Argv;
