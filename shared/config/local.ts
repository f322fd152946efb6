/** The local runtime (`npm start`, local/; docs/development.md): where it listens and what it keeps. */
import { AUTH_JWT_ISSUER } from './auth.ts';
import { AGENT_MODULE } from './deployment.ts';
import { A2A_GENERATIONS } from './generations.ts';
import { oneOf, port, type Setting, section, text, url } from './settings.ts';

const LOCAL = ['npm start'] as const;

export const PORT = {
  name: 'PORT',
  doc: 'The port the local hub listens on (0 picks a free one).',
  format: () => port(),
  default: 8080,
  readBy: LOCAL,
} satisfies Setting<number>;

export const HOST = {
  name: 'HOST',
  doc: 'The address it binds to; anything but a loopback address needs authentication on.',
  format: () => text('a host name or address'),
  default: '127.0.0.1',
  readBy: LOCAL,
} satisfies Setting<string>;

export const SYNAPSE_DATA_DIR = {
  name: 'SYNAPSE_DATA_DIR',
  doc: 'Keeps the tables, the stream position and the push signing keys across restarts (as `--data-dir`).',
  format: () => text('a directory'),
  defaultText: 'unset: in memory',
  readBy: LOCAL,
} satisfies Setting<string>;

export const SYNAPSE_AUTH = {
  name: 'SYNAPSE_AUTH',
  doc: '`on`: API keys and JWTs (docs/security.md); `off`: dev mode even with AUTH_JWT_ISSUER set.',
  format: () => oneOf({ on: 'on', off: 'off' } as const),
  defaultText: 'unset: on when AUTH_JWT_ISSUER is set, else dev mode',
  readBy: LOCAL,
} satisfies Setting<'on' | 'off'>;

export const SYNAPSE_ALLOW_UNAUTHENTICATED = {
  name: 'SYNAPSE_ALLOW_UNAUTHENTICATED',
  doc: '`1`: dev mode on a host that is not a loopback address (as `--allow-unauthenticated`).',
  format: () => oneOf({ '1': true, '0': false }),
  default: false,
  readBy: LOCAL,
} satisfies Setting<boolean>;

export const SYNAPSE_QUIET_EVENTS = {
  name: 'SYNAPSE_QUIET_EVENTS',
  doc: '`1`: the lifecycle events are not printed.',
  format: () => oneOf({ '1': true, '0': false }),
  default: false,
  readBy: LOCAL,
} satisfies Setting<boolean>;

export const SYNAPSE_DYNAMO_JVM = {
  name: 'SYNAPSE_DYNAMO_JVM',
  doc: "DynamoDB Local's JVM options under `npm start`, space-separated.",
  format: () => text('JVM options'),
  default: '-XX:+UseParallelGC -Xms256m -Xmx1g',
  readBy: LOCAL,
} satisfies Setting<string>;

export const SYNAPSE_DYNAMO_ENDPOINT = {
  name: 'SYNAPSE_DYNAMO_ENDPOINT',
  doc: 'A DynamoDB Local already running (its URL): the hub makes a table of its own there, dropped when it stops, instead of starting one. Not with a data directory, which has its own.',
  format: () => url('an http URL of DynamoDB Local'),
  defaultText: 'unset: the hub starts its own',
  readBy: LOCAL,
} satisfies Setting<string>;

/** What `npm start` reads of its environment (local/cli.ts), checked before anything starts. */
export const localSettingsFrom = /* @__PURE__ */ section({
  port: PORT,
  host: HOST,
  dataDir: SYNAPSE_DATA_DIR,
  auth: SYNAPSE_AUTH,
  allowUnauthenticated: SYNAPSE_ALLOW_UNAUTHENTICATED,
  quietEvents: SYNAPSE_QUIET_EVENTS,
  issuer: AUTH_JWT_ISSUER,
  agentModule: AGENT_MODULE,
  generations: A2A_GENERATIONS,
});
