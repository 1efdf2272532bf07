#!/usr/bin/env node
// Bundles the operator console (console/src, docs/console.md) into dist/console: index.html plus hashed
// assets, so the server can cache the assets for a year and revalidate only index.html. Fails when the
// bundle (JS + CSS, gzip) passes its budget of 300 KB: the console must load quickly on any link.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'console');
export const BUDGET_BYTES = 300 * 1024;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
const result = await build({
  entryPoints: [join(root, 'console', 'src', 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  outdir: join(out, 'assets'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const files = Object.keys(result.metafile.outputs).map((path) => join(root, path));
const script = files.find((f) => f.endsWith('.js'));
const style = files.find((f) => f.endsWith('.css'));
if (!script || !style) throw new Error('esbuild wrote no script or no style');

// No inline script or style (the CSP forbids both); the icon is a data: URL so the browser asks for no favicon.
writeFileSync(
  join(out, 'index.html'),
  `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portcullis console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${basename(style)}">
<script type="module" src="/console/assets/${basename(script)}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`,
);

const gzipped = [script, style].reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
process.stdout.write(`console bundle: ${basename(script)}, ${basename(style)}, ${(gzipped / 1024).toFixed(1)} KB gzip (budget ${BUDGET_BYTES / 1024} KB)\n`);
if (gzipped > BUDGET_BYTES) {
  process.stderr.write(`the console bundle is ${gzipped} bytes gzip, over its budget of ${BUDGET_BYTES}\n`);
  process.exit(1);
}
