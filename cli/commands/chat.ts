/**
 * `synapse chat` (a2a-cli SPEC §5.1, §6.2; A2ACLI_CHAT_001): an interaction typed turn by turn, each turn a
 * new task in the context the first reply gave, a waiting task's question answered at a prompt. Where a
 * person watches (cli/tty.ts) it is live (cli/interactive.ts); elsewhere one turn per line of standard
 * input (cli/chat-lines.ts). Both are imported only when `chat` runs.
 */
import { connect } from '../agent.ts';
import { type CommandGroup, run, waitOptions } from '../command.ts';
import { personWatching } from '../tty.ts';
import type { ChatOptions } from '../turns.ts';

export const chatCommands: CommandGroup = (y) =>
  y.command(
    'chat',
    'talk with the agent turn by turn, live (a terminal) or a turn per line of stdin',
    (c) =>
      c
        .option('context-id', { type: 'string', describe: 'carry on an interaction in this context' })
        .options(waitOptions),
    run<ChatOptions>(async (args) => {
      const { client, card } = await connect(args);
      if (personWatching(args.output)) {
        const { chatInteractive } = await import('../interactive.ts');
        await chatInteractive(args, client, card);
      } else {
        const { chatLines } = await import('../chat-lines.ts');
        await chatLines(args, client);
      }
    }),
  );
