/**
 * `synapse push listen` (a2a-cli SPEC §7.2, Tier 3): a local receiver of an agent's push notifications,
 * printing each one it takes (cli/push-receiver.ts, loaded by this command alone). Its URL is printed on
 * stderr, to be given to `task push-config create --url`.
 */
import { cardLocationOf, WELL_KNOWN_CARD_PATH } from '../agent.ts';
import { type CommandGroup, run } from '../command.ts';
import { CliError } from '../errors.ts';
import { PROGRAM } from '../output.ts';
import type { ListenOptions } from '../push-receiver.ts';

/** The receiver's options as the command line gives them (a type only: the receiver is loaded by `listen`). */
type ListenArgs = Omit<ListenOptions, 'format' | 'onListening'>;

/** The hub's JWKS beside its card, when `--agent-card` names the hub by URL (docs/push-signing.md). */
const jwksBeside = (agentCard: string | undefined): string | undefined => {
  if (!agentCard) return undefined;
  try {
    const where = cardLocationOf(agentCard);
    if (!('url' in where)) return undefined;
    const url = new URL(where.url);
    if (!url.pathname.endsWith(WELL_KNOWN_CARD_PATH)) return undefined;
    url.pathname = `${url.pathname.slice(0, -WELL_KNOWN_CARD_PATH.length)}/.well-known/jwks.json`;
    return url.toString();
  } catch {
    return undefined;
  }
};

export const pushCommands: CommandGroup = (y) =>
  y.command('push', 'push notifications: listen', (p) =>
    p
      .command(
        'listen',
        'receive an agent’s push notifications on this machine and print them',
        (c) =>
          c
            .option('port', { type: 'number', default: 0, describe: 'the port (0: a free one)' })
            .option('host', { type: 'string', default: '127.0.0.1', describe: 'the address to bind' })
            .option('jwks', {
              type: 'string',
              describe:
                'the hub’s JWKS (URL or file) the push JWT must verify with (default: beside -a’s card)',
            })
            .option('token', { type: 'string', describe: 'the notification token each push must carry' })
            .option('public-url', {
              type: 'string',
              describe: 'the URL the agent posts to, when not this one (a tunnel): the JWT’s audience',
            })
            .option('count', { type: 'number', describe: 'exit after this many notifications' })
            .option('timeout', { type: 'number', describe: 'give up after this many seconds (exit 5)' })
            .check((a) => {
              const rules = { count: [1, true], timeout: [0, false], port: [0, true] } as const;
              for (const [key, [least, whole]] of Object.entries(rules)) {
                const v = a[key as keyof typeof rules];
                if (v !== undefined && !(Number.isFinite(v) && v >= least && (!whole || Number.isInteger(v))))
                  throw new CliError(
                    'A2ACLI_ERR_USAGE',
                    `--${key} must be ${whole ? 'a whole number' : 'a number'} of at least ${least}`,
                  );
              }
              return true;
            }),
        run<ListenArgs>(async (args) => {
          const jwks = args.jwks ?? jwksBeside(args.agentCard);
          const { listen } = await import('../push-receiver.ts');
          await listen({
            host: args.host,
            port: args.port,
            ...(jwks ? { jwks } : {}),
            ...(args.token !== undefined ? { token: args.token } : {}),
            ...(args.publicUrl ? { publicUrl: args.publicUrl } : {}),
            ...(args.count !== undefined ? { count: args.count } : {}),
            ...(args.timeout !== undefined ? { timeout: args.timeout } : {}),
            format: args.output,
            onListening: (url) =>
              process.stderr.write(
                `Listening: ${url}\nhint: ${PROGRAM} task push-config create <taskId> --url ${args.publicUrl ?? url}${args.token ? ' --token <the token>' : ''}\n`,
              ),
          });
        }),
      )
      .demandCommand(1, 'name a push command: listen'),
  );
