/**
 * The order of a message's parts (cli/parts.ts): read from the command line yargs accepted, each
 * `--media-type` bound to the part flag before it (a2a-cli SPEC §8.2).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CliError } from '../../../cli/errors.ts';
import { partSpecsOf } from '../../../cli/parts.ts';

describe('partSpecsOf', () => {
  it('keeps the command line’s order across flags, in both spellings of a value', () => {
    const argv = ['send', '--data', '{}', '--text=a', '-a', 'x', '--file', 'f.bin', '--text', 'b'];
    const specs = partSpecsOf(argv, { text: ['a', 'b'], file: 'f.bin', data: '{}' });
    assert.deepEqual(
      specs.map((s) => [s.flag, s.value]),
      [
        ['data', '{}'],
        ['text', 'a'],
        ['file', 'f.bin'],
        ['text', 'b'],
      ],
    );
  });

  it('binds --media-type (or --mediaType) to the part flag before it, not after', () => {
    const argv = [
      '--file',
      'r.bin',
      '--media-type',
      'application/pdf',
      '--text',
      't',
      '--mediaType=text/markdown',
    ];
    const specs = partSpecsOf(argv, {
      file: 'r.bin',
      text: 't',
      mediaType: ['application/pdf', 'text/markdown'],
    });
    assert.deepEqual(
      specs.map((s) => s.mediaType),
      ['application/pdf', 'text/markdown'],
    );
  });

  it('refuses a --media-type with no part flag before it, two for one part, or one that is not a type', () => {
    const usage = (fn: () => unknown) =>
      assert.throws(fn, (e) => e instanceof CliError && e.code === 'A2ACLI_ERR_USAGE');
    usage(() => partSpecsOf(['--media-type', 'a/b', '--text', 'x'], { text: 'x', mediaType: 'a/b' }));
    usage(() =>
      partSpecsOf(['--text', 'x', '--media-type', 'a/b', '--media-type', 'c/d'], {
        text: 'x',
        mediaType: ['a/b', 'c/d'],
      }),
    );
    usage(() => partSpecsOf(['--text', 'x', '--media-type', 'pdf'], { text: 'x', mediaType: 'pdf' }));
  });

  it('stops at --, and puts values yargs has from elsewhere (the environment) last', () => {
    const specs = partSpecsOf(['--text', 'a', '--', '--text', 'not-a-flag'], { text: ['a', 'env'] });
    assert.deepEqual(
      specs.map((s) => s.value),
      ['a', 'env'],
    );
  });
});
