/**
 * What the docs say of tenancy matches what the hub does since authentication landed (issue 18 §4): the
 * REST `/{tenant}` prefix is checked against the principal (403 otherwise, test/e2e/auth-tenants.test.ts),
 * and callers are principals of their tenant, anonymous only in dev mode. The sentences that said otherwise
 * must not come back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const doc = (name: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', name), 'utf8');

describe('the docs on tenancy', () => {
  it('docs/rest.md: the /{tenant} prefix is checked (403 for another tenant), not "accepted and ignored"', () => {
    const rest = doc('rest.md');
    assert.doesNotMatch(rest, /accepted and ignored/);
    assert.match(rest, /`\/\{tenant\}` prefix[\s\S]{0,300}\*\*403\*\* `PERMISSION_DENIED`/);
  });

  it('docs/storage.md: callers are not all anonymous', () => {
    const storage = doc('storage.md');
    assert.doesNotMatch(storage, /until authentication lands/i);
    assert.match(storage, /the principal its credential names/);
  });
});
