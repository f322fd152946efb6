/**
 * The fuzzer inside `npm test`: a few hundred hostile requests with a fixed
 * seed (the same requests every run, so a failure here is a regression to
 * replay with `npm run fuzz -- --seed <SEED> --runs <RUNS>`), and checks that
 * the fuzzer's own instruments see what they must (a write, a bad answer).
 * `npm run fuzz` is the long run (10,000 requests, any seed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LocalHub } from '../../local/hub.ts';
import type { HttpOutcome } from './client.ts';
import { judge } from './oracle.ts';
import { type FuzzResult, runFuzz, startFuzzHub } from './runner.ts';
import { BODY_LIMIT } from './values.ts';
import { watchWrites } from './writes.ts';

const SEED = 20_260_601;
const RUNS = Number(process.env.SYNAPSE_FUZZ_RUNS ?? 600);

let hub: LocalHub;
let result: FuzzResult;

before(async () => {
  hub = await startFuzzHub();
  result = await runFuzz({
    runs: RUNS,
    seed: SEED,
    hub,
    shrinkBudgetMs: 12_000,
    shrinkPerFailureMs: 3_000,
    examplesPerKind: 1,
  });
});
after(async () => hub?.stop());

/** The report's sections for one property. */
const failuresOf = (property: 'a' | 'b' | 'c') => {
  const kinds = result.failures.filter((f) => f.property === property);
  return kinds
    .map(
      (f) =>
        `${f.label}: ${f.requests} request(s)\n${f.examples
          .map(
            (e) =>
              `  ${e.family} (run ${e.run})\n    ${e.request}\n    → ${e.answer}\n    ${e.violation.detail}`,
          )
          .join('\n')}`,
    )
    .join('\n');
};

const hint = () => `replay: npm run fuzz -- --seed ${SEED} --runs ${RUNS}`;

describe(`fuzzing the JSON-RPC endpoint (${RUNS} requests, seed ${SEED})`, () => {
  it('sent every request', () => {
    assert.equal(
      [...result.outcomes.values()].reduce((a, b) => a + b, 0),
      RUNS,
    );
    assert.equal(result.overLimit, 0, 'only the oversize family goes over the body limit');
  });

  it('(a) no request is answered with a 5xx, and the hub neither crashes nor gets its prototypes polluted', () => {
    assert.equal(result.failing.a, 0, `${failuresOf('a')}\n${hint()}`);
  });

  it("(b) every answer is the protocol's: a JSON-RPC success or error of the A2A shape, with the id echoed", () => {
    assert.equal(result.failing.b, 0, `${failuresOf('b')}\n${hint()}`);
  });

  it('(c) a refused request writes nothing to the table', () => {
    assert.equal(result.failing.c, 0, `${failuresOf('c')}\n${hint()}`);
  });
});

describe("the fuzzer's instruments", () => {
  it("knows the handler's body limit", async () => {
    // imported here, once the hub has set the handlers' environment (the module builds their logger)
    const { MAX_REQUEST_BYTES } = await import('../../shared/app/a2a/jsonrpc.ts');
    assert.equal(BODY_LIMIT, MAX_REQUEST_BYTES);
  });

  it('the stream watcher sees the writes of a SendMessage, and none of a refused request', async () => {
    const watcher = await watchWrites(hub.dynamoEndpoint, hub.tableName);
    try {
      await watcher.drain();
      const post = (body: unknown) =>
        fetch(`${hub.url}/a2a/jsonrpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify(body),
        }).then((r) => r.text());
      await post({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'no-such-task' } });
      assert.deepEqual(await watcher.drain(), []);
      await post({
        jsonrpc: '2.0',
        id: 2,
        method: 'SendMessage',
        params: {
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
        },
      });
      const writes = await watcher.drain();
      assert.ok(
        writes.some((w) => w.eventName === 'INSERT' && w.pk.startsWith('T#')),
        JSON.stringify(writes),
      );
    } finally {
      watcher.close();
    }
  });

  it('the oracle flags a 5xx, an id not echoed and v1.0 error data without @type', () => {
    const sent = {
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: Buffer.from('{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x"}}'),
    };
    const answer = (status: number, body: unknown): HttpOutcome => ({
      ok: true,
      answer: { status, headers: {}, body: Buffer.from(JSON.stringify(body)), ms: 1 },
    });
    const kinds = (status: number, body: unknown) =>
      judge({ sent, answer: answer(status, body), expect: { success: 'allowed' } }).violations.map(
        (v) => v.kind,
      );
    const info = {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
    };
    assert.deepEqual(
      kinds(200, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'no', data: [info] } }),
      [],
    );
    assert.ok(
      kinds(500, { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'x', data: [info] } }).includes(
        'http-5xx',
      ),
    );
    assert.ok(
      kinds(200, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no', data: [info] } }).includes(
        'id-not-echoed',
      ),
    );
    assert.ok(
      kinds(200, {
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32001, message: 'no', data: { reason: 'X' } },
      }).includes('error-data-shape'),
    );
    assert.ok(
      kinds(200, { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'no', data: [info] } }).includes(
        'code-not-allowed',
      ),
    );
  });
});
