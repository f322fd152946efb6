/**
 * `npm start`: runs the hub until SIGINT/SIGTERM. Split from main.ts so a test
 * can run the same start-up, messages and shutdown with fake handlers.
 *
 * A signal stops the hub without waiting for the agents: work in flight gets
 * the hub's stop grace (DEFAULT_STOP_GRACE_MS), then the process exits and
 * leaves what still ran to its tasks' leases. A second signal exits at once.
 */

import { problemsIn } from '../shared/config/catalog.ts';
import { setEnvironment } from '../shared/config/environment.ts';
import { localSettingsFrom } from '../shared/config/local.ts';
import { INSPECTOR_PATH, JSONRPC_PATH, REGISTRY_PATH, ROUTES } from '../shared/contracts/routes.ts';
import { GENERATIONS_EXTENSION_URI } from '../shared/protocol/a2a/generations.ts';
import { JavaMissingError } from './dynamodb-local.ts';
import type { BusEvent } from './event-bus.ts';
import { DEFAULT_STOP_GRACE_MS, type HubHandlers, type LocalHub, startLocalHub } from './hub.ts';

/** The ids of the events printed lately (the last 10,000): whether `id` was one, remembering it now. */
const printed = new Set<unknown>();
const printedOnce = (id: unknown): boolean => {
  if (id === undefined) return false;
  if (printed.has(id)) return true;
  printed.add(id);
  if (printed.size > 10_000) printed.delete(printed.values().next().value);
  return false;
};

export interface CliOptions {
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** For tests: handlers instead of functions/*.ts. */
  handlers?: Partial<HubHandlers>;
  /** How the start-up message says to call the command line (`synapse dev` says `npx synapse`). */
  synapseCommand?: string;
}

export const SEND_MESSAGE_EXAMPLE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
});

/** An ARD search of the hub's registry, which finds the demo agent (its own card is published at start). */
export const REGISTRY_SEARCH_EXAMPLE = JSON.stringify({ query: { text: 'echo' } });

const dataDirFlag = (argv: string[]): string | undefined => {
  const i = argv.findIndex((a) => a === '--data-dir' || a.startsWith('--data-dir='));
  if (i < 0) return undefined;
  const arg = argv[i]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1];
  if (!value) throw new Error('--data-dir needs a directory');
  return value;
};

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * An admin CLI command against this hub's table, as printed at start (`npm run <script>`): it works as
 * printed in any shell, with no AWS settings (the CLIs default region and credentials for a local endpoint).
 */
export const adminCommand = (hub: { dynamoEndpoint: string; tableName: string }, script: string): string =>
  `AWS_ENDPOINT_URL_DYNAMODB=${hub.dynamoEndpoint} TABLE_NAME=${hub.tableName} npm run ${script}`;

/**
 * Authentication is on when SYNAPSE_AUTH=on or an OIDC issuer is configured (AUTH_JWT_ISSUER), unless
 * SYNAPSE_AUTH=off; off is dev mode, allowed on a loopback host only, unless forced with
 * SYNAPSE_ALLOW_UNAUTHENTICATED=1 (or --allow-unauthenticated).
 */
export const authModeOf = (
  env: NodeJS.ProcessEnv,
  argv: string[],
  host: string,
): { mode: 'dev' | 'auth' } | { refused: string } => {
  const settings = localSettingsFrom(env);
  const on = settings.auth === 'on' || (settings.auth !== 'off' && settings.issuer !== undefined);
  if (on) return { mode: 'auth' };
  const forced = settings.allowUnauthenticated || argv.includes('--allow-unauthenticated');
  if (!LOOPBACK.has(host) && !forced)
    return {
      refused:
        `Refusing to start unauthenticated on ${host}: anyone who reaches it could read and change every task. ` +
        'Turn authentication on (SYNAPSE_AUTH=on, docs/security.md), bind to 127.0.0.1, or force it with ' +
        'SYNAPSE_ALLOW_UNAUTHENTICATED=1.',
    };
  return { mode: 'dev' };
};

const DEV_BANNER = [
  '',
  '  ************************************************************************',
  '  *  DEV MODE: NO AUTHENTICATION. Every request is the anonymous owner   *',
  '  *  of tenant "default". Do not expose this hub; SYNAPSE_AUTH=on turns  *',
  '  *  API keys and JWTs on (docs/security.md).                            *',
  '  ************************************************************************',
  '',
].join('\n');

const fail = (message: string): never => {
  console.error(message);
  process.exit(1);
};

export const runCli = async ({
  argv,
  env,
  handlers,
  synapseCommand = 'npm run synapse --',
}: CliOptions): Promise<LocalHub> => {
  const started = performance.now();
  // the SDK's notice that future versions need Node 22 would open every start-up; Lambda runs 22 already
  setEnvironment({}, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
  const problems = problemsIn(env);
  if (problems.length > 0)
    return fail(`Cannot start the local hub (docs/configuration.md):\n  ${problems.join('\n  ')}`);
  let settings: ReturnType<typeof localSettingsFrom>;
  try {
    settings = localSettingsFrom(env);
  } catch (e) {
    return fail((e as Error).message);
  }
  const { port, host } = settings;
  const auth = authModeOf(env, argv, host);
  if ('refused' in auth) fail(auth.refused);
  const dev = 'mode' in auth && auth.mode === 'dev';
  let dataDir: string | undefined;
  try {
    dataDir = dataDirFlag(argv) ?? settings.dataDir;
  } catch (e) {
    fail((e as Error).message);
  }

  // a signal during start-up exits at once; dynamodb-local.ts kills Java on exit
  let hub: LocalHub | undefined;
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (!hub || stopping) process.exit(130);
    stopping = true;
    const grace = (DEFAULT_STOP_GRACE_MS / 1000).toFixed(0);
    console.log(
      `\n${signal}: stopping the local hub (${grace} s for work in flight; again to quit at once)…`,
    );
    const t0 = performance.now();
    await hub.stop();
    console.log(`Stopped in ${((performance.now() - t0) / 1000).toFixed(1)} s.`);
    process.exit(0);
  };
  process.on('SIGINT', (s) => void shutdown(s));
  process.on('SIGTERM', (s) => void shutdown(s));

  try {
    hub = await startLocalHub({
      port,
      host,
      ...(dataDir ? { dataDir } : {}),
      auth: dev ? 'dev' : {},
      ...(settings.agentModule ? { agentModule: settings.agentModule } : {}),
      ...(handlers ? { handlers } : {}),
      // lifecycle events go to the log; SYNAPSE_QUIET_EVENTS=1 keeps them off it
      ...(settings.quietEvents
        ? {}
        : {
            onLifecycleEvent: (e: BusEvent) => {
              // an event can reach the bus twice (a relay batch retried): shown once, by its id, as a
              // target de-duplicates (docs/events.md#delivery)
              if (printedOnce(e.detail.id)) return;
              console.log(
                e.detail.taskId !== undefined
                  ? `event: ${e.detailType} ${String(e.detail.taskId)} → ${String(e.detail.a2aState)}`
                  : `event: ${e.detailType} ${String(e.detail.identifier)} → ${String(e.detail.state ?? e.detail.health)}`,
              );
            },
          }),
    });
  } catch (e) {
    if (e instanceof JavaMissingError) return fail(`Cannot start the local hub: ${e.message}`);
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      return fail(
        `Cannot start the local hub: port ${port} on ${host} is already in use. ` +
          'Stop whatever holds it, or pick another port: PORT=8081 npm start (PORT=0 picks a free one).',
      );
    }
    return fail(`Cannot start the local hub: ${e instanceof Error ? e.message : String(e)}`);
  }

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const inRepository = synapseCommand === 'npm run synapse --';
  const card = ROUTES.find((r) => r.function === 'agent-card')!.path;
  console.log(
    [
      `Synapse local hub ready in ${seconds} s on ${hub.url}`,
      `  Agent card: ${hub.url}${card}`,
      `  JSON-RPC:   ${hub.url}${JSONRPC_PATH}`,
      `  Inspector:  ${hub.url}${INSPECTOR_PATH} (every task, live; answer, decide, cancel: docs/inspector.md)`,
      `  Data:       ${dataDir ? `kept in ${dataDir}` : 'in memory (--data-dir or SYNAPSE_DATA_DIR keeps it)'}`,
      // in a user's project (synapse dev) there are no npm scripts: the command line is the door
      `  DynamoDB:   ${hub.dynamoEndpoint} (table ${hub.tableName}${inRepository ? `; e.g. ${adminCommand(hub, 'delivery-log -- <taskId>')}` : ''})`,
      ...(hub.recovered
        ? [
            `  Recovered:  ${hub.recovered.live} live task(s): ${hub.recovered.runs} run(s) and ${hub.recovered.watches} heartbeat watch(es) queued again`,
          ]
        : []),
      dev
        ? '  Auth:       NONE (dev mode)'
        : `  Auth:       API keys${settings.issuer ? ` and JWTs of ${settings.issuer}` : ''}; make a tenant and a key with ` +
          (inRepository
            ? adminCommand(hub, 'auth -- tenants add acme')
            : `AWS_ENDPOINT_URL_DYNAMODB=${hub.dynamoEndpoint} TABLE_NAME=${hub.tableName} ${synapseCommand} admin tenants add acme`),
      ...(settings.generations
        ? [
            '  Generations: on (A2A dev-1.1; shown to requests that send A2A-Extensions: ' +
              `${GENERATIONS_EXTENSION_URI}, docs/generations.md)`,
          ]
        : []),
      'Try:',
      `  curl -s ${hub.url}${JSONRPC_PATH} -H 'Content-Type: application/json' -H 'A2A-Version: 1.0'${dev ? '' : " -H 'Authorization: Bearer <key>'"} -d '${SEND_MESSAGE_EXAMPLE}'`,
      `  curl -s ${hub.url}${REGISTRY_PATH}/search -H 'Content-Type: application/json'${dev ? '' : " -H 'Authorization: Bearer <key>'"} -d '${REGISTRY_SEARCH_EXAMPLE}'`,
      `  ${synapseCommand} send -a ${hub.url}${dev ? '' : ' --api-key <key>'} --text hello   (the command line: docs/cli.md)`,
      'Press Ctrl+C to stop.',
    ].join('\n'),
  );
  if (dev) console.warn(DEV_BANNER);
  return hub;
};
