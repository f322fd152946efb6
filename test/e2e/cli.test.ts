/**
 * The `synapse` command line (cli/main.ts) against the local hub, as a person or a script runs it: a child
 * process per command, over both of the card's bindings, in `text` and `json` modes. Checks what it prints
 * (the protocol's own JSON, the ids and state in text, the error envelope) and how it exits (a2a-cli SPEC
 * §9.6: 0 for any task outcome, 1 for a protocol error, 2 usage, 3 unreachable).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';

const ROOT = join(import.meta.dirname, '..', '..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `synapse …args` with a clean A2ACLI_ environment plus `env`. */
const synapse = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('A2ACLI_')));
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'main.ts'), ...args], {
      cwd: ROOT,
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });

/** What a JSON answer holds, read loosely: the test asserts each field it reads. */
// biome-ignore lint/suspicious/noExplicitAny: a parsed document read field by field
type Doc = Record<string, any>;

const json = (run: Run): Doc => {
  assert.equal(run.stdout.trim().split('\n').length, 1, `one JSON document:\n${run.stdout}`);
  return JSON.parse(run.stdout) as Doc;
};

let hub: LocalHub;
before(async () => {
  hub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000 });
});
after(async () => hub?.stop());

describe('synapse card get', () => {
  it('shows the card from an origin, a card URL or a card file, in text and json', async () => {
    const text = await synapse(['card', 'get', '-a', hub.url]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Name: .+$/m);
    assert.match(text.stdout, new RegExp(`^Interface: JSONRPC 1\\.0 ${hub.url}/a2a/jsonrpc$`, 'm'));
    assert.match(text.stdout, /^Skill: echo — /m);
    assert.ok(!text.stdout.includes('\u001b'), 'no control sequences');

    const byUrl = json(
      await synapse(['card', 'get', '-o', 'json', '-a', `${hub.url}/.well-known/agent-card.json`]),
    );
    const dir = mkdtempSync(join(tmpdir(), 'synapse-cli-'));
    try {
      const file = join(dir, 'card.json');
      writeFileSync(file, await (await fetch(`${hub.url}/.well-known/agent-card.json`)).text());
      const byFile = json(await synapse(['card', 'get', '-o', 'json', '-a', file]));
      assert.deepEqual(byFile, byUrl);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(Array.isArray(byUrl.supportedInterfaces) && byUrl.supportedInterfaces.length >= 2);
    assert.ok(Array.isArray(byUrl.skills));
  });

  it('names what went wrong: unreachable (3), no card (3), not a card (1), no agent given (2)', async () => {
    const unreachable = json(await synapse(['card', 'get', '-o', 'json', '-a', 'http://127.0.0.1:9']));
    assert.equal(unreachable.error.code, 'A2ACLI_ERR_UNREACHABLE');
    assert.equal((await synapse(['card', 'get', '-a', 'http://127.0.0.1:9'])).code, 3);

    const missing = await synapse(['card', 'get', '-o', 'json', '-a', `${hub.url}/no/such/card.json`]);
    assert.equal(missing.code, 3);
    assert.equal(json(missing).error.code, 'A2ACLI_ERR_CARD_NOT_FOUND');

    const dir = mkdtempSync(join(tmpdir(), 'synapse-cli-'));
    try {
      writeFileSync(join(dir, 'card.json'), '{"name":"x"}');
      const invalid = await synapse(['card', 'get', '-o', 'json', '-a', join(dir, 'card.json')]);
      assert.equal(invalid.code, 1);
      assert.equal(json(invalid).error.code, 'A2ACLI_ERR_CARD_INVALID');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    const none = await synapse(['card', 'get']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /A2ACLI_ERR_USAGE/);
    assert.equal(none.stdout, '', 'errors in text mode go to stderr');
  });

  it('takes the agent from A2ACLI_AGENT_CARD, and a flag wins over it', async () => {
    const fromEnv = await synapse(['card', 'get'], { A2ACLI_AGENT_CARD: hub.url });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    const flagWins = await synapse(['card', 'get', '-a', hub.url], {
      A2ACLI_AGENT_CARD: 'http://127.0.0.1:9',
    });
    assert.equal(flagWins.code, 0, flagWins.stderr);
  });
});

describe('synapse --version and help', () => {
  it('prints the package version and the usage, exit 0; an unknown command is a usage error (2)', async () => {
    const version = await synapse(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+/);
    const help = await synapse(['--help']);
    assert.equal(help.code, 0);
    for (const command of ['card', 'send', 'task'])
      assert.match(help.stdout, new RegExp(`synapse ${command}`));
    assert.match(help.stdout, /default: "text"/, 'defaults are shown');
    const unknown = await synapse(['frobnicate', '-o', 'json']);
    assert.equal(unknown.code, 2);
    assert.equal(json(unknown).error.code, 'A2ACLI_ERR_USAGE');
  });
});

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`synapse send and task over ${transport}`, () => {
    const agent = () => ['-a', hub.url, '--transport', transport];

    it('sends and waits for the end: the task as SendMessageResponse (json), ids and state (text)', async () => {
      const out = json(await synapse(['send', ...agent(), '-o', 'json', '--text', 'hello']));
      assert.equal(out.task.status.state, 'TASK_STATE_COMPLETED');
      assert.ok(out.task.id && out.task.contextId);
      assert.match(JSON.stringify(out.task.artifacts ?? out.task.status), /hello/i);

      const text = await synapse(['send', ...agent(), '--text', 'hello']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Task: \S+$/m);
      assert.match(text.stdout, /^Context: \S+$/m);
      assert.match(text.stdout, /^State: COMPLETED$/m);
    });

    it('--async returns the ids at once; task get shows the task, json and text alike', async () => {
      const started = json(await synapse(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 1']));
      const id = started.task.id as string;
      assert.ok(id && started.task.contextId);
      assert.notEqual(started.task.status.state, 'TASK_STATE_COMPLETED');
      let state = '';
      for (let i = 0; i < 60 && state !== 'TASK_STATE_COMPLETED'; i++) {
        state = json(await synapse(['task', 'get', id, ...agent(), '-o', 'json'])).status.state;
        if (state !== 'TASK_STATE_COMPLETED') await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(state, 'TASK_STATE_COMPLETED');
      const text = await synapse(['task', 'get', id, ...agent()]);
      assert.match(text.stdout, new RegExp(`^Task: ${id}$`, 'm'));
    });

    it('an input-required task prints how to resume it; the next turn by --task-id completes it', async () => {
      const asked = await synapse(['send', ...agent(), '--text', 'ask']);
      assert.equal(asked.code, 0, 'a paused task is no error');
      assert.match(asked.stdout, /^State: INPUT_REQUIRED$/m);
      assert.match(asked.stderr, /INPUT_REQUIRED/);
      const [, id, contextId] =
        asked.stdout.match(/^Resume: synapse send -a \S+ --task-id (\S+) --context-id (\S+)/m) ?? [];
      assert.ok(id && contextId, asked.stdout);
      const answered = json(
        await synapse([
          'send',
          ...agent(),
          '-o',
          'json',
          '--task-id',
          id,
          '--context-id',
          contextId,
          '--text',
          '42',
        ]),
      );
      assert.equal(answered.task.id, id);
      assert.equal(answered.task.status.state, 'TASK_STATE_COMPLETED');
    });

    it('a failed task exits 0 and says so on stderr; a protocol error keeps its A2A name and code (exit 1)', async () => {
      const failed = await synapse(['send', ...agent(), '-o', 'json', '--text', 'fail']);
      assert.equal(failed.code, 0);
      assert.equal(json(failed).task.status.state, 'TASK_STATE_FAILED');
      assert.match(failed.stderr, /FAILED/);

      const unknown = await synapse(['task', 'get', crypto.randomUUID(), ...agent(), '-o', 'json']);
      assert.equal(unknown.code, 1);
      const { error } = json(unknown);
      assert.equal(error.code, 'TaskNotFoundError');
      assert.equal(error.a2aCode, transport === 'JSONRPC' ? -32001 : 404);

      const done = json(await synapse(['send', ...agent(), '-o', 'json', '--text', 'hello'])).task
        .id as string;
      const cancel = await synapse(['task', 'cancel', done, ...agent(), '-o', 'json']);
      assert.equal(cancel.code, 1);
      assert.equal(json(cancel).error.code, 'TaskNotCancelableError');
    });

    it('cancels a running task and shows it canceled', async () => {
      const started = json(await synapse(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 30']));
      const canceled = await synapse(['task', 'cancel', started.task.id, ...agent()]);
      assert.equal(canceled.code, 0, canceled.stderr);
      assert.match(canceled.stdout, /^State: CANCELED$/m);
    });

    it('sends a data part as given', async () => {
      const out = await synapse(['send', ...agent(), '-o', 'json', '--data', '{"text":"hello"}']);
      assert.equal(out.code, 0, out.stderr);
      assert.ok(json(out).task.id);
      const bad = await synapse(['send', ...agent(), '-o', 'json', '--data', '[1]']);
      assert.equal(bad.code, 2);
      assert.equal(json(bad).error.code, 'A2ACLI_ERR_USAGE');
    });
  });
}
