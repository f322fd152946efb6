/**
 * `synapse card get` (a2a-cli SPEC §8.1): the agent card, from a host, a URL, a file or a catalog entry, and
 * the verdict on its signatures (verified / unverifiable / absent). `-o json` prints the card alone, the
 * protocol's AgentCard (Appendix B); its verdict goes to stderr as one JSON line, `{"signature": …}`.
 * `--validate` checks the card against A2A v1.0's AgentCard first (cli/card-schema.ts).
 */
import { agentCardOf, baseFetch, requireAgent } from '../agent.ts';
import type { SignatureVerdict } from '../card-trust.ts';
import { resolveCard } from '../catalog.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { cardJson, cardText, PROGRAM } from '../output.ts';

interface CardGetArgs {
  jwks?: string;
  requireSignature: boolean;
  validate: boolean;
}

/** Refuses a card that is not a valid A2A v1.0 AgentCard, naming each problem with its field. */
async function validate(json: unknown, output: 'text' | 'json'): Promise<void> {
  const { cardProblems } = await import('../card-schema.ts');
  const problems = cardProblems(json);
  if (problems.length === 0) return;
  // text: a line per problem, then the error; json: the problems are the envelope's message
  const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  if (output === 'text') for (const problem of problems) process.stderr.write(`problem: ${problem}\n`);
  throw new CliError(
    'A2ACLI_ERR_CARD_INVALID',
    output === 'text'
      ? `the agent card is not a valid A2A v1.0 AgentCard (${count})`
      : `the agent card is not a valid A2A v1.0 AgentCard (${count}): ${problems.join('; ')}`,
    'each problem names the field to fix',
  );
}

const hasSignatures = (json: unknown) => {
  const signatures = (json as { signatures?: unknown } | null)?.signatures;
  return signatures !== undefined && !(Array.isArray(signatures) && signatures.length === 0);
};

/** The verdict as a text field. */
const verdictText = (v: SignatureVerdict): string =>
  v.status === 'verified'
    ? `Signature: verified (kid ${v.kid}, key from ${v.keys})\n`
    : v.status === 'unverifiable'
      ? `Signature: unverifiable (${v.reason})\n`
      : 'Signature: absent\n';

export const cardCommands: CommandGroup = (y) =>
  y.command('card', 'the agent’s card', (c) =>
    c
      .command(
        'get',
        'fetch and show the agent card, and whether its signature verifies',
        (g) =>
          g
            .option('jwks', {
              type: 'string',
              describe: 'verify the signature with this key set (a JWKS URL or file) instead of its jku',
            })
            .option('require-signature', {
              type: 'boolean',
              default: false,
              describe: 'fail (exit 1) unless the signature verifies',
            })
            .option('validate', {
              type: 'boolean',
              default: false,
              describe: 'check it against the A2A v1.0 AgentCard schema (each problem, then exit 1)',
            }),
        run<CardGetArgs>(async (args) => {
          const fetchImpl = baseFetch(args, {});
          const resolved = await resolveCard(requireAgent(args.agentCard), fetchImpl);
          if (args.validate) await validate(resolved.card, args.output);
          const card = agentCardOf(resolved.card);
          let verdict: SignatureVerdict = { status: 'absent' };
          // the verifier (jose, JCS) is loaded only for a card that has something to verify
          if (hasSignatures(resolved.card) || args.jwks) {
            const trust = await import('../card-trust.ts');
            verdict = await trust.verifySignature(resolved.card, {
              ...(args.jwks ? { keys: await trust.callerKeys(args.jwks, fetchImpl) } : {}),
              ...(resolved.url ? { cardUrl: resolved.url } : {}),
              fetchImpl,
            });
          }
          if (args.requireSignature && verdict.status !== 'verified')
            throw new CliError(
              'A2ACLI_ERR_CARD_INVALID',
              verdict.status === 'absent'
                ? 'the agent card is not signed, and --require-signature asks for a verified signature'
                : `the agent card's signature does not verify: ${verdict.reason}`,
              `${PROGRAM} card get -a ${args.agentCard} --jwks <the publisher's JWKS URL or file>`,
            );
          if (args.output === 'json') {
            print('json', cardJson(card), '');
            process.stderr.write(`${JSON.stringify({ signature: verdict })}\n`);
          } else
            print(
              'text',
              null,
              `${cardText(card)}${verdictText(verdict)}${args.validate ? 'Valid: yes (A2A v1.0 AgentCard)\n' : ''}`,
            );
        }),
      )
      .demandCommand(1, 'name a card command: get'),
  );
