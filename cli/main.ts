#!/usr/bin/env node
/**
 * `synapse`: a command-line client of A2A agents and of this hub (docs/cli.md), after the a2a-cli
 * specification v0.2 (github.com/a2aproject/a2a-cli, specification/SPEC.md). Stateless between runs: every
 * id it needs is given on the command line and every id it learns is printed. Each option may also be set
 * as `A2ACLI_<OPTION>` in the environment (`A2ACLI_AGENT_CARD`, `A2ACLI_BEARER` …); a flag wins.
 * Credentials given as flags show in `ps` and the shell's history: prefer the environment.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Message, type Part, Role, Task } from '@a2a-js/sdk';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { type AgentOptions, agentCardOf, connect, fetchCard, TRANSPORTS } from './agent.ts';
import { CliError, envelopeOf } from './errors.ts';
import {
  cardJson,
  cardText,
  isInterrupted,
  isTerminal,
  messageText,
  type OutputFormat,
  printError,
  sendResponseJson,
  stateName,
  taskText,
} from './output.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

interface Common extends AgentOptions {
  output: OutputFormat;
}

const print = (format: OutputFormat, json: unknown, text: string) =>
  process.stdout.write(format === 'json' ? `${JSON.stringify(json)}\n` : text);

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const dataPart = (json: string): Part => {
  let value: unknown;
  try {
    value = JSON.parse(json === '-' ? readFileSync(0, 'utf8') : json);
  } catch {
    throw new CliError('A2ACLI_ERR_USAGE', '--data must be JSON (or - to read it from standard input)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError('A2ACLI_ERR_USAGE', '--data must be a JSON object');
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
};

/** The resume command for an interrupted task: the same agent, the task's ids. */
const resumeCommand = (agentCard: string | undefined, task: Task) =>
  `synapse send -a ${agentCard ?? '<agent>'} --task-id ${task.id} --context-id ${task.contextId} --text '…'`;

const taskOut = (format: OutputFormat, task: Task, agentCard?: string) => {
  print(format, Task.toJSON(task), taskText(task, resumeCommand(agentCard, task)));
  warnOutcome(task);
};

/** The format asked for, read before parsing so that a usage error is printed in it too. */
const formatAsked = (argv: readonly string[]): OutputFormat => {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-o' || arg === '--output') return argv[i + 1] === 'json' ? 'json' : 'text';
    if (arg === '-o=json' || arg === '--output=json' || arg === '-ojson') return 'json';
  }
  return process.env.A2ACLI_OUTPUT === 'json' ? 'json' : 'text';
};

const common = (y: Argv) =>
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
      choices: TRANSPORTS,
      describe: 'preferred bindings, in order (default: the card’s order)',
    })
    .option('bearer', { type: 'string', describe: 'a bearer token (or A2ACLI_BEARER)' })
    .option('api-key', { type: 'string', describe: 'an API key (or A2ACLI_API_KEY)' });

async function main(argv: string[]): Promise<number> {
  // `--stream` is never taken from the environment (SPEC §9.1)
  delete process.env.A2ACLI_STREAM;
  let format = formatAsked(argv);
  let exitCode = 0;
  /** A command's handler, its arguments as yargs parsed them (camel-cased, defaults applied). */
  const run =
    <A>(fn: (args: A & Common) => Promise<void>) =>
    async (parsed: unknown) => {
      const args = parsed as A & Common;
      format = args.output;
      await fn(args);
    };
  const parser = common(
    yargs(argv)
      .scriptName('synapse')
      .env('A2ACLI')
      .version(VERSION)
      .alias('version', 'v')
      .help()
      .alias('help', 'h')
      .strict()
      .recommendCommands()
      .demandCommand(1, 'name a command: card, send or task')
      .fail((message, error) => {
        throw error ?? new CliError('A2ACLI_ERR_USAGE', message, 'synapse --help');
      }),
  )
    .command('card', 'the agent’s card', (y) =>
      y
        .command(
          'get',
          'fetch and show the agent card',
          (c) => c,
          run(async (args) => {
            const card = agentCardOf(await fetchCard(requireAgent(args.agentCard)));
            print(args.output, cardJson(card), cardText(card));
          }),
        )
        .demandCommand(1, 'name a card command: get'),
    )
    .command(
      'send',
      'send a message: a new task, or the next turn of one (--task-id)',
      (y) =>
        y
          .option('text', { type: 'array', string: true, describe: 'a text part (repeatable)' })
          .option('data', {
            type: 'array',
            string: true,
            describe: 'a JSON object part (repeatable; - reads stdin)',
          })
          .option('context-id', { type: 'string', describe: 'start a task in this context' })
          .option('task-id', { type: 'string', describe: 'continue this task' })
          .option('async', {
            type: 'boolean',
            default: false,
            describe: 'return at once with the ids, not waiting',
          }),
      run<{ text?: string[]; data?: string[]; contextId?: string; taskId?: string; async: boolean }>(
        async (args) => {
          const parts = [...(args.text ?? []).map(textPart), ...(args.data ?? []).map(dataPart)];
          if (parts.length === 0)
            throw new CliError('A2ACLI_ERR_USAGE', 'nothing to send: give --text or --data');
          const { client } = await connect(args);
          const message: Message = {
            messageId: randomUUID(),
            contextId: args.contextId ?? '',
            taskId: args.taskId ?? '',
            role: Role.ROLE_USER,
            parts,
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          };
          const reply = await client.sendMessage({
            tenant: '',
            message,
            configuration: {
              acceptedOutputModes: [],
              taskPushNotificationConfig: undefined,
              historyLength: undefined,
              returnImmediately: args.async,
            },
            metadata: undefined,
          });
          if ('messageId' in reply) print(args.output, sendResponseJson(reply), messageText(reply));
          else {
            print(
              args.output,
              sendResponseJson(reply),
              taskText(reply, resumeCommand(args.agentCard, reply)),
            );
            warnOutcome(reply);
          }
        },
      ),
    )
    .command('task', 'one task: get, cancel', (y) =>
      y
        .command(
          'get <id>',
          'show a task: its state, status message and artifacts',
          (c) =>
            c
              .positional('id', { type: 'string', demandOption: true })
              .option('history', { type: 'number', describe: 'the last n messages too' }),
          run<{ id: string; history?: number }>(async (args) => {
            const { client } = await connect(args);
            const task = await client.getTask({ tenant: '', id: args.id, historyLength: args.history });
            taskOut(args.output, task, args.agentCard);
          }),
        )
        .command(
          'cancel <id>',
          'cancel a task (again is fine) and show its state',
          (c) => c.positional('id', { type: 'string', demandOption: true }),
          run<{ id: string }>(async (args) => {
            const { client } = await connect(args);
            const task = await client.cancelTask({ tenant: '', id: args.id, metadata: undefined });
            taskOut(args.output, task, args.agentCard);
          }),
        )
        .demandCommand(1, 'name a task command: get or cancel'),
    );
  try {
    await parser.parseAsync();
  } catch (e) {
    const { envelope, exitCode: code } = envelopeOf(e);
    printError(envelope, format);
    exitCode = code;
  }
  return exitCode;
}

const requireAgent = (ref: string | undefined): string => {
  if (!ref)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      'no agent: give --agent-card (-a) or set A2ACLI_AGENT_CARD',
      'synapse card get -a http://127.0.0.1:8080',
    );
  return ref;
};

/** A task that ended other than completed, or waits, is named on stderr; the exit stays 0 (SPEC §9.6). */
const warnOutcome = (task: Task) => {
  const state = task.status?.state;
  if (state === undefined) return;
  const name = stateName(state);
  if ((isTerminal(state) && name !== 'COMPLETED') || isInterrupted(state))
    process.stderr.write(`note: the task is ${name}\n`);
};

process.exitCode = await main(hideBin(process.argv));
