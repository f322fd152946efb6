/**
 * `synapse auth login | status | logout` (a2a-cli SPEC §10.2): an OAuth 2.1 login for an agent, by the
 * device-code flow (RFC 8628: a person approves a code in a browser) or the client-credentials flow (a
 * program with a client secret), the tokens kept in `<config dir>/tokens/<agent>.json` (mode 0600,
 * cli/token-store.ts) and attached to later calls to that agent (cli/agent.ts), refreshed when expired.
 * The client id and secret may come from the agent's own config file (`agents/<host>.env`, cli/config.ts).
 * No token is ever printed.
 */
import { agentCardOf, baseFetch, fetchCard, oauthFetch, requireAgent } from '../agent.ts';
import { type CommandGroup, print, run } from '../command.ts';
import { configDir, currentLayers, loginHint } from '../config.ts';
import { REDACTED } from '../debug.ts';
import { CliError } from '../errors.ts';
import {
  isExpired,
  listLogins,
  loginKeyOf,
  readLogin,
  removeLogin,
  type StoredLogin,
  tokenFile,
  writeLogin,
} from '../token-store.ts';

interface LoginArgs {
  flow?: 'device' | 'client-credentials';
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  tokenUrl?: string;
  deviceAuthorizationUrl?: string;
}

const isoOf = (seconds: number | undefined) =>
  seconds === undefined ? null : new Date(seconds * 1000).toISOString();

/** What may be shown of a login: everything but its tokens. */
const summaryOf = (key: string, login: StoredLogin, path: string) => ({
  agent: login.agent,
  key,
  flow: login.flow,
  issuer: login.issuer ?? null,
  clientId: login.clientId,
  scope: login.scope ?? null,
  tokenType: login.tokenType,
  accessToken: REDACTED,
  expiresAt: isoOf(login.expiresAt),
  expired: isExpired(login),
  refreshable: login.refreshToken !== undefined,
  store: path,
});

const summaryText = (s: ReturnType<typeof summaryOf>) =>
  [
    `Agent: ${s.agent}`,
    `Flow: ${s.flow}`,
    `Issuer: ${s.issuer ?? '(unknown)'}`,
    `Client: ${s.clientId}`,
    `Scope: ${s.scope ?? '(none)'}`,
    `Token: ${s.accessToken}`,
    `Expires: ${s.expiresAt ?? '(not said)'}`,
    `Expired: ${s.expired ? 'yes' : 'no'}`,
    `Refreshable: ${s.refreshable ? 'yes' : 'no'}`,
    `Stored: ${s.store}`,
  ].join('\n');

const dirOfRun = () => currentLayers()?.dir ?? configDir();

const keyOrFail = (ref: string, card?: Parameters<typeof loginKeyOf>[1]) => {
  const key = loginKeyOf(ref, card);
  if (!key)
    throw new CliError(
      'A2ACLI_ERR_USAGE',
      `cannot tell which agent ${JSON.stringify(ref)} is`,
      'give its URL or host',
    );
  return key;
};

export const authCommands: CommandGroup = (y) =>
  y.command('auth', 'OAuth login for an agent', (a) =>
    a
      .command(
        'login',
        'log in to the agent: device code (a person approves) or client credentials (a program)',
        (l) =>
          l
            .option('flow', {
              choices: ['device', 'client-credentials'] as const,
              describe: 'default: client-credentials when a client secret is set, else device',
            })
            .option('client-id', { type: 'string', describe: 'the OAuth client id (or A2ACLI_CLIENT_ID)' })
            .option('client-secret', {
              type: 'string',
              describe: 'the client secret, for client credentials (A2ACLI_CLIENT_SECRET, in a 0600 file)',
            })
            .option('scope', { type: 'string', describe: 'the scopes asked for, space separated' })
            .option('token-url', { type: 'string', describe: 'the token endpoint (default: from the card)' })
            .option('device-authorization-url', {
              type: 'string',
              describe: 'the device authorization endpoint (default: from the card)',
            }),
        run<LoginArgs>(async (args) => {
          // the OAuth client is loaded by the command that uses it only (cli/build.ts splits it off)
          const { clientCredentialsLogin, deviceCodeLogin, endpointsFor } = await import('../oauth.ts');
          const ref = requireAgent(args.agentCard);
          // the run's TLS settings (--insecure) and --debug, the client secret redacted too
          const fetchImpl = oauthFetch(args, [args.clientSecret ?? '']);
          const card = agentCardOf(await fetchCard(ref, baseFetch(args, {})));
          const flow =
            (args.flow ?? (args.clientSecret ? 'client-credentials' : 'device')) === 'device'
              ? 'device_code'
              : 'client_credentials';
          if (!args.clientId)
            throw new CliError(
              'A2ACLI_ERR_CREDENTIALS_MISSING',
              'no OAuth client id: give --client-id or set A2ACLI_CLIENT_ID',
              `${loginHint(ref)} --client-id <id>`,
            );
          if (flow === 'client_credentials' && !args.clientSecret)
            throw new CliError(
              'A2ACLI_ERR_CREDENTIALS_MISSING',
              'the client-credentials flow needs a client secret: set A2ACLI_CLIENT_SECRET (a 0600 file or the environment)',
              'or use --flow device',
            );
          const key = keyOrFail(ref, card);
          const endpoints = await endpointsFor(
            card,
            flow,
            {
              ...(args.tokenUrl ? { tokenUrl: args.tokenUrl } : {}),
              ...(args.deviceAuthorizationUrl ? { deviceAuthorizationUrl: args.deviceAuthorizationUrl } : {}),
            },
            fetchImpl,
          );
          const scope = args.scope ?? (endpoints.scopes.length > 0 ? endpoints.scopes.join(' ') : undefined);
          const client = {
            clientId: args.clientId,
            ...(args.clientSecret ? { clientSecret: args.clientSecret } : {}),
          };
          const login =
            flow === 'client_credentials'
              ? await clientCredentialsLogin(ref, endpoints, client, scope, fetchImpl)
              : await deviceCodeLogin(ref, endpoints, client, scope, fetchImpl, (d) =>
                  // the person's part goes to stderr: stdout stays the result (SPEC §9.1)
                  process.stderr.write(
                    `Open: ${d.verificationUriComplete ?? d.verificationUri}\nCode: ${d.userCode}\nWaiting for approval (the code expires in ${d.expiresIn} s)\n`,
                  ),
                );
          const path = writeLogin(dirOfRun(), key, login);
          const summary = summaryOf(key, login, path);
          print(args.output, summary, `${summaryText(summary)}\n`);
        }),
      )
      .command(
        'status',
        'the stored login for the agent (-a), or every stored login; no token is shown',
        (s) => s,
        run(async (args) => {
          const dir = dirOfRun();
          if (args.agentCard) {
            const key = keyOrFail(args.agentCard);
            const login = readLogin(dir, key);
            if (!login)
              throw new CliError(
                'A2ACLI_ERR_CREDENTIALS_MISSING',
                `no stored login for ${args.agentCard}`,
                loginHint(args.agentCard),
              );
            const summary = summaryOf(key, login, tokenFile(dir, key));
            print(args.output, summary, `${summaryText(summary)}\n`);
            return;
          }
          const all = listLogins(dir).map(({ key, login }) => summaryOf(key, login, tokenFile(dir, key)));
          print(
            args.output,
            { logins: all },
            all.length ? `${all.map(summaryText).join('\n\n')}\n` : 'Logins: none\n',
          );
        }),
      )
      .command(
        'logout',
        'forget the stored login for the agent',
        (s) => s,
        run(async (args) => {
          const ref = requireAgent(args.agentCard);
          const key = keyOrFail(ref);
          const removed = removeLogin(dirOfRun(), key);
          print(
            args.output,
            { agent: ref, removed },
            `Agent: ${ref}\nLogged out: ${removed ? 'yes' : 'no (no stored login)'}\n`,
          );
        }),
      )
      .demandCommand(1, 'name an auth command: login, status or logout'),
  );
