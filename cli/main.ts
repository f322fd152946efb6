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
import {
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  StreamResponse,
  Task,
  type TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  type TaskState,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import {
  type AgentOptions,
  agentCardOf,
  baseFetch,
  connect,
  fetchCard,
  requireAgent,
  TRANSPORTS,
} from './agent.ts';
import { CliError, envelopeOf } from './errors.ts';
import { deadlineOf, endsStream, follow, pollUntilSettled, settled, type WaitOptions } from './follow.ts';
import {
  cardJson,
  cardText,
  isInterrupted,
  isTerminal,
  messageText,
  type OutputFormat,
  PROGRAM,
  printError,
  sendResponseJson,
  stateName,
  taskText,
} from './output.ts';

/** Set by the bundle (cli/build.ts); read from the package when run from source. */
declare const SYNAPSE_VERSION: string | undefined;
const VERSION =
  typeof SYNAPSE_VERSION === 'string'
    ? SYNAPSE_VERSION
    : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
        .version;

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
  `${PROGRAM} send -a ${agentCard ?? '<agent>'} --task-id ${task.id} --context-id ${task.contextId} --text '…'`;

const pushConfigOut = (format: OutputFormat, config: TaskPushNotificationConfig) =>
  print(
    format,
    TaskPushNotificationConfig.toJSON(config),
    `Config: ${config.id}\nTask: ${config.taskId}\nURL: ${config.url}\n`,
  );

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

interface SendArgs extends Common, WaitOptions {
  text?: string[];
  data?: string[];
  contextId?: string;
  taskId?: string;
  async: boolean;
  stream: boolean;
}

const waitOptions = {
  'poll-interval': { type: 'number', default: 2, describe: 'seconds between polls while waiting' },
  timeout: { type: 'number', describe: 'give up waiting after this many seconds (exit 5)' },
} as const;

/** Follows a stream, printing each event (json: a line each; text: what changed), then the end. */
async function followOut(
  args: Common & WaitOptions,
  client: Client,
  events: AsyncIterable<StreamResponse>,
  deadline: number,
): Promise<Task | Message> {
  let lastLine: StreamResponse | undefined;
  const watch = new StateWatch();
  const end = await follow(
    client,
    events,
    {
      event: (event) => {
        if (args.output === 'json') {
          lastLine = event;
          process.stdout.write(`${JSON.stringify(StreamResponse.toJSON(event))}\n`);
        } else process.stdout.write(watch.text(event));
      },
    },
    args,
    deadline,
  );
  if (args.output === 'json') {
    // the last line is the end: a stream that broke, or ended on a status, gets the task polled to its end
    const endLine: StreamResponse = {
      payload: 'messageId' in end ? { $case: 'message', value: end } : { $case: 'task', value: end },
    };
    if (lastLine === undefined || !endsStream(lastLine))
      process.stdout.write(`${JSON.stringify(StreamResponse.toJSON(endLine))}\n`);
  } else
    process.stdout.write(
      `\n${'messageId' in end ? messageText(end) : taskText(end, resumeCommand(args.agentCard, end))}`,
    );
  return end;
}

/** Events as the text a person watches: the state when it changes, status texts, artifact chunks. */
class StateWatch {
  #state: string | undefined;

  #stateLine(state: TaskState | undefined): string {
    const name = stateName(state ?? 0);
    if (name === this.#state) return '';
    this.#state = name;
    return `State: ${name}\n`;
  }

  text(event: StreamResponse): string {
    const p = event.payload;
    if (p?.$case === 'task')
      return `Task: ${p.value.id}\nContext: ${p.value.contextId}\n${this.#stateLine(p.value.status?.state)}`;
    if (p?.$case === 'statusUpdate') {
      const text = (p.value.status?.message?.parts ?? [])
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('');
      return `${this.#stateLine(p.value.status?.state)}${text ? `Status: ${text}\n` : ''}`;
    }
    return p?.$case === 'artifactUpdate' ? artifactText(p.value) : '';
  }
}

const artifactText = (update: TaskArtifactUpdateEvent): string => {
  const a = update.artifact;
  const text = (a?.parts ?? [])
    .map((part) =>
      part.content?.$case === 'text' ? part.content.value : JSON.stringify(part.content?.value ?? null),
    )
    .join('');
  return `Artifact ${a?.name || a?.artifactId || ''}: ${text}\n`;
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
    .option('api-key', { type: 'string', describe: 'an API key (or A2ACLI_API_KEY)' })
    .option('debug', {
      type: 'boolean',
      default: false,
      describe: 'every request and answer on stderr, credentials redacted',
    });

async function main(argv: string[]): Promise<number> {
  // `--stream` is never taken from the environment (SPEC §9.1)
  delete process.env.A2ACLI_STREAM;
  let format = formatAsked(argv);
  // yargs writes the zsh completion script when SHELL names zsh (read as the parser is made), bash's otherwise
  if (argv[0] === 'completion' && argv[1] !== undefined)
    process.env.SHELL = argv[1] === 'zsh' ? '/bin/zsh' : '/bin/bash';
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
            const card = agentCardOf(await fetchCard(requireAgent(args.agentCard), baseFetch(args)));
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
          .option('stream', {
            type: 'boolean',
            default: false,
            describe: 'follow the task as it runs (json: one line per event)',
          })
          .options(waitOptions)
          .option('async', {
            type: 'boolean',
            default: false,
            describe: 'return at once with the ids, not waiting',
          }),
      run<SendArgs>(async (args) => {
        const parts = [...(args.text ?? []).map(textPart), ...(args.data ?? []).map(dataPart)];
        if (parts.length === 0)
          throw new CliError('A2ACLI_ERR_USAGE', 'nothing to send: give --text or --data');
        if (args.stream && args.async)
          throw new CliError('A2ACLI_ERR_USAGE', '--stream and --async do not go together');
        const { client, card } = await connect(args);
        const deadline = deadlineOf(args);
        const request: SendMessageRequest = {
          tenant: '',
          message: {
            messageId: randomUUID(),
            contextId: args.contextId ?? '',
            taskId: args.taskId ?? '',
            role: Role.ROLE_USER,
            parts,
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          },
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            historyLength: undefined,
            // with --timeout the task is polled, so that the wait can end while the task goes on
            returnImmediately: args.async || args.stream || args.timeout !== undefined,
          },
          metadata: undefined,
        };
        if (args.stream && card.capabilities?.streaming) {
          const end = await followOut(args, client, client.sendMessageStream(request), deadline);
          if ('messageId' in end) return;
          warnOutcome(end);
          return;
        }
        let reply = await client.sendMessage(request);
        if ('messageId' in reply) {
          print(args.output, sendResponseJson(reply), messageText(reply));
          return;
        }
        if (!args.async && !settled(reply)) reply = await pollUntilSettled(client, reply, args, deadline);
        if (args.stream && args.output === 'json')
          process.stdout.write(
            `${JSON.stringify(StreamResponse.toJSON({ payload: { $case: 'task', value: reply } }))}\n`,
          );
        else
          print(args.output, sendResponseJson(reply), taskText(reply, resumeCommand(args.agentCard, reply)));
        warnOutcome(reply);
      }),
    )
    .command('task', 'tasks: get, cancel, subscribe, list', (y) =>
      y
        .command(
          'get <id>',
          'show a task: its state, status message and artifacts',
          (c) =>
            c
              .positional('id', { type: 'string', demandOption: true })
              .option('history', { type: 'number', describe: 'the last n messages too' })
              .option('wait', { type: 'boolean', default: false, describe: 'poll until it ends or pauses' })
              .options(waitOptions),
          run<{ id: string; history?: number; wait: boolean } & WaitOptions>(async (args) => {
            const { client } = await connect(args);
            let task = await client.getTask({ tenant: '', id: args.id, historyLength: args.history });
            if (args.wait) task = await pollUntilSettled(client, task, args, deadlineOf(args));
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
        .command(
          'subscribe <id>',
          'follow a task as it runs, to its end (json: one line per event)',
          (c) => c.positional('id', { type: 'string', demandOption: true }).options(waitOptions),
          run<{ id: string } & WaitOptions>(async (args) => {
            const { client, card } = await connect(args);
            if (!card.capabilities?.streaming)
              throw new CliError(
                'A2ACLI_ERR_USAGE',
                'this agent does not stream (its card says capabilities.streaming: false)',
                `${PROGRAM} task get ${args.id} --wait`,
              );
            const end = await followOut(
              args,
              client,
              client.resubscribeTask({ tenant: '', id: args.id }),
              deadlineOf(args),
            );
            if (!('messageId' in end)) warnOutcome(end);
          }),
        )
        .command(
          'list',
          'list tasks, newest first, a page at a time',
          (c) =>
            c
              .option('context-id', { type: 'string', describe: 'only this context' })
              .option('status', { type: 'string', describe: 'only this state (COMPLETED, WORKING …)' })
              .option('page-size', {
                type: 'number',
                describe: 'tasks per page (the agent’s default when absent)',
              })
              .option('page-token', {
                type: 'string',
                describe: 'the page after the one that gave this token',
              }),
          run<{ contextId?: string; status?: string; pageSize?: number; pageToken?: string }>(
            async (args) => {
              const status =
                args.status === undefined
                  ? 0
                  : taskStateFromJSON(
                      args.status.startsWith('TASK_STATE_')
                        ? args.status
                        : `TASK_STATE_${args.status.toUpperCase()}`,
                    );
              if (status === -1)
                throw new CliError('A2ACLI_ERR_USAGE', `--status ${args.status} is not a task state`);
              const { client } = await connect(args);
              const page = await client.listTasks({
                tenant: '',
                contextId: args.contextId ?? '',
                status,
                pageSize: args.pageSize,
                pageToken: args.pageToken ?? '',
                historyLength: undefined,
                statusTimestampAfter: undefined,
                includeArtifacts: undefined,
              } as Parameters<Client['listTasks']>[0]);
              const lines = page.tasks.map(
                (t) => `Task: ${t.id} ${stateName(t.status?.state ?? 0)} ${t.contextId}`,
              );
              if (page.nextPageToken) lines.push(`Next page: --page-token ${page.nextPageToken}`);
              print(args.output, ListTasksResponse.toJSON(page), lines.length ? `${lines.join('\n')}\n` : '');
            },
          ),
        )
        .command('push-config', 'a task’s push-notification configs: create, get, list, delete', (p) =>
          p
            .command(
              'create <taskId>',
              'have the agent POST the task’s updates to --url',
              (c) =>
                c
                  .positional('taskId', { type: 'string', demandOption: true })
                  .option('url', {
                    type: 'string',
                    demandOption: true,
                    describe: 'where the agent sends the updates',
                  })
                  .option('token', {
                    type: 'string',
                    describe: 'a token the agent sends back with each update',
                  })
                  .option('config-id', {
                    type: 'string',
                    describe: 'the config’s id (the agent picks one when absent)',
                  }),
              run<{ taskId: string; url: string; token?: string; configId?: string }>(async (args) => {
                const { client } = await connect(args);
                const config = await client.createTaskPushNotificationConfig({
                  tenant: '',
                  id: args.configId ?? '',
                  taskId: args.taskId,
                  url: args.url,
                  token: args.token ?? '',
                  authentication: undefined,
                });
                pushConfigOut(args.output, config);
              }),
            )
            .command(
              'get <taskId> <configId>',
              'show one config',
              (c) =>
                c
                  .positional('taskId', { type: 'string', demandOption: true })
                  .positional('configId', { type: 'string', demandOption: true }),
              run<{ taskId: string; configId: string }>(async (args) => {
                const { client } = await connect(args);
                pushConfigOut(
                  args.output,
                  await client.getTaskPushNotificationConfig({
                    tenant: '',
                    taskId: args.taskId,
                    id: args.configId,
                  }),
                );
              }),
            )
            .command(
              'list <taskId>',
              'list the task’s configs',
              (c) => c.positional('taskId', { type: 'string', demandOption: true }),
              run<{ taskId: string }>(async (args) => {
                const { client } = await connect(args);
                const page = await client.listTaskPushNotificationConfig({
                  tenant: '',
                  taskId: args.taskId,
                  pageSize: 0,
                  pageToken: '',
                });
                const text = page.configs.map((c) => `Config: ${c.id} ${c.url}`).join('\n');
                print(
                  args.output,
                  ListTaskPushNotificationConfigsResponse.toJSON(page),
                  text ? `${text}\n` : '',
                );
              }),
            )
            .command(
              'delete <taskId> <configId>',
              'remove a config: the agent stops sending there',
              (c) =>
                c
                  .positional('taskId', { type: 'string', demandOption: true })
                  .positional('configId', { type: 'string', demandOption: true }),
              run<{ taskId: string; configId: string }>(async (args) => {
                const { client, card } = await connect(args);
                // the SDK asks without looking at the card; the card says whether the agent pushes at all
                if (!card.capabilities?.pushNotifications)
                  throw new CliError('A2ACLI_ERR_USAGE', 'this agent does not send push notifications');
                await client.deleteTaskPushNotificationConfig({
                  tenant: '',
                  taskId: args.taskId,
                  id: args.configId,
                });
                print(args.output, {}, `Deleted: ${args.configId}\n`);
              }),
            )
            .demandCommand(1, 'name a push-config command: create, get, list or delete'),
        )
        .demandCommand(1, 'name a task command: get, cancel, subscribe, list or push-config'),
    );
  parser
    // the script a shell sources asks `synapse --get-yargs-completions …` for the words at the cursor
    .completion('__complete', false)
    .command(
      'completion <shell>',
      'print a completion script: synapse completion bash >> ~/.bashrc',
      (c) => c.positional('shell', { choices: ['bash', 'zsh'] as const, demandOption: true }),
      () => {
        parser.showCompletionScript();
      },
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

/** A task that ended other than completed, or waits, is named on stderr; the exit stays 0 (SPEC §9.6). */
const warnOutcome = (task: Task) => {
  const state = task.status?.state;
  if (state === undefined) return;
  const name = stateName(state);
  if ((isTerminal(state) && name !== 'COMPLETED') || isInterrupted(state))
    process.stderr.write(`note: the task is ${name}\n`);
};

process.exitCode = await main(hideBin(process.argv));
