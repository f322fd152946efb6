/**
 * The in-memory SeenSignatures (shared/adapters/memory/seen-signatures.ts): the port's contract
 * (test/contract/seen-signatures.ts, which the DynamoDB adapter runs on DynamoDB Local too), then its
 * own clock: a request remembered through its `until`, forgotten after, and the store bounded.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemorySeenSignatures } from '../../../../shared/adapters/memory/seen-signatures.ts';
import { SIGNED_AT, seenSignaturesContract, UNTIL, WINDOW } from '../../../contract/seen-signatures.ts';

seenSignaturesContract('in memory', {
  make: () => new InMemorySeenSignatures({ now: () => SIGNED_AT * 1000 }),
});

describe('InMemorySeenSignatures', () => {
  it('remembers a request through the second of its `until` and forgets it after', async () => {
    let now = SIGNED_AT * 1000;
    const seen = new InMemorySeenSignatures({ now: () => now });
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL), true);
    now = UNTIL * 1000 + 999; // the verifier still accepts the timestamp in this second
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL), false);
    now = (UNTIL + 1) * 1000;
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL + 10), true, 'forgotten after until');
    assert.equal(await seen.remember('agent-b', 'm1', SIGNED_AT, UNTIL + 10), false, 'and remembered anew');
  });

  it('drops forgotten requests as it grows: it holds about one window of requests', async () => {
    let now = SIGNED_AT * 1000;
    const seen = new InMemorySeenSignatures({ now: () => now });
    for (let i = 0; i < 1000; i++) {
      now = (SIGNED_AT + i) * 1000;
      assert.equal(await seen.remember('agent-b', `m${i}`, SIGNED_AT + i, SIGNED_AT + i + 10), true);
    }
    assert.ok(seen.size < 200, `held ${seen.size}`);
    // the ones still in their window are still refused
    assert.equal(await seen.remember('agent-b', 'm999', SIGNED_AT + 999, SIGNED_AT + 1009), false);
  });

  it('uses the system clock by default', async () => {
    const seen = new InMemorySeenSignatures();
    const nowSeconds = Math.floor(Date.now() / 1000);
    assert.equal(await seen.remember('agent-b', 'm1', nowSeconds, nowSeconds + WINDOW), true);
    assert.equal(await seen.remember('agent-b', 'm1', nowSeconds, nowSeconds + WINDOW), false);
    // an `until` already past is forgotten at once
    assert.equal(await seen.remember('agent-b', 'm2', SIGNED_AT, UNTIL), true);
    assert.equal(await seen.remember('agent-b', 'm2', SIGNED_AT, UNTIL), true);
  });
});
