/** `synapse card get` (a2a-cli SPEC §8.1): the agent card, from a host, a URL or a file. */
import { agentCardOf, baseFetch, fetchCard, requireAgent } from '../agent.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { cardJson, cardText } from '../output.ts';

export const cardCommands: CommandGroup = (y) =>
  y.command('card', 'the agent’s card', (c) =>
    c
      .command(
        'get',
        'fetch and show the agent card',
        (g) => g,
        run(async (args) => {
          const card = agentCardOf(await fetchCard(requireAgent(args.agentCard), baseFetch(args)));
          print(args.output, cardJson(card), cardText(card));
        }),
      )
      .demandCommand(1, 'name a card command: get'),
  );
