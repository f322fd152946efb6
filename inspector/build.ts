/**
 * Builds the inspector page (docs/inspector.md): one esbuild bundle of `page/main.tsx` (preact, JSX
 * automatic) and its stylesheet, content-hashed under `<outdir>/assets/`, and `<outdir>/index.html`
 * naming them by absolute path under `/inspector/assets/`. No page code is imported here: this module
 * runs under Node (tsx) only. Same sources, same output: names are content hashes, no timestamp is written.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/** The page's entry point (it imports `styles.css`, which esbuild emits as `main-<hash>.css`). */
export const INSPECTOR_ENTRY = join(here, 'page', 'main.tsx');
/** The URL path the hub serves the assets under. */
export const INSPECTOR_ASSETS_URL = '/inspector/assets/';

export interface InspectorBuildFile {
  /** Relative to the build's directory, `/`-separated: `index.html`, `assets/main-XXXX.js`. */
  path: string;
  bytes: number;
  gzipBytes: number;
}

export interface InspectorBuild {
  dir: string;
  files: InspectorBuildFile[];
  /** The gzip size of all the JavaScript the page loads. */
  scriptGzipBytes: number;
}

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The page's HTML: no inline script or style (the hub's CSP forbids both). */
export function indexHtml(scripts: readonly string[], styles: readonly string[]): string {
  const links = styles.map((s) => `    <link rel="stylesheet" href="${escapeAttr(s)}">`).join('\n');
  const tags = scripts.map((s) => `    <script type="module" src="${escapeAttr(s)}"></script>`).join('\n');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>Synapse inspector</title>
    <link rel="icon" href="data:,">
${links}
${tags}
  </head>
  <body>
    <noscript><p class="noscript">The Synapse inspector needs JavaScript. The hub's API answers without it: see docs/inspector.md.</p></noscript>
    <div id="app"></div>
  </body>
</html>
`;
}

const sizeOf = (path: string, content: Uint8Array): InspectorBuildFile => ({
  path,
  bytes: content.byteLength,
  gzipBytes: gzipSync(content, { level: 9 }).byteLength,
});

/** Builds the page into `outdir`: `index.html` and `assets/` (replaced; nothing else in `outdir` is touched). */
export async function buildInspector(outdir: string): Promise<InspectorBuild> {
  const dir = resolve(outdir);
  const assets = join(dir, 'assets');
  await rm(assets, { recursive: true, force: true });
  await rm(join(dir, 'index.html'), { force: true });
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: [INSPECTOR_ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    chunkNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    write: true,
    legalComments: 'none',
    sourcemap: false,
    charset: 'utf8',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => resolve(p));
  const url = (p: string) => INSPECTOR_ASSETS_URL + relative(assets, p).split('\\').join('/');
  const scripts = outputs.filter((p) => p.endsWith('.js') && /[\\/]main-[^\\/]+\.js$/.test(p)).map(url);
  const styles = outputs.filter((p) => p.endsWith('.css')).map(url);
  if (scripts.length !== 1) throw new Error(`the inspector build made ${scripts.length} entry scripts`);
  await writeFile(join(dir, 'index.html'), indexHtml(scripts, styles));

  const files: InspectorBuildFile[] = [];
  for (const p of [join(dir, 'index.html'), ...outputs].sort()) {
    files.push(sizeOf(relative(dir, p).split('\\').join('/'), await readFile(p)));
  }
  const scriptGzipBytes = files.filter((f) => f.path.endsWith('.js')).reduce((n, f) => n + f.gzipBytes, 0);
  return { dir, files, scriptGzipBytes };
}

/** The build's file paths (relative to its directory), as the hub serves them. */
export const inspectorFilePaths = (b: InspectorBuild): Set<string> => new Set(b.files.map((f) => f.path));

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = process.argv[2] ?? join(here, '..', 'dist', 'inspector');
  const b = await buildInspector(out);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const f of b.files)
    console.log(`${f.path.padEnd(40)} ${kb(f.bytes).padStart(10)} ${kb(f.gzipBytes).padStart(10)} gzip`);
  console.log(`script total: ${kb(b.scriptGzipBytes)} gzip -> ${b.dir}`);
}
