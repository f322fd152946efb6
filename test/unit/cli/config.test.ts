/**
 * The CLI's configuration layers read directly (cli/config.ts): which file is the local one (found
 * walking up, or named by --config), the agent scope's name, what a file may hold, and the OAuth
 * redaction of --debug (cli/debug.ts). The e2e test (test/e2e/cli-config.test.ts) shows them through the CLI.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agentKeyOf, flagValue, loadConfig } from '../../../cli/config.ts';
import { redactOAuth } from '../../../cli/debug.ts';
import { CliError } from '../../../cli/errors.ts';

const root = mkdtempSync(join(tmpdir(), 'synapse-config-unit-'));
after(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string, text: string, mode = 0o600) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
};

describe('cli/config.ts', () => {
  it('names an agent scope by the host and port of its reference; a card file has none', () => {
    assert.equal(agentKeyOf('https://Hub.Example.com/.well-known/agent-card.json'), 'hub.example.com');
    assert.equal(agentKeyOf('http://127.0.0.1:8080'), '127.0.0.1_8080');
    assert.equal(agentKeyOf('hub.example.com:8443'), 'hub.example.com_8443');
    assert.equal(agentKeyOf('file:///tmp/card.json'), undefined);
    assert.equal(agentKeyOf(undefined), undefined);
  });

  it('reads a string flag in each of its spellings, the last one winning, none after --', () => {
    assert.equal(flagValue(['card', 'get', '-a', 'x'], 'agent-card', 'a'), 'x');
    assert.equal(flagValue(['--agent-card=y'], 'agent-card', 'a'), 'y');
    assert.equal(flagValue(['-az'], 'agent-card', 'a'), 'z');
    assert.equal(flagValue(['-a', 'x', '--agent-card', 'w'], 'agent-card', 'a'), 'w');
    assert.equal(flagValue(['--', '-a', 'x'], 'agent-card', 'a'), undefined);
  });

  it('layers env > local (found walking up) > agent > global, reading A2ACLI_ names only and never --stream', () => {
    const home = join(root, 'layers');
    const xdg = join(home, 'xdg');
    const deep = join(home, 'project', 'src', 'deeper');
    mkdirSync(deep, { recursive: true });
    write(join(home, 'project', '.env'), 'A2ACLI_OUTPUT=json\nA2ACLI_STREAM=true\nDATABASE_URL=elsewhere\n');
    write(
      join(xdg, 'a2a-cli', '.env'),
      'A2ACLI_AGENT_CARD=http://127.0.0.1:9\nA2ACLI_TIMEOUT=9\nA2ACLI_OUTPUT=text\n',
    );
    write(join(xdg, 'a2a-cli', 'agents', '127.0.0.1_9.env'), 'A2ACLI_TIMEOUT=4\nA2ACLI_POLL_INTERVAL=1\n');
    const layers = loadConfig([], { XDG_CONFIG_HOME: xdg, HOME: home, A2ACLI_POLL_INTERVAL: '3' }, deep);
    assert.deepEqual(
      layers.files.map((f) => [f.source, f.found]),
      [
        ['local', true],
        ['agent', true],
        ['global', true],
      ],
    );
    assert.equal(layers.files[0]?.path, join(home, 'project', '.env'));
    assert.deepEqual(layers.lookup('output'), {
      value: 'json',
      source: 'local',
      file: join(home, 'project', '.env'),
    });
    assert.equal(layers.lookup('timeout')?.source, 'agent');
    assert.deepEqual(layers.lookup('poll-interval'), { value: '3', source: 'env' });
    assert.equal(layers.lookup('agent-card')?.source, 'global');
    assert.equal(layers.lookup('stream'), undefined);
    assert.equal(layers.lookup('database-url'), undefined);
    // --config replaces the local file
    const other = join(home, 'other.env');
    write(other, 'A2ACLI_OUTPUT=text\n');
    const explicit = loadConfig(['--config', other], { XDG_CONFIG_HOME: xdg, HOME: home }, deep);
    assert.deepEqual(explicit.lookup('output'), { value: 'text', source: 'local', file: other });
  });

  it('refuses a file that holds a credential and that others can read; a file without one may be 0644', () => {
    const home = join(root, 'modes');
    const xdg = join(home, 'xdg');
    mkdirSync(home, { recursive: true });
    write(join(xdg, 'a2a-cli', '.env'), 'A2ACLI_OUTPUT=json\n', 0o644);
    assert.equal(loadConfig([], { XDG_CONFIG_HOME: xdg }, home).lookup('output')?.value, 'json');
    write(join(xdg, 'a2a-cli', '.env'), 'A2ACLI_CLIENT_SECRET=s3cret\n', 0o640);
    assert.throws(
      () => loadConfig([], { XDG_CONFIG_HOME: xdg }, home),
      (e: unknown) =>
        e instanceof CliError && e.code === 'A2ACLI_ERR_USAGE' && /chmod 600/.test(e.hint ?? ''),
    );
  });
});

describe('cli/debug.ts redactOAuth', () => {
  it('redacts tokens, secrets and codes in JSON and form bodies, and nothing else', () => {
    assert.equal(
      redactOAuth('{"access_token":"a.b.c","token_type":"Bearer","refresh_token":"r1","expires_in":300}'),
      '{"access_token":"[redacted]","token_type":"Bearer","refresh_token":"[redacted]","expires_in":300}',
    );
    assert.equal(
      redactOAuth('grant_type=refresh_token&refresh_token=r1&client_id=cli&client_secret=s'),
      'grant_type=refresh_token&refresh_token=[redacted]&client_id=cli&client_secret=[redacted]',
    );
    assert.equal(
      redactOAuth('{"device_code":"d","user_code":"BCDF-GHJK"}'),
      '{"device_code":"[redacted]","user_code":"BCDF-GHJK"}',
    );
    assert.equal(
      redactOAuth('{"jsonrpc":"2.0","error":{"code":401}}'),
      '{"jsonrpc":"2.0","error":{"code":401}}',
    );
  });
});
