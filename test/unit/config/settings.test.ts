/**
 * The config module (shared/config/): every setting's default, every format's refusals (the error
 * names the variable, says what it must be and shows the value unless it is a secret), blanks,
 * sections, and the process environment read as it is now.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STREAM_TIMING } from '../../../shared/app/a2a/stream.ts';
import { DEFAULT_SYNAPSE_MAX_RETRIES } from '../../../shared/app/delivery/synapse-callback.ts';
import { DEFAULT_MAX_REQUEST_DEADLINE_SECONDS } from '../../../shared/app/tasks/deadlines.ts';
import { DEFAULT_TASK_TIMEOUT_SECONDS } from '../../../shared/app/tasks/task-engine.ts';
import { a2aConfig } from '../../../shared/config/a2a.ts';
import { AUTH_MODE, DEFAULT_TENANT } from '../../../shared/config/auth.ts';
import { AUTH_JWT_DEFAULT_RIGHTS, jwtSettingsFrom } from '../../../shared/config/authorizer.ts';
import { ALL_SETTINGS } from '../../../shared/config/catalog.ts';
import { deliveryPolicyFrom, synapseMaxRetriesFrom } from '../../../shared/config/delivery.ts';
import { PUBLIC_URL, TABLE_NAME } from '../../../shared/config/deployment.ts';
import { processEnv, setEnvironment, withEnvironment } from '../../../shared/config/environment.ts';
import { heartbeatRulesFrom } from '../../../shared/config/heartbeat.ts';
import { localSettingsFrom } from '../../../shared/config/local.ts';
import {
  ConfigError,
  readSetting,
  requireSetting,
  type Setting,
  section,
  wholeNumber,
} from '../../../shared/config/settings.ts';
import { SYNAPSE_PEERS } from '../../../shared/config/synapse.ts';
import { DEFAULT_DELIVERY_POLICY } from '../../../shared/domain/delivery.ts';
import { DEFAULT_HEARTBEAT_RULES } from '../../../shared/domain/heartbeat.ts';

const byName = new Map(ALL_SETTINGS.map((s) => [s.name, s]));
const named = (name: string): Setting<unknown> => {
  const s = byName.get(name);
  assert.ok(s, `no setting ${name}`);
  return s;
};

/** The error a bad value gives, or fails. */
const errorOf = (name: string, raw: string): ConfigError => {
  try {
    readSetting(named(name), { [name]: raw });
  } catch (e) {
    assert.ok(e instanceof ConfigError, `${name}=${raw}: ${String(e)}`);
    return e;
  }
  assert.fail(`${name}=${JSON.stringify(raw)} was accepted`);
};

/** Values each setting refuses; a setting missing here must be one of FREE (every text is a value). */
const BAD: Readonly<Record<string, readonly string[]>> = {
  PUBLIC_URL: ['hub.example.com', 'ftp://hub.example.com', 'https://'],
  SYNAPSE_DYNAMO_ENDPOINT: ['127.0.0.1:8000', 'tcp://127.0.0.1:8000'],
  FAULTS: ['5%', 'x:5%', '7:120%', '7:0.1:nonsense', '7:0.1:throttle=2', '7:0.1:throttle:x'],
  EXECUTOR_QUEUE_URL: ['executor', 'sqs://q'],
  HEARTBEAT_QUEUE_URL: ['heartbeat'],
  DELIVERY_QUEUE_URL: ['delivery'],
  DELIVERY_DLQ_URL: ['dlq'],
  DELIVERY_IN_FLIGHT_SECONDS: ['0', '1.5', 'a minute'],
  EXECUTOR_DLQ_URL: ['executor-dlq'],
  HEARTBEAT_DLQ_URL: ['heartbeat-dlq'],
  REGISTRY_PROBE_DLQ_URL: ['probe-dlq'],
  RELAY_FAILURES_QUEUE_URL: ['relay-failures'],
  AUTH_JWT_DISCOVERY_URL: ['issuer/.well-known'],
  AUTH_JWT_JWKS_URL: ['keys.json'],
  TASK_TIMEOUT_SECONDS: ['x', '0', '-5', '1.5', '1e3', '0x10'],
  TASK_MAX_DEADLINE_SECONDS: ['a day', '0'],
  HEARTBEAT_INTERVAL_SECONDS: ['0', 'soon'],
  HEARTBEAT_MISSED_LIMIT: ['0', '1.5'],
  HEARTBEAT_MAX_RERUNS: ['-1', 'many'],
  BLOCKING_WAIT_MS: ['-1', '2.5', 'long'],
  STREAM_BUDGET_MS: ['0', '-1', 'Infinity', 'x'],
  STREAM_HEARTBEAT_MS: ['0', 'NaN'],
  AUTH_JWT_ALGORITHMS: ['RS256,none', 'NONE'],
  AUTH_JWT_DEFAULT_RIGHTS: ['read,admin', 'everything'],
  AUTH_JWT_MAX_TOKEN_AGE_SECONDS: ['1h', '-1', '31536001'],
  AUTH_JWT_CLOCK_TOLERANCE_SECONDS: ['-1', '1.5', 'a day', '301'],
  PUSH_URL_ALLOW_HTTP: ['yes', '1', 'TRUE'],
  DELIVERY_MAX_ATTEMPTS: ['x', '0', '2.5', '101'],
  DELIVERY_BASE_DELAY_SECONDS: ['-1', '901', 'soon'],
  DELIVERY_BACKOFF_FACTOR: ['0.5', 'double'],
  DELIVERY_MAX_DELAY_SECONDS: ['901', '-0.1'],
  DELIVERY_JITTER: ['2', 'lots', '-0.5'],
  DELIVERY_TIMEOUT_MS: ['0', '1.5', 'ten seconds'],
  SYNAPSE_MAX_RETRIES: ['-1', '100', '2.5'],
  SYNAPSE_SIGNATURE_WINDOW_SECONDS: ['0', '5m'],
  SYNAPSE_REMOTE_SKILLS: ['{nope', '[1]', '"echo"'],
  PORT: ['eighty', '65536', '-1'],
  SYNAPSE_AUTH: ['yes', 'ON'],
  SYNAPSE_ALLOW_UNAUTHENTICATED: ['true', 'yes'],
  SYNAPSE_QUIET_EVENTS: ['true', 'yes'],
  REGISTRY_PROBE_QUEUE_URL: ['probe'],
  REGISTRY_CATALOG_REFRESH_MS: ['-1', '60001', 'soon'],
  REGISTRY_PROBE_PERIOD_SECONDS: ['0', 'hourly'],
  REGISTRY_PROBE_TICK_SECONDS: ['0', '901'],
  REGISTRY_PROBE_TIMEOUT_MS: ['0', '5s'],
  REGISTRY_TRUSTED_KEYS: ['{nope', 'keys'],
};

/** Any text is a value of these (names, paths, ARNs, JSON checked by its parser, lenient switches). */
const FREE = new Set([
  'TABLE_NAME',
  'REGISTRY_DISPLAY_NAME',
  'EVENT_BUS_NAME',
  'AGENT_MODULE',
  'INSPECTOR_ASSETS_DIR',
  'A2A_GENERATIONS',
  'AUTH_MODE',
  'DEFAULT_TENANT',
  'AUTH_JWT_ISSUER',
  'AUTH_JWT_AUDIENCE',
  'AUTH_JWT_TENANT_CLAIM',
  'AUTH_JWT_DEFAULT_TENANT',
  'PUSH_URL_ALLOWLIST',
  'PUSH_SIGNING_KEYS',
  'PUSH_SIGNING_SECRET_ARN',
  'SYNAPSE_PEERS',
  'SYNAPSE_PEERS_SECRET_ARN',
  'SYNAPSE_AGENT_ID',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_METRICS_DISABLED',
  'POWERTOOLS_DEV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'HOST',
  'SYNAPSE_DATA_DIR',
  'SYNAPSE_DYNAMO_JVM',
]);

describe('settings: defaults', () => {
  it('every setting, unset or blank, has its declared default', () => {
    for (const s of ALL_SETTINGS) {
      assert.deepEqual(readSetting(s, {}), s.default, s.name);
      if (!s.keepBlank) assert.deepEqual(readSetting(s, { [s.name]: '  ' }), s.default, `${s.name} blank`);
    }
  });

  it("the defaults are the ones the code had: the domain's, the engine's, the worker's", () => {
    assert.deepEqual(deliveryPolicyFrom({}), DEFAULT_DELIVERY_POLICY);
    assert.equal(synapseMaxRetriesFrom({}), DEFAULT_SYNAPSE_MAX_RETRIES);
    assert.deepEqual(heartbeatRulesFrom({}), DEFAULT_HEARTBEAT_RULES);
    assert.deepEqual(a2aConfig({}), {
      blockingWaitMs: 25_000,
      streamBudgetMs: undefined,
      streamHeartbeatMs: STREAM_TIMING.heartbeatMs,
    });
    assert.equal(readSetting(named('TASK_TIMEOUT_SECONDS'), {}), DEFAULT_TASK_TIMEOUT_SECONDS);
    assert.equal(readSetting(named('TASK_MAX_DEADLINE_SECONDS'), {}), DEFAULT_MAX_REQUEST_DEADLINE_SECONDS);
    assert.equal(readSetting(named('DELIVERY_TIMEOUT_MS'), {}), 10_000);
    assert.equal(readSetting(named('SYNAPSE_SIGNATURE_WINDOW_SECONDS'), {}), 300);
    assert.equal(readSetting(named('SYNAPSE_AGENT_ID'), {}), 'synapse-hub');
    assert.equal(readSetting(DEFAULT_TENANT, {}), 'default');
    assert.equal(readSetting(AUTH_MODE, {}), 'required');
    assert.equal(readSetting(named('A2A_GENERATIONS'), {}), false);
    assert.equal(readSetting(named('PUSH_URL_ALLOW_HTTP'), {}), false);
    assert.equal(jwtSettingsFrom({}), undefined, 'no issuer: API keys only');
    assert.deepEqual(localSettingsFrom({}), {
      port: 8080,
      host: '127.0.0.1',
      dataDir: undefined,
      auth: undefined,
      allowUnauthenticated: false,
      quietEvents: false,
      issuer: undefined,
      agentModule: undefined,
      generations: false,
    });
  });

  it('values are trimmed, and read in their types', () => {
    assert.equal(readSetting(named('DELIVERY_MAX_ATTEMPTS'), { DELIVERY_MAX_ATTEMPTS: ' 3 ' }), 3);
    assert.equal(readSetting(named('DELIVERY_JITTER'), { DELIVERY_JITTER: '.5' }), 0.5);
    assert.equal(
      readSetting(named('DELIVERY_BASE_DELAY_SECONDS'), { DELIVERY_BASE_DELAY_SECONDS: '0.05' }),
      0.05,
    );
    assert.equal(
      readSetting(PUBLIC_URL, { PUBLIC_URL: ' https://hub.example.com/ ' }),
      'https://hub.example.com/',
    );
    assert.equal(readSetting(named('PUSH_URL_ALLOW_HTTP'), { PUSH_URL_ALLOW_HTTP: 'true' }), true);
    assert.equal(readSetting(named('PORT'), { PORT: '0' }), 0, 'PORT=0 picks a free port');
    assert.equal(readSetting(AUTH_MODE, { AUTH_MODE: 'none' }), 'none');
    assert.equal(readSetting(AUTH_MODE, { AUTH_MODE: 'jwt' }), 'required', 'anything but none authenticates');
    assert.deepEqual(readSetting(named('AUTH_JWT_ALGORITHMS'), { AUTH_JWT_ALGORITHMS: 'ES256, RS256,' }), [
      'ES256',
      'RS256',
    ]);
    assert.deepEqual(readSetting(AUTH_JWT_DEFAULT_RIGHTS, { AUTH_JWT_DEFAULT_RIGHTS: 'write read' }), [
      'read',
      'write',
    ]);
    for (const on of ['on', 'TRUE', 'y', '1'])
      assert.equal(readSetting(named('POWERTOOLS_DEV'), { POWERTOOLS_DEV: on }), true);
    assert.equal(
      readSetting(named('POWERTOOLS_METRICS_DISABLED'), { POWERTOOLS_METRICS_DISABLED: 'no' }),
      false,
    );
  });

  it('a blank value is a value where the format says so: no peers, no rights', () => {
    assert.equal(readSetting(SYNAPSE_PEERS, { SYNAPSE_PEERS: ' ' }), '');
    assert.deepEqual(readSetting(AUTH_JWT_DEFAULT_RIGHTS, { AUTH_JWT_DEFAULT_RIGHTS: '' }), []);
  });
});

describe('settings: bad values', () => {
  it('each bad value is an error naming the variable, what it must be, and the value', () => {
    for (const [name, values] of Object.entries(BAD)) {
      const text = named(name).format().text;
      for (const raw of values) {
        const e = errorOf(name, raw);
        assert.match(e.message, new RegExp(`^${name}\\b`), `${name}=${raw}: ${e.message}`);
        // a parser of its concern may say it its own way (AUTH_JWT_ALGORITHMS: may not list "none")
        if (!e.message.includes('may not list'))
          assert.equal(e.message, `${name} must be ${text}, got ${JSON.stringify(raw.trim())}`);
      }
    }
  });

  it('the example of docs/configuration.md', () => {
    assert.equal(
      errorOf('DELIVERY_MAX_ATTEMPTS', 'x').message,
      'DELIVERY_MAX_ATTEMPTS must be a whole number from 1 to 100, got "x"',
    );
    assert.equal(errorOf('PORT', 'eighty').message, 'PORT must be a port number, got "eighty"');
  });

  it('every setting either refuses some values (tested above) or takes any text', () => {
    for (const s of ALL_SETTINGS)
      assert.ok(Object.hasOwn(BAD, s.name) !== FREE.has(s.name), `${s.name}: in BAD or in FREE, not both`);
  });

  it("a secret's value is never shown", () => {
    const secret = {
      name: 'SOME_SECRET',
      doc: 'test',
      format: () => wholeNumber(1),
      secret: true,
      readBy: [],
    } satisfies Setting<number>;
    assert.throws(
      () => readSetting(secret, { SOME_SECRET: 'hunter2' }),
      (e: Error) => !e.message.includes('hunter2') && /^SOME_SECRET must be a whole number/.test(e.message),
    );
  });

  it('a section names every bad value at once, and checks across them', () => {
    assert.throws(
      () => deliveryPolicyFrom({ DELIVERY_MAX_ATTEMPTS: '0', DELIVERY_JITTER: 'lots' }),
      (e: ConfigError) =>
        e.problems.length === 2 &&
        /^DELIVERY_MAX_ATTEMPTS must be/.test(e.message) &&
        /; DELIVERY_JITTER must be/.test(e.message),
    );
    assert.throws(
      () => heartbeatRulesFrom({ HEARTBEAT_INTERVAL_SECONDS: '600' }),
      /HEARTBEAT_INTERVAL_SECONDS x HEARTBEAT_MISSED_LIMIT must be at most 900 s/,
    );
    assert.throws(
      () => jwtSettingsFrom({ AUTH_JWT_ISSUER: 'https://issuer.example' }),
      /AUTH_JWT_ISSUER, AUTH_JWT_AUDIENCE and AUTH_JWT_JWKS_URL go together/,
    );
    assert.throws(() => localSettingsFrom({ PORT: 'eighty', SYNAPSE_AUTH: 'yes' }), /PORT.*; SYNAPSE_AUTH/);
  });

  it("a required setting that is unset: the composition roots' error", () => {
    assert.throws(
      () => requireSetting(TABLE_NAME, {}),
      /^Error: Environment variable TABLE_NAME is not set$/,
    );
    assert.equal(requireSetting(TABLE_NAME, { TABLE_NAME: 't' }), 't');
  });
});

describe('settings: the process environment', () => {
  it('is read as it is now: a changed value is parsed again, an unchanged one is not', () => {
    const restore = setEnvironment({ DELIVERY_MAX_ATTEMPTS: '3' });
    try {
      const policy = deliveryPolicyFrom();
      assert.equal(policy.maxAttempts, 3);
      assert.equal(deliveryPolicyFrom(), policy, 'the same object while nothing changed');
      withEnvironment({ DELIVERY_MAX_ATTEMPTS: '4' }, () =>
        assert.equal(deliveryPolicyFrom().maxAttempts, 4),
      );
      assert.equal(deliveryPolicyFrom().maxAttempts, 3);
      withEnvironment({ DELIVERY_MAX_ATTEMPTS: 'x' }, () => assert.throws(() => deliveryPolicyFrom()));
    } finally {
      restore();
    }
    assert.equal(processEnv().DELIVERY_MAX_ATTEMPTS, undefined, 'put back');
  });

  it('setEnvironment: values win, defaults only where unset, all put back', () => {
    const restore = setEnvironment({ SYNAPSE_TEST_A: 'a' }, { SYNAPSE_TEST_A: 'x', SYNAPSE_TEST_B: 'b' });
    const inner = setEnvironment({}, { SYNAPSE_TEST_B: 'not this' });
    assert.equal(processEnv().SYNAPSE_TEST_A, 'a');
    assert.equal(processEnv().SYNAPSE_TEST_B, 'b');
    inner();
    restore();
    assert.equal(processEnv().SYNAPSE_TEST_A, undefined);
    assert.equal(processEnv().SYNAPSE_TEST_B, undefined);
  });

  it('a section built from settings reads only those', () => {
    const read = section({ attempts: named('DELIVERY_MAX_ATTEMPTS') });
    assert.deepEqual(read({ DELIVERY_MAX_ATTEMPTS: '2', DELIVERY_JITTER: 'lots' }), { attempts: 2 });
  });
});
