import { StreamResponse } from '@a2a-js/sdk';
import { hideBin } from 'yargs/helpers';
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
import { metadataOf, type PartArgs, partsOf } from '../parts.ts';
import { personWatching } from '../tty.ts';
import { requestOf } from '../turns.ts';
import { followOut } from '../watch.ts';

interface SendArgs extends Common, WaitOptions, PartArgs {
  metadata?: string;
  contextId?: string;
  taskId?: string;
  async: boolean;
  wait: boolean;
  stream: boolean;
  interactive: boolean;
}

export const sendCommands: CommandGroup = (y) =>
  y.command(
    'send',
    'send a message: a new task, or the next turn of one (--task-id)',
    (s) =>
      s
        .option('text', {
          type: 'string',
          nargs: 1,
          describe: 'a text part (repeatable; parts keep their order)',
        })
        .option('file', {
          type: 'string',
          nargs: 1,
          describe: 'a file part: a path (sent inline) or a URL (sent as a URL) (repeatable)',
        })
        .option('data', {
          type: 'string',
          nargs: 1,
          describe: 'a data part: JSON, a JSON file, or - for stdin (repeatable)',
        })
        .option('media-type', {
          type: 'string',
          nargs: 1,
          describe: 'the media type of the part flag just before it (default: from the file name)',
        })
        .option('metadata', { type: 'string', nargs: 1, describe: 'the message’s metadata, a JSON object' })
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
        .option('wait', {
          type: 'boolean',
          default: false,
          describe: 'wait for the task to end or pause: the default, stated to override a configured --async',
        })
        .option('interactive', {
          alias: 'i',
          type: 'boolean',
          default: false,
          describe: 'on a terminal: live progress, questions answered at a prompt (else plain text)',
        }),
    run<SendArgs>(async (args) => {
      const parts = await partsOf(hideBin(process.argv), args);
      if (parts.length === 0)
        throw new CliError('A2ACLI_ERR_USAGE', 'nothing to send: give --text, --file or --data');
      const metadata = metadataOf(args.metadata);
      const typed = hideBin(process.argv);
      if (typed.includes('--wait') && typed.includes('--async'))
        throw new CliError('A2ACLI_ERR_USAGE', '--wait and --async do not go together');
      // --wait is a flag, so it wins over an --async from the environment or a file (SPEC §4.5, §5.2)
      args.async &&= !args.wait;
      if (args.stream && args.async)
        throw new CliError('A2ACLI_ERR_USAGE', '--stream and --async do not go together');
      if (args.interactive && args.async)
        throw new CliError('A2ACLI_ERR_USAGE', '--interactive and --async do not go together');
      const { client, card } = await connect(args);
      const deadline = deadlineOf(args);
      const request = requestOf(parts, args, {
        metadata,
        // with --timeout the task is polled, so that the wait can end while the task goes on
        returnImmediately: args.async || args.stream || args.timeout !== undefined,
      });
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
