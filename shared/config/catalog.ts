/**
 * Every setting, by concern, and docs/configuration.md made from them (`npm run docs:config` writes
 * it; test/unit/config/docs.test.ts fails when the committed page differs). For scripts and tests
 * only: a function bundle imports the files of its concerns, never this one.
 */
import * as a2a from './a2a.ts';
import * as auth from './auth.ts';
import * as authorizer from './authorizer.ts';
import * as delivery from './delivery.ts';
import * as deployment from './deployment.ts';
import * as faults from './faults.ts';
import * as generations from './generations.ts';
import * as heartbeat from './heartbeat.ts';
import * as inspector from './inspector.ts';
import * as local from './local.ts';
import * as observability from './observability.ts';
import * as push from './push.ts';
import * as registry from './registry.ts';
import * as registryProbe from './registry-probe.ts';
import * as registryTrust from './registry-trust.ts';
import { ALL_FUNCTIONS, ConfigError, type Env, type Reader, readSetting, type Setting } from './settings.ts';
import * as synapse from './synapse.ts';
import * as tasks from './tasks.ts';

export interface Concern {
  /** The file under shared/config/ that declares them. */
  file: string;
  title: string;
  settings: readonly Setting<unknown>[];
}

const isSetting = (value: unknown): value is Setting<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Setting<unknown>).name === 'string' &&
  typeof (value as Setting<unknown>).format === 'function' &&
  Array.isArray((value as Setting<unknown>).readBy);

/** A module's settings, by name (a module namespace lists its exports sorted). */
const settingsOf = (module: Record<string, unknown>): Setting<unknown>[] =>
  Object.values(module).filter(isSetting);

export const CONCERNS: readonly Concern[] = [
  { file: 'deployment.ts', title: 'Deployment: where the parts are', settings: settingsOf(deployment) },
  { file: 'tasks.ts', title: 'Tasks', settings: settingsOf(tasks) },
  { file: 'heartbeat.ts', title: 'Heartbeats', settings: settingsOf(heartbeat) },
  { file: 'a2a.ts', title: 'A2A endpoints', settings: settingsOf(a2a) },
  { file: 'generations.ts', title: 'Task generations', settings: settingsOf(generations) },
  { file: 'auth.ts', title: 'Authentication', settings: settingsOf(auth) },
  { file: 'authorizer.ts', title: "The authorizer's JWTs", settings: settingsOf(authorizer) },
  { file: 'push.ts', title: 'Push notifications: URLs and signing', settings: settingsOf(push) },
  { file: 'delivery.ts', title: 'Deliveries', settings: settingsOf(delivery) },
  { file: 'synapse.ts', title: 'Synapse', settings: settingsOf(synapse) },
  { file: 'registry.ts', title: 'The agent registry', settings: settingsOf(registry) },
  { file: 'registry-trust.ts', title: "The registry's trusted keys", settings: settingsOf(registryTrust) },
  { file: 'registry-probe.ts', title: "The registry's health probe", settings: settingsOf(registryProbe) },
  { file: 'inspector.ts', title: 'The inspector', settings: settingsOf(inspector) },
  { file: 'observability.ts', title: 'Logs and metrics', settings: settingsOf(observability) },
  { file: 'local.ts', title: 'The local runtime (`npm start`)', settings: settingsOf(local) },
  { file: 'faults.ts', title: 'The local fault layer', settings: settingsOf(faults) },
];

/** Every setting, each once. */
export const ALL_SETTINGS: readonly Setting<unknown>[] = CONCERNS.flatMap((c) => c.settings);

/**
 * What is wrong with the variables `env` sets, every one checked (`npm start` runs every function, so it
 * checks them all before anything starts; a Lambda function checks its own when it first reads them).
 * A variable left unset is not a problem here: a required one is the stack's to set.
 */
export const problemsIn = (env: Env): string[] =>
  ALL_SETTINGS.flatMap((s) => {
    if (env[s.name] === undefined) return [];
    try {
      readSetting(s, env);
      return [];
    } catch (e) {
      return e instanceof ConfigError ? [...e.problems] : [e instanceof Error ? e.message : String(e)];
    }
  });

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

const defaultOf = (s: Setting<unknown>): string => {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined) return 'unset';
  if (typeof s.default === 'boolean') return s.default ? 'on' : 'off';
  return `\`${String(s.default)}\``;
};

const readersOf = (readBy: readonly Reader[]): string =>
  ALL_FUNCTIONS.every((f) => readBy.includes(f))
    ? 'every function'
    : readBy.map((r) => (r === 'npm start' ? '`npm start`' : r)).join(', ');

/** docs/configuration.md. */
export const configurationDoc = (): string => {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from shared/config/ by `npm run docs:config`; test/unit/config/docs.test.ts fails when it is stale. -->',
    '',
    'Every environment variable the hub reads, declared once in `shared/config/` (one file per concern, so a',
    "function's bundle carries only the declarations it reads). A value is checked when a function first reads",
    'it, which is when its container builds what it needs; a bad one fails that invocation (or `npm start`,',
    'before anything starts) with an error naming the variable, e.g.',
    '`DELIVERY_MAX_ATTEMPTS must be a whole number from 1 to 100, got "x"`. A blank value counts as unset',
    'unless its format says otherwise. Read by: the Lambda functions (`functions/<name>.ts`) and the local',
    'runtime itself (`npm start`, which also runs every function with the variables the stack would give them).',
    '',
  ];
  for (const concern of CONCERNS) {
    lines.push(`## ${concern.title}`, '', `\`shared/config/${concern.file}\``, '');
    lines.push('| Variable | Format | Default | Read by | What |', '|---|---|---|---|---|');
    for (const s of concern.settings) {
      const format = s.format().text + (s.secret ? ' (never shown in errors)' : '');
      lines.push(
        `| \`${s.name}\` | ${cell(format)} | ${cell(defaultOf(s))} | ${cell(readersOf(s.readBy))} | ${cell(s.doc)} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '## Read by libraries, not by the hub',
    '',
    'The AWS SDK reads `AWS_REGION`, the credentials and `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL_SQS` /',
    '`AWS_ENDPOINT_URL_EVENTBRIDGE` (the local endpoints `npm start` sets); Powertools reads `LOG_LEVEL`,',
    '`POWERTOOLS_LOG_LEVEL` and `POWERTOOLS_LOGGER_LOG_EVENT`; Node reads `NODE_OPTIONS` (`-c sourceMaps=true`',
    'sets it, docs/deploy.md). `npm start` sets `AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED` unless it is',
    'set. Scripts (`scripts/`) read their own variables.',
    '',
  );
  return lines.join('\n');
};
