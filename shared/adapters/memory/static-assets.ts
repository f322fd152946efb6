/** StaticAssets in memory: the twin of DirectoryAssets (contract: test/contract/static-assets.ts). */
import type { StaticAsset, StaticAssets } from '../../ports/static-assets.ts';
import { assetOf } from '../files/static-assets.ts';

export class InMemoryStaticAssets implements StaticAssets {
  readonly #files: ReadonlyMap<string, StaticAsset>;

  /** `files`: bodies by path below the root (no leading slash). */
  constructor(files: Readonly<Record<string, string | Buffer>>) {
    this.#files = new Map(
      Object.entries(files).map(([path, body]) => [path, assetOf(path, Buffer.from(body))]),
    );
  }

  async get(path: string): Promise<StaticAsset | undefined> {
    return this.#files.get(path);
  }
}
