// Builds the console's web UI into dist/web: app.js and app.css (esbuild), then index.html. Plain JavaScript for any
// Node ≥ 18: it runs as the package's postinstall, before anything is compiled, and again when the console finds no
// bundle. index.html is written last because its presence is what the console takes for "the bundle is built".
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const webDir = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.dirname(webDir);
// createRequire rather than import.meta.resolve: the latter needs Node 18.19 or a flag.
const require = createRequire(import.meta.url);

/** The document that loads the bundle; the query strings change with the content so a browser never mixes builds. */
function indexHtml(version) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>Portolan console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/app.css?v=${version}" />
    <script type="module" src="/app.js?v=${version}"></script>
  </head>
  <body>
    <div id="app"><p class="boot">Loading the Portolan console…</p></div>
    <noscript>The Portolan console needs JavaScript.</noscript>
  </body>
</html>
`;
}

/** Builds the web UI into `outDir` (default: the package's dist/web) and returns that folder. */
export async function buildWeb({ outDir = path.join(packageDir, 'dist', 'web') } = {}) {
  await mkdir(outDir, { recursive: true });
  // uPlot's stylesheet first, so the console's own rules win where both style the same element.
  const uplotCss = await readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const ownCss = await readFile(path.join(webDir, 'src', 'styles', 'app.css'), 'utf8');
  await build({
    entryPoints: [path.join(webDir, 'src', 'main.tsx')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: true,
    target: 'es2022',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  await build({
    stdin: { contents: `${uplotCss}\n${ownCss}`, loader: 'css', resolveDir: webDir, sourcefile: 'app.css' },
    outfile: path.join(outDir, 'app.css'),
    bundle: true,
    minify: true,
    sourcemap: true,
    target: 'es2022',
    logLevel: 'warning',
  });
  const hash = createHash('sha256');
  for (const file of ['app.js', 'app.css']) hash.update(await readFile(path.join(outDir, file)));
  await writeFile(path.join(outDir, 'index.html'), indexHtml(hash.digest('hex').slice(0, 12)));
  return outDir;
}

/** Whether this file is the script Node was asked to run (not an import of it). */
function isMain() {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  buildWeb().then(
    (dir) => console.log(`console web UI built in ${path.relative(process.cwd(), dir) || '.'}`),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
