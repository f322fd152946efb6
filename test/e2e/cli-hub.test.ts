/**
 * `synapse p2p`, `synapse registry` and `synapse admin` (the hub's own surfaces, docs/cli.md) against two
 * local hubs: hub A (this process, its authorizer on) is the requester and holds the registry, hub B (a
 * child process: `npm start`'s entry with the demo agent, on A's DynamoDB Local) the Synapse executor.
 * The bundled CLI, a child process per command: the admin registers A's tenant and makes the key every
 * other command uses; tasks are delegated, shown, answered (a question, a human decision), completed and
 * canceled; a card is published, approved, found by skill and shown; the key is revoked and refused. Bad
 * input: missing arguments (2), an unknown task (the hub's not-found, 1), an unreachable hub (3).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { SYNAPSE_CALLBACK_PATH } from '../../shared/contracts/routes.ts';
import { buildCliRunner, type CliRunner, type Doc, json, type Run } from './fixtures/cli-run.ts';
import { startHubProcess, stopHubProcess } from './fixtures/hub-process.ts';
import { freePort } from './fixtures/registry.ts';

const KEY = { id: 'ab-1', secret: 'the-secret-hub-a-and-hub-b-share-32+' };

let hubA: LocalHub;
let hubB: ChildProcess;
let urlB: string;
let cli: CliRunner;
let work: string;
/** The API key the admin made for tenant `default` (read, write, approve). */
let apiKey = '';
let keyId = '';

/** `synapse …args` with a clean A2ACLI_ environment plus `env`. */
const synapse = (args: string[], env: Record<string, string> = {}): Promise<Run> => cli.run(args, { env });

/** The environment `npm start` prints for the admin: the hub's table on its DynamoDB Local. */
const adminEnv = () => ({ TABLE_NAME: hubA.tableName, AWS_ENDPOINT_URL_DYNAMODB: hubA.dynamoEndpoint });
/** The hub and the key, from the environment (never on the command line, which `ps` shows). */
const hubEnv = () => ({ A2ACLI_HUB: hubA.url, A2ACLI_API_KEY: apiKey });

const ok = (run: Run): Doc => {
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  return json(run);
};

/** `p2p show -o json` until the Synapse state is one of `states`. */
const showUntil = async (id: string, states: readonly string[], timeoutMs = 30_000): Promise<Doc> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const shown = ok(await synapse(['p2p', 'show', id, '-o', 'json'], hubEnv()));
    if (states.includes(shown.synapse?.state)) return shown;
    if (Date.now() > until)
      throw new Error(`task ${id} is ${shown.synapse?.state}, not ${states.join(' or ')}`);
    await new Promise((r) => setTimeout(r, 150));
  }
};

const startHubB = (port: number, dynamoEndpoint: string, peersOfB: unknown): Promise<ChildProcess> =>
  startHubProcess({
    port,
    env: {
      // a table of its own on A's DynamoDB Local: no second JVM
      SYNAPSE_DYNAMO_ENDPOINT: dynamoEndpoint,
      SYNAPSE_AGENT_ID: 'hub-b',
      SYNAPSE_PEERS: JSON.stringify(peersOfB),
      PUSH_URL_ALLOWLIST: '127.0.0.1',
      DELIVERY_BASE_DELAY_SECONDS: '0.05',
      DELIVERY_JITTER: '0',
    },
  });

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'synapse-cli-hub-'));
  const portA = await freePort();
  const portB = await freePort();
  urlB = `http://127.0.0.1:${portB}`;
  const [a, built] = await Promise.all([
    startLocalHub({
      port: portA,
      sweepIntervalMs: 500,
      auth: { throttle: false },
      env: {
        SYNAPSE_AGENT_ID: 'hub-a',
        SYNAPSE_PEERS: JSON.stringify([
          { peerId: 'hub-b', tenant: 'default', endpoint: `${urlB}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
        ]),
        SYNAPSE_REMOTE_SKILLS: JSON.stringify({ echo: 'hub-b' }),
        PUSH_URL_ALLOWLIST: '127.0.0.1',
        DELIVERY_BASE_DELAY_SECONDS: '0.2',
        DELIVERY_JITTER: '0',
        // every request reads the registry's feed: an approval is found by the next search
        REGISTRY_CATALOG_REFRESH_MS: '0',
      },
    }),
    buildCliRunner(),
  ]);
  hubA = a;
  cli = built;
  hubB = await startHubB(portB, hubA.dynamoEndpoint, [
    { peerId: 'hub-a', tenant: 'default', endpoint: `${hubA.url}${SYNAPSE_CALLBACK_PATH}`, keys: [KEY] },
  ]);
  // the admin registers the tenant and makes the key the other commands use
  ok(await synapse(['admin', 'tenants', 'add', 'default', '-o', 'json'], adminEnv()));
  const made = ok(
    await synapse(
      [
        'admin',
        'keys',
        'create',
        '--tenant',
        'default',
        '--principal',
        'alice',
        '--rights',
        'read,write,approve',
        '-o',
        'json',
      ],
      adminEnv(),
    ),
  );
  apiKey = made.key;
  keyId = made.record.keyId;
});

after(async () => {
  await hubA?.stop();
  await stopHubProcess(hubB);
  cli?.remove();
  rmSync(work, { recursive: true, force: true });
});

describe('synapse admin', () => {
  it('registers a tenant (once) and makes a key, shown once, never its hash', async () => {
    assert.match(apiKey, /^syn_[a-z2-7]{16}_/);
    const again = ok(await synapse(['admin', 'tenants', 'add', 'default', '-o', 'json'], adminEnv()));
    assert.equal(again.created, false);
    assert.equal(again.tenant.tenant, 'default');
    assert.equal(again.tenant.usageKey, undefined, 'the usage key is not shown');

    const tenants = await synapse(['admin', 'tenants', 'list'], adminEnv());
    assert.equal(tenants.code, 0, tenants.stderr);
    assert.match(tenants.stdout, /^Tenant: default {2}since /m);

    const keys = ok(
      await synapse(['admin', 'keys', 'list', '--tenant', 'default', '-o', 'json'], adminEnv()),
    );
    const mine = keys.keys.find((k: Doc) => k.keyId === keyId);
    assert.deepEqual(mine.rights, ['read', 'write', 'approve']);
    assert.equal(mine.secretHash, undefined);
    assert.ok(!JSON.stringify(keys).includes(apiKey.slice(22)), 'no secret listed');
  });

  it('loads the AWS SDK only for admin: the chunks every other command parses hold none of it', () => {
    // what cli/main.ts's chunk and its static imports were built from (cli/build.ts)
    assert.ok(
      cli.entryInputs.some((f) => f.endsWith('cli/main.ts')),
      'cli/main.ts is parsed by every command',
    );
    assert.deepEqual(
      cli.entryInputs.filter((f) => f.includes('node_modules/@aws-sdk/')),
      [],
      'what every other command parses holds no AWS SDK',
    );
    const chunks = join(dirname(cli.bin), 'chunks');
    assert.ok(
      readdirSync(chunks).some((f) => readFileSync(join(chunks, f), 'utf8').includes('DynamoDBClient')),
      'the SDK is in the bundle (admin’s chunk)',
    );
  });

  it('refuses bad input: an unregistered tenant, unknown rights (2), no table (2), a table it cannot reach (3), an unknown key (1)', async () => {
    const unregistered = await synapse(
      ['admin', 'keys', 'create', '--tenant', 'nobody', '--principal', 'x', '-o', 'json'],
      adminEnv(),
    );
    assert.equal(unregistered.code, 2);
    assert.equal(json(unregistered).error.code, 'A2ACLI_ERR_USAGE');
    const rights = await synapse(
      ['admin', 'keys', 'create', '--tenant', 'default', '--principal', 'x', '--rights', 'wrte'],
      adminEnv(),
    );
    assert.equal(rights.code, 2);
    assert.match(rights.stderr, /unknown wrte/);
    const noTable = await synapse(['admin', 'tenants', 'list', '-o', 'json']);
    assert.equal(noTable.code, 2);
    assert.match(json(noTable).error.message, /TABLE_NAME/);
    const ghost = await freePort();
    const unreachable = await synapse(['admin', 'tenants', 'list', '-o', 'json'], {
      TABLE_NAME: hubA.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${ghost}`,
    });
    assert.equal(unreachable.code, 3);
    assert.equal(json(unreachable).error.code, 'A2ACLI_ERR_UNREACHABLE');
    const unknown = await synapse(['admin', 'keys', 'revoke', 'nosuchkey', '-o', 'json'], adminEnv());
    assert.equal(unknown.code, 1);
    assert.equal(json(unknown).error.code, 'SYNAPSE_KEY_NOT_FOUND');
  });
});

describe('synapse p2p', () => {
  it('delegate → show → answer the question (fields) → completed, in json and text', async () => {
    const made = ok(
      await synapse(
        ['p2p', 'delegate', '--peer', 'hub-b', '--type', 'slow', '--text', 'slow', '-o', 'json'],
        hubEnv(),
      ),
    );
    assert.equal(made.synapse.peer, 'hub-b');
    const id: string = made.task.id;
    const asking = await showUntil(id, ['info_needed']);
    assert.equal(asking.task.status.state, 'TASK_STATE_INPUT_REQUIRED');

    const text = await synapse(['p2p', 'show', id], hubEnv());
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^Task: ${id}$`, 'm'));
    assert.match(text.stdout, /^State: INPUT_REQUIRED\nSynapse state: info_needed\nPeer: hub-b$/m);
    assert.match(text.stdout, /How many seconds/);
    assert.match(text.stdout, new RegExp(`^Resume: synapse p2p answer ${id} --hub ${hubA.url} --field`, 'm'));
    assert.match(text.stdout, /^Messages:\n {2}user: slow/m);
    assert.ok(!text.stdout.includes(apiKey) && !text.stderr.includes(apiKey), 'the key is never printed');

    // a decision is not what it waits for: the hub's 409, as an envelope
    const wrong = await synapse(['p2p', 'answer', id, '--approve', '-o', 'json'], hubEnv());
    assert.equal(wrong.code, 1);
    assert.deepEqual(
      { code: json(wrong).error.code, a2aCode: json(wrong).error.a2aCode },
      { code: 'SYNAPSE_INVALID_STATE', a2aCode: 409 },
    );

    const answered = ok(await synapse(['p2p', 'answer', id, '--field', 'seconds=1', '-o', 'json'], hubEnv()));
    assert.equal(answered.task.id, id);
    const done = await showUntil(id, ['completed', 'failed']);
    assert.equal(done.synapse.state, 'completed');
    assert.equal(done.task.status.state, 'TASK_STATE_COMPLETED');
    assert.match(JSON.stringify(done.task.status.message), /Done after 1 s/);
  });

  it('delegate by skill → a human decision (approve, with notes) → completed', async () => {
    const made = ok(
      await synapse(
        ['p2p', 'delegate', '--peer', 'hub-b', '--type', 'approve', '--text', 'approve', '-o', 'json'],
        hubEnv(),
      ),
    );
    const id: string = made.task.id;
    await showUntil(id, ['need_human']);
    const text = await synapse(['p2p', 'show', id], hubEnv());
    assert.match(text.stdout, new RegExp(`^Resume: synapse p2p answer ${id} --hub \\S+ --approve`, 'm'));
    const decided = await synapse(
      ['p2p', 'answer', id, '--approve', '--notes', 'fine by me', '--decided-by', 'grace'],
      hubEnv(),
    );
    assert.equal(decided.code, 0, decided.stderr);
    assert.match(decided.stdout, new RegExp(`^Task: ${id}$`, 'm'));
    const done = await showUntil(id, ['completed', 'failed', 'rejected']);
    assert.equal(done.synapse.state, 'completed');
    assert.match(JSON.stringify(done.task.status.message), /Approved: fine by me/);

    // by skill: the hub finds the peer (SYNAPSE_REMOTE_SKILLS echo → hub-b)
    const bySkill = ok(
      await synapse(
        ['p2p', 'delegate', '--skill', 'echo', '--text', 'echo across hubs', '-o', 'json'],
        hubEnv(),
      ),
    );
    assert.equal(bySkill.synapse.peer, 'hub-b');
    const echoed = await showUntil(bySkill.task.id, ['completed', 'failed']);
    assert.match(JSON.stringify(echoed.task.artifacts), /echo across hubs/);
  });

  it('a human decision rejected with notes ends the task rejected', async () => {
    const id: string = ok(
      await synapse(
        ['p2p', 'delegate', '--peer', 'hub-b', '--type', 'approve', '--text', 'approve', '-o', 'json'],
        hubEnv(),
      ),
    ).task.id;
    await showUntil(id, ['need_human']);
    ok(await synapse(['p2p', 'answer', id, '--reject', '--notes', 'not today', '-o', 'json'], hubEnv()));
    const done = await showUntil(id, ['completed', 'failed', 'rejected']);
    assert.equal(done.synapse.state, 'rejected');
  });

  it('cancel: the task is canceled, and canceling again changes nothing', async () => {
    const id: string = ok(
      await synapse(
        ['p2p', 'delegate', '--peer', 'hub-b', '--type', 'slow', '--text', 'slow 30', '-o', 'json'],
        hubEnv(),
      ),
    ).task.id;
    await showUntil(id, ['confirmed', 'executing']);
    const canceled = ok(await synapse(['p2p', 'cancel', id, '-o', 'json'], hubEnv()));
    assert.equal(canceled.synapse.state, 'cancelled');
    assert.equal(canceled.task.status.state, 'TASK_STATE_CANCELED');
    const again = ok(await synapse(['p2p', 'cancel', id, '-o', 'json'], hubEnv()));
    assert.equal(again.synapse.state, 'cancelled');
  });

  it('bad input: missing arguments (2, nothing sent), an unknown task (the hub’s 404, 1), no hub (2), an unreachable hub (3)', async () => {
    for (const args of [
      ['p2p', 'delegate', '--text', 'x'],
      ['p2p', 'delegate', '--peer', 'hub-b'],
      ['p2p', 'answer', 'some-id'],
      ['p2p', 'answer', 'some-id', '--approve', '--reject'],
      ['p2p', 'show'],
      ['registry', 'publish'],
      ['registry', 'search'],
      ['admin', 'keys', 'create', '--tenant', 'default'],
    ]) {
      const run = await synapse([...args, '-o', 'json'], hubEnv());
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.equal(json(run).error.code, 'A2ACLI_ERR_USAGE', args.join(' '));
    }
    const unknown = await synapse(['p2p', 'show', 'no-such-task', '-o', 'json'], hubEnv());
    assert.equal(unknown.code, 1);
    assert.deepEqual(
      { code: json(unknown).error.code, a2aCode: json(unknown).error.a2aCode },
      { code: 'SYNAPSE_TASK_NOT_FOUND', a2aCode: 404 },
    );
    const textErr = await synapse(['p2p', 'show', 'no-such-task'], hubEnv());
    assert.equal(textErr.stdout, '');
    assert.match(textErr.stderr, /^error: SYNAPSE_TASK_NOT_FOUND: No such task$/m);

    const noHub = await synapse(['p2p', 'show', 'x', '-o', 'json'], { A2ACLI_API_KEY: apiKey });
    assert.equal(noHub.code, 2);
    assert.match(json(noHub).error.message, /--hub/);

    const ghost = await freePort();
    const unreachable = await synapse([
      'p2p',
      'show',
      'x',
      '-o',
      'json',
      '--hub',
      `http://127.0.0.1:${ghost}`,
    ]);
    assert.equal(unreachable.code, 3);
    assert.equal(json(unreachable).error.code, 'A2ACLI_ERR_UNREACHABLE');

    // no credentials at a hub that asks for them: 4
    const anonymous = await synapse(['p2p', 'show', 'x', '-o', 'json'], { A2ACLI_HUB: hubA.url });
    assert.equal(anonymous.code, 4);
    assert.equal(json(anonymous).error.code, 'A2ACLI_ERR_CREDENTIALS_MISSING');
  });

  it('the hub is the agent card’s (-a) when --hub is not given', async () => {
    const unknown = await synapse(['p2p', 'show', 'no-such-task', '-o', 'json', '-a', hubA.url], {
      A2ACLI_API_KEY: apiKey,
    });
    assert.equal(unknown.code, 1);
    assert.equal(json(unknown).error.code, 'SYNAPSE_TASK_NOT_FOUND');
  });
});

describe('synapse registry', () => {
  it('publish → approve → search by skill (and by text) → show; reject', async () => {
    const card = join(work, 'card.json');
    writeFileSync(
      card,
      JSON.stringify({
        name: 'Currency converter',
        version: '1.0.0',
        description: 'Converts amounts between currencies at today’s rates.',
        supportedInterfaces: [
          { url: 'https://fx.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
        capabilities: {},
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [
          { id: 'convert', name: 'Convert', tags: ['finance', 'fx'], description: 'Converts an amount.' },
        ],
      }),
    );
    const published = ok(await synapse(['registry', 'publish', '--card', card, '-o', 'json'], hubEnv()));
    assert.equal(published.state, 'PENDING_APPROVAL');
    const id: string = published.id;
    // not approved: not found
    assert.deepEqual(
      ok(await synapse(['registry', 'search', '--skill', 'convert', '-o', 'json'], hubEnv())).items,
      [],
    );

    const approved = await synapse(
      ['registry', 'approve', id, '--record-version', '1', '--note', 'looks right'],
      hubEnv(),
    );
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /^State: APPROVED$/m);
    assert.match(approved.stdout, /^Review: v1 approved by alice at \S+ — looks right$/m);

    const bySkill = ok(await synapse(['registry', 'search', '--skill', 'convert', '-o', 'json'], hubEnv()));
    assert.deepEqual(
      bySkill.items.map((e: Doc) => e.metadata.recordId),
      [id],
    );
    const byText = await synapse(['registry', 'search', 'currency', '--skill', 'convert'], hubEnv());
    assert.equal(byText.code, 0, byText.stderr);
    assert.match(
      byText.stdout,
      new RegExp(
        `^Agent: ${id} {2}Currency converter {2}health unknown {2}score \\d+ {2}skills convert$`,
        'm',
      ),
    );
    const otherSkill = ok(
      await synapse(['registry', 'search', 'currency', '--skill', 'translate', '-o', 'json'], hubEnv()),
    );
    assert.deepEqual(otherSkill.results, []);

    const shown = ok(await synapse(['registry', 'show', id, '-o', 'json'], hubEnv()));
    assert.equal(shown.id, id);
    assert.equal(shown.liveVersion, 1);

    // a second card, rejected
    writeFileSync(card, JSON.stringify({ ...JSON.parse(readFileSync(card, 'utf8')), name: 'Weather' }));
    const second = ok(await synapse(['registry', 'publish', '--card', card, '-o', 'json'], hubEnv()));
    const rejected = ok(
      await synapse(['registry', 'reject', second.id, '--note', 'no', '-o', 'json'], hubEnv()),
    );
    assert.equal(rejected.state, 'REJECTED');

    const missing = await synapse(['registry', 'show', 'no-such-record', '-o', 'json'], hubEnv());
    assert.equal(missing.code, 1);
    assert.deepEqual(
      { code: json(missing).error.code, a2aCode: json(missing).error.a2aCode },
      { code: 'SYNAPSE_NOT_FOUND', a2aCode: 404 },
    );
  });
});

describe('credentials against the hub', () => {
  it('[A2ACLI_AUTH_001] --api-key goes where the hub’s card says (its bearer scheme) and the call succeeds', async () => {
    // the hub takes its API keys as bearer credentials, and its card says so: an HTTP bearer scheme, no
    // API-key scheme (which would name a header, query parameter or cookie the hub does not read)
    const card = (await (await fetch(`${hubA.url}/.well-known/agent-card.json`)).json()) as Doc;
    assert.equal(card.securitySchemes.apiKey.httpAuthSecurityScheme.scheme, 'Bearer');
    assert.ok(!Object.values(card.securitySchemes).some((s) => (s as Doc).apiKeySecurityScheme));
    const sent = await synapse(['send', '--text', 'hello', '-o', 'json', '-a', hubA.url], {
      A2ACLI_API_KEY: apiKey,
    });
    assert.equal(sent.code, 0, sent.stdout + sent.stderr);
    assert.equal(json(sent).task.status.state, 'TASK_STATE_COMPLETED');
    for (const transport of ['JSONRPC', 'HTTP+JSON']) {
      const listed = await synapse([
        'task',
        'list',
        '-o',
        'json',
        '-a',
        hubA.url,
        '--transport',
        transport,
        '--api-key',
        apiKey,
      ]);
      assert.equal(listed.code, 0, listed.stdout + listed.stderr);
      assert.ok(
        json(listed).tasks.some((t: Doc) => t.id === json(sent).task.id),
        `${transport}: the sent task is listed`,
      );
    }
  });

  it('[A2ACLI_AUTH_004] --debug shows the hub requests with the key redacted', async () => {
    const run = await synapse(['p2p', 'show', 'no-such-task', '--debug', '-o', 'json'], hubEnv());
    assert.equal(run.code, 1);
    assert.equal(json(run).error.code, 'SYNAPSE_TASK_NOT_FOUND');
    assert.match(run.stderr, /^debug: > GET http:\/\/127\.0\.0\.1:\d+\/synapse\/tasks\/no-such-task$/m);
    assert.match(run.stderr, /^debug: > authorization: Bearer \[redacted\]$/m);
    assert.match(run.stderr, /^debug: < 404 /m);
    assert.ok(!run.stderr.includes(apiKey) && !run.stdout.includes(apiKey), 'the key is never printed');
  });

  it('a revoked key is refused from the next request on (4)', async () => {
    const revoked = ok(await synapse(['admin', 'keys', 'revoke', keyId, '-o', 'json'], adminEnv()));
    assert.deepEqual(revoked, { keyId, revoked: true });
    const refused = await synapse(['p2p', 'show', 'x', '-o', 'json'], hubEnv());
    assert.equal(refused.code, 4);
    assert.deepEqual(
      { code: json(refused).error.code, a2aCode: json(refused).error.a2aCode },
      { code: 'A2ACLI_ERR_AUTH_FAILED', a2aCode: 401 },
    );
    assert.ok(!refused.stdout.includes(apiKey), 'the key is never printed');
  });
});
