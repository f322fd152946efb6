/**
 * `synapse` sending, parts, flags, versions and errors (a2a-cli SPEC §5.2, §8.1, §8.2, §9.4, §10, §11), run
 * as the package's bundle in a child process per command: against the local hub over both of its bindings,
 * and against a fixture agent (fixtures/cli-agent.ts) for what the hub cannot play — an agent that requires a
 * token, offers A2A 0.3 before 1.0, speaks 0.3 only, does not stream, or sits behind a self-signed
 * certificate — whose recorded requests show what went on the wire.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { authCli } from './fixtures/auth.ts';
import {
  type CliAgent,
  FORBIDDEN_TOKEN,
  GOOD_TOKEN,
  REPORT_BYTES,
  startCliAgent,
} from './fixtures/cli-agent.ts';
import { buildCliRunner, type CliRunner, type Doc, json, type Run } from './fixtures/cli-run.ts';

/** `synapse …args` with a clean A2ACLI_ environment, `input` on its standard input. */
const synapse = (args: string[], input = ''): Promise<Run> => cli.run(args, { input });

let hub: LocalHub;
let agent: CliAgent;
let tlsAgent: CliAgent;
let cli: CliRunner;
let work: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'synapse-cli-core-'));
  // a self-signed certificate for 127.0.0.1, for the agent behind TLS
  const made = spawnSync('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1'],
    ...['-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem')],
  ]);
  assert.equal(made.status, 0, String(made.stderr));
  const tls = {
    key: readFileSync(join(work, 'key.pem'), 'utf8'),
    cert: readFileSync(join(work, 'cert.pem'), 'utf8'),
  };
  [hub, cli, agent, tlsAgent] = await Promise.all([
    startLocalHub({ port: 0, sweepIntervalMs: 60_000 }),
    buildCliRunner(),
    startCliAgent(),
    startCliAgent(tls),
  ]);
});
after(async () => {
  await Promise.all([hub?.stop(), agent?.stop(), tlsAgent?.stop()]);
  cli?.remove();
  rmSync(work, { recursive: true, force: true });
});

/** The requests the fixture agent got while `fn` ran. */
const recorded = async <T>(fixture: CliAgent, fn: () => Promise<T>) => {
  const from = fixture.requests.length;
  const result = await fn();
  return { result, requests: fixture.requests.slice(from) };
};

const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

for (const binding of BINDINGS) {
  const onHub = () => ['-a', hub.url, '--transport', binding];

  describe(`synapse send parts, against the hub over ${binding}`, () => {
    it('[A2ACLI_SEND_006] [A2ACLI_SEND_005] --text, --file, --data (- reads stdin) keep their order; --media-type binds to the part before it; --metadata is the message’s', async () => {
      const note = join(work, `note-${binding.replace('+', '')}.md`);
      writeFileSync(note, '# hi');
      const data = join(work, 'data.json');
      writeFileSync(data, '{"from":"file"}');
      const out = await synapse(
        [
          'send',
          ...onHub(),
          '-o',
          'json',
          ...['--text', 'first', '--file', note, '--data', '-', '--media-type', 'application/vnd.test+json'],
          ...['--file', 'https://files.example/a/report.pdf', '--data', data, '--text', 'last'],
          ...['--media-type', 'text/markdown', '--metadata', '{"trace":"t-1"}'],
        ],
        '[1,2,3]',
      );
      assert.equal(out.code, 0, out.stderr);
      const task = json(out).task;
      const sent = task.history.find((m: Doc) => m.role === 'ROLE_USER');
      assert.deepEqual(sent.parts, [
        { text: 'first', mediaType: 'text/plain' },
        {
          raw: Buffer.from('# hi').toString('base64'),
          filename: note.split('/').at(-1),
          mediaType: 'text/markdown',
        },
        { data: [1, 2, 3], mediaType: 'application/vnd.test+json' },
        { url: 'https://files.example/a/report.pdf', filename: 'report.pdf', mediaType: 'application/pdf' },
        { data: { from: 'file' }, mediaType: 'application/json' },
        { text: 'last', mediaType: 'text/markdown' },
      ]);
      assert.deepEqual(sent.metadata, { trace: 't-1' });
    });

    it('[A2ACLI_SEND_005] [A2ACLI_ERR_USAGE] an explicit --media-type wins over the file name; one that follows no part flag is a usage error, nothing sent', async () => {
      const bin = join(work, 'report.bin');
      writeFileSync(bin, 'not really a pdf');
      const typed = json(
        await synapse(['send', ...onHub(), '-o', 'json', '--file', bin, '--media-type', 'application/pdf']),
      ).task;
      const part = typed.history.find((m: Doc) => m.role === 'ROLE_USER').parts[0];
      assert.equal(part.mediaType, 'application/pdf');
      const inferred = json(await synapse(['send', ...onHub(), '-o', 'json', '--file', bin])).task;
      assert.equal(
        inferred.history.find((m: Doc) => m.role === 'ROLE_USER').parts[0].mediaType,
        'application/octet-stream',
      );

      const before = json(await synapse(['task', 'list', ...onHub(), '-o', 'json'])).tasks?.length ?? 0;
      const orphan = await synapse([
        'send',
        ...onHub(),
        '-o',
        'json',
        '--media-type',
        'text/plain',
        '--text',
        'x',
      ]);
      assert.equal(orphan.code, 2);
      assert.equal(json(orphan).error.code, 'A2ACLI_ERR_USAGE');
      assert.match(json(orphan).error.message, /follows no part flag/);
      const twice = await synapse([
        'send',
        ...onHub(),
        '--text',
        'x',
        '--media-type',
        'a/b',
        '--media-type',
        'c/d',
      ]);
      assert.equal(twice.code, 2);
      const missing = await synapse(['send', ...onHub(), '--file', join(work, 'no-such-file')]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /A2ACLI_ERR_USAGE: --file .*no such file/);
      const after = json(await synapse(['task', 'list', ...onHub(), '-o', 'json'])).tasks?.length ?? 0;
      assert.equal(after, before, 'no task was made by a refused send');
    });

    it('[A2ACLI_SEND_004] [A2ACLI_TASK_GET_001] every part of an artifact is rendered in text: text as text, data as JSON, a file by name, type and size, a URL as its URL', async () => {
      const out = await synapse(['send', ...onHub(), '--text', 'parts']);
      assert.equal(out.code, 0, out.stderr);
      const artifact = /^Artifact parts:\n([\s\S]*?)\n\n/m.exec(`${out.stdout}\n`)?.[1];
      assert.ok(artifact, out.stdout);
      assert.match(artifact, /^a text part$/m);
      assert.match(artifact, /^file: hello\.txt \(text\/plain, 11 bytes\)$/m);
      assert.match(
        artifact,
        /^file: report\.pdf \(application\/pdf, at https:\/\/example\.com\/report\.pdf\)$/m,
      );
      assert.match(artifact, /"answer": 42/);

      const streamed = await synapse(['send', ...onHub(), '--stream', '--text', 'parts']);
      assert.equal(streamed.code, 0, streamed.stderr);
      assert.match(
        streamed.stdout,
        /file: hello\.txt \(text\/plain, 11 bytes\)/,
        'a streamed file part is named',
      );
      assert.doesNotMatch(streamed.stdout, /"0":\d+/, 'no bytes dumped as an object');
    });

    it('[A2ACLI_DEFAULT_001/detail_level_concise] concise by default; --verbose shows the history, metadata and each part’s type', async () => {
      const concise = await synapse(['send', ...onHub(), '--text', 'parts']);
      assert.equal(concise.code, 0, concise.stderr);
      assert.doesNotMatch(concise.stdout, /^History/m);
      assert.doesNotMatch(concise.stdout, /^Metadata:/m);
      assert.doesNotMatch(concise.stdout, /^\[text/m);
      const id = /^Task: (\S+)$/m.exec(concise.stdout)?.[1];
      assert.ok(id);

      const verbose = await synapse(['task', 'get', id, ...onHub(), '--history', '10', '--verbose']);
      assert.equal(verbose.code, 0, verbose.stderr);
      assert.match(verbose.stdout, /^Metadata: \{"demo":"parts"\}$/m);
      assert.match(verbose.stdout, /^History 1 \(USER, [^)]+\):\n\[text, text\/plain\]\nparts$/m);
      assert.match(verbose.stdout, /^\[file, text\/plain, hello\.txt\]$/m);
      assert.match(verbose.stdout, /^\[artifact metadata \{"kind":"demo"\}\]$/m);
      assert.match(verbose.stdout, /^Task: .+\nContext: .+\nState: COMPLETED$/m, 'ids and state still first');
    });

    it('[A2ACLI_DOWNLOAD_001] task download saves the artifacts, refuses to overwrite without --force', async () => {
      const task = json(await synapse(['send', ...onHub(), '-o', 'json', '--text', 'saved text'])).task;
      const dir = join(work, `dl-${binding.replace('+', '')}`);
      const saved = await synapse(['task', 'download', task.id, ...onHub(), '--dir', dir]);
      assert.equal(saved.code, 0, saved.stderr);
      const file = join(dir, 'echo.txt');
      assert.equal(readFileSync(file, 'utf8'), 'saved text');
      assert.match(saved.stdout, new RegExp(`^Task: ${task.id}$`, 'm'));
      assert.match(saved.stdout, /^Saved: .*echo\.txt \(10 bytes\)$/m);

      writeFileSync(file, 'mine');
      const refused = await synapse(['task', 'download', task.id, ...onHub(), '--dir', dir, '-o', 'json']);
      assert.equal(refused.code, 2);
      assert.equal(json(refused).error.code, 'A2ACLI_ERR_USAGE');
      assert.match(json(refused).error.hint, /--force/);
      assert.equal(readFileSync(file, 'utf8'), 'mine', 'nothing overwritten');

      const forced = json(
        await synapse(['task', 'download', task.id, ...onHub(), '--dir', dir, '--force', '-o', 'json']),
      );
      assert.equal(forced.taskId, task.id);
      assert.deepEqual(
        forced.files.map((f: Doc) => [f.path, f.bytes]),
        [[file, 10]],
      );
      assert.equal(readFileSync(file, 'utf8'), 'saved text');
    });

    it('[A2ACLI_TASK_SUBSCRIBE_001] [A2ACLI_OUT_003] [A2ACLI_OUT_004] task subscribe to an unknown task ends with TaskNotFoundError: the last JSONL line under --stream, a line on stderr in text', async () => {
      const streamed = await synapse([
        'task',
        'subscribe',
        'no-such-task',
        ...onHub(),
        '-o',
        'json',
        '--stream',
      ]);
      assert.equal(streamed.code, 1);
      const last = JSON.parse(streamed.stdout.trim().split('\n').at(-1)!) as Doc;
      assert.equal(last.error.code, 'TaskNotFoundError');
      assert.equal(last.error.a2aCode, binding === 'JSONRPC' ? -32001 : 404);

      const single = await synapse(['task', 'subscribe', 'no-such-task', ...onHub(), '-o', 'json']);
      assert.equal(single.code, 1);
      assert.equal(json(single).error.code, 'TaskNotFoundError');

      const text = await synapse(['task', 'subscribe', 'no-such-task', ...onHub()]);
      assert.equal(text.code, 1);
      assert.equal(text.stdout, '');
      assert.match(text.stderr, /^error: TaskNotFoundError: /m);
    });

    it('[A2ACLI_TASK_SUBSCRIBE_001] task subscribe -o json without --stream is one document, the task at its end', async () => {
      const started = json(
        await synapse(['send', ...onHub(), '-o', 'json', '--async', '--text', 'slow 1']),
      ).task;
      const out = await synapse(['task', 'subscribe', started.id, ...onHub(), '-o', 'json']);
      assert.equal(out.code, 0, out.stderr);
      const task = json(out);
      assert.equal(task.id, started.id);
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED');
    });
  });
}

describe('synapse card get --validate', () => {
  it('[A2ACLI_CARD_GET_002] the hub’s card is a valid A2A v1.0 AgentCard', async () => {
    const out = await synapse(['card', 'get', '-a', hub.url, '--validate']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^Valid: yes \(A2A v1\.0 AgentCard\)$/m);
    const doc = json(await synapse(['card', 'get', '-a', hub.url, '--validate', '-o', 'json']));
    assert.equal(doc.name, 'Synapse demo agent', 'json is the card itself');
  });

  it('[A2ACLI_CARD_GET_002] [A2ACLI_ERR_CARD_INVALID] an invalid card: each problem with its path, exit 1', async () => {
    const file = join(work, 'bad-card.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'bad',
        description: 'x',
        version: '1',
        capabilities: {},
        defaultInputModes: [],
        defaultOutputModes: [],
        supportedInterfaces: [{ url: 'not a url', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        skills: [{ id: 's', name: 'S', description: 'd', tags: 'not-a-list' }],
      }),
    );
    const text = await synapse(['card', 'get', '-a', file, '--validate']);
    assert.equal(text.code, 1);
    assert.match(text.stderr, /^problem: supportedInterfaces\[0\]\.url: expected an absolute http\(s\) URL/m);
    assert.match(text.stderr, /^problem: skills\[0\]\.tags: expected an array of strings/m);
    assert.match(text.stderr, /^error: A2ACLI_ERR_CARD_INVALID: .*\(2 problems\)$/m);
    assert.equal(text.stdout, '');

    const doc = json(await synapse(['card', 'get', '-a', file, '--validate', '-o', 'json']));
    assert.equal(doc.error.code, 'A2ACLI_ERR_CARD_INVALID');
    assert.match(doc.error.message, /skills\[0\]\.tags/);

    // a v0.3 card is not a v1.0 one
    writeFileSync(
      file,
      JSON.stringify({ name: 'old', protocolVersion: '0.3.0', url: 'http://127.0.0.1:1/' }),
    );
    const legacy = await synapse(['card', 'get', '-a', file, '--validate']);
    assert.equal(legacy.code, 1);
    assert.match(legacy.stderr, /A2ACLI_ERR_CARD_INVALID/);
  });
});

describe('synapse and the wire: versions, service parameters, transports (fixture agent)', () => {
  it('[A2ACLI_VER_001] [A2ACLI_DEFAULT_001/protocol_version_highest_mutual] [A2ACLI_TX_002] speaks 1.0 though the card lists 0.3 (and gRPC) first; A2A-Version on every request', async () => {
    for (const binding of BINDINGS) {
      const { result, requests } = await recorded(agent, () =>
        synapse(['send', '-a', agent.card('open'), '--transport', binding, '-o', 'json', '--text', 'hi']),
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(json(result).task.status.state, 'TASK_STATE_COMPLETED');
      assert.ok(requests.length >= 2);
      for (const r of requests) assert.equal(r.headers['a2a-version'], '1.0', `${r.method} ${r.path}`);
      assert.ok(!requests.some((r) => r.path.includes('rpc03')), 'the 0.3 interface is not used');
      assert.ok(
        requests.some((r) => r.path === (binding === 'JSONRPC' ? '/open/rpc' : '/open/rest/message:send')),
      );
    }
    // no --transport: the card's first interface this tool speaks at 1.0 (gRPC and the 0.3 one are passed over)
    const { requests } = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('open'), '--text', 'hi']),
    );
    assert.ok(requests.some((r) => r.path === '/open/rpc'));
  });

  it('[A2ACLI_VER_001] [A2ACLI_ERR_USAGE] --a2a-version below 1.0 is refused before anything is sent; a 0.3-only agent is VersionNotSupportedError', async () => {
    const { result: old, requests } = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('open'), '--a2a-version', '0.3', '-o', 'json', '--text', 'hi']),
    );
    assert.equal(old.code, 2);
    assert.equal(json(old).error.code, 'A2ACLI_ERR_USAGE');
    assert.equal(requests.length, 0);
    assert.equal(
      (await synapse(['send', '-a', agent.card('open'), '--a2a-version', 'latest', '--text', 'x'])).code,
      2,
    );

    const explicit = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('open'), '--a2a-version', '1.0', '--text', 'hi']),
    );
    assert.equal(explicit.result.code, 0, explicit.result.stderr);
    assert.ok(explicit.requests.every((r) => r.headers['a2a-version'] === '1.0'));

    const legacy = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('legacy'), '-o', 'json', '--text', 'hi']),
    );
    assert.equal(legacy.result.code, 1);
    assert.equal(json(legacy.result).error.code, 'VersionNotSupportedError');
    assert.deepEqual(
      legacy.requests.map((r) => r.path),
      ['/cards/legacy.json'],
      'only the card was read',
    );
  });

  it('[A2ACLI_AUTH_001] --svc-param travels as a header on each request, --metadata in the payload', async () => {
    for (const binding of BINDINGS) {
      const { result, requests } = await recorded(agent, () =>
        synapse([
          'send',
          '-a',
          agent.card('open'),
          '--transport',
          binding,
          ...['--svc-param', 'x-trace-id:abc123', '--svc-param', 'x-tenant-hint=blue'],
          ...['--metadata', '{"k":"v"}', '--text', 'hi'],
        ]),
      );
      assert.equal(result.code, 0, result.stderr);
      const call = requests.find((r) => r.method === 'POST')!;
      assert.equal(call.headers['x-trace-id'], 'abc123');
      assert.equal(call.headers['x-tenant-hint'], 'blue');
      assert.doesNotMatch(call.body, /abc123/, 'a service parameter is not in the payload');
      assert.deepEqual(
        JSON.parse(call.body).params?.message?.metadata ?? JSON.parse(call.body).message.metadata,
        {
          k: 'v',
        },
      );
      assert.equal(call.headers.k, undefined, 'metadata is not a header');
    }
    const bad = await synapse([
      'send',
      '-a',
      agent.card('open'),
      '--svc-param',
      'no-separator',
      '--text',
      'x',
    ]);
    assert.equal(bad.code, 2);
  });

  it('[A2ACLI_AUTH_004] a credential carried in a service parameter is redacted from --debug; other parameters are shown', async () => {
    const { result, requests } = await recorded(agent, () =>
      synapse([
        'send',
        '-a',
        agent.card('open'),
        '--debug',
        ...['--svc-param', 'x-api-key:svc-secret-value', '--svc-param', 'x-trace-id:visible-trace'],
        '--text',
        'hi',
      ]),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      requests.some((r) => r.headers['x-api-key'] === 'svc-secret-value'),
      'it was sent',
    );
    assert.doesNotMatch(result.stderr, /svc-secret-value/);
    assert.match(result.stderr, /x-api-key: \[redacted\]/);
    assert.match(result.stderr, /x-trace-id: visible-trace/);
  });

  it('[A2ACLI_TX_002] --transport GRPC is known but skipped with a note; the next preference is used', async () => {
    const { result, requests } = await recorded(agent, () =>
      synapse([
        'send',
        '-a',
        agent.card('open'),
        '--transport',
        'GRPC',
        '--transport',
        'HTTP+JSON',
        '--text',
        'hi',
      ]),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /--transport GRPC: this tool does not speak it; skipped/);
    assert.ok(requests.some((r) => r.path === '/open/rest/message:send'));
  });

  it('[A2ACLI_VER_003] capabilities are checked on the card: no subscribe to an agent that does not stream, and send --stream falls back to a plain send', async () => {
    const sub = await recorded(agent, () =>
      synapse(['task', 'subscribe', 'any', '-a', agent.card('nostream'), '-o', 'json']),
    );
    assert.equal(sub.result.code, 2);
    assert.match(json(sub.result).error.message, /does not stream/);
    assert.deepEqual(
      sub.requests.map((r) => r.path),
      ['/cards/nostream.json'],
    );
    const sent = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('nostream'), '--stream', '-o', 'json', '--text', 'hi']),
    );
    assert.equal(sent.result.code, 0, sent.result.stderr);
    const rpc = sent.requests.filter((r) => r.path === '/nostream/rpc').map((r) => JSON.parse(r.body).method);
    assert.deepEqual(rpc, ['SendMessage'], 'no streaming call');
    assert.ok(!sent.requests.some((r) => r.headers.accept === 'text/event-stream'));
  });
});

describe('synapse and credentials (fixture agent requiring a bearer token)', () => {
  it('[A2ACLI_ERR_CREDENTIALS_MISSING] a card that requires a scheme and no credential given: exit 4, nothing sent to the agent', async () => {
    const { result, requests } = await recorded(agent, () =>
      synapse(['send', '-a', agent.card('secured'), '-o', 'json', '--text', 'hi']),
    );
    assert.equal(result.code, 4);
    const { error } = json(result);
    assert.equal(error.code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
    assert.match(error.hint, /bearer: --bearer/);
    assert.deepEqual(
      requests.map((r) => r.path),
      ['/cards/secured.json'],
    );
  });

  it('[A2ACLI_ERR_AUTH_FAILED] [A2ACLI_AUTH_001] a rejected token (401) or a refused one (403): exit 4 over both bindings; the right one works', async () => {
    for (const binding of BINDINGS) {
      const on = ['-a', agent.card('secured'), '--transport', binding];
      const wrong = await synapse(['send', ...on, '--bearer', 'wrong', '-o', 'json', '--text', 'hi']);
      assert.equal(wrong.code, 4, wrong.stdout);
      assert.equal(json(wrong).error.code, 'A2ACLI_ERR_AUTH_FAILED');
      assert.equal(json(wrong).error.a2aCode, 401);
      const refused = await synapse(['send', ...on, '--bearer', FORBIDDEN_TOKEN, '--text', 'hi']);
      assert.equal(refused.code, 4);
      assert.match(refused.stderr, /^error: A2ACLI_ERR_AUTH_FAILED: .*HTTP 403/m);
      assert.doesNotMatch(refused.stderr, new RegExp(FORBIDDEN_TOKEN), 'the token is not echoed');
      const good = await synapse(['send', ...on, '--bearer', GOOD_TOKEN, '-o', 'json', '--text', 'hi']);
      assert.equal(good.code, 0, good.stderr);
      assert.equal(json(good).task.status.state, 'TASK_STATE_COMPLETED');
    }
  });
});

describe('synapse and credentials (a hub that authenticates)', () => {
  let authHub: LocalHub;
  let key = '';
  before(async () => {
    authHub = await startLocalHub({ port: 0, sweepIntervalMs: 60_000, auth: { throttle: false } });
    const admin = authCli(authHub);
    try {
      await admin.addTenant('acme');
      key = (await admin.createKey('acme', 'alice')).key;
    } finally {
      admin.close();
    }
  });
  after(async () => {
    await authHub?.stop();
  });

  it('[A2ACLI_ERR_CREDENTIALS_MISSING] [A2ACLI_ERR_AUTH_FAILED] [A2ACLI_AUTH_001] its card requires a key: none is refused before sending, a wrong one is rejected (401), over both bindings; the right one works', async () => {
    const missing = await synapse(['send', '-a', authHub.url, '-o', 'json', '--text', 'hi']);
    assert.equal(missing.code, 4);
    assert.equal(json(missing).error.code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
    assert.match(json(missing).error.hint, /apiKey: --bearer/);
    for (const binding of BINDINGS) {
      const on = ['-a', authHub.url, '--transport', binding];
      const wrong = await synapse(['task', 'get', 'any', ...on, '--bearer', 'syn_not-a-key', '-o', 'json']);
      assert.equal(wrong.code, 4, wrong.stdout);
      assert.equal(json(wrong).error.code, 'A2ACLI_ERR_AUTH_FAILED');
      assert.equal(json(wrong).error.a2aCode, 401);
      const good = await synapse(['send', ...on, '--bearer', key, '-o', 'json', '--text', 'hi']);
      assert.equal(good.code, 0, good.stderr);
      assert.equal(json(good).task.status.state, 'TASK_STATE_COMPLETED');
    }
  });
});

describe('synapse and TLS (fixture agent with a self-signed certificate)', () => {
  it('[A2ACLI_DEFAULT_001/transport_security_tls_on] [A2ACLI_ERR_UNREACHABLE] the certificate is verified unless --insecure', async () => {
    const out = await synapse(['card', 'get', '-a', tlsAgent.card('open'), '-o', 'json']);
    assert.equal(out.code, 3);
    assert.equal(json(out).error.code, 'A2ACLI_ERR_UNREACHABLE');
    assert.match(json(out).error.hint, /--insecure/);
    const sent = await synapse(['send', '-a', tlsAgent.card('open'), '--text', 'hi']);
    assert.equal(sent.code, 3);

    const insecure = await synapse([
      'send',
      '-a',
      tlsAgent.card('open'),
      '--insecure',
      '-o',
      'json',
      '--text',
      'hi',
    ]);
    assert.equal(insecure.code, 0, insecure.stderr);
    assert.equal(json(insecure).task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(insecure.stderr, /^warning: --insecure: TLS certificates are not verified/m);
  });

  it('[A2ACLI_AUTH_003] a credential sent with --insecure is warned about, loudly, on stderr', async () => {
    const quiet = await synapse(['send', '-a', tlsAgent.card('open'), '--insecure', '--text', 'hi']);
    assert.doesNotMatch(quiet.stderr, /WARNING: a credential/);
    const out = await synapse([
      'send',
      '-a',
      tlsAgent.card('secured'),
      '--insecure',
      '--bearer',
      GOOD_TOKEN,
      '-o',
      'json',
      '--text',
      'hi',
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stderr,
      /^!!! WARNING: a credential is being sent with TLS certificate verification disabled/m,
    );
    assert.doesNotMatch(out.stdout, /WARNING/, 'stdout is the payload alone');
    assert.doesNotMatch(out.stderr, new RegExp(GOOD_TOKEN));
  });
});

describe('synapse task download (fixture agent: bytes, a URL, data)', () => {
  it('[A2ACLI_DOWNLOAD_001] file bytes under their name, a file URL fetched, data as JSON', async () => {
    for (const binding of BINDINGS) {
      const on = ['-a', agent.card('open'), '--transport', binding];
      const task = json(await synapse(['send', ...on, '-o', 'json', '--text', 'files'])).task;
      const dir = join(work, `fixture-dl-${binding.replace('+', '')}`);
      const out = await synapse(['task', 'download', task.id, ...on, '--dir', dir, '-o', 'json']);
      assert.equal(out.code, 0, out.stderr);
      const files = json(out).files.map((f: Doc) => f.path.slice(dir.length + 1));
      assert.deepEqual(files, ['result-1.txt', 'hello.bin', 'report.pdf', 'result-4.json']);
      assert.equal(readFileSync(join(dir, 'result-1.txt'), 'utf8'), 'echo: files');
      assert.equal(readFileSync(join(dir, 'hello.bin'), 'utf8'), 'hello, bytes');
      assert.deepEqual(readFileSync(join(dir, 'report.pdf')), REPORT_BYTES);
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'result-4.json'), 'utf8')), { answer: 42 });
      assert.ok(!existsSync(join(dir, 'result-2.bin')));
    }
  });
});
