/**
 * `synapse task get | cancel | subscribe | list` and `task push-config …` (a2a-cli SPEC §7, §8.2–8.5): a
 * task looked at, waited for, followed or canceled, and tasks listed a page at a time.
 */
import { ListTasksResponse, taskStateFromJSON } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { connect } from '../agent.ts';
import { type CommandGroup, print, run, taskOut, waitOptions, warnOutcome } from '../command.ts';
import { CliError } from '../errors.ts';
import { deadlineOf, follow, pollUntilSettled, type WaitOptions } from '../follow.ts';
import { PROGRAM, sendResponseJson, stateName } from '../output.ts';
import { followOut } from '../watch.ts';
import { downloadCommands } from './download.ts';
import { pushConfigCommands } from './push-config.ts';

export const taskCommands: CommandGroup = (y) =>
  y.command('task', 'tasks: get, cancel, subscribe, list, download, push-config', (t) =>
    downloadCommands(
      pushConfigCommands(
        t
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
            'follow a task as it runs, to its end (json: the end; with --stream, one line per event)',
            (c) =>
              c
                .positional('id', { type: 'string', demandOption: true })
                .option('stream', {
                  type: 'boolean',
                  default: false,
                  describe: 'json: one line per event as it comes, the last the end',
                })
                .options(waitOptions),
            run<{ id: string; stream: boolean } & WaitOptions>(async (args) => {
              const { client, card } = await connect(args);
              if (!card.capabilities?.streaming)
                throw new CliError(
                  'A2ACLI_ERR_USAGE',
                  'this agent does not stream (its card says capabilities.streaming: false)',
                  `${PROGRAM} task get ${args.id} --wait`,
                );
              const events = client.resubscribeTask({ tenant: '', id: args.id });
              // json without --stream is one document, the task at its end (a2a-cli SPEC Appendix B)
              if (args.output === 'json' && !args.stream) {
                const end = await follow(client, events, { event: () => {} }, args, deadlineOf(args));
                if ('messageId' in end) print(args.output, sendResponseJson(end), '');
                else taskOut(args.output, end, args.agentCard);
                return;
              }
              const end = await followOut(args, client, events, deadlineOf(args));
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
                print(
                  args.output,
                  ListTasksResponse.toJSON(page),
                  lines.length ? `${lines.join('\n')}\n` : '',
                );
              },
            ),
          ),
      ),
    ).demandCommand(1, 'name a task command: get, cancel, subscribe, list, download or push-config'),
  );
