import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { chromiumPath, projectRoot } from '../../../scripts/lib/tools.ts';

const only =
  (...files: string[]) =>
  (file: string) =>
    files.includes(file);

test('CHROMIUM is the only path tried when it is set', () => {
  assert.equal(chromiumPath({ CHROMIUM: '/opt/chrome' }, only('/opt/chrome')), '/opt/chrome');
  assert.throws(
    () => chromiumPath({ CHROMIUM: '/nonexistent' }, only('/usr/bin/chromium')),
    /No Chromium at CHROMIUM=\/nonexistent: install it \(Debian: apt-get install chromium\)/,
  );
});

test('without CHROMIUM: /usr/bin first, then the names on PATH', () => {
  assert.equal(chromiumPath({ PATH: '/x' }, only('/usr/bin/chromium')), '/usr/bin/chromium');
  assert.equal(
    chromiumPath({ PATH: '/a:/b' }, only('/b/google-chrome', '/a/chromium-browser')),
    '/a/chromium-browser',
  );
  assert.throws(() => chromiumPath({ PATH: '/a:/b' }, only()), /No Chromium found: install it/);
});

test('npm test stops at once with the hint when Chromium is missing', () => {
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [path.join(projectRoot, 'scripts', 'test.ts'), 'webview'],
    {
      cwd: projectRoot,
      env: { ...process.env, CHROMIUM: '/nonexistent' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(result.signal, null, `killed after ${Date.now() - started} ms: it hung`);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /apt-get install chromium/);
  assert.doesNotMatch(result.stdout, /webview tests/);
});
