/** The key cache: one read per period, shared by concurrent loads, a stale set served through an outage. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedKeys } from '../../../../shared/adapters/keys/index.ts';
import { type SigningKeySet, SigningKeysUnavailableError } from '../../../../shared/domain/push-signing.ts';

const setOf = (kid: string): SigningKeySet => ({ keys: [{ kty: 'EC', kid, alg: 'ES256' }] });

const source = () => {
  const state = { reads: 0, next: setOf('k1') as SigningKeySet | Error };
  return {
    state,
    keys: {
      load: async () => {
        state.reads++;
        await new Promise((r) => setTimeout(r, 1));
        if (state.next instanceof Error) throw state.next;
        return state.next;
      },
    },
  };
};

describe('cached keys', () => {
  it('reads once per period and picks up a rotation after it', async () => {
    let now = 0;
    const { state, keys } = source();
    const cached = cachedKeys(keys, { ttlMs: 300_000, now: () => now });
    assert.equal((await cached.load()).keys[0]!.kid, 'k1');
    state.next = setOf('k2');
    now = 299_999;
    assert.equal((await cached.load()).keys[0]!.kid, 'k1');
    assert.equal(state.reads, 1);
    now = 300_000;
    assert.equal((await cached.load()).keys[0]!.kid, 'k2');
    assert.equal(state.reads, 2);
  });

  it('shares one read between concurrent loads', async () => {
    const { state, keys } = source();
    const cached = cachedKeys(keys);
    await Promise.all([cached.load(), cached.load(), cached.load()]);
    assert.equal(state.reads, 1);
  });

  it('serves the old set when a refresh fails, and retries after retryMs', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const { state, keys } = source();
    const cached = cachedKeys(keys, {
      ttlMs: 1000,
      retryMs: 100,
      now: () => now,
      onStaleError: (e) => errors.push(e),
    });
    await cached.load();
    state.next = new Error('throttled');
    now = 1000;
    assert.equal((await cached.load()).keys[0]!.kid, 'k1');
    assert.equal(errors.length, 1);
    now = 1050;
    await cached.load();
    assert.equal(state.reads, 2, 'no read within retryMs');
    state.next = setOf('k2');
    now = 1100;
    assert.equal((await cached.load()).keys[0]!.kid, 'k2');
  });

  it('caches no failure: with no set yet every load reads again', async () => {
    const { state, keys } = source();
    state.next = new SigningKeysUnavailableError('no keys yet');
    const cached = cachedKeys(keys);
    await assert.rejects(cached.load(), SigningKeysUnavailableError);
    state.next = setOf('k1');
    assert.equal((await cached.load()).keys[0]!.kid, 'k1');
    assert.equal(state.reads, 2);
  });
});
