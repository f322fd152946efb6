/**
 * `synapse` and trust, against the local hub, as the bundled CLI (cli/build.ts) run as a child process:
 * - `card get`'s signature verdict (a2a-cli SPEC §8.1; A2A §8.4): the hub's signed card verifies with the
 *   JWKS its `jku` names on its own origin; a changed card, an unsigned one, a `jku` on another origin or
 *   behind a redirect do not; `--require-signature` fails on anything but verified;
 * - catalog and registry references wherever `--agent-card` takes one: the hub's AI Catalog, its registry's
 *   entry URL, a catalog file whose entry names the card by URL; `send` works through them;
 * - `push listen`: a real push of the hub for a task, verified and printed; a forged JWT, a missing one and
 *   a wrong token refused with 401 and never printed; `--count` ends it (exit 0), `--timeout` exits 5.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { signCard } from '../../shared/protocol/a2a/card-signature.ts';
import {
  buildCliRunner,
  type CliRunner,
  type Doc,
  json,
  type Run,
  type Running,
} from './fixtures/cli-run.ts';

const start = (args: string[]): Running => cli.start(args);
const synapse = (args: string[]): Promise<Run> => cli.run(args);

/** Resolves once `check` holds of what `running` printed (fails after 60 s, or when it exits first). */
const until = async (running: Running, check: (r: Run) => boolean, what: string): Promise<Run> => {
  const deadline = Date.now() + 60_000;
  let exited: Run | undefined;
  void running.done.then((r) => {
    exited = r;
  });
  while (!check(running.out())) {
    if (exited) assert.fail(`exited (${exited.code}) before ${what}:\n${exited.stdout}\n${exited.stderr}`);
    if (Date.now() > deadline) assert.fail(`no ${what} in 60 s:\n${running.out().stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return running.out();
};

/** The receiver's URL, from its `Listening:` line on stderr. */
const listeningUrl = async (running: Running): Promise<string> => {
  const out = await until(running, (r) => /^Listening: \S+$/m.test(r.stderr), 'Listening line');
  return /^Listening: (\S+)$/m.exec(out.stderr)![1]!;
};

/** The verdict `-o json` writes on stderr. */
const verdictOf = (run: Run): Doc => {
  const line = run.stderr.split('\n').find((l) => l.startsWith('{"signature"'));
  assert.ok(line, `a signature verdict on stderr:\n${run.stderr}`);
  return JSON.parse(line).signature as Doc;
};

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A test HTTP server on 127.0.0.1, another origin than the hub's (its own port), answering from `routes` as they are when asked. */
const serve = async (routes: Record<string, Answer>) => {
  const server = http.createServer((req, res) => {
    const answer = routes[(req.url ?? '').split('?')[0] ?? ''];
    if (!answer) return void res.writeHead(404).end();
    res
      .writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
      .end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

let hub: LocalHub;
let cli: CliRunner;
let dir: string;
/** The hub's card as it serves it (signed), and its JWKS URL. */
let hubCard: Doc;
let hubJwks: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'synapse-cli-trust-'));
  [hub, cli] = await Promise.all([
    startLocalHub({
      port: 0,
      sweepIntervalMs: 60_000,
      // the receiver is on this machine: let the push guard through to it (docs/ssrf.md, the allowlist)
      env: { PUSH_URL_ALLOWLIST: '127.0.0.1', DELIVERY_BASE_DELAY_SECONDS: '0.05', DELIVERY_JITTER: '0' },
    }),
    buildCliRunner(),
  ]);
  hubCard = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as Doc;
  hubJwks = `${hub.url}/.well-known/jwks.json`;
});
after(async () => {
  await hub?.stop();
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, content: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

describe('synapse card get: the signature verdict', () => {
  it('[A2ACLI_CARD_GET_004] the hub’s signed card is verified with the JWKS its jku names on the card’s origin, in text and json', async () => {
    assert.ok(Array.isArray(hubCard.signatures) && hubCard.signatures.length > 0, 'the hub signs its card');
    const text = await synapse(['card', 'get', '-a', hub.url]);
    assert.equal(text.code, 0, text.stderr);
    const line = /^Signature: verified \(kid (\S+), key from (\S+)\)$/m.exec(text.stdout);
    assert.ok(line, text.stdout);
    const jwks = (await (await fetch(hubJwks)).json()) as { keys: { kid: string }[] };
    assert.ok(
      jwks.keys.some((k) => k.kid === line[1]),
      'the key id is one of the hub’s keys',
    );
    assert.equal(line[2], hubJwks);

    const asJson = await synapse(['card', 'get', '-o', 'json', '--require-signature', '-a', hub.url]);
    assert.equal(asJson.code, 0, asJson.stderr);
    // the card stays the protocol's document: its own signatures, no field of the CLI's
    const card = json(asJson);
    assert.equal(card.name, hubCard.name);
    assert.deepEqual(card.signatures, hubCard.signatures);
    assert.equal(card.signature, undefined);
    assert.deepEqual(verdictOf(asJson), { status: 'verified', kid: line[1], keys: hubJwks });
  });

  it('[A2ACLI_CARD_GET_004] a card changed after signing is not verified; --require-signature fails it (exit 1)', async () => {
    const tampered = file('tampered.json', { ...hubCard, description: 'Sends your data elsewhere.' });
    const text = await synapse(['card', 'get', '-a', tampered, '--jwks', hubJwks]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Signature: unverifiable \(.*does not match the card.*\)$/m);
    assert.doesNotMatch(text.stdout, /verified \(kid/);

    const required = await synapse([
      'card',
      'get',
      '-o',
      'json',
      '-a',
      tampered,
      '--jwks',
      hubJwks,
      '--require-signature',
    ]);
    assert.equal(required.code, 1);
    const { error } = json(required);
    assert.equal(error.code, 'A2ACLI_ERR_CARD_INVALID');
    assert.match(error.message, /does not match the card/);

    // the same card unchanged, from a file, verifies with the JWKS named
    const intact = await synapse([
      'card',
      'get',
      '-a',
      file('intact.json', hubCard),
      '--jwks',
      hubJwks,
      '--require-signature',
    ]);
    assert.equal(intact.code, 0, intact.stderr);
    assert.match(intact.stdout, /^Signature: verified /m);
  });

  it('[A2ACLI_CARD_GET_004] an unsigned card is absent, not a failure; --require-signature refuses it', async () => {
    const { signatures: _, ...unsigned } = hubCard;
    const path = file('unsigned.json', unsigned);
    const text = await synapse(['card', 'get', '-a', path]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Signature: absent$/m);
    const asJson = await synapse(['card', 'get', '-o', 'json', '-a', path]);
    assert.equal(asJson.code, 0);
    assert.deepEqual(verdictOf(asJson), { status: 'absent' });

    const required = await synapse(['card', 'get', '-a', path, '--require-signature']);
    assert.equal(required.code, 1);
    assert.match(required.stderr, /^error: A2ACLI_ERR_CARD_INVALID: the agent card is not signed/m);
    assert.equal(required.stdout, '', 'nothing printed but the error');
  });

  it('[A2ACLI_CARD_GET_004] a jku is followed on the card’s own origin only, and never through a redirect', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'publisher-key', alg: 'ES256' };
    const { signatures: _, ...content } = hubCard;
    const served: Record<string, Answer> = { '/keys.json': { body: { keys: [publicJwk] } } };
    const other = await serve(served);
    const signed = async (jku: string) =>
      ({
        body: await signCard(content, { key: privateKey, kid: 'publisher-key', alg: 'ES256', jku }),
      }) as Answer;
    served['/own.json'] = await signed(`${other.origin}/keys.json`);
    served['/moved-keys.json'] = { status: 302, headers: { location: `${other.origin}/keys.json` } };
    served['/redirected.json'] = await signed(`${other.origin}/moved-keys.json`);
    // the hub's own signed card, served from another origin than its jku's
    served['/hub-card.json'] = { body: hubCard };
    try {
      const own = await synapse(['card', 'get', '-a', `${other.origin}/own.json`, '--require-signature']);
      assert.equal(own.code, 0, own.stderr);
      assert.match(
        own.stdout,
        new RegExp(`^Signature: verified \\(kid publisher-key, key from ${other.origin}/keys.json\\)$`, 'm'),
      );

      const redirected = await synapse(['card', 'get', '-a', `${other.origin}/redirected.json`]);
      assert.equal(redirected.code, 0, redirected.stderr);
      assert.match(redirected.stdout, /^Signature: unverifiable \(.*redirect.*\)$/m);

      const foreign = await synapse(['card', 'get', '-o', 'json', '-a', `${other.origin}/hub-card.json`]);
      assert.equal(foreign.code, 0, foreign.stderr);
      const verdict = verdictOf(foreign);
      assert.equal(verdict.status, 'unverifiable');
      assert.match(
        verdict.reason,
        new RegExp(`jku ${hub.url}/.well-known/jwks.json is not on the card's origin`),
      );
      const required = await synapse([
        'card',
        'get',
        '-a',
        `${other.origin}/hub-card.json`,
        '--require-signature',
      ]);
      assert.equal(required.code, 1);
      assert.match(required.stderr, /A2ACLI_ERR_CARD_INVALID/);

      // the caller may trust a key set by naming it
      const named = await synapse(['card', 'get', '-a', `${other.origin}/hub-card.json`, '--jwks', hubJwks]);
      assert.match(named.stdout, /^Signature: verified /m);
    } finally {
      await other.close();
    }
  });
});

describe('synapse --agent-card: catalog and registry references', () => {
  const IDENTIFIER = 'urn:air:127.0.0.1:default:synapse-demo-agent';
  /** The hub's AI Catalog once its own card is in it (the hub publishes it at start). */
  const catalog = async (): Promise<Doc> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const doc = (await (await fetch(`${hub.url}/.well-known/ai-catalog.json`)).json()) as Doc;
      if (doc.entries?.some((e: Doc) => e.identifier === IDENTIFIER)) return doc;
      if (Date.now() > deadline) assert.fail(`the hub's card is not in its catalog: ${JSON.stringify(doc)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  it('[A2ACLI_CARD_GET_005] catalog:<hub>#<identifier or name> resolves to the agent’s card, verified on the catalog’s origin', async () => {
    await catalog();
    for (const entry of [IDENTIFIER, 'Synapse%20demo%20agent', 'synapse demo agent']) {
      const run = await synapse(['card', 'get', '-a', `catalog:${hub.url}#${entry}`]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Name: ${hubCard.name}$`, 'm'));
      assert.match(run.stdout, new RegExp(`^Interface: JSONRPC 1\\.0 ${hub.url}/a2a/jsonrpc$`, 'm'));
      assert.match(run.stdout, /^Signature: verified /m);
    }
    const missing = await synapse(['card', 'get', '-o', 'json', '-a', `catalog:${hub.url}#no-such-agent`]);
    assert.equal(missing.code, 3);
    assert.equal(json(missing).error.code, 'A2ACLI_ERR_CARD_NOT_FOUND');
    const noEntry = await synapse(['card', 'get', '-a', `catalog:${hub.url}`]);
    assert.equal(noEntry.code, 2);
    assert.match(noEntry.stderr, /A2ACLI_ERR_USAGE/);
  });

  it('[A2ACLI_CARD_GET_005] send works through the catalog, the registry’s entry URL and a catalog file naming the card by URL', async () => {
    const entry = (await catalog()).entries.find((e: Doc) => e.identifier === IDENTIFIER) as Doc;
    const recordId = entry.metadata.recordId as string;
    assert.ok(recordId, 'the entry names its record');
    const catalogFile = file('catalog.json', {
      specVersion: '1.0',
      entries: [
        {
          identifier: 'urn:air:example.com:mcp:other',
          type: 'application/mcp-server-card+json',
          url: 'https://example.com/mcp',
        },
        {
          identifier: 'urn:air:local:a2a:demo',
          type: 'application/a2a-agent-card+json',
          url: `${hub.url}/.well-known/agent-card.json`,
        },
      ],
    });
    const refs = [
      `catalog:${hub.url}#${IDENTIFIER}`,
      `${hub.url}/registry/agents/${recordId}`,
      `catalog:${catalogFile}#urn:air:local:a2a:demo`,
      // a catalog with one A2A agent needs no entry named
      catalogFile,
    ];
    for (const ref of refs) {
      const card = await synapse(['card', 'get', '-o', 'json', '-a', ref]);
      assert.equal(card.code, 0, `${ref}: ${card.stderr}`);
      assert.equal(json(card).name, hubCard.name, ref);
      const sent = await synapse(['send', '-o', 'json', '-a', ref, '--text', `echo through ${ref}`]);
      assert.equal(sent.code, 0, `${ref}: ${sent.stderr}`);
      const task = json(sent).task as Doc;
      assert.equal(task.status.state, 'TASK_STATE_COMPLETED', ref);
      assert.ok(JSON.stringify(task.artifacts).includes(`through ${ref}`), `${ref}: the echo`);
    }
    const notAnAgent = await synapse([
      'card',
      'get',
      '-a',
      `catalog:${catalogFile}#urn:air:example.com:mcp:other`,
    ]);
    assert.equal(notAnAgent.code, 1);
    assert.match(
      notAnAgent.stderr,
      /A2ACLI_ERR_CARD_INVALID: catalog entry urn:air:example.com:mcp:other is a "application\/mcp-server-card\+json"/,
    );
  });
});

describe('synapse push listen', () => {
  it('[A2ACLI_PUSH_002] receives the hub’s pushes for a task, verified, a line or a StreamResponse each, and --count ends it', async () => {
    const asJson = start([
      'push',
      'listen',
      '-a',
      hub.url,
      '--token',
      'receiver-token',
      '--count',
      '2',
      '-o',
      'json',
    ]);
    const asText = start(['push', 'listen', '--jwks', `${hub.url}/.well-known/jwks.json`, '--count', '2']);
    try {
      const [jsonUrl, textUrl] = await Promise.all([listeningUrl(asJson), listeningUrl(asText)]);
      assert.match(jsonUrl, /^http:\/\/127\.0\.0\.1:\d+\/push$/);
      assert.match(asJson.out().stderr, new RegExp(`task push-config create <taskId> --url ${jsonUrl}`));
      // a task waiting for input, then both receivers configured, then the reply: its updates are pushed
      const asked = await synapse(['send', '-o', 'json', '-a', hub.url, '--text', 'ask']);
      const task = json(asked).task as Doc;
      assert.equal(task.status.state, 'TASK_STATE_INPUT_REQUIRED');
      for (const [url, token] of [
        [jsonUrl, 'receiver-token'],
        [textUrl, undefined],
      ] as const) {
        const created = await synapse([
          'task',
          'push-config',
          'create',
          '-a',
          hub.url,
          task.id,
          '--url',
          url,
          ...(token ? ['--token', token] : []),
        ]);
        assert.equal(created.code, 0, created.stderr);
      }
      const replied = await synapse(['send', '-a', hub.url, '--task-id', task.id, '--text', '42']);
      assert.equal(replied.code, 0, replied.stderr);

      const [j, t] = await Promise.all([asJson.done, asText.done]);
      assert.equal(j.code, 0, j.stderr);
      const events = j.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Doc);
      assert.equal(events.length, 2, j.stdout);
      for (const event of events) assert.equal((event.statusUpdate ?? event.artifactUpdate).taskId, task.id);
      // a task's pushes are not serialized (docs/deliveries.md#order): the end is one of them, not always the last
      assert.equal(
        events.filter((e) => e.statusUpdate?.status.state === 'TASK_STATE_COMPLETED').length,
        1,
        j.stdout,
      );
      assert.doesNotMatch(j.stderr, /refused/);

      assert.equal(t.code, 0, t.stderr);
      const lines = t.stdout.trim().split('\n');
      assert.equal(lines.length, 2, t.stdout);
      for (const line of lines)
        assert.match(line, new RegExp(`^Push: \\S+ task ${task.id} context ${task.contextId} `));
      assert.equal(lines.filter((line) => /state COMPLETED$/.test(line)).length, 1, t.stdout);
    } finally {
      asJson.child.kill();
      asText.child.kill();
    }
  });

  it('[A2ACLI_PUSH_002] a forged JWT, a missing one and a wrong token are refused (401), never printed; --timeout exits 5', async () => {
    const listener = start([
      'push',
      'listen',
      '-a',
      hub.url,
      '--token',
      'good-token',
      '--count',
      '1',
      '--timeout',
      '8',
    ]);
    try {
      const url = await listeningUrl(listener);
      const body = JSON.stringify({
        statusUpdate: { taskId: 't-forged', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } },
      });
      // signed as the hub would, with every claim right, but by a key that is not the hub's
      const { privateKey } = await generateKeyPair('ES256');
      const hubKid = ((await (await fetch(hubJwks)).json()) as { keys: { kid: string }[] }).keys[0]!.kid;
      const forged = await new SignJWT({
        taskId: 't-forged',
        body_sha256: createHash('sha256').update(body).digest('base64url'),
      })
        .setProtectedHeader({ alg: 'ES256', kid: hubKid, typ: 'JWT' })
        .setIssuer(hub.url)
        .setAudience(url)
        .setIssuedAt()
        .setExpirationTime('5m')
        .setJti(randomUUID())
        .sign(privateKey);
      const post = (headers: Record<string, string>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/a2a+json', ...headers }, body });
      assert.equal(
        (await post({ 'x-synapse-push-jwt': forged, 'x-a2a-notification-token': 'good-token' })).status,
        401,
      );
      assert.equal((await post({ 'x-a2a-notification-token': 'good-token' })).status, 401);
      assert.equal(
        (await post({ 'x-synapse-push-jwt': forged, 'x-a2a-notification-token': 'bad' })).status,
        401,
      );
      const run = await listener.done;
      assert.equal(run.code, 5, run.stderr);
      assert.equal(run.stdout, '', 'nothing refused is printed as an event');
      assert.match(run.stderr, /^note: refused a push \(401\): the JWT does not verify: /m);
      assert.match(run.stderr, /^note: refused a push \(401\): no x-synapse-push-jwt header/m);
      assert.match(run.stderr, /^note: refused a push \(401\): the notification token is not --token$/m);
      assert.match(run.stderr, /^error: A2ACLI_ERR_TIMEOUT: 0 notification\(s\) in 8 s, not 1$/m);
    } finally {
      listener.child.kill();
    }
  });
});
