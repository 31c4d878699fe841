import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('l10n/bundle.l10n.json holds every vscode.l10n.t string of src/ (run npm run l10n)', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'asi-l10n-'));
  execFileSync(
    process.execPath,
    ['node_modules/@vscode/l10n-dev/dist/cli.js', 'export', '--outDir', out, './src'],
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
  const missing = Object.keys(fresh).filter((k) => !(k in committed));
  assert.deepEqual(missing, [], 'strings missing from the committed bundle');
});
