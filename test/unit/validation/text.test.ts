/**
 * clip, the one helper that clips text: to characters, UTF-8 bytes or JSON bytes, with an ellipsis,
 * never through a surrogate pair.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clip } from '../../../shared/validation/text.ts';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

describe('clip', () => {
  it('leaves a text that fits as it is', () => {
    assert.equal(clip('', 0), '');
    assert.equal(clip('abc', 3), 'abc');
    assert.equal(clip('ééé', { bytes: 6 }), 'ééé');
    assert.equal(clip('a\u0001', { jsonBytes: 10 }), 'a\u0001');
  });

  it('to characters: the first max - 1 and an ellipsis', () => {
    assert.equal(clip('abcdef', 4), 'abc…');
    assert.equal(clip('x'.repeat(1000), 64), `${'x'.repeat(63)}…`);
    assert.equal(clip('x'.repeat(1000), { chars: 64 }), `${'x'.repeat(63)}…`);
  });

  it('to UTF-8 bytes: the whole clipped text fits, cut on a character', () => {
    const clipped = clip('€'.repeat(3000), { bytes: 4096 });
    assert.ok(utf8(clipped) <= 4096, `${utf8(clipped)} bytes`);
    assert.equal(clipped, `${'€'.repeat(1364)}…`);
  });

  it('to JSON bytes: escapes count', () => {
    const clipped = clip('\u0001'.repeat(2000), { chars: 2000, jsonBytes: 6144 });
    assert.ok(utf8(JSON.stringify(clipped)) <= 6144);
    assert.ok(clipped.endsWith('…'));
    assert.equal(clip('é'.repeat(9000), { chars: 2000, jsonBytes: 6144 }).length, 2000);
  });

  it('never leaves half a surrogate pair before the ellipsis', () => {
    assert.equal(clip(`${'a'.repeat(1998)}😀😀`, { chars: 2000 }), `${'a'.repeat(1998)}…`);
    assert.equal(clip('ab😀c', 4), 'ab…');
    assert.equal(clip('😀😀😀', { bytes: 9 }), '😀…');
  });
});
