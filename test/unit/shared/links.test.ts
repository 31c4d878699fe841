import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyLink, externalUrl, fileRefOfCode } from '../../../src/shared/links.ts';

test('http and https links open externally, normalised', () => {
  assert.deepEqual(classifyLink('https://example.com/a?b=1#c'), {
    kind: 'external',
    url: 'https://example.com/a?b=1#c',
  });
  assert.deepEqual(classifyLink('HTTP://Example.COM'), {
    kind: 'external',
    url: 'http://example.com/',
  });
  assert.equal(externalUrl('https://'), undefined);
  assert.equal(externalUrl('http:/x'), undefined);
  assert.equal(externalUrl(`https://x.org/${'a'.repeat(3_000)}`), undefined);
  assert.deepEqual(classifyLink('https:12'), { kind: 'text' });
});

test('every other scheme is text', () => {
  for (const href of [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'java\nscript:alert(1)',
    'javascript:1',
    'javascript:/x.js:1',
    'data:text/html;base64,PHNjcmlwdD4=',
    'data:1',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'mailto:a@b.c',
    'ftp://x.org/a',
    'command:workbench.action.quit',
    'vscode://file/x.ts:1',
    '//evil.example/x.ts:1',
    '\\\\server\\share\\x.ts:1',
    '',
    '   ',
  ]) {
    assert.deepEqual(classifyLink(href), { kind: 'text' }, href);
  }
});

test('file paths: absolute, or with a line', () => {
  assert.deepEqual(classifyLink('/home/me/src/a.ts'), { kind: 'file', path: '/home/me/src/a.ts' });
  assert.deepEqual(classifyLink('/home/me/src/a.ts:12'), {
    kind: 'file',
    path: '/home/me/src/a.ts',
    line: 12,
  });
  assert.deepEqual(classifyLink('src/a.ts:12:5'), { kind: 'file', path: 'src/a.ts', line: 12 });
  assert.deepEqual(classifyLink('src/a.ts:12-20'), { kind: 'file', path: 'src/a.ts', line: 12 });
  assert.deepEqual(classifyLink('src/a.ts#L7-L9'), { kind: 'file', path: 'src/a.ts', line: 7 });
  assert.deepEqual(classifyLink('a.py:3'), { kind: 'file', path: 'a.py', line: 3 });
  assert.deepEqual(classifyLink('C:\\work\\a.ts:4'), {
    kind: 'file',
    path: 'C:\\work\\a.ts',
    line: 4,
  });
  assert.deepEqual(classifyLink('c:/work/a.ts'), { kind: 'file', path: 'c:/work/a.ts' });
  // markdown-it percent-encodes link destinations.
  assert.deepEqual(classifyLink('/w/a%20b.ts:2'), { kind: 'file', path: '/w/a b.ts', line: 2 });
  // A line of 0 or out of range: the file, without a line.
  assert.deepEqual(classifyLink('src/a.ts:0'), { kind: 'file', path: 'src/a.ts' });
});

test('relative paths without a line, and words with a number, are text', () => {
  for (const href of [
    'src/a.ts',
    './README.md',
    'README.md',
    'localhost:8080',
    'ratio:3',
    '~/x.ts',
  ]) {
    assert.deepEqual(classifyLink(href), { kind: 'text' }, href);
  }
});

test('inline code is a file link only when it is a path with a line, or absolute with an extension', () => {
  assert.deepEqual(fileRefOfCode('src/app.ts:42'), { kind: 'file', path: 'src/app.ts', line: 42 });
  assert.deepEqual(fileRefOfCode('/abs/dir/file.rs'), { kind: 'file', path: '/abs/dir/file.rs' });
  for (const code of [
    '/usr/bin',
    'a.ts',
    'x = 1:2',
    'npm run build',
    'javascript:1',
    'https://x.org',
  ]) {
    assert.deepEqual(fileRefOfCode(code), { kind: 'text' }, code);
  }
});
