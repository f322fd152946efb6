/**
 * The StaticAssets port's contract (shared/ports/static-assets.ts): run against the in-memory twin and the
 * folder adapter (test/unit/adapters/files/static-assets.test.ts). `make` gets the files to hold, by path.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StaticAssets } from '../../shared/ports/static-assets.ts';

export const staticAssetsContract = (
  name: string,
  setup: { make: (files: Record<string, string>) => Promise<StaticAssets> },
): void => {
  describe(`StaticAssets contract: ${name}`, () => {
    const files = {
      'index.html': '<!doctype html><title>t</title>',
      'assets/main-ABCDEFGH.js': 'console.log(1)',
      'assets/main-ABCDEFGH.css': 'body{}',
    };

    it('gives each file by its path below the root, with its media type and bytes', async () => {
      const assets = await setup.make(files);
      const index = await assets.get('index.html');
      assert.equal(index?.body.toString('utf8'), files['index.html']);
      assert.equal(index?.contentType, 'text/html; charset=utf-8');
      const script = await assets.get('assets/main-ABCDEFGH.js');
      assert.equal(script?.contentType, 'text/javascript; charset=utf-8');
      assert.equal(script?.path, 'assets/main-ABCDEFGH.js');
      assert.equal((await assets.get('assets/main-ABCDEFGH.css'))?.contentType, 'text/css; charset=utf-8');
    });

    it('gives nothing for a missing path, a folder, or a path leaving the root', async () => {
      const assets = await setup.make(files);
      for (const path of [
        'missing.js',
        'assets',
        'assets/',
        '../index.html',
        '/index.html',
        'assets/../index.html',
      ])
        assert.equal(await assets.get(path), undefined, path);
    });

    it('tags each file with a strong ETag of its bytes: the same bytes the same tag, others another', async () => {
      const a = await setup.make(files);
      const b = await setup.make({ ...files, 'index.html': '<!doctype html><title>u</title>' });
      const [indexA, indexB] = [await a.get('index.html'), await b.get('index.html')];
      assert.match(indexA!.etag, /^"[^"]+"$/);
      assert.notEqual(indexA!.etag, indexB!.etag);
      assert.equal(
        (await a.get('assets/main-ABCDEFGH.js'))!.etag,
        (await b.get('assets/main-ABCDEFGH.js'))!.etag,
      );
    });
  });
};
