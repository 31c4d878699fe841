/**
 * Transcript Markdown as data (webview-ui/src/transcript/markdownModel.ts): what each
 * construct becomes, that raw HTML stays text, and which links become actions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMarkdown } from '../../../../webview-ui/src/transcript/markdownModel.ts';
import type { MdNode } from '../../../../webview-ui/src/transcript/markdownModel.ts';
import { XSS_PAYLOADS } from '../../../webview/support/xssCorpus.ts';

/** Every node of a tree, depth first. */
function* walk(nodes: MdNode[]): Generator<MdNode> {
  for (const node of nodes) {
    yield node;
    if (typeof node === 'object' && 'children' in node) yield* walk(node.children);
  }
}

const textOf = (nodes: MdNode[]): string =>
  [...walk(nodes)]
    .map((n) =>
      typeof n === 'string'
        ? n
        : 'code' in n
          ? n.code
          : 'codeBlock' in n
            ? n.codeBlock
            : 'image' in n
              ? n.image
              : '',
    )
    .join('');

test('headings, lists, emphasis, code, tables, quotes and rules', () => {
  const nodes = parseMarkdown(
    [
      '# Title',
      '',
      'Some **bold**, *em*, ~~gone~~ and `code`.',
      '',
      '- one',
      '- two',
      '',
      '3. three',
      '',
      '> quoted',
      '',
      '| a | b |',
      '|:--|--:|',
      '| 1 | 2 |',
      '',
      '```ts',
      'const x = 1;',
      '```',
      '',
      '---',
    ].join('\n'),
  );
  assert.deepEqual(nodes[0], { el: 'h1', children: ['Title'] });
  assert.deepEqual(nodes[1], {
    el: 'p',
    children: [
      'Some ',
      { el: 'strong', children: ['bold'] },
      ', ',
      { el: 'em', children: ['em'] },
      ', ',
      { el: 's', children: ['gone'] },
      ' and ',
      { code: 'code' },
      '.',
    ],
  });
  // Tight list items hold their text directly (no paragraph).
  assert.deepEqual(nodes[2], {
    el: 'ul',
    children: [
      { el: 'li', children: ['one'] },
      { el: 'li', children: ['two'] },
    ],
  });
  assert.deepEqual(nodes[3], { el: 'ol', start: 3, children: [{ el: 'li', children: ['three'] }] });
  assert.deepEqual(nodes[4], { el: 'blockquote', children: [{ el: 'p', children: ['quoted'] }] });
  const table = nodes[5] as { el: string; children: MdNode[] };
  assert.equal(table.el, 'table');
  type El = Extract<MdNode, { el: unknown }>;
  const cells = [...walk(table.children)].filter(
    (n): n is El => typeof n === 'object' && 'el' in n && (n.el === 'th' || n.el === 'td'),
  );
  assert.deepEqual(
    cells.map((c) => `${c.el}:${c.align}:${textOf(c.children)}`),
    ['th:left:a', 'th:right:b', 'td:left:1', 'td:right:2'],
  );
  assert.deepEqual(nodes[6], { codeBlock: 'const x = 1;', info: 'ts' });
  assert.deepEqual(nodes[7], { hr: true });
  assert.equal(nodes.length, 8);
});

test('raw HTML is text; entities are decoded into text, never markup', () => {
  const nodes = parseMarkdown('<script>alert(1)</script> <b>x</b> &lt;img src=x onerror=1&gt;');
  assert.deepEqual(nodes, [
    {
      el: 'p',
      children: ['<script>alert(1)</script> <b>x</b> <img src=x onerror=1>'],
    },
  ]);
  assert.deepEqual(parseMarkdown('<div onclick="x">\nblock\n</div>'), [
    { el: 'p', children: ['<div onclick="x">', { br: true }, 'block', { br: true }, '</div>'] },
  ]);
});

test('links: https and file paths become actions; other schemes stay text', () => {
  const links = [
    ...walk(
      parseMarkdown(
        [
          '[site](https://example.com/a) https://linkified.example/b',
          '[file](src/app.ts:12) [abs](/w/a.ts) [rel](docs/a.md)',
          '[js](javascript:alert(1)) [data](data:text/html,x) [vb](vbscript:x)',
          '[mail](mailto:a@b.c) <ftp://x.org> main.rs www.example.com',
        ].join('\n'),
      ),
    ),
  ].filter((n) => typeof n === 'object' && 'link' in n) as { link: unknown; children: MdNode[] }[];
  assert.deepEqual(
    links.map((l) => [textOf(l.children), l.link]),
    [
      ['site', { kind: 'external', url: 'https://example.com/a' }],
      ['https://linkified.example/b', { kind: 'external', url: 'https://linkified.example/b' }],
      ['file', { kind: 'file', path: 'src/app.ts', line: 12 }],
      ['abs', { kind: 'file', path: '/w/a.ts' }],
      ['rel', { kind: 'text' }],
      ['mail', { kind: 'text' }],
      ['ftp://x.org', { kind: 'text' }],
    ],
  );
  // markdown-it refuses javascript:, data: and vbscript: destinations: they stay literal text.
  const text = textOf(parseMarkdown('[js](javascript:alert(1)) [vb](vbscript:x)'));
  assert.equal(text, '[js](javascript:alert(1)) [vb](vbscript:x)');
});

test('inline code naming a file and a line is a file link; images are their alt text', () => {
  const nodes = parseMarkdown(
    'See `src/a.ts:3`, `npm test` and ![a *diagram*](https://x.org/p.png).',
  );
  assert.deepEqual(nodes, [
    {
      el: 'p',
      children: [
        'See ',
        { code: 'src/a.ts:3', file: { kind: 'file', path: 'src/a.ts', line: 3 } },
        ', ',
        { code: 'npm test' },
        ' and ',
        { image: 'a diagram' },
        '.',
      ],
    },
  ]);
});

test('every XSS payload parses to known node kinds, its text kept', () => {
  const kinds = new Set(['el', 'link', 'codeBlock', 'code', 'image', 'br', 'hr']);
  for (const payload of XSS_PAYLOADS) {
    const nodes = parseMarkdown(payload);
    for (const node of walk(nodes)) {
      if (typeof node === 'string') continue;
      const kind = Object.keys(node).find((k) => kinds.has(k));
      assert.ok(kind, `unknown node ${JSON.stringify(node).slice(0, 80)}`);
      if ('link' in node) assert.notEqual(node.link.kind, 'external', payload);
    }
    // Its words are all there, in order (Markdown takes only punctuation, and decodes entities).
    const words = (text: string) =>
      text
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/[^\p{L}\p{N}]/gu, '');
    assert.equal(words(textOf(nodes)), words(payload), payload.slice(0, 60));
  }
});

test('deep nesting and long inputs stay bounded', () => {
  const deep = parseMarkdown(`${'>'.repeat(5_000)} x`);
  let depth = 0;
  let level: MdNode[] = deep;
  while (level.length && typeof level[0] === 'object' && 'children' in level[0]) {
    level = level[0].children;
    depth++;
  }
  assert.ok(depth <= 101, `depth ${depth}`);
  const nodes = parseMarkdown('*a* '.repeat(20_000));
  assert.equal(
    [...walk(nodes)].filter((n) => typeof n === 'object' && 'el' in n && n.el === 'em').length,
    20_000,
  );
});
