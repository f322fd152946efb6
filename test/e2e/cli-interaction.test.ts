/**
 * How `synapse` holds an interaction and picks its binding (a2a-cli SPEC §6, §7, §11), against the local
 * hub: the card's interface order and `--transport`, the interface's tenant, continuing by context or task
 * and refusing an id the agent rejects, nothing remembered between runs, a subscription's first event, a
 * stream that breaks (through a proxy that cuts it) falling back to polling, and how a wait polls, stops
 * and is interrupted (against a small agent whose task stays in TASK_STATE_UNSPECIFIED).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { buildCliRunner, type CliRunner, type Doc, json, jsonLines } from './fixtures/cli-run.ts';

let hub: LocalHub;
let cli: CliRunner;
let card: Doc;
let dir: string;
const servers: Server[] = [];

const listen = async (server: Server): Promise<string> => {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** A card file: the hub's card with `change` applied to a copy. */
const cardFile = (name: string, change: (copy: Doc) => void): string => {
  const copy = structuredClone(card);
  change(copy);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(copy));
  return file;
};

/** The URLs a `--debug` run called, in order. */
const calledUrls = (stderr: string): string[] =>
  [...stderr.matchAll(/^debug: > (?:POST|GET|DELETE) (\S+)$/gm)].map((m) => m[1]!);

/** The request bodies a `--debug` run sent, parsed. */
const sentBodies = (stderr: string): Doc[] =>
  [...stderr.matchAll(/^debug: > (\{.*)$/gm)].map((m) => JSON.parse(m[1]!) as Doc);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'synapse-cli-interaction-'));
  [hub, cli] = await Promise.all([startLocalHub({ port: 0, sweepIntervalMs: 60_000 }), buildCliRunner()]);
  card = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as Doc;
});
after(async () => {
  for (const server of servers) server.close();
  await hub?.stop();
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('the binding', () => {
  const urlOf = (binding: string): string =>
    card.supportedInterfaces.find((i: Doc) => i.protocolBinding === binding).url;

  it('[A2ACLI_TX_001] [A2ACLI_TX_002] [A2ACLI_DEFAULT_001/transport_server_preference_order] is the card’s first interface synapse speaks, unless --transport names others, in order', async () => {
    const first = card.supportedInterfaces[0].protocolBinding as string;
    const other = first === 'JSONRPC' ? 'HTTP+JSON' : 'JSONRPC';
    const byDefault = await cli.run(['send', '-a', hub.url, '--debug', '--text', 'hello']);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.ok(calledUrls(byDefault.stderr)[1]?.startsWith(urlOf(first)), byDefault.stderr);

    const reordered = cardFile('reordered', (c) => {
      const is = (i: Doc) => i.protocolBinding === other;
      c.supportedInterfaces = [
        ...c.supportedInterfaces.filter(is),
        ...c.supportedInterfaces.filter((i: Doc) => !is(i)),
      ];
    });
    const byCard = await cli.run(['send', '-a', reordered, '--debug', '--text', 'hello']);
    assert.equal(byCard.code, 0, byCard.stderr);
    assert.ok(calledUrls(byCard.stderr)[0]?.startsWith(urlOf(other)), 'the card’s order is the server’s');

    const byFlag = await cli.run([
      'send',
      '-a',
      hub.url,
      '--debug',
      '--transport',
      other,
      '--transport',
      first,
      '--text',
      'hello',
    ]);
    assert.equal(byFlag.code, 0, byFlag.stderr);
    assert.ok(calledUrls(byFlag.stderr)[1]?.startsWith(urlOf(other)), 'the first --transport wins');

    const onlyOne = cardFile('only-first', (c) => {
      c.supportedInterfaces = c.supportedInterfaces.slice(0, 1);
    });
    const skipped = await cli.run([
      'send',
      '-a',
      onlyOne,
      '--debug',
      '--transport',
      other,
      '--transport',
      first,
      '--text',
      'hello',
    ]);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.ok(calledUrls(skipped.stderr)[0]?.startsWith(urlOf(first)), 'a binding the card lacks is skipped');
  });

  it('[A2ACLI_TX_003] carries the interface’s tenant in every request, as declared, and none when none is declared', async () => {
    const id = crypto.randomUUID();
    const jsonRpcOnly = (tenant?: string) =>
      cardFile(`tenant-${tenant ?? 'none'}`, (c) => {
        c.supportedInterfaces = c.supportedInterfaces
          .filter((i: Doc) => i.protocolBinding === 'JSONRPC')
          .map((i: Doc) => (tenant === undefined ? i : { ...i, tenant }));
      });
    const withTenant = await cli.run(['task', 'get', id, '-a', jsonRpcOnly('acme'), '--debug', '-o', 'json']);
    const bodies = sentBodies(withTenant.stderr);
    assert.ok(bodies.length >= 1, withTenant.stderr);
    for (const body of bodies) assert.equal(body.params.tenant, 'acme', JSON.stringify(body));

    const without = await cli.run(['task', 'get', id, '-a', jsonRpcOnly(), '--debug', '-o', 'json']);
    assert.equal(json(without).error.code, 'TaskNotFoundError');
    const plain = sentBodies(without.stderr);
    assert.ok(plain.length >= 1, without.stderr);
    for (const body of plain) assert.ok(!('tenant' in body.params), JSON.stringify(body));
  });
});

for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
  describe(`an interaction over ${transport}`, () => {
    const agent = () => ['-a', hub.url, '--transport', transport];

    it('[A2ACLI_INTERACT_001] [A2ACLI_INTERACT_003] a new turn in a context is a new task there; synapse sends no id it was not given', async () => {
      const first = await cli.run(['send', ...agent(), '-o', 'json', '--debug', '--text', 'hello']);
      const sent = sentBodies(first.stderr);
      if (transport === 'JSONRPC') {
        const message = sent.find((b) => b.method === 'SendMessage')?.params.message;
        assert.ok(message?.messageId, first.stderr);
        assert.ok(!message.taskId && !message.contextId, 'no invented task or context id');
      } else {
        const message = sent.find((b) => b.message)?.message;
        assert.ok(message?.messageId, first.stderr);
        assert.ok(!message.taskId && !message.contextId, 'no invented task or context id');
      }
      const { task } = json(first);
      const next = json(
        await cli.run(['send', ...agent(), '-o', 'json', '--context-id', task.contextId, '--text', 'hello']),
      ).task;
      assert.equal(next.contextId, task.contextId);
      assert.notEqual(next.id, task.id);
      const listed = json(
        await cli.run(['task', 'list', ...agent(), '-o', 'json', '--context-id', task.contextId]),
      );
      assert.deepEqual(listed.tasks.map((t: Doc) => t.id).sort(), [task.id, next.id].sort());
    });

    it('[A2ACLI_INTERACT_002] [A2ACLI_OUT_004] a task id the agent rejects is its error, exit 1, and no new task', async () => {
      // tasks are listed newest first
      const newest = async () =>
        json(await cli.run(['task', 'list', ...agent(), '-o', 'json', '--page-size', '1'])).tasks?.[0]?.id;
      const before = await newest();
      const unknown = await cli.run([
        'send',
        ...agent(),
        '-o',
        'json',
        '--task-id',
        crypto.randomUUID(),
        '--text',
        'hello',
      ]);
      assert.equal(unknown.code, 1);
      assert.equal(json(unknown).error.code, 'TaskNotFoundError');
      assert.match(json(unknown).error.hint, /--debug/);
      assert.equal(await newest(), before, 'no task was made');

      const asked = json(await cli.run(['send', ...agent(), '-o', 'json', '--text', 'ask'])).task;
      const mismatched = await cli.run([
        'send',
        ...agent(),
        '-o',
        'json',
        '--task-id',
        asked.id,
        '--context-id',
        crypto.randomUUID(),
        '--text',
        '42',
      ]);
      assert.equal(mismatched.code, 1, mismatched.stdout);
      assert.ok(json(mismatched).error.a2aCode !== null, 'the protocol’s error, as it came');
      assert.equal(await newest(), asked.id, 'no task was made after the ask task');
      const still = json(await cli.run(['task', 'get', asked.id, ...agent(), '-o', 'json']));
      assert.equal(still.status.state, 'TASK_STATE_INPUT_REQUIRED', 'the paused task is untouched');
      await cli.run(['task', 'cancel', asked.id, ...agent()]);
    });

    it('[A2ACLI_INTERACT_005] remembers nothing: a turn without ids starts anew, and nothing is written to the home or working directory', async () => {
      const home = mkdtempSync(join(tmpdir(), 'synapse-home-'));
      try {
        const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
        const one = json(
          await cli.run(['send', ...agent(), '-o', 'json', '--text', 'hello'], { env, cwd: home }),
        ).task;
        const two = json(
          await cli.run(['send', ...agent(), '-o', 'json', '--text', 'hello'], { env, cwd: home }),
        ).task;
        assert.notEqual(one.contextId, two.contextId);
        assert.notEqual(one.id, two.id);
        assert.deepEqual(readdirSync(home, { recursive: true }), []);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });

    it('[A2ACLI_TASK_SUBSCRIBE_002] a subscription’s first event is the whole task, so no separate get is needed', async () => {
      const started = json(
        await cli.run(['send', ...agent(), '-o', 'json', '--async', '--text', 'slow 2']),
      ).task;
      const subscribed = await cli.run([
        'task',
        'subscribe',
        started.id,
        ...agent(),
        '-o',
        'json',
        '--stream',
      ]);
      assert.equal(subscribed.code, 0, subscribed.stderr);
      const first = jsonLines(subscribed)[0] ?? {};
      assert.equal(first?.task?.id, started.id, subscribed.stdout);
      assert.equal(first.task.contextId, started.contextId);
      assert.ok(first.task.status.state, 'the task’s state');
    });

    it('[A2ACLI_TASK_POLL_003] a wait stops at once at input-required, exit 0', async () => {
      const asked = json(await cli.run(['send', ...agent(), '-o', 'json', '--async', '--text', 'ask'])).task;
      const waited = await cli.run([
        'task',
        'get',
        asked.id,
        ...agent(),
        '--wait',
        '--poll-interval',
        '0.1',
        '-o',
        'json',
      ]);
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(json(waited).status.state, 'TASK_STATE_INPUT_REQUIRED');
      await cli.run(['task', 'cancel', asked.id, ...agent()]);
    });
  });
}

describe('a stream that breaks', () => {
  it('[A2ACLI_TASK_POLL_004] falls back to polling and follows the task to its end', async () => {
    // a proxy in front of the hub that cuts every event stream after its first chunk
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${hub.url}${req.url}`, {
        method: req.method,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
        ) as Record<string, string>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const type = upstream.headers.get('content-type') ?? '';
      res.writeHead(upstream.status, { 'content-type': type });
      if (!type.includes('text/event-stream')) {
        res.end(Buffer.from(await upstream.arrayBuffer()));
        return;
      }
      const reader = upstream.body!.getReader();
      const { value } = await reader.read();
      await new Promise<void>((flushed) => res.write(value, () => flushed()));
      await reader.cancel();
      res.socket?.destroy();
    });
    const proxyUrl = await listen(proxy);
    const proxied = cardFile('proxied', (c) => {
      for (const i of c.supportedInterfaces) i.url = i.url.replace(hub.url, proxyUrl);
    });
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      const out = await cli.run([
        'send',
        '-a',
        proxied,
        '--transport',
        transport,
        '-o',
        'json',
        '--stream',
        '--poll-interval',
        '0.2',
        '--text',
        'slow 2',
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stderr, /the stream broke/);
      const last = jsonLines(out).at(-1)!;
      assert.equal(last.task?.status.state, 'TASK_STATE_COMPLETED', out.stdout);
    }
  });
});

describe('a stream cut before its first event', () => {
  it('[A2ACLI_ERR_UNREACHABLE] ends the run with the error (exit 3), not a hang', {
    timeout: 60_000,
  }, async () => {
    // nothing names a task yet, so there is nothing to poll: the run ends, and no timer keeps it alive
    const cutter = createServer((req, res) => {
      if (req.headers.accept?.includes('text/event-stream')) {
        req.socket.destroy();
        return;
      }
      res.writeHead(404).end();
    });
    const cutterUrl = await listen(cutter);
    const cut = cardFile('cut', (c) => {
      for (const i of c.supportedInterfaces) i.url = i.url.replace(hub.url, cutterUrl);
    });
    const out = await cli.run(['send', '-a', cut, '-o', 'json', '--stream', '--text', 'slow 2']);
    assert.equal(out.code, 3, out.stderr);
    assert.equal(json(out).error.code, 'A2ACLI_ERR_UNREACHABLE');
  });
});

describe('a wait', () => {
  /** An agent whose every task stays in TASK_STATE_UNSPECIFIED; counts the GetTask calls it answers. */
  const unspecifiedAgent = async () => {
    const calls: number[] = [];
    const server = createServer(async (req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            name: 'undecided',
            description: 'never says what state its tasks are in',
            version: '1.0.0',
            supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
            capabilities: { streaming: false, pushNotifications: false },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [],
          }),
        );
        return;
      }
      let body = '';
      for await (const chunk of req) body += chunk;
      const request = JSON.parse(body) as Doc;
      calls.push(Date.now());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: request.id,
          result: { id: request.params.id, contextId: 'c-1', status: { state: 'TASK_STATE_UNSPECIFIED' } },
        }),
      );
    });
    const base = await listen(server);
    return { url: base, calls };
  };

  it('[A2ACLI_TASK_POLL_003] [A2ACLI_TASK_POLL_002] [A2ACLI_ERR_TIMEOUT] polls on through TASK_STATE_UNSPECIFIED, backing off, until --timeout (exit 5)', async () => {
    const agent = await unspecifiedAgent();
    const out = await cli.run([
      'task',
      'get',
      't-1',
      '-a',
      agent.url,
      '--wait',
      '--poll-interval',
      '0.1',
      '--timeout',
      '1',
      '-o',
      'json',
    ]);
    assert.equal(out.code, 5, out.stderr);
    assert.equal(json(out).error.code, 'A2ACLI_ERR_TIMEOUT');
    assert.match(json(out).error.hint, /task get t-1/);
    assert.ok(agent.calls.length >= 2, 'it kept polling');
    // a poll every 0.1 s would be 10 in the second; growing by half each time, at most 6
    assert.ok(agent.calls.length <= 6, `backed off: ${agent.calls.length} polls`);
  });

  it('[A2ACLI_TASK_POLL_002] is interruptible: Ctrl-C names the task, which goes on', async () => {
    const running = cli.start([
      'send',
      '-a',
      hub.url,
      '--debug',
      '--poll-interval',
      '0.2',
      '--text',
      'slow 30',
    ]);
    // the send has been answered once its first poll has gone out
    for (let stderr = ''; !/"GetTask"|\/tasks\//.test(stderr); ) {
      const [chunk] = (await once(running.child.stderr!, 'data')) as [Buffer];
      stderr += chunk.toString();
    }
    running.child.kill('SIGINT');
    const out = await running.done;
    assert.equal(out.code, 130, out.stderr);
    const id = /interrupted: task (\S+) goes on; look at it with synapse task get \1 --wait/.exec(
      out.stderr,
    )?.[1];
    assert.ok(id, out.stderr);
    const task = json(await cli.run(['task', 'get', id, '-a', hub.url, '-o', 'json']));
    assert.equal(task.status.state, 'TASK_STATE_WORKING');
    await cli.run(['task', 'cancel', id, '-a', hub.url]);
  });
});
