import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `tsx <script>` as `npm start` runs it, with node's own path so PATH can be stripped. */
const run = (script: string, env: Record<string, string>, args: string[] = [], ownGroup = false): Run => {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    detached: ownGroup,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
};

const waitForOutput = async (r: Run, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(r.stdout());
    if (m) return m;
    if (r.child.exitCode !== null) assert.fail(`exited ${r.child.exitCode}: ${r.stderr()}`);
    if (Date.now() > deadline) assert.fail(`no ${pattern} in: ${r.stdout()} ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
};

const javaChildrenOf = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => /\bjava\b/.test(line))
      .map((line) => Number(line.trim().split(/\s+/)[0]));
  } catch {
    return [];
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start (local/main.ts)', { concurrency: true }, () => {
  test('a port already taken: a clear message and a non-zero exit, before Java starts', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as { port: number };
    try {
      const r = run('local/main.ts', { PORT: String(port) });
      const { code } = await r.exited;
      assert.equal(code, 1);
      assert.match(r.stderr(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.match(r.stderr(), /PORT=0 picks a free one/);
      assert.doesNotMatch(r.stderr(), /at .*\.ts:\d+/, 'a message, not a stack trace');
    } finally {
      holder.close();
    }
  });

  test('Java missing: a clear message and a non-zero exit', async () => {
    // PATH with node only: /usr/bin would also hold java
    const bin = mkdtempSync(join(tmpdir(), 'synapse-nojava-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    try {
      const r = run('local/main.ts', { PORT: '0', PATH: bin });
      const { code } = await r.exited;
      assert.equal(code, 1);
      assert.match(r.stderr(), /DynamoDB Local needs Java 17 or later on the PATH \(ENOENT\)/);
      assert.match(r.stderr(), /openjdk-17-jre-headless/);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('an invalid PORT is refused', async () => {
    const r = run('local/main.ts', { PORT: 'eighty' });
    assert.equal((await r.exited).code, 1);
    assert.match(r.stderr(), /PORT must be a port number, got "eighty"/);
  });

  // Ctrl+C in a terminal signals the whole process group, Java included; `kill` signals the hub alone
  for (const [signal, group] of [
    ['SIGINT', true],
    ['SIGTERM', false],
  ] as const) {
    test(`prints how to use it when ready, and ${signal} to the ${group ? 'process group' : 'hub'} stops it with Java`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'synapse-main-'));
      const r = run('test/local/fixtures/fake-main.ts', { PORT: '0' }, ['--data-dir', dataDir], group);
      try {
        const [, seconds, url] = await waitForOutput(
          r,
          /ready in (\d+\.\d) s on (http:\/\/127\.0\.0\.1:\d+)/,
        );
        console.log(`# ${signal} run: ready in ${seconds} s (fake handlers)`);
        await waitForOutput(r, /Press Ctrl\+C to stop/);
        const out = r.stdout();
        assert.ok(out.includes(`Agent card: ${url}/.well-known/agent-card.json`));
        assert.ok(out.includes(`kept in ${dataDir}`));
        assert.ok(
          out.includes(
            `curl -s ${url}/a2a/jsonrpc -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -d ` +
              `'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'`,
          ),
          out,
        );
        const card = await fetch(`${url}/.well-known/agent-card.json`);
        assert.equal(card.status, 200);

        const java = javaChildrenOf(r.child.pid!);
        assert.equal(java.length, 1, 'DynamoDB Local runs as a child');
        if (group) process.kill(-r.child.pid!, signal);
        else r.child.kill(signal);
        const { code } = await r.exited;
        assert.equal(code, 0, r.stderr());
        assert.match(r.stdout(), new RegExp(`${signal}: stopping`));
        assert.equal(alive(java[0]!), false, 'Java stopped with the hub');
        assert.ok(
          existsSync(join(dataDir, 'shared-local-instance.db')),
          'DynamoDB data written to --data-dir',
        );
      } finally {
        if (r.child.exitCode === null) r.child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
