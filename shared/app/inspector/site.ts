/**
 * The inspector page as the hub serves it (docs/inspector.md#how-it-is-served): `index.html` at the
 * page's root, revalidated on every load (it names the current assets), and the bundled assets, whose
 * names carry their content's hash, cached for a year. Every answer carries the page's Content Security
 * Policy: scripts and styles from the hub alone, no inline script, no request to any other origin.
 */
import type { StaticAsset, StaticAssets } from '../../ports/static-assets.ts';

export const INDEX = 'index.html';

/** Hashed asset names (esbuild's `[name]-[hash]`): a new build is a new name, so a cached one never goes stale. */
const HASHED = /^assets\/[^/]+-[A-Z0-9]{8,}\.[a-z]+$/;

/**
 * No inline script or style element, nothing from another origin; images of a task's file parts are
 * shown from `blob:` URLs the page makes of their inline bytes; the page is never framed.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': INSPECTOR_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export interface SiteAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export class InspectorSite {
  constructor(private readonly assets: StaticAssets) {}

  /** `path`: below the page's root (`''`, `/`, `/assets/main-….js`); `ifNoneMatch`: the request's header. */
  async get(path: string, ifNoneMatch?: string): Promise<SiteAnswer> {
    const name = path.replace(/^\/+/, '') || INDEX;
    const asset = await this.assets.get(name);
    if (!asset)
      return {
        statusCode: 404,
        headers: {
          ...SECURITY_HEADERS,
          'Content-Type': 'text/plain; charset=utf-8',
          'Cache-Control': 'no-store',
        },
        body: `Not found: ${name.length > 200 ? `${name.slice(0, 200)}…` : name}`,
      };
    const headers = { ...SECURITY_HEADERS, ...cacheHeaders(asset) };
    if (ifNoneMatch?.split(/\s*,\s*/).includes(asset.etag)) return { statusCode: 304, headers, body: '' };
    return {
      statusCode: 200,
      headers: { ...headers, 'Content-Type': asset.contentType },
      body: asset.body.toString('utf8'),
    };
  }
}

const cacheHeaders = (asset: StaticAsset): Record<string, string> => ({
  ETag: asset.etag,
  'Cache-Control': HASHED.test(asset.path) ? 'public, max-age=31536000, immutable' : 'no-cache',
});
