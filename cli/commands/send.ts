/**
 * `synapse send` (a2a-cli SPEC §6, §7): a message to the agent — a new task, a task in a given context, or
 * the next turn of a task (`--task-id`). Waits for the task to end or pause unless `--async`; `--stream`
 * follows it as it runs.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Part, Role, type SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { connect } from '../agent.ts';
import {
  type CommandGroup,
  type Common,
  print,
  resumeCommand,
  run,
  waitOptions,
  warnOutcome,
} from '../command.ts';
import { CliError } from '../errors.ts';
import { deadlineOf, pollUntilSettled, settled, type WaitOptions } from '../follow.ts';
import { messageText, sendResponseJson, taskText } from '../output.ts';
import { personWatching } from '../tty.ts';
import { followOut } from '../watch.ts';

interface SendArgs extends Common, WaitOptions {
  text?: string[];
  data?: string[];
  contextId?: string;
  taskId?: string;
  async: boolean;
  stream: boolean;
  interactive: boolean;
}

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

export const sendCommands: CommandGroup = (y) =>
  y.command(
    'send',
    'send a message: a new task, or the next turn of one (--task-id)',
    (s) =>
      s
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
        })
        .option('interactive', {
          alias: 'i',
          type: 'boolean',
          default: false,
          describe: 'on a terminal: live progress, questions answered at a prompt (else plain text)',
        }),
    run<SendArgs>(async (args) => {
      const parts = [...(args.text ?? []).map(textPart), ...(args.data ?? []).map(dataPart)];
      if (parts.length === 0)
        throw new CliError('A2ACLI_ERR_USAGE', 'nothing to send: give --text or --data');
      if (args.stream && args.async)
        throw new CliError('A2ACLI_ERR_USAGE', '--stream and --async do not go together');
      if (args.interactive && args.async)
        throw new CliError('A2ACLI_ERR_USAGE', '--interactive and --async do not go together');
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
      // a person watching sees the task live (docs/cli.md#live-progress); anywhere else -i changes nothing
      if (args.interactive && personWatching(args.output)) {
        const { sendInteractive } = await import('../interactive.ts');
        return sendInteractive(args, client, card, request);
      }
      if (args.stream && card.capabilities?.streaming) {
        const end = await followOut(args, client, client.sendMessageStream(request), deadline);
        if (!('messageId' in end)) warnOutcome(end);
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
      else print(args.output, sendResponseJson(reply), taskText(reply, resumeCommand(args.agentCard, reply)));
      warnOutcome(reply);
    }),
  );
