/**
 * `synapse`: a command-line client of A2A agents and of this hub (docs/cli.md), after the a2a-cli
 * specification v0.2 (github.com/a2aproject/a2a-cli, specification/SPEC.md). Stateless between runs: every
 * id it needs is given on the command line and every id it learns is printed. Each option may also be set
 * as `A2ACLI_<OPTION>` in the environment or a `.env` file (`A2ACLI_AGENT_CARD`, `A2ACLI_BEARER` …; the
 * layers are cli/config.ts); a flag wins. Credentials given as flags show in `ps` and the shell's history:
 * prefer the environment or a 0600 file.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { commonOptions, currentFormat, exitCodeAsked, useFormat } from './command.ts';
import { adminCommands } from './commands/admin.ts';
import { authCommands } from './commands/auth.ts';
import { cardCommands } from './commands/card.ts';
import { chatCommands } from './commands/chat.ts';
import { configCommands } from './commands/config.ts';
import { conformanceCommands } from './commands/conformance.ts';
import { devCommands } from './commands/dev.ts';
import { p2pCommands } from './commands/p2p.ts';
import { pushCommands } from './commands/push.ts';
import { registryCommands } from './commands/registry.ts';
import { sendCommands } from './commands/send.ts';
import { taskCommands } from './commands/task.ts';
import { type ConfigLayers, configMiddleware, loadConfig } from './config.ts';
import { CliError, envelopeOf } from './errors.ts';
import { type OutputFormat, PROGRAM, printError } from './output.ts';
import { VERSION } from './version.ts';

/** The format asked for, read before parsing so that a usage error is printed in it too. */
const formatAsked = (argv: readonly string[], layers?: ConfigLayers): OutputFormat => {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-o' || arg === '--output') return argv[i + 1] === 'json' ? 'json' : 'text';
    if (arg === '-o=json' || arg === '--output=json' || arg === '-ojson') return 'json';
  }
  return (layers?.lookup('output')?.value ?? process.env.A2ACLI_OUTPUT) === 'json' ? 'json' : 'text';
};

/** yargs' words for a missing positional, said as what is missing. */
const usageMessage = (message: string): string =>
  /^Not enough non-option arguments/.test(message)
    ? `missing an argument (${message.charAt(0).toLowerCase()}${message.slice(1)}): see the usage`
    : message;

/** The help of the command typed (the words before the first option): `synapse task get --help`. */
const helpOf = (argv: readonly string[]): string => {
  const firstOption = argv.findIndex((a) => a.startsWith('-'));
  const words = firstOption < 0 ? argv : argv.slice(0, firstOption);
  return [PROGRAM, ...words.slice(0, 3), '--help'].join(' ');
};

async function main(argv: string[]): Promise<number> {
  // `--stream` is never taken from the environment (SPEC §9.1)
  delete process.env.A2ACLI_STREAM;
  useFormat(formatAsked(argv));
  let layers: ConfigLayers;
  try {
    layers = loadConfig(argv);
  } catch (e) {
    const { envelope, exitCode: code } = envelopeOf(e);
    printError(envelope, currentFormat());
    return code;
  }
  useFormat(formatAsked(argv, layers));
  // yargs writes the zsh completion script when SHELL names zsh (read as the parser is made), bash's otherwise
  if (argv[0] === 'completion' && argv[1] !== undefined)
    process.env.SHELL = argv[1] === 'zsh' ? '/bin/zsh' : '/bin/bash';
  let exitCode = 0;
  let parser: Argv = commonOptions(
    yargs(argv)
      .scriptName('synapse')
      // before validation, so that a configured value meets `choices` as a flag does; yargs hands the
      // middleware its instance as a second argument, which its types do not declare
      .middleware(configMiddleware(layers, argv) as never, true)
      .version(VERSION)
      .alias('version', 'v')
      .help()
      .alias('help', 'h')
      .strict()
      .recommendCommands()
      .demandCommand(
        1,
        'name a command: card, send, task, chat, conformance, push, p2p, registry, admin, dev, config or auth',
      )
      .fail((message, error) => {
        throw error ?? new CliError('A2ACLI_ERR_USAGE', usageMessage(message), helpOf(argv));
      }),
  );
  for (const group of [
    cardCommands,
    sendCommands,
    taskCommands,
    conformanceCommands,
    chatCommands,
    pushCommands,
    p2pCommands,
    registryCommands,
    adminCommands,
    devCommands,
    configCommands,
    authCommands,
  ])
    parser = group(parser);
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
    printError(envelope, currentFormat());
    exitCode = code;
  }
  return exitCode || exitCodeAsked();
}

process.exitCode = await main(hideBin(process.argv));
