/**
 * The SeenSignatures port's contract (replay protection of signed Synapse requests; docs/synapse-protocol.md,
 * "Replays and retries"): run against the in-memory store in the unit suite
 * (test/unit/adapters/memory/seen-signatures.test.ts) and the DynamoDB adapter on DynamoDB Local in the
 * integration suite (test/integration/adapters/dynamodb/seen-signatures.test.ts). A request is the triple
 * (peer, signature, signedAt) (the verifier passes the HMAC it computed: any string here): the same triple
 * again is a replay, another signature (a retry signed anew) or another peer is not. `make` is called by
 * each test, which works in message ids of its own: every case starts from an empty store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SeenSignatures } from '../../shared/ports/seen-signatures.ts';

export const SIGNED_AT = 1_796_154_122;
export const WINDOW = 300;
export const UNTIL = SIGNED_AT + WINDOW;

/** A message id of its own for each case: every case starts from an empty store. */
export const freshId = () => `msg-${crypto.randomUUID()}`;

export const seenSignaturesContract = (name: string, setup: { make: () => SeenSignatures }): void => {
  describe(`SeenSignatures contract: ${name}`, () => {
    it('the first time a request is remembered resolves true', async () => {
      assert.equal(await setup.make().remember('agent-b', freshId(), SIGNED_AT, UNTIL), true);
    });

    it('the same (peer, message id, signedAt) again resolves false: a replay', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), false);
      // whatever `until` the replay asks for, and as often as it is sent
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL + 3600), false);
    });

    it('the same message id signed at another time resolves true: a retry is not a replay', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT + 2, UNTIL + 2), true);
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT - 1, UNTIL - 1), true);
      // and each retry is a request of its own, refused when replayed
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT + 2, UNTIL + 2), false);
    });

    it('the same message id from another peer resolves true', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-c', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent-c', id, SIGNED_AT, UNTIL), false);
    });

    it('a separator inside a peer id cannot make two requests one', async () => {
      const seen = setup.make();
      const id = freshId();
      assert.equal(await seen.remember(`agent#${id}`, 'x', SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent', `${id}#x`, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent%23', id, SIGNED_AT, UNTIL), true);
      assert.equal(await seen.remember('agent#', id, SIGNED_AT, UNTIL), true);
    });

    it('of 10 concurrent remembers of the same request exactly one resolves true', async () => {
      const seen = setup.make();
      const id = freshId();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => seen.remember('agent-b', id, SIGNED_AT, UNTIL)),
      );
      assert.equal(results.filter((r) => r).length, 1, JSON.stringify(results));
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), false);
    });

    it('times that are not whole epoch seconds are refused, and nothing is remembered', async () => {
      const seen = setup.make();
      const id = freshId();
      for (const [signedAt, until] of [
        [SIGNED_AT + 0.5, UNTIL],
        [SIGNED_AT, Number.NaN],
        [Number.POSITIVE_INFINITY, UNTIL],
      ] as const) {
        await assert.rejects(seen.remember('agent-b', id, signedAt, until), RangeError);
      }
      assert.equal(await seen.remember('agent-b', id, SIGNED_AT, UNTIL), true);
    });
  });
};
