/** `synapse task push-config create | get | list | delete` (a2a-cli SPEC §8.5): a task's push configs. */
import { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { connect } from '../agent.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import type { OutputFormat } from '../output.ts';

const pushConfigOut = (format: OutputFormat, config: TaskPushNotificationConfig) =>
  print(
    format,
    TaskPushNotificationConfig.toJSON(config),
    `Config: ${config.id}\nTask: ${config.taskId}\nURL: ${config.url}\n`,
  );

export const pushConfigCommands: CommandGroup = (y) =>
  y.command('push-config', 'a task’s push-notification configs: create, get, list, delete', (p) =>
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
          print(args.output, ListTaskPushNotificationConfigsResponse.toJSON(page), text ? `${text}\n` : '');
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
  );
