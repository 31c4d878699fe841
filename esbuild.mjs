// Builds the bundles of the extension:
//   dist/extension.cjs    extension host (node, cjs, `vscode` external)
//   dist/commands.cjs     bodies of the search, changes, export and session-action commands,
//                         loaded when one first runs (src/commands/lazyBodies.ts)
//   dist/sources.cjs, dist/mcpClient.cjs  backend adapters and the MCP SDK, loaded on first use
//   dist/demo.cjs         the embedded reference backend, loaded lazily by "Open Demo"
//   dist/webview/main.js  the webview app (browser, esm)
//   dist/webview/hljs/*.js highlight.js languages, each loaded by the app when a code block first needs it
// and the integration tests (out/test/integration/*.cjs) when --tests is given.
// Every build writes a metafile to dist/meta/ so `npm run bench` can report bundle sizes.
import * as esbuild from 'esbuild';
import { mkdir, writeFile, cp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const withTests = args.has('--tests') || args.has('--tests-only');
const testsOnly = args.has('--tests-only');

/**
 * Model prices: src/sources/local/priceData.ts reads @pydantic/genai-prices when run from
 * source; a bundle gets its extract instead (~75 KB rather than the package's ~480 KB of
 * every provider's data and its ~100 ms load), as a JSON string parsed on first use: V8
 * parses JSON faster than the same object literal, and only local connections need it.
 */
const priceData = {
  name: 'price-data',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]sources[\\/]local[\\/]priceData\.ts$/ }, async (args) => {
      const { priceData } = await import(pathToFileURL(args.path).href);
      const json = JSON.stringify(JSON.stringify(priceData()));
      return {
        contents: `let data; export function priceData() { return (data ??= JSON.parse(${json})); }`,
        loader: 'js',
      };
    });
  },
};

/**
 * One `require('vscode')` per bundle: esbuild gives each importing file its own copy of
 * the API object's properties (an accessor for each of several hundred names), which in a
 * real extension host made most of the bundle's evaluation time. Every file imports this
 * module instead, which re-exports the API once.
 */
const oneVscodeImport = {
  name: 'one-vscode-import',
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) =>
      args.namespace === 'one-vscode-import'
        ? { path: 'vscode', external: true }
        : { path: 'vscode', namespace: 'one-vscode-import' },
    );
    build.onLoad({ filter: /.*/, namespace: 'one-vscode-import' }, () => ({
      contents: "export * from 'vscode';",
      loader: 'js',
    }));
  },
};

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  plugins: [priceData],
};

/** A Node (CommonJS) bundle of the extension host: the main one and the lazily required chunks. */
const nodeBundle = (name, entry, extra = {}) => ({
  ...common,
  entryPoints: { [name]: entry },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  ...extra,
});

/** @type {Record<string, esbuild.BuildOptions>} */
export const builds = {
  extension: nodeBundle('extension', 'src/extension.ts', {
    plugins: [...common.plugins, oneVscodeImport],
    // Marks when the bundle starts evaluating, so activation cost can be measured (ExtensionApi.timing).
    banner: { js: 'globalThis.__sessionInspectorLoadStart = performance.now();' },
  }),
  commands: nodeBundle('commands', 'src/commands/bodies/index.ts', {
    plugins: [...common.plugins, oneVscodeImport],
  }),
  sources: nodeBundle('sources', 'src/sources/sourcesBundle.ts'),
  demo: nodeBundle('demo', 'src/demo/demoBundle.ts'),
  mcpClient: nodeBundle('mcpClient', 'src/sources/mcp/mcpSdkClient.ts'),
  // Worker threads of parallel cold scans of local transcripts (src/sources/local/engine).
  scanWorker: nodeBundle('scanWorker', 'src/sources/local/engine/scanWorker.ts'),
  // `npm run usage-report` (and the bench's side-by-side with ccusage): the local usage
  // report as a command-line tool, bundled like the extension's own code (not shipped).
  // CommonJS, as Node loads it quicker than the same bundle as an ES module; the script's
  // import.meta (an ES module's) is then the CommonJS module's file and folder.
  usageReportCli: nodeBundle('usage-report', 'scripts/usage-report.ts', {
    outdir: 'dist/cli',
    sourcemap: false,
    define: { 'import.meta.filename': '__filename', 'import.meta.dirname': '__dirname' },
  }),
  webview: {
    ...common,
    entryPoints: { main: 'webview-ui/src/main.ts', dashboard: 'webview-ui/src/dashboard.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  },
};

/**
 * highlight.js languages as separate ES modules (each exports its language function and
 * imports nothing): the app keeps only highlight.js's core and imports a language by URL
 * the first time a code block asks for it (webview-ui/src/transcript/codeHighlight.ts).
 */
const { HLJS_LANGUAGES } = await import('./webview-ui/src/transcript/hljsLanguages.ts');
builds.webviewLanguages = {
  ...common,
  sourcemap: false,
  entryPoints: Object.fromEntries(
    Object.keys(HLJS_LANGUAGES).map((name) => [
      name,
      `node_modules/highlight.js/es/languages/${name}.js`,
    ]),
  ),
  outdir: 'dist/webview/hljs',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  minify: true,
};

async function testEntries() {
  const dir = 'test/integration';
  const files = (await readdir(dir)).filter((f) => f === 'index.ts' || f.endsWith('.test.ts'));
  const phases = (await readdir(path.join(dir, 'phases'))).filter((f) => f.endsWith('.test.ts'));
  return Object.fromEntries([
    ...files.map((f) => [f.replace(/\.ts$/, ''), path.join(dir, f)]),
    ...phases.map((f) => [`phases/${f.replace(/\.ts$/, '')}`, path.join(dir, 'phases', f)]),
  ]);
}

if (withTests) {
  builds.integrationTests = {
    ...common,
    sourcemap: 'inline',
    entryPoints: await testEntries(),
    outdir: 'out/test/integration',
    outExtension: { '.js': '.cjs' },
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode', 'mocha'],
  };
}

async function copyCodicons() {
  await mkdir('dist/webview', { recursive: true });
  for (const file of ['codicon.css', 'codicon.ttf']) {
    await cp(`node_modules/@vscode/codicons/dist/${file}`, `dist/webview/${file}`);
  }
}

async function writeMeta(name, result) {
  await mkdir('dist/meta', { recursive: true });
  await writeFile(`dist/meta/${name}.json`, JSON.stringify(result.metafile));
}

// Imported (test/unit/bundles.test.ts reads `builds`), it builds nothing.
if (import.meta.main) {
  if (testsOnly) {
    // Rebuild the tests alone, e.g. against an existing production build of the extension.
    for (const name of [
      'extension',
      'commands',
      'sources',
      'demo',
      'mcpClient',
      'webview',
      'webviewLanguages',
    ])
      delete builds[name];
  }

  if (watch) {
    await copyCodicons();
    for (const [name, options] of Object.entries(builds)) {
      const ctx = await esbuild.context({
        ...options,
        plugins: [
          ...(options.plugins ?? []),
          { name: 'meta', setup: (b) => b.onEnd((r) => r.metafile && writeMeta(name, r)) },
        ],
      });
      await ctx.watch();
    }
    console.log('watching for changes…');
  } else {
    // A production build starts clean, so no development source map ships.
    if (production) await rm('dist', { recursive: true, force: true });
    if (!testsOnly) await copyCodicons();
    await Promise.all(
      Object.entries(builds).map(async ([name, options]) =>
        writeMeta(name, await esbuild.build(options)),
      ),
    );
    console.log(`built ${Object.keys(builds).join(', ')}${production ? ' (production)' : ''}`);
  }
}
