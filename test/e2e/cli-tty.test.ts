/**
 * What a person watching sees (docs/cli.md#live-progress): the bundled `synapse` (cli/build.ts) run in a
 * real terminal — tmux, on a private socket, 120×40 — against the local hub and its demo agent, driven with
 * `send-keys` and read with `capture-pane`: the progress bar moving, chunks appended, a question answered at
 * a prompt, a human decision approved and rejected with notes, a chat keeping its context. Off a terminal,
 * and in `json` anywhere, the same commands print the plain output of a2a-cli SPEC §9.2 / §9.3.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { buildCliRunner, type CliRunner, cleanEnv, type Run } from './fixtures/cli-run.ts';

const ROOT = join(import.meta.dirname, '..', '..');
/** How long a screen may take to show what a test waits for (a bound on waiting, never asserted on). */
const SCREEN_WAIT_MS = 30_000;

/** A private tmux server: its sessions are this file's only. */
const SOCKET = `synapse-tty-${process.pid}`;
const tmux = (...args: string[]) => {
  const run = spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], {
    encoding: 'utf8',
    env: cleanEnv(),
  });
  assert.equal(run.status, 0, `tmux ${args[0]}: ${run.stderr}`);
  return run.stdout;
};

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

interface Terminal {
  /** What the pane shows now, scrollback included, wrapped lines joined. */
  screen(): string;
  /** Keys typed (tmux send-keys: `Enter`, `Down` name keys). */
  keys(...keys: string[]): void;
  /** The screen once `pattern` shows on it; fails with the screen when it does not in time. */
  waitFor(pattern: RegExp): Promise<string>;
  /** The exit code the command ended with (the pane prints it). */
  exited(): Promise<number>;
  close(): void;
}

let sessions = 0;
/** `synapse …args` in a fresh terminal, which stays open after it ends so that its screen can be read. */
function terminal(args: string[]): Terminal {
  const name = `tty-${++sessions}`;
  const command = [process.execPath, cli.bin, ...args].map(quote).join(' ');
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '120',
    '-y',
    '40',
    '-c',
    ROOT,
    `${command}; echo "[exit $?]"; exec sleep 600`,
  );
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', name);
  const waitFor = async (pattern: RegExp) => {
    const until = Date.now() + SCREEN_WAIT_MS;
    for (;;) {
      const now = screen();
      if (pattern.test(now)) return now;
      if (Date.now() > until) assert.fail(`the screen never showed ${pattern}:\n${now}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return {
    screen,
    keys: (...keys) => void tmux('send-keys', '-t', name, ...keys),
    waitFor,
    exited: async () => Number((await waitFor(/\[exit (\d+)\]/)).match(/\[exit (\d+)\]/)?.[1]),
    close: () => void tmux('kill-session', '-t', name),
  };
}

/** Runs `fn` with a terminal running `synapse …args`, closed after. */
async function inTerminal(args: string[], fn: (t: Terminal) => Promise<void>) {
  const t = terminal(args);
  try {
    await fn(t);
  } finally {
    t.close();
  }
}

/** `synapse …args` off a terminal: pipes for its output, `input` on its standard input. */
const piped = (args: string[], input = ''): Promise<Run> => cli.run(args, { input });

const field = (text: string, label: string): string[] =>
  [...text.matchAll(new RegExp(`^${label}: (\\S+)$`, 'gm'))].map((m) => m[1]!);

let hub: LocalHub;
let cli: CliRunner;
let socketPath: string | undefined;
before(async () => {
  const version = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  assert.equal(version.status, 0, 'tmux is needed for the terminal tests (.ci/run installs it)');
  // a session that outlives the tests' own: tmux ends a server left without any, racing the next new-session
  tmux('new-session', '-d', '-s', 'keep', 'exec sleep 3600');
  socketPath = tmux('display-message', '-p', '-t', 'keep', '#{socket_path}').trim();
  [hub, cli] = await Promise.all([startLocalHub({ port: 0, sweepIntervalMs: 60_000 }), buildCliRunner()]);
});
after(async () => {
  spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
  if (socketPath) rmSync(socketPath, { force: true });
  await hub?.stop();
  cli?.remove();
});

describe('the bundle', () => {
  it('loads the prompt and progress libraries only for send -i and chat: card get does not parse them', () => {
    const libraries = cli.entryInputs.filter((f) => /node_modules\/(cli-progress|@clack)\//.test(f));
    assert.deepEqual(libraries, []);
    assert.ok(
      cli.entryInputs.some((f) => f.endsWith('cli/commands/chat.ts')),
      'the chat command is there',
    );
    assert.ok(!cli.entryInputs.some((f) => f.endsWith('cli/interactive.ts')), 'its live view is not');
  });
});

describe('synapse send -i on a terminal', () => {
  it('shows the progress bar moving on a slow task, then the summary', async () => {
    await inTerminal(['send', '-i', '-a', hub.url, '--text', 'slow 4'], async (t) => {
      const bar = /Progress \[[#-]+\] (\d+)% \| \d\/4 s/;
      const first = Number((await t.waitFor(bar)).match(bar)?.[1]);
      const moved = new RegExp(`Progress \\[[#-]+\\] (?!${first}%)(\\d+)%`);
      const second = Number((await t.waitFor(moved)).match(moved)?.[1]);
      assert.ok(second > first, `the bar moves on: ${first}% then ${second}%`);
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      assert.match(screen, /Progress \[#+\] 100% \| 4\/4 s/, 'the bar ends full');
      // the summary follows the bar: the task's ids, its end state and the agent's last word
      assert.match(
        screen,
        /100% \| 4\/4 s\n\nTask: \S+\nContext: \S+\nState: COMPLETED\n\nStatus message:\nDone after 4 s/,
      );
    });
  });

  it('appends an artifact’s chunks under one label as they stream', async () => {
    await inTerminal(['send', '-i', '-a', hub.url, '--text', 'chunks 3'], async (t) => {
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      const live = screen.slice(0, screen.indexOf('State: COMPLETED'));
      assert.match(live, /State: WORKING\nArtifact chunks:\nchunk 1\/3\nchunk 2\/3\nchunk 3\/3\n$/);
      assert.equal(live.match(/Artifact chunks:/g)?.length, 1, 'each next chunk continues the block');
      assert.match(screen, /State: COMPLETED\n\nStatus message:\nSent 3 chunks/);
    });
  });

  it('asks an input-required question at a prompt and completes the task with the answer', async () => {
    await inTerminal(['send', '-i', '-a', hub.url, '--text', 'ask'], async (t) => {
      await t.waitFor(/What is your answer\?/);
      assert.doesNotMatch(t.screen(), /\[exit/, 'the command waits at the prompt');
      t.keys('forty two', 'Enter');
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      assert.match(screen, /State: COMPLETED\n\nStatus message:\nYou answered: forty two/);
      assert.equal(new Set(field(screen, 'Task')).size, 1, 'the answer went to the same task');
    });
  });

  it('approves a human decision with notes at a prompt', async () => {
    await inTerminal(['send', '-i', '-a', hub.url, '--text', 'approve'], async (t) => {
      await t.waitFor(/Approve this request\?[^\n]*\n│\s+● approve\n│\s+○ reject/);
      t.keys('Enter');
      await t.waitFor(/Notes \(optional\)/);
      t.keys('fine by me', 'Enter');
      assert.equal(await t.exited(), 0);
      assert.match(t.screen(), /State: COMPLETED\n\nStatus message:\nApproved: fine by me/);
    });
  });

  it('rejects a human decision with notes at a prompt: the notes reach the agent and the task’s history', async () => {
    let taskId = '';
    await inTerminal(['send', '-i', '-a', hub.url, '--text', 'approve'], async (t) => {
      await t.waitFor(/● approve\n│\s+○ reject/);
      t.keys('Down');
      await t.waitFor(/○ approve\n│\s+● reject/);
      t.keys('Enter');
      await t.waitFor(/Notes \(optional\)/);
      t.keys('too risky', 'Enter');
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      assert.match(screen, /State: REJECTED\n\nStatus message:\nA human rejected the request: too risky/);
      taskId = field(screen, 'Task')[0]!;
    });
    const read = await piped(['task', 'get', taskId, '--history', '10', '-o', 'json', '-a', hub.url]);
    assert.equal(read.code, 0, read.stderr);
    const history = (JSON.parse(read.stdout) as { history: { role: string; parts: { data?: unknown }[] }[] })
      .history;
    const decision = history.filter((m) => m.role === 'ROLE_USER').flatMap((m) => m.parts.map((p) => p.data));
    assert.deepEqual(decision.at(-1), { decision: 'reject', notes: 'too risky' });
  });
});

describe('synapse chat', () => {
  it('[A2ACLI_CHAT_001] on a terminal, carries the context across turns, each turn a task of its own', async () => {
    await inTerminal(['chat', '-a', hub.url], async (t) => {
      await t.waitFor(/◆ {2}You/);
      t.keys('hello one', 'Enter');
      await t.waitFor(/Artifact echo:\nhello one\n[\s\S]*◆ {2}You/);
      t.keys('ask', 'Enter');
      await t.waitFor(/What is your answer\?/);
      t.keys('twelve', 'Enter');
      await t.waitFor(/You answered: twelve\n[\s\S]*◆ {2}You/);
      t.keys('/quit', 'Enter');
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      const contexts = new Set(field(screen, 'Context'));
      assert.equal(contexts.size, 1, `one context throughout:\n${screen}`);
      assert.equal(new Set(field(screen, 'Task')).size, 2, 'two turns, two tasks');
    });
  });

  it('[A2ACLI_CHAT_001] on a terminal, a question left at its prompt is answered by the next turn, on its task', async () => {
    await inTerminal(['chat', '-a', hub.url], async (t) => {
      await t.waitFor(/◆ {2}You/);
      t.keys('approve', 'Enter');
      await t.waitFor(/● approve\n│\s+○ reject/);
      t.keys('C-c');
      await t.waitFor(/Resume: [^\n]+\n[\s\S]*◆ {2}You/);
      t.keys('reject not now', 'Enter');
      await t.waitFor(/A human rejected the request: not now\n[\s\S]*◆ {2}You/);
      t.keys('/quit', 'Enter');
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      assert.equal(
        new Set(field(screen, 'Task')).size,
        1,
        `the next turn went to the waiting task:\n${screen}`,
      );
      assert.match(screen, /State: REJECTED/);
    });
  });

  it('[A2ACLI_CHAT_001] [A2ACLI_OUT_005] off a terminal, a turn per line: the context carried, and the task while it waits', async () => {
    const run = await piped(['chat', '-a', hub.url], 'hello\nask\nseven\n');
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes('\u001b'), 'no control sequences');
    const tasks = field(run.stdout, 'Task');
    assert.equal(tasks.length, 3);
    assert.equal(new Set(field(run.stdout, 'Context')).size, 1, 'one context throughout');
    assert.equal(tasks[1], tasks[2], 'the line after a question answers it, on the same task');
    assert.notEqual(tasks[0], tasks[1]);
    assert.match(run.stdout, /State: INPUT_REQUIRED[\s\S]*What is your answer\?/);
    assert.match(run.stdout, /State: COMPLETED\n\nStatus message:\nYou answered: seven/);
  });
});

describe('off a terminal and in json: never interactive', () => {
  it('[A2ACLI_OUT_005] send -i through pipes prints the plain text send prints', async () => {
    const [interactive, plain] = await Promise.all([
      piped(['send', '-i', '-a', hub.url, '--text', 'slow 2']),
      piped(['send', '-a', hub.url, '--text', 'slow 2']),
    ]);
    assert.equal(interactive.code, 0, interactive.stderr);
    assert.ok(!interactive.stdout.includes('\u001b'), 'no control sequences');
    assert.doesNotMatch(interactive.stdout, /Progress \[/, 'no bar');
    const shape = (text: string) => text.replace(/^(Task|Context): \S+$/gm, '$1: <id>');
    assert.equal(shape(interactive.stdout), shape(plain.stdout));
    assert.match(interactive.stdout, /^State: COMPLETED$/m);
  });

  it('[A2ACLI_OUT_005] -o json on a terminal: send -i prints one document and asks nothing', async () => {
    await inTerminal(['send', '-i', '-o', 'json', '-a', hub.url, '--text', 'ask'], async (t) => {
      assert.equal(await t.exited(), 0);
      const screen = t.screen();
      assert.doesNotMatch(screen, /◆|What is your answer\?\n│/, 'no prompt');
      const line = screen.split('\n').find((l) => l.startsWith('{'));
      const doc = JSON.parse(line ?? '{}') as { task?: { status?: { state?: string } } };
      assert.equal(doc.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED');
    });
  });

  it('[A2ACLI_OUT_005] -o json on a terminal: chat reads lines and prints one SendMessageResponse each', async () => {
    await inTerminal(['chat', '-o', 'json', '-a', hub.url], async (t) => {
      t.keys('hello json', 'Enter');
      const shown = await t.waitFor(/^\{"task".*\}$/m);
      assert.doesNotMatch(shown, /◆/, 'no prompt');
      const doc = JSON.parse(shown.split('\n').find((l) => l.startsWith('{"task"'))!) as {
        task: { status: { state: string }; artifacts: { parts: { text?: string }[] }[] };
      };
      assert.equal(doc.task.status.state, 'TASK_STATE_COMPLETED');
      assert.equal(doc.task.artifacts[0]?.parts[0]?.text, 'hello json');
      t.keys('C-d');
      assert.equal(await t.exited(), 0);
    });
  });
});
