/**
 * The `synapse` command line against the local hub, as a person or a script runs it: the bundle the
 * package ships (cli/build.ts), a child process per command, over both of the card's bindings, in `text`
 * and `json` modes. Checks what it prints
 * (the protocol's own JSON, the ids and state in text, the error envelope) and how it exits (a2a-cli SPEC
 * §9.6: 0 for any task outcome, 1 for a protocol error, 2 usage, 3 unreachable).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { buildCliRunner, type CliRunner, type Doc, json, type Run } from './fixtures/cli-run.ts';

const synapse = (args: string[], env: Record<string, string> = {}): Promise<Run> => cli.run(args, { env });

let hub: LocalHub;
let cli: CliRunner;
before(async () => {
  [hub, cli] = await Promise.all([startLocalHub({ port: 0, sweepIntervalMs: 60_000 }), buildCliRunner()]);
});
after(async () => {
  await hub?.stop();
  cli?.remove();
});

describe('synapse card get', () => {
  it('[A2ACLI_CARD_GET_001] [A2ACLI_OUT_005] shows the card from an origin, a card URL or a card file, in text and json', async () => {
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

  it('[A2ACLI_OUT_004] [A2ACLI_EXIT_001] [A2ACLI_ERR_UNREACHABLE] [A2ACLI_ERR_CARD_NOT_FOUND] [A2ACLI_ERR_CARD_INVALID] [A2ACLI_ERR_USAGE] names what went wrong: unreachable (3), no card (3), not a card (1), no agent given (2)', async () => {
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
  it('[A2ACLI_CLI_001] [A2ACLI_DEFAULT_001] prints the package version and the usage with the defaults, exit 0; an unknown command is a usage error (2)', async () => {
    const version = await synapse(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout.trim(), /^\d+\.\d+\.\d+/);
    const help = await synapse(['--help']);
    assert.equal(help.code, 0);
    for (const command of ['card', 'send', 'task'])
      assert.match(help.stdout, new RegExp(`synapse ${command}`));
    assert.match(help.stdout, /default: "text"/, 'defaults are shown');
    const sendHelp = await synapse(['send', '--help']);
    assert.equal(sendHelp.code, 0);
    assert.match(sendHelp.stdout, /--async/);
    assert.match(sendHelp.stdout, /--poll-interval .*\[default: 2\]/);
    const unknown = await synapse(['frobnicate', '-o', 'json']);
    assert.equal(unknown.code, 2);
    assert.equal(json(unknown).error.code, 'A2ACLI_ERR_USAGE');
  });
});

describe('synapse refuses bad input', () => {
  it('[A2ACLI_ERR_USAGE] [A2ACLI_EXIT_001] an unknown flag, a missing argument or a bad value is a usage error (2), named, and nothing is sent', async () => {
    const newest = async () =>
      json(await synapse(['task', 'list', '-a', hub.url, '-o', 'json', '--page-size', '1'])).tasks?.[0]?.id;
    const before = await newest();
    const unknownFlag = await synapse([
      'send',
      '-a',
      hub.url,
      '-o',
      'json',
      '--text',
      'hello',
      '--frobnicate',
    ]);
    assert.equal(unknownFlag.code, 2);
    assert.equal(json(unknownFlag).error.code, 'A2ACLI_ERR_USAGE');
    assert.match(json(unknownFlag).error.message, /frobnicate/);
    assert.equal(json(unknownFlag).error.hint, 'synapse send --help');
    const noId = await synapse(['task', 'get', '-a', hub.url, '-o', 'json']);
    assert.equal(noId.code, 2);
    assert.match(json(noId).error.message, /missing an argument/);
    assert.equal(json(noId).error.hint, 'synapse task get --help', 'the usage that names it');
    const noUrl = await synapse(['task', 'push-config', 'create', 'some-task', '-a', hub.url, '-o', 'json']);
    assert.equal(noUrl.code, 2);
    assert.match(json(noUrl).error.message, /url/);
    const badOutput = await synapse(['send', '-a', hub.url, '-o', 'yaml', '--text', 'hello']);
    assert.equal(badOutput.code, 2);
    assert.match(badOutput.stderr, /A2ACLI_ERR_USAGE/);
    const nothing = await synapse(['send', '-a', hub.url, '-o', 'json']);
    assert.equal(nothing.code, 2);
    assert.equal(await newest(), before, 'no task was made');
  });
});

describe('synapse completion and --debug', () => {
  it('[A2ACLI_CLI_002] prints a bash script bash reads, a zsh one, and refuses another shell (2)', async () => {
    const bash = await synapse(['completion', 'bash']);
    assert.equal(bash.code, 0, bash.stderr);
    const check = spawnSync('bash', ['-n'], { input: bash.stdout });
    assert.equal(check.status, 0, String(check.stderr));
    assert.match(bash.stdout, /complete -o bashdefault -o default -F \S+ synapse/);
    const zsh = await synapse(['completion', 'zsh']);
    assert.match(zsh.stdout, /compdef \S+ synapse/);
    assert.equal((await synapse(['completion', 'fish'])).code, 2);
  });

  it('[A2ACLI_OUT_007] [A2ACLI_AUTH_004] --debug logs each request and answer on stderr, the credentials redacted; stdout is still the answer', async () => {
    const secret = `s3cret-${crypto.randomUUID()}`;
    const out = await synapse([
      'send',
      '-a',
      hub.url,
      '-o',
      'json',
      '--debug',
      '--bearer',
      secret,
      '--text',
      'hello',
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(json(out).task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(out.stderr, /^debug: > GET .*\/\.well-known\/agent-card\.json$/m);
    assert.match(out.stderr, /^debug: > POST .*\/a2a\//m);
    assert.match(out.stderr, /^debug: > authorization: Bearer \[redacted\]$/m);
    assert.match(out.stderr, /^debug: < 200 /m);
    assert.ok(!out.stderr.includes(secret) && !out.stdout.includes(secret), 'the token appears nowhere');
  });
});

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`synapse send and task over ${transport}`, () => {
    const agent = () => ['-a', hub.url, '--transport', transport];

    it('[A2ACLI_SEND_001] [A2ACLI_SEND_002] [A2ACLI_OUT_001] [A2ACLI_OUT_002] [A2ACLI_TX_004] [A2ACLI_DEFAULT_001/task_completion_wait_by_default] [A2ACLI_DEFAULT_001/output_human_readable_text] sends and waits for the end: the task as SendMessageResponse (json), ids and state (text)', async () => {
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

    it('[A2ACLI_SEND_002] [A2ACLI_OUT_006] [A2ACLI_TASK_GET_001] [A2ACLI_TASK_POLL_001] --async returns the ids at once; task get shows the task, json and text alike', async () => {
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

    it('[A2ACLI_SEND_002] [A2ACLI_DEFAULT_001/task_completion_wait_by_default] --wait waits even when --async is configured; both flags are a usage error', async () => {
      const configured = { A2ACLI_ASYNC: 'true' };
      const notWaited = json(
        await synapse(['send', ...agent(), '-o', 'json', '--text', 'slow 1'], configured),
      );
      assert.notEqual(notWaited.task.status.state, 'TASK_STATE_COMPLETED', 'the configured --async applies');
      const waited = await synapse(
        ['send', ...agent(), '-o', 'json', '--wait', '--text', 'slow 1'],
        configured,
      );
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(json(waited).task.status.state, 'TASK_STATE_COMPLETED');
      const both = await synapse(['send', ...agent(), '-o', 'json', '--wait', '--async', '--text', 'hello']);
      assert.equal(both.code, 2);
      assert.equal(json(both).error.code, 'A2ACLI_ERR_USAGE');
    });

    it('[A2ACLI_INTERACT_002] [A2ACLI_INTERACT_004] [A2ACLI_EXIT_002] an input-required task prints how to resume it; the next turn by --task-id completes it', async () => {
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

    it('[A2ACLI_EXIT_002] [A2ACLI_EXIT_001] [A2ACLI_OUT_004] [A2ACLI_TASK_CANCEL_001] a failed task exits 0 and says so on stderr; a protocol error keeps its A2A name and code (exit 1)', async () => {
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

    it('[A2ACLI_TASK_CANCEL_001] cancels a running task and shows it canceled', async () => {
      const started = json(await synapse(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 30']));
      const canceled = await synapse(['task', 'cancel', started.task.id, ...agent()]);
      assert.equal(canceled.code, 0, canceled.stderr);
      assert.match(canceled.stdout, /^State: CANCELED$/m);
    });

    it('[A2ACLI_SEND_003] [A2ACLI_OUT_003] --stream follows the task: json one StreamResponse per line, the last one its end; text as it changes', async () => {
      const streamed = await synapse(['send', ...agent(), '-o', 'json', '--stream', '--text', 'slow 2']);
      assert.equal(streamed.code, 0, streamed.stderr);
      const lines = streamed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Doc);
      assert.ok(lines.length >= 3, streamed.stdout);
      for (const line of lines)
        assert.equal(
          Object.keys(line).length,
          1,
          'a StreamResponse: one of task, message, statusUpdate, artifactUpdate',
        );
      const last = lines.at(-1)!;
      assert.equal((last.statusUpdate ?? last.task).status.state, 'TASK_STATE_COMPLETED');

      const text = await synapse(['send', ...agent(), '--stream', '--text', 'slow 2']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Status: 1\/2 s$/m, 'progress as it comes');
      assert.match(text.stdout, /^State: WORKING$/m);
      assert.match(
        text.stdout.trim(),
        /State: COMPLETED\n\nStatus message:\nDone after 2 s$/,
        'the end restated',
      );
    });

    it('[A2ACLI_TASK_SUBSCRIBE_001] [A2ACLI_TASK_POLL_001] task subscribe follows a running task to its end; task get --wait polls it there', async () => {
      const started = json(await synapse(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 2']));
      const [subscribed, waited] = await Promise.all([
        synapse(['task', 'subscribe', started.task.id, ...agent(), '-o', 'json', '--stream']),
        synapse([
          'task',
          'get',
          started.task.id,
          ...agent(),
          '--wait',
          '--poll-interval',
          '0.2',
          '-o',
          'json',
        ]),
      ]);
      assert.equal(subscribed.code, 0, subscribed.stderr);
      const last = JSON.parse(subscribed.stdout.trim().split('\n').at(-1)!) as Doc;
      assert.equal((last.statusUpdate ?? last.task).status.state, 'TASK_STATE_COMPLETED');
      assert.equal(json(waited).status.state, 'TASK_STATE_COMPLETED');
    });

    it('[A2ACLI_TASK_POLL_002] [A2ACLI_ERR_TIMEOUT] --timeout ends the wait (exit 5) and names the task to look at later; the task goes on', async () => {
      const out = await synapse(['send', ...agent(), '-o', 'json', '--timeout', '0.5', '--text', 'slow 3']);
      assert.equal(out.code, 5);
      const { error } = json(out);
      assert.equal(error.code, 'A2ACLI_ERR_TIMEOUT');
      const id = /synapse task get (\S+)/.exec(error.hint)?.[1];
      assert.ok(id, error.hint);
      const later = json(await synapse(['task', 'get', id, ...agent(), '--wait', '-o', 'json']));
      assert.equal(later.status.state, 'TASK_STATE_COMPLETED');
    });

    it('[A2ACLI_TASK_LIST_001] task list pages through tasks and filters by state and context', async () => {
      const done = json(await synapse(['send', ...agent(), '-o', 'json', '--text', 'hello'])).task;
      const page = json(
        await synapse([
          'task',
          'list',
          ...agent(),
          '-o',
          'json',
          '--status',
          'completed',
          '--page-size',
          '2',
        ]),
      );
      assert.ok(page.tasks.length >= 1 && page.tasks.length <= 2);
      for (const t of page.tasks) assert.equal(t.status.state, 'TASK_STATE_COMPLETED');
      const inContext = json(
        await synapse(['task', 'list', ...agent(), '-o', 'json', '--context-id', done.contextId]),
      );
      assert.deepEqual(
        inContext.tasks.map((t: Doc) => t.id),
        [done.id],
      );
      const text = await synapse(['task', 'list', ...agent(), '--context-id', done.contextId]);
      assert.match(text.stdout, new RegExp(`^Task: ${done.id} COMPLETED ${done.contextId}$`, 'm'));
      await synapse(['send', ...agent(), '-o', 'json', '--text', 'hello']);
      const first = json(await synapse(['task', 'list', ...agent(), '-o', 'json', '--page-size', '1']));
      assert.equal(first.tasks.length, 1);
      assert.ok(first.nextPageToken, 'a cursor to the next page');
      const second = json(
        await synapse([
          'task',
          'list',
          ...agent(),
          '-o',
          'json',
          '--page-size',
          '1',
          '--page-token',
          first.nextPageToken,
        ]),
      );
      assert.equal(second.tasks.length, 1);
      assert.notEqual(second.tasks[0].id, first.tasks[0].id, 'the next page, not the same one');
      const bad = await synapse(['task', 'list', ...agent(), '--status', 'bogus']);
      assert.equal(bad.code, 2);
    });

    it('[A2ACLI_PUSH_001] task push-config creates, gets, lists and deletes a task’s config', async () => {
      const task = json(
        await synapse(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 30']),
      ).task;
      try {
        const url = `${hub.url}/hook`;
        const created = await synapse([
          'task',
          'push-config',
          'create',
          task.id,
          ...agent(),
          '--url',
          url,
          '--config-id',
          'c1',
        ]);
        assert.equal(created.code, 0, created.stderr);
        assert.match(created.stdout, /^Config: c1$/m);
        const got = json(
          await synapse(['task', 'push-config', 'get', task.id, 'c1', ...agent(), '-o', 'json']),
        );
        assert.deepEqual([got.id, got.taskId, got.url], ['c1', task.id, url]);
        const listed = json(
          await synapse(['task', 'push-config', 'list', task.id, ...agent(), '-o', 'json']),
        );
        assert.deepEqual(
          listed.configs.map((c: Doc) => c.id),
          ['c1'],
        );
        const deleted = await synapse([
          'task',
          'push-config',
          'delete',
          task.id,
          'c1',
          ...agent(),
          '-o',
          'json',
        ]);
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.deepEqual(json(deleted), {}, 'the protocol answers a delete with nothing');
        const after = json(await synapse(['task', 'push-config', 'list', task.id, ...agent(), '-o', 'json']));
        assert.deepEqual(after.configs ?? [], []);
      } finally {
        await synapse(['task', 'cancel', task.id, ...agent()]);
      }
    });

    it('sends a data part as given', async () => {
      const out = await synapse(['send', ...agent(), '-o', 'json', '--data', '{"text":"hello"}']);
      assert.equal(out.code, 0, out.stderr);
      assert.ok(json(out).task.id);
      // any JSON value is data (A2A v1.0: a google.protobuf.Value); what is not JSON is refused
      const bad = await synapse(['send', ...agent(), '-o', 'json', '--data', '{not json']);
      assert.equal(bad.code, 2);
      assert.equal(json(bad).error.code, 'A2ACLI_ERR_USAGE');
    });
  });
}
