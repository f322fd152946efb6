/** Files a function serves as they are: the inspector page's bundled assets (docs/inspector.md). */

export interface StaticAsset {
  /** The path below the site's root, without a leading slash (`index.html`, `assets/main-3FZ2.js`). */
  path: string;
  body: Buffer;
  contentType: string;
  /** A strong validator of the body (a quoted hash). */
  etag: string;
}

export interface StaticAssets {
  /** The asset at `path` (no leading slash), or undefined: a path leaving the root is never one. */
  get(path: string): Promise<StaticAsset | undefined>;
}
