import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { alive, javaChildrenOf, run, stopRun, waitForOutput } from './fixtures/process.ts';

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

  test('every bad variable, whichever function reads it, is named before anything starts', async () => {
    const r = run('local/main.ts', {
      PORT: '0',
      DELIVERY_MAX_ATTEMPTS: 'x',
      HEARTBEAT_INTERVAL_SECONDS: '-1',
    });
    assert.equal((await r.exited).code, 1);
    assert.match(r.stderr(), /DELIVERY_MAX_ATTEMPTS must be a whole number from 1 to 100, got "x"/);
    assert.match(r.stderr(), /HEARTBEAT_INTERVAL_SECONDS must be a whole number of seconds ≥ 1, got "-1"/);
    assert.doesNotMatch(r.stdout() + r.stderr(), /DynamoDB|ready/, 'nothing started');
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
        // a loaded machine (two test files at once, each with its own JVMs) can take a while
        const [, seconds, url] = await waitForOutput(
          r,
          /ready in (\d+\.\d) s on (http:\/\/127\.0\.0\.1:\d+)/,
          90_000,
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
        assert.ok(
          out.includes(
            `curl -s ${url}/registry/search -H 'Content-Type: application/json' -d '{"query":{"text":"echo"}}'`,
          ),
          out,
        );
        assert.ok(out.includes(`npm run synapse -- send -a ${url} --text hello`), out);
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
        await stopRun(r);
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
