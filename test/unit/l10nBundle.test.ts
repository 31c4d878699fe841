import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('l10n/bundle.l10n.json holds every l10n.t string of src/ and webview-ui/ (run npm run l10n)', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'asi-l10n-'));
  // The same command as `npm run l10n`: the host's vscode.l10n.t and the webview's
  // @vscode/l10n l10n.t strings go into one bundle, which the host sends to the webview.
  const script = (
    JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
  ).scripts.l10n;
  assert.match(
    script ?? '',
    /^vscode-l10n-dev export --outDir \.\/l10n \.\/src \.\/webview-ui\/src$/,
  );
  execFileSync(
    process.execPath,
    [
      'node_modules/@vscode/l10n-dev/dist/cli.js',
      'export',
      '--outDir',
      out,
      './src',
      './webview-ui/src',
    ],
    {
      stdio: 'ignore',
    },
  );
  const fresh = JSON.parse(readFileSync(path.join(out, 'bundle.l10n.json'), 'utf8')) as Record<
    string,
    string
  >;
  const committed = JSON.parse(readFileSync('l10n/bundle.l10n.json', 'utf8')) as Record<
    string,
    string
  >;
  // A string only the webview has (its Lit templates): the export did read webview-ui/.
  assert.ok('Show as table' in fresh, 'webview-ui strings are extracted');
  assert.ok('Add Connection (1/4): kind' in fresh, 'host strings are extracted');
  const missing = Object.keys(fresh).filter((k) => !(k in committed));
  assert.deepEqual(missing, [], 'strings missing from the committed bundle');
});
