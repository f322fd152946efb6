/**
 * StaticAssets from a folder (shared/adapters/files/static-assets.ts) and its in-memory twin: the port's
 * contract on both, then what the folder adapter alone does (a folder read whole, once).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DirectoryAssets } from '../../../../shared/adapters/files/static-assets.ts';
import { InMemoryStaticAssets } from '../../../../shared/adapters/memory/static-assets.ts';
import { staticAssetsContract } from '../../../contract/static-assets.ts';

const folders: string[] = [];
after(() => Promise.all(folders.map((f) => rm(f, { recursive: true, force: true }))));

const folderOf = async (files: Record<string, string>): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'assets-test-'));
  folders.push(dir);
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), body);
  }
  return dir;
};

staticAssetsContract('in memory', { make: async (files) => new InMemoryStaticAssets(files) });
staticAssetsContract('a folder', { make: async (files) => new DirectoryAssets(await folderOf(files)) });

describe('DirectoryAssets', () => {
  it('reads the folder once: a file written later is not served (a container serves one build)', async () => {
    const dir = await folderOf({ 'index.html': 'one' });
    const assets = new DirectoryAssets(dir);
    assert.equal((await assets.get('index.html'))?.body.toString(), 'one');
    await writeFile(join(dir, 'late.js'), 'x');
    assert.equal(await assets.get('late.js'), undefined);
  });

  it('a missing folder fails the request, and is read again on the next', async () => {
    const dir = join(await folderOf({}), 'not-yet');
    const assets = new DirectoryAssets(dir);
    await assert.rejects(assets.get('index.html'), /ENOENT/);
    await mkdir(dir);
    await writeFile(join(dir, 'index.html'), 'now');
    assert.equal((await assets.get('index.html'))?.body.toString(), 'now');
  });
});
