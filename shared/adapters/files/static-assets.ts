/**
 * StaticAssets from a folder (the inspector's built page: beside the Lambda bundle, or where the local
 * hub built it). The folder is read whole on first use and kept: its files are small and never change
 * while a container lives. Twin: shared/adapters/memory/static-assets.ts.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { StaticAsset, StaticAssets } from '../../ports/static-assets.ts';
import { contentTypeOf } from './content-types.ts';

export const assetOf = (path: string, body: Buffer): StaticAsset => ({
  path,
  body,
  contentType: contentTypeOf(path),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

export class DirectoryAssets implements StaticAssets {
  #files: Promise<ReadonlyMap<string, StaticAsset>> | undefined;

  constructor(private readonly dir: string) {}

  async get(path: string): Promise<StaticAsset | undefined> {
    this.#files ??= this.#read().catch((e) => {
      this.#files = undefined;
      throw e;
    });
    return (await this.#files).get(path);
  }

  async #read(): Promise<ReadonlyMap<string, StaticAsset>> {
    const files = new Map<string, StaticAsset>();
    for (const entry of await readdir(this.dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      const path = relative(this.dir, file).split(sep).join('/');
      files.set(path, assetOf(path, await readFile(file)));
    }
    return files;
  }
}
