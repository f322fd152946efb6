/**
 * `synapse` configuration and OAuth login end to end (a2a-cli SPEC §4.5, §6.4, §10; docs/cli.md): the
 * bundled CLI as a child process, with a HOME and XDG_CONFIG_HOME of its own, against the local hub in
 * JWT mode and the local OAuth issuer (local/oidc-issuer.ts) it trusts. The layers flag > env > local >
 * agent > global > default, shown by `config show` and by what the CLI does; credentials kept in 0600
 * files only and never shown; the device-code flow (the test approves the code at the issuer, as the
 * person would), the client-credentials flow, the stored token attached to later calls, its refresh,
 * status and logout, and the agent's refusal (exit 4).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { type LocalIssuer, startLocalIssuer } from '../../local/oidc-issuer.ts';
import { authCli } from './fixtures/auth.ts';
import { buildCliRunner, type CliRunner, type Doc, json, type Run } from './fixtures/cli-run.ts';

const DEVICE_CLIENT = 'synapse-cli';
const CI_CLIENT = { clientId: 'ci-bot', clientSecret: 'ci-bot-secret-of-the-test-0123456789' };

let hub: LocalHub;
let issuer: LocalIssuer;
let cli: CliRunner;
/** A fresh HOME (with its XDG_CONFIG_HOME) and working directory per test. */
let home: string;
let work: string;

const configHome = () => join(home, 'xdg');
const configDir = () => join(configHome(), 'a2a-cli');
/** The agent scope's name of the hub as `hub.url` gives it. */
const hubKey = () => new URL(hub.url).host.replace(':', '_');
const tokenPath = () => join(configDir(), 'tokens', `${hubKey()}.json`);

const write = (path: string, text: string, mode = 0o600) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
};

/** `synapse …args` in the test's directory, with only the test's A2ACLI_ environment. */
const synapse = (
  args: string[],
  env: Record<string, string> = {},
  onStderr?: (text: string) => void,
): Promise<Run> => {
  const running = cli.start(args, { cwd: work, env: { HOME: home, XDG_CONFIG_HOME: configHome(), ...env } });
  if (onStderr) running.child.stderr?.on('data', () => onStderr(running.out().stderr));
  return running.done;
};

/** The setting `name` of `config show -o json`. */
const settingOf = (run: Run, name: string): Doc => {
  assert.equal(run.code, 0, run.stderr);
  const setting = (json(run).settings as Doc[]).find((s) => s.name === name);
  assert.ok(setting, `config show names ${name}:\n${run.stdout}`);
  return setting;
};

/** The setting `name` of `config show` in whichever format it printed (the format may be what is tested). */
const shownSetting = (run: Run, name: string): Doc => {
  if (run.stdout.startsWith('{')) return settingOf(run, name);
  assert.equal(run.code, 0, run.stderr);
  const line = new RegExp(
    `^Setting ${name}: (.*) \\((flag|env|local|agent|global|default)(?: (.+))?\\)$`,
    'm',
  ).exec(run.stdout);
  assert.ok(line, `config show names ${name}:\n${run.stdout}`);
  return { value: line[1], source: line[2], file: line[3] };
};

/** The error envelope, which `-o json` prints on stdout. */
const errorOf = (run: Run): Doc => json(run).error;

/** The device flow as the person does it: read the code the CLI shows, approve (or deny) it at the issuer. */
const deviceLogin = async (
  decision: { subject: string; claims: object } | 'deny',
  args: string[] = [],
): Promise<Run> => {
  let approving: Promise<Response> | undefined;
  const run = await synapse(
    ['auth', 'login', '-a', hub.url, '--client-id', DEVICE_CLIENT, '-o', 'json', ...args],
    {},
    (stderr) => {
      const code = /^Code: (\S+)$/m.exec(stderr)?.[1];
      if (!code || approving) return;
      const form = new URLSearchParams(
        decision === 'deny'
          ? { user_code: code, action: 'deny' }
          : { user_code: code, subject: decision.subject, claims: JSON.stringify(decision.claims) },
      );
      approving = fetch(`${issuer.url}/device`, { method: 'POST', body: form });
    },
  );
  assert.ok(approving, `the CLI showed a code to approve:\n${run.stderr}`);
  assert.equal((await approving).status, 200);
  return run;
};

before(async () => {
  issuer = await startLocalIssuer();
  issuer.addClient({ clientId: DEVICE_CLIENT });
  issuer.addClient({ ...CI_CLIENT, subject: 'ci-bot', claims: { tenant: 'acme' } });
  [hub, cli] = await Promise.all([
    startLocalHub({
      port: 0,
      host: '127.0.0.1',
      sweepIntervalMs: 60_000,
      auth: { throttle: false },
      env: {
        AUTH_JWT_ISSUER: issuer.url,
        AUTH_JWT_AUDIENCE: issuer.audience,
        AUTH_JWT_JWKS_URL: issuer.jwksUrl,
      },
    }),
    buildCliRunner(),
  ]);
  const admin = authCli(hub);
  await admin.addTenant('acme');
  admin.close();
});

after(async () => {
  await hub?.stop();
  await issuer?.stop();
  cli?.remove();
});

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'synapse-cli-config-home-'));
  work = join(home, 'project');
  mkdirSync(work);
});

describe('synapse configuration', () => {
  it('[A2ACLI_CONFIG_002] [A2ACLI_DEFAULT_001/output_human_readable_text] each layer is beaten by the one above it: flag > env > local > agent > global > default', async () => {
    const global = join(configDir(), '.env');
    const agent = join(configDir(), 'agents', `${hubKey()}.env`);
    const local = join(work, '.env');
    const a = ['-a', hub.url];
    /** The source config show names, the value, and whether `card get` printed json, in this state. */
    const observe = async (env: Record<string, string> = {}, flags: string[] = []) => {
      const setting = shownSetting(await synapse(['config', 'show', ...a, ...flags], env), 'output');
      const card = await synapse(['card', 'get', ...a, ...flags], env);
      assert.equal(card.code, 0, card.stderr);
      return {
        source: setting.source,
        value: setting.value,
        file: setting.file,
        printed: card.stdout.startsWith('{') ? 'json' : 'text',
      };
    };
    // nothing configured: the built-in default, text
    const none = await synapse(['config', 'show', ...a]);
    assert.match(none.stdout, /^Setting output: text \(default\)$/m);
    assert.equal((await synapse(['card', 'get', ...a])).stdout.split('\n')[0]?.startsWith('Name: '), true);

    write(global, 'A2ACLI_OUTPUT=json\n');
    assert.deepEqual(await observe(), { source: 'global', value: 'json', file: global, printed: 'json' });
    write(agent, 'A2ACLI_OUTPUT=text\n');
    assert.deepEqual(await observe(), { source: 'agent', value: 'text', file: agent, printed: 'text' });
    write(local, 'A2ACLI_OUTPUT=json\n');
    assert.deepEqual(await observe(), { source: 'local', value: 'json', file: local, printed: 'json' });
    const env = { A2ACLI_OUTPUT: 'text' };
    assert.deepEqual(await observe(env), { source: 'env', value: 'text', file: undefined, printed: 'text' });
    assert.deepEqual(await observe(env, ['-o', 'json']), {
      source: 'flag',
      value: 'json',
      file: undefined,
      printed: 'json',
    });

    // --config replaces the local .env, and is itself beaten by the environment
    const explicit = join(home, 'other.env');
    write(explicit, 'A2ACLI_OUTPUT=text\n');
    const viaConfig = shownSetting(await synapse(['config', 'show', ...a, '--config', explicit]), 'output');
    assert.deepEqual([viaConfig.source, viaConfig.file, viaConfig.value], ['local', explicit, 'text']);
    const shown = json(await synapse(['config', 'show', ...a, '--config', explicit, '-o', 'json']));
    assert.equal(shown.files.find((f: Doc) => f.source === 'local').path, explicit);
    const card = await synapse(['card', 'get', ...a, '--config', explicit]);
    assert.match(card.stdout, /^Name: /, 'the --config file (text) wins over the global (json) file');
    const viaEnv = await synapse(['card', 'get', ...a], { A2ACLI_CONFIG: explicit });
    assert.match(viaEnv.stdout, /^Name: /, 'A2ACLI_CONFIG names the file as --config does');
    // --stream is never taken from a file or the environment (SPEC §9.3)
    write(local, 'A2ACLI_STREAM=true\n');
    const token = await issuer.token('bob', { tenant: 'acme' });
    const notStreamed = await synapse(['send', ...a, '-o', 'json', '--text', 'hello'], {
      A2ACLI_STREAM: 'true',
      A2ACLI_BEARER: token,
    });
    assert.equal(notStreamed.code, 0, notStreamed.stderr);
    assert.equal(json(notStreamed).task.status.state, 'TASK_STATE_COMPLETED', 'one document, not a stream');
    const missing = await synapse(['card', 'get', ...a, '--config', join(home, 'nowhere.env')]);
    assert.equal(missing.code, 2, missing.stderr);
  });

  it('[A2ACLI_CONFIG_002] settings scoped by the agent card reference: the agent file applies to that agent only', async () => {
    write(join(configDir(), 'agents', `${hubKey()}.env`), 'A2ACLI_OUTPUT=json\n');
    const other = hub.url.replace('127.0.0.1', 'localhost');
    const scoped = await synapse(['card', 'get', '-a', hub.url]);
    assert.equal(scoped.code, 0, scoped.stderr);
    assert.equal(json(scoped).name.length > 0, true);
    const unscoped = await synapse(['card', 'get', '-a', other]);
    assert.equal(unscoped.code, 0, unscoped.stderr);
    assert.match(unscoped.stdout, /^Name: /m, 'another agent (another host) does not read it');
    // the agent is chosen by the global file: its scope follows
    write(join(configDir(), '.env'), `A2ACLI_AGENT_CARD=${hub.url}\n`);
    // no -o: the agent file's json applies to config show itself
    const viaGlobal = await synapse(['config', 'show']);
    const files = json(viaGlobal).files as Doc[];
    assert.deepEqual(
      files.map((f) => [f.source, f.found]),
      [
        ['local', false],
        ['agent', true],
        ['global', true],
      ],
    );
    assert.equal(settingOf(viaGlobal, 'agent-card').source, 'global');
    assert.equal(settingOf(viaGlobal, 'output').source, 'agent');
  });

  it('[A2ACLI_CONFIG_001] a credential is read from a 0600 file only, config show redacts it and writes nothing, no session state is kept', async () => {
    const token = await issuer.token('bob', { tenant: 'acme' });
    const global = join(configDir(), '.env');
    write(global, `A2ACLI_BEARER=${token}\n`, 0o644);
    const refused = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(refused.code, 2, refused.stderr);
    const error = errorOf(refused);
    assert.equal(error.code, 'A2ACLI_ERR_USAGE');
    assert.match(error.message, /readable by others/);
    assert.match(error.hint, /chmod 600/);

    chmodSync(global, 0o600);
    const sent = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(sent.code, 0, sent.stderr);
    const task = json(sent).task;
    assert.equal(task.status.state, 'TASK_STATE_COMPLETED');

    const before = readFileSync(global, 'utf8');
    for (const format of ['json', 'text']) {
      const show = await synapse(['config', 'show', '-a', hub.url, '-o', format]);
      assert.equal(show.code, 0, show.stderr);
      assert.ok(!show.stdout.includes(token), 'the token is never shown');
      if (format === 'json') {
        const bearer = settingOf(show, 'bearer');
        assert.deepEqual([bearer.value, bearer.source, bearer.file], ['[redacted]', 'global', global]);
      } else assert.match(show.stdout, /^Setting bearer: \[redacted\] \(global .+\)$/m);
    }
    assert.equal(readFileSync(global, 'utf8'), before, 'config show is read-only');
    assert.equal(statSync(global).mode & 0o777, 0o600);
    // what persists is configuration: no task or context id anywhere under the config dir
    const everything = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? everything(join(dir, e.name)) : [readFileSync(join(dir, e.name), 'utf8')],
      );
    for (const text of everything(configDir())) {
      assert.ok(!text.includes(task.id) && !text.includes(task.contextId), 'no session state recorded');
    }
  });

  it('[A2ACLI_AUTH_002] the credential from the environment, beaten by the flag; the agent’s refusal exits 4', async () => {
    const good = await issuer.token('bob', { tenant: 'acme' });
    const bad = await issuer.token('bob', { tenant: 'acme' }, { forged: true });
    const send = (env: Record<string, string>, flags: string[] = []) =>
      synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello', ...flags], env);
    assert.equal((await send({ A2ACLI_BEARER: good })).code, 0);
    const flagWins = await send({ A2ACLI_BEARER: bad }, ['--bearer', good]);
    assert.equal(flagWins.code, 0, flagWins.stderr);
    const refused = await send({ A2ACLI_BEARER: good }, ['--bearer', bad]);
    assert.equal(refused.code, 4, refused.stderr);
    assert.equal(errorOf(refused).code, 'A2ACLI_ERR_AUTH_FAILED');
    assert.ok(!refused.stderr.includes(bad));
  });

  it('[A2ACLI_ERR_CREDENTIALS_MISSING] no credential and no login: the agent’s refusal exits 4 and names auth login', async () => {
    const run = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(run.code, 4, run.stderr);
    const error = errorOf(run);
    assert.equal(error.code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
    assert.match(error.hint, /auth login -a /);
    assert.equal(error.a2aCode, null, 'refused before sending: the card requires a credential');
    const streamed = await synapse(['send', '-a', hub.url, '-o', 'json', '--stream', '--text', 'hello']);
    assert.equal(streamed.code, 4, streamed.stderr);
    assert.equal(errorOf(streamed).code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
    const noClient = await synapse([
      'auth',
      'login',
      '-a',
      hub.url,
      '--flow',
      'client-credentials',
      '-o',
      'json',
    ]);
    assert.equal(noClient.code, 4, noClient.stderr);
    assert.equal(errorOf(noClient).code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
  });
});

describe('synapse auth', () => {
  it('[A2ACLI_AUTH_006] [A2ACLI_AUTH_007] [A2ACLI_AUTH_004] client credentials from the agent’s 0600 file: a login stored 0600, attached to later calls, never in --debug', async () => {
    write(
      join(configDir(), 'agents', `${hubKey()}.env`),
      `A2ACLI_CLIENT_ID=${CI_CLIENT.clientId}\nA2ACLI_CLIENT_SECRET=${CI_CLIENT.clientSecret}\n`,
    );
    const grantsBefore = issuer.grants.length;
    const login = await synapse(['auth', 'login', '-a', hub.url, '-o', 'json', '--debug']);
    assert.equal(login.code, 0, login.stderr);
    const summary = json(login);
    assert.deepEqual(
      [summary.flow, summary.clientId, summary.accessToken, summary.store],
      ['client_credentials', CI_CLIENT.clientId, '[redacted]', tokenPath()],
    );
    assert.deepEqual(
      issuer.grants.slice(grantsBefore).map((g) => [g.grantType, g.clientId, g.outcome]),
      [['client_credentials', CI_CLIENT.clientId, 'issued']],
    );
    assert.equal(statSync(tokenPath()).mode & 0o777, 0o600);
    assert.equal(statSync(join(configDir(), 'tokens')).mode & 0o777, 0o700);
    const stored = JSON.parse(readFileSync(tokenPath(), 'utf8'));
    assert.match(stored.accessToken, /^ey/);
    assert.match(login.stderr, /debug: > POST .*\/token/);
    assert.ok(!login.stderr.includes(CI_CLIENT.clientSecret), 'the client secret is redacted');
    assert.ok(!login.stderr.includes(stored.accessToken), 'the access token is redacted');
    assert.ok(!login.stdout.includes(stored.accessToken));

    // the stored token is attached: the hub in JWT mode accepts the call without --bearer
    const sent = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello', '--debug']);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(json(sent).task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(sent.stderr, /debug: > authorization: Bearer \[redacted\]/);
    assert.ok(!sent.stderr.includes(stored.accessToken));

    // a wrong secret is the issuer's refusal: exit 4
    const wrong = await synapse(['auth', 'login', '-a', hub.url, '-o', 'json'], {
      A2ACLI_CLIENT_SECRET: 'not-the-secret',
    });
    assert.equal(wrong.code, 4, wrong.stderr);
    assert.equal(errorOf(wrong).code, 'A2ACLI_ERR_AUTH_FAILED');
    assert.match(errorOf(wrong).message, /invalid_client/);

    // expired, with no refresh token: the configured client secret gets a new token first
    const stored2 = JSON.parse(readFileSync(tokenPath(), 'utf8'));
    write(tokenPath(), JSON.stringify({ ...stored2, expiresAt: Math.floor(Date.now() / 1000) - 60 }));
    const grantsThen = issuer.grants.length;
    const renewed = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(renewed.code, 0, renewed.stderr);
    assert.deepEqual(
      issuer.grants.slice(grantsThen).map((g) => [g.grantType, g.outcome]),
      [['client_credentials', 'issued']],
    );
    assert.notEqual(JSON.parse(readFileSync(tokenPath(), 'utf8')).accessToken, stored2.accessToken);
  });

  it('[A2ACLI_AUTH_006] the endpoint from an oauth2 scheme of a card file, or from --token-url', async () => {
    // the hub's card as a file, its security an oauth2 client-credentials flow at the issuer
    const card = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as Doc;
    card.securitySchemes = {
      oauth: {
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: issuer.tokenEndpoint, scopes: {} } },
        },
      },
    };
    card.securityRequirements = [{ schemes: { oauth: { list: [] } } }];
    delete card.signatures;
    const cardFile = join(work, 'card.json');
    writeFileSync(cardFile, JSON.stringify(card));
    const env = { A2ACLI_CLIENT_ID: CI_CLIENT.clientId, A2ACLI_CLIENT_SECRET: CI_CLIENT.clientSecret };
    const login = await synapse(['auth', 'login', '-a', cardFile, '-o', 'json'], env);
    assert.equal(login.code, 0, login.stderr);
    // a card file's login is kept under its first interface's host
    assert.deepEqual([json(login).flow, json(login).store], ['client_credentials', tokenPath()]);
    assert.equal(JSON.parse(readFileSync(tokenPath(), 'utf8')).tokenEndpoint, issuer.tokenEndpoint);
    const sent = await synapse(['send', '-a', cardFile, '-o', 'json', '--text', 'hello']);
    assert.equal(sent.code, 0, sent.stderr);

    rmSync(tokenPath());
    const flagged = await synapse(
      [
        'auth',
        'login',
        '-a',
        hub.url,
        '--flow',
        'client-credentials',
        '--token-url',
        issuer.tokenEndpoint,
        '-o',
        'json',
      ],
      env,
    );
    assert.equal(flagged.code, 0, flagged.stderr);
    assert.equal(JSON.parse(readFileSync(tokenPath(), 'utf8')).tokenEndpoint, issuer.tokenEndpoint);
  });

  it('[A2ACLI_AUTH_005] [A2ACLI_AUTH_007] the device-code flow: the person approves the code at the issuer; the token is attached, refreshed when expired', async () => {
    const login = await deviceLogin({ subject: 'bob', claims: { tenant: 'acme' } });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stderr, new RegExp(`^Open: ${issuer.url}/device\\?user_code=`, 'm'));
    const summary = json(login);
    assert.deepEqual([summary.flow, summary.refreshable, summary.expired], ['device_code', true, false]);
    assert.equal(statSync(tokenPath()).mode & 0o777, 0o600);
    const first = JSON.parse(readFileSync(tokenPath(), 'utf8'));

    const list = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(list.code, 0, list.stderr);

    // expired: the next call refreshes it first (the refresh token rotates), then succeeds
    write(tokenPath(), JSON.stringify({ ...first, expiresAt: Math.floor(Date.now() / 1000) - 60 }));
    const grantsBefore = issuer.grants.length;
    const again = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello', '--debug']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      issuer.grants.slice(grantsBefore).map((g) => [g.grantType, g.outcome]),
      [['refresh_token', 'issued']],
    );
    const refreshed = JSON.parse(readFileSync(tokenPath(), 'utf8'));
    assert.notEqual(refreshed.accessToken, first.accessToken);
    assert.notEqual(refreshed.refreshToken, first.refreshToken);
    assert.ok(refreshed.expiresAt > Math.floor(Date.now() / 1000));
    assert.equal(statSync(tokenPath()).mode & 0o777, 0o600);
    for (const secret of [first.refreshToken, refreshed.refreshToken, refreshed.accessToken])
      assert.ok(!again.stderr.includes(secret), '--debug shows no token');
  });

  it('[A2ACLI_AUTH_005] a denied device code exits 4 and stores nothing', async () => {
    const run = await deviceLogin('deny');
    assert.equal(run.code, 4, run.stderr);
    assert.equal(errorOf(run).code, 'A2ACLI_ERR_AUTH_FAILED');
    assert.match(errorOf(run).message, /access_denied/);
    assert.equal(existsSync(tokenPath()), false);
  });

  it('[A2ACLI_AUTH_007] auth status shows the login without its token; logout forgets it and the agent then refuses', async () => {
    assert.equal((await deviceLogin({ subject: 'bob', claims: { tenant: 'acme' } })).code, 0);
    const stored = JSON.parse(readFileSync(tokenPath(), 'utf8'));
    const status = await synapse(['auth', 'status', '-a', hub.url]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^Flow: device_code$/m);
    assert.match(status.stdout, /^Token: \[redacted\]$/m);
    assert.match(status.stdout, /^Expired: no$/m);
    assert.ok(!status.stdout.includes(stored.accessToken) && !status.stdout.includes(stored.refreshToken));
    const all = json(await synapse(['auth', 'status', '-o', 'json']));
    assert.deepEqual(
      all.logins.map((l: Doc) => [l.key, l.flow]),
      [[hubKey(), 'device_code']],
    );

    // a login file others can read is not used
    chmodSync(tokenPath(), 0o644);
    const exposed = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(exposed.code, 4, exposed.stderr);
    assert.match(errorOf(exposed).message, /readable by others/);
    chmodSync(tokenPath(), 0o600);

    const out = await synapse(['auth', 'logout', '-a', hub.url, '-o', 'json']);
    assert.deepEqual(json(out), { agent: hub.url, removed: true });
    assert.equal(existsSync(tokenPath()), false);
    const none = await synapse(['auth', 'status', '-a', hub.url, '-o', 'json']);
    assert.equal(none.code, 4);
    assert.equal(errorOf(none).code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
    const refused = await synapse(['send', '-a', hub.url, '-o', 'json', '--text', 'hello']);
    assert.equal(refused.code, 4, refused.stderr);
  });
});
