/**
 * The highlighter's language table against highlight.js's own definitions, and its output
 * read back as a tree of class names and text (never as HTML).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import hljs from 'highlight.js/lib/core';
import type { LanguageFn } from 'highlight.js';
import { parseHighlighted } from '../../../../webview-ui/src/transcript/codeHighlight.ts';
import type { HlNode } from '../../../../webview-ui/src/transcript/codeHighlight.ts';
import {
  HLJS_EMBEDS,
  HLJS_LANGUAGES,
  languageOfInfo,
} from '../../../../webview-ui/src/transcript/hljsLanguages.ts';

const flat = (nodes: HlNode[]): string =>
  nodes.map((n) => (typeof n === 'string' ? n : flat(n.children))).join('');

const SAMPLE = [
  'const a = "<img src=x onerror=alert(1)>" && b < c; // </span><script>',
  "def f(x): return x > 1 and 'it''s' # &amp; &lt;",
  '<span class="hljs-keyword">not ours</span> </span> <b>',
].join('\n');

test('every language of the table is highlight.js language with exactly these aliases', async () => {
  for (const [name, aliases] of Object.entries(HLJS_LANGUAGES)) {
    const file = path.join('node_modules', 'highlight.js', 'es', 'languages', `${name}.js`);
    assert.ok(existsSync(file), file);
    const module = (await import(`highlight.js/lib/languages/${name}`)) as { default: LanguageFn };
    hljs.registerLanguage(name, module.default);
    assert.deepEqual(
      [...(hljs.getLanguage(name)?.aliases ?? [])].sort(),
      [...aliases].sort(),
      `aliases of ${name}`,
    );
  }
  for (const [name, embeds] of Object.entries(HLJS_EMBEDS)) {
    assert.ok(name in HLJS_LANGUAGES, name);
    for (const embed of embeds) assert.ok(embed in HLJS_LANGUAGES, embed);
  }
});

test('fence info strings name languages by name or alias; unknown ones are plain', () => {
  assert.equal(languageOfInfo('ts'), 'typescript');
  assert.equal(languageOfInfo('Python {linenos=true}'), 'python');
  assert.equal(languageOfInfo('language-js'), 'javascript');
  assert.equal(languageOfInfo('sh title="x"'), 'bash');
  assert.equal(languageOfInfo('jsonc,'), 'json');
  assert.equal(languageOfInfo(''), undefined);
  assert.equal(languageOfInfo('brainfuck'), undefined);
  assert.equal(languageOfInfo('constructor'), undefined);
  assert.equal(languageOfInfo('__proto__'), undefined);
});

test('highlighted output reads back to the exact code, in every language', async () => {
  for (const name of Object.keys(HLJS_LANGUAGES)) {
    if (!hljs.getLanguage(name)) {
      const module = (await import(`highlight.js/lib/languages/${name}`)) as {
        default: LanguageFn;
      };
      hljs.registerLanguage(name, module.default);
    }
    const output = hljs.highlight(SAMPLE, { language: name, ignoreIllegals: true }).value;
    const tree = parseHighlighted(output);
    assert.equal(flat(tree), SAMPLE, name);
  }
  const ts = parseHighlighted(
    hljs.highlight('const x = 1;', { language: 'typescript', ignoreIllegals: true }).value,
  );
  assert.deepEqual(ts, [
    { cls: 'hljs-keyword', children: ['const'] },
    ' x = ',
    { cls: 'hljs-number', children: ['1'] },
    ';',
  ]);
});

test('anything but highlight.js spans stays text', () => {
  // A stray </span> is dropped; the text on both sides stays text.
  assert.deepEqual(parseHighlighted('<img src=x onerror=1>&lt;b&gt;</span>&amp;'), [
    '<img src=x onerror=1><b>',
    '&',
  ]);
  assert.deepEqual(parseHighlighted('<span class="x" onclick="y">a</span>'), [
    '<span class="x" onclick="y">a',
  ]);
  assert.deepEqual(parseHighlighted('<span class="a"><span class="b">x'), [
    { cls: 'a', children: [{ cls: 'b', children: ['x'] }] },
  ]);
});
