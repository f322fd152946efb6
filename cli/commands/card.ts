/** `synapse card get` (a2a-cli SPEC §8.1): the agent card, from a host, a URL or a file. */
import { agentCardOf, baseFetch, fetchCard, requireAgent } from '../agent.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { cardJson, cardText } from '../output.ts';

export const cardCommands: CommandGroup = (y) =>
  y.command('card', 'the agent’s card', (c) =>
    c
      .command(
        'get',
        'fetch and show the agent card',
        (g) =>
          g.option('validate', {
            type: 'boolean',
            default: false,
            describe: 'check it against the A2A v1.0 AgentCard schema (each problem, then exit 1)',
          }),
        run<{ validate: boolean }>(async (args) => {
          const json = await fetchCard(requireAgent(args.agentCard), baseFetch(args));
          if (args.validate) {
            const { cardProblems } = await import('../card-schema.ts');
            const problems = cardProblems(json);
            if (problems.length > 0) {
              // text: a line per problem, then the error; json: the problems are the envelope's message
              const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
              if (args.output === 'text')
                for (const problem of problems) process.stderr.write(`problem: ${problem}\n`);
              throw new CliError(
                'A2ACLI_ERR_CARD_INVALID',
                args.output === 'text'
                  ? `the agent card is not a valid A2A v1.0 AgentCard (${count})`
                  : `the agent card is not a valid A2A v1.0 AgentCard (${count}): ${problems.join('; ')}`,
                'each problem names the field to fix',
              );
            }
          }
          const card = agentCardOf(json);
          print(
            args.output,
            cardJson(card),
            `${cardText(card)}${args.validate ? 'Valid: yes (A2A v1.0 AgentCard)\n' : ''}`,
          );
        }),
      )
      .demandCommand(1, 'name a card command: get'),
  );
