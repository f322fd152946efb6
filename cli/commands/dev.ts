/**
 * `synapse dev`: the hub on this machine with your agent, what `npm start` is in this repository
 * (docs/package.md). Its work (the local hub, DynamoDB Local, the bundler) is a chunk of its own
 * (cli/dev/run.ts), imported only when it runs.
 */
import { existsSync } from 'node:fs';
import { type CommandGroup, run } from '../command.ts';
import { CliError } from '../errors.ts';

interface DevArgs {
  agent?: string;
  port?: number;
  host?: string;
  dataDir?: string;
}

export const devCommands: CommandGroup = (y) =>
  y.command(
    'dev',
    'run the hub locally with your agent: synapse dev --agent ./my-agent.ts',
    (c) =>
      c
        .option('agent', {
          type: 'string',
          describe: 'your agent module (TypeScript or JavaScript; default: the demo agent)',
        })
        .option('port', {
          type: 'number',
          describe: 'the port to listen on (0 picks a free one; default 8080)',
        })
        .option('host', { type: 'string', describe: 'the address to listen on (default 127.0.0.1)' })
        .option('data-dir', {
          type: 'string',
          describe: 'keep the data in this directory across runs (default: in memory)',
        }),
    run<DevArgs>(async (args) => {
      if (args.port !== undefined && !(Number.isInteger(args.port) && args.port >= 0 && args.port <= 65535))
        throw new CliError('A2ACLI_ERR_USAGE', `--port must be a port number (0-65535), not ${args.port}`);
      if (args.agent !== undefined && !existsSync(args.agent))
        throw new CliError(
          'A2ACLI_ERR_USAGE',
          `--agent: no such file: ${args.agent}`,
          'synapse dev --agent ./my-agent.ts',
        );
      const { runDev } = await import('../dev/run.ts');
      await runDev(args);
    }),
  );
