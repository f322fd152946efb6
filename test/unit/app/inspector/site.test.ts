/**
 * The inspector page as served (shared/app/inspector/site.ts): the page at its root, hashed assets cached
 * for good and the page revalidated, ETags answered 304, every answer under the page's Content Security
 * Policy (no inline script, nothing from another origin), and a missing file 404.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryStaticAssets } from '../../../../shared/adapters/memory/static-assets.ts';
import { INSPECTOR_CSP, InspectorSite } from '../../../../shared/app/inspector/site.ts';

const site = () =>
  new InspectorSite(
    new InMemoryStaticAssets({
      'index.html': '<!doctype html><script type="module" src="/inspector/assets/main-5XKQ2LQA.js"></script>',
      'assets/main-5XKQ2LQA.js': 'export {}',
      'assets/main-5XKQ2LQA.css': 'body{}',
      'assets/notes.txt': 'not hashed',
    }),
  );

describe('InspectorSite', () => {
  it('serves the page at its root, revalidated on each load (it names the current assets)', async () => {
    for (const path of ['', '/', '/index.html']) {
      const answer = await site().get(path);
      assert.equal(answer.statusCode, 200, path);
      assert.match(answer.body, /^<!doctype html>/);
      assert.equal(answer.headers['Content-Type'], 'text/html; charset=utf-8');
      assert.equal(answer.headers['Cache-Control'], 'no-cache');
    }
  });

  it('caches hashed assets for a year (immutable), other files not', async () => {
    const script = await site().get('/assets/main-5XKQ2LQA.js');
    assert.equal(script.headers['Cache-Control'], 'public, max-age=31536000, immutable');
    assert.equal(script.headers['Content-Type'], 'text/javascript; charset=utf-8');
    assert.equal((await site().get('/assets/notes.txt')).headers['Cache-Control'], 'no-cache');
  });

  it('answers 304 with no body when the ETag matches, 200 when it does not', async () => {
    const first = await site().get('/assets/main-5XKQ2LQA.css');
    const etag = first.headers.ETag!;
    const again = await site().get('/assets/main-5XKQ2LQA.css', `"other", ${etag}`);
    assert.deepEqual([again.statusCode, again.body], [304, '']);
    assert.equal((await site().get('/assets/main-5XKQ2LQA.css', '"other"')).statusCode, 200);
  });

  it('puts every answer (a 404 too) under a CSP without inline scripts or other origins', async () => {
    assert.doesNotMatch(INSPECTOR_CSP, /unsafe-inline|unsafe-eval|https?:|\*/);
    assert.match(INSPECTOR_CSP, /script-src 'self'/);
    assert.match(INSPECTOR_CSP, /connect-src 'self'/);
    assert.match(INSPECTOR_CSP, /frame-ancestors 'none'/);
    for (const path of ['/', '/assets/main-5XKQ2LQA.js', '/missing.js']) {
      const answer = await site().get(path);
      assert.equal(answer.headers['Content-Security-Policy'], INSPECTOR_CSP, path);
      assert.equal(answer.headers['X-Content-Type-Options'], 'nosniff', path);
    }
  });

  it('answers 404 for a missing file or a path leaving the root', async () => {
    for (const path of ['/missing.js', '/../index.html', '/assets/../../etc/passwd']) {
      const answer = await site().get(path);
      assert.equal(answer.statusCode, 404, path);
      assert.equal(answer.headers['Cache-Control'], 'no-store');
    }
  });
});
