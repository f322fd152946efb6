/**
 * `synapse conformance` against the local hub (a2a-cli A2ACLI_CONFORM_001): every check passes on the hub
 * as it is; a card whose interfaces point where no agent answers fails the checks of those bindings, and
 * the run exits 1 with the whole report as its payload.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type LocalHub, startLocalHub } from '../../local/hub.ts';
import { buildCliRunner, type CliRunner, type Run } from './fixtures/cli-run.ts';

const synapse = (args: string[]): Promise<Run> => cli.run(args);

interface Report {
  checks: { id: string; outcome: string; detail: string }[];
  summary: { passed: number; failed: number; skipped: number };
}

let hub: LocalHub;
let cli: CliRunner;
let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'synapse-conformance-'));
  [hub, cli] = await Promise.all([startLocalHub({ port: 0, sweepIntervalMs: 60_000 }), buildCliRunner()]);
});
after(async () => {
  await hub?.stop();
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

describe('synapse conformance', () => {
  it('[A2ACLI_CONFORM_001] passes every check on the hub: the card, and each binding’s errors, send, get, list, push and stream', async () => {
    const [json, text] = await Promise.all([
      synapse(['conformance', '-a', hub.url, '-o', 'json']),
      synapse(['conformance', '-a', hub.url]),
    ]);
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as Report;
    const ids = report.checks.map((c) => c.id);
    for (const binding of ['JSONRPC', 'HTTP+JSON'])
      for (const check of ['errors', 'send', 'get', 'list', 'push', 'stream'])
        assert.ok(ids.includes(`${binding}.${check}`), `${binding}.${check} is checked`);
    assert.deepEqual(
      report.checks.filter((c) => c.outcome !== 'pass'),
      [],
    );
    assert.equal(report.summary.failed, 0);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^PASS JSONRPC\.errors: an unknown task is TaskNotFoundError \(-32001\)$/m);
    assert.match(text.stdout, /^PASS HTTP\+JSON\.errors: an unknown task is TaskNotFoundError \(404\)$/m);
    assert.match(text.stdout, /^Result: \d+ passed, 0 failed, 0 skipped$/m);
  });

  it('[A2ACLI_CONFORM_001] fails the bindings of a card that points where no agent answers: exit 1, the report still printed', async () => {
    const card = (await (await fetch(`${hub.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    for (const i of card.supportedInterfaces)
      if (i.protocolBinding === 'HTTP+JSON') i.url = `${hub.url}/no-agent-here`;
    const file = join(dir, 'card.json');
    writeFileSync(file, JSON.stringify(card));
    const out = await synapse(['conformance', '-a', file, '-o', 'json']);
    assert.equal(out.code, 1);
    assert.equal(out.stdout.trim().split('\n').length, 1, 'one document: the report');
    const report = JSON.parse(out.stdout) as Report;
    const failed = report.checks.filter((c) => c.outcome === 'fail').map((c) => c.id);
    assert.ok(failed.includes('HTTP+JSON.errors') && failed.includes('HTTP+JSON.send'), failed.join(', '));
    assert.ok(!failed.some((id) => id.startsWith('JSONRPC.')), 'the binding that answers still passes');
    assert.match(out.stderr, /checks failed: .*HTTP\+JSON\.errors/);
  });
});
