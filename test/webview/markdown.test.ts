/**
 * Rendered transcript text in Chromium under the webview CSP: Markdown as elements, code
 * blocks highlighted by a language loaded on first use, the link policy (https → the
 * browser, file paths → the editor, every other scheme → text), the Raw toggle, and file
 * edits (Edit, Write, apply_patch) as unified diffs with +/- counts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TranscriptEntry } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';
import { XSS_PAYLOADS } from './support/xssCorpus.ts';

let h: Harness;
/** Every request for a highlight.js language file. */
const languageRequests: string[] = [];
before(async () => {
  h = await openHarness();
  h.page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/hljs/')) languageRequests.push(pathname);
  });
});
after(() => h?.close());

type Posted = Record<string, unknown> & { type: string };
const postedOf = async (type: string) =>
  ((await h.probe.posted()) as Posted[]).filter((m) => m.type === type);

const base = (index: number) => ({
  index,
  source: { first: index + 1, last: index + 1 },
  timestamp: '2025-01-01T00:00:00.000Z',
  truncated: false,
});

const MARKDOWN = [
  '## Plan for #0',
  '',
  'Some **bold** text and `inline code`.',
  '',
  '- first item',
  '- second item',
  '',
  '```ts',
  'const answer: number = 42; // the answer',
  'function twice(x: number) { return x * 2; }',
  '```',
  '',
  '```brainfuck',
  '++[>+<-]',
  '```',
].join('\n');

const LINKS = [
  'Open [the site](https://example.com/docs?a=1) or https://linkified.example/x.',
  'Jump to [app.ts](src/app.ts:12) or `src/util.ts:7`.',
  'Not links: [js](javascript:alert(1)) [data](data:text/html,<b>x</b>) <vbscript:msgbox(1)>',
  '[mail](mailto:a@b.c) [rel](docs/guide.md) ![diagram](https://example.com/d.png)',
].join('\n');

const edit = JSON.stringify(
  {
    file_path: '/work/src/app.ts',
    old_string: 'const a = 1;\nconst b = 2;\nreturn a;',
    new_string: 'const a = 1;\nconst b = 3;\nconst c = 4;\nreturn a;',
  },
  null,
  2,
);
const write = JSON.stringify({ file_path: '/work/new.md', content: '# New\n\ntext\n' }, null, 2);
const patch = [
  '*** Begin Patch',
  '*** Update File: src/lib.rs',
  '@@ fn main() {',
  ' let a = 1;',
  '-let b = 2;',
  '+let b = 3;',
  '*** Delete File: old.txt',
  '*** End Patch',
].join('\n');
const bigEdit = JSON.stringify(
  {
    file_path: '/work/big.ts',
    old_string: 'x'.repeat(30_000),
    new_string: `${'x'.repeat(30_000)}\nadded line`,
  },
  null,
  2,
);

function entries(): TranscriptEntry[] {
  const tool = (index: number, name: string, input: string, extra = {}): TranscriptEntry => ({
    ...base(index),
    kind: 'tool-call',
    callId: `c${index}`,
    name,
    input,
    summary: `${name} #${index}`,
    files: [],
    status: 'ok',
    output: `output #${index}`,
    ...extra,
  });
  return [
    { ...base(0), kind: 'assistant', text: MARKDOWN },
    { ...base(1), kind: 'assistant', text: LINKS },
    tool(2, 'Edit', edit),
    tool(3, 'Write', write),
    tool(4, 'apply_patch', JSON.stringify({ input: patch })),
    // Cut by the host at the preview length: the diff needs the whole input.
    tool(5, 'Edit', bigEdit.slice(0, 20_000), {
      truncated: true,
      truncatedParts: ['input'],
      fullLength: { input: bigEdit.length },
    }),
    // An edit whose input cannot be read: the raw input, as before.
    tool(6, 'Edit', '{"file_path": "/work/x.ts", "old_string": 1}'),
    { ...base(7), kind: 'user', variant: 'prompt', text: 'Please **fix** it #7' },
  ];
}

const row = (index: number) => h.page.locator(`transcript-view .entry[data-index="${index}"]`);

async function load(): Promise<void> {
  await h.load();
  await h.probe.setTranscript({ entries: entries(), fullTexts: { '5:input': bigEdit } });
  await row(7).waitFor();
}

async function assertClean(): Promise<void> {
  const health = await h.probe.health();
  assert.equal(health.xss, undefined);
  assert.deepEqual(health.violations, [], 'CSP violations');
  assert.deepEqual([...health.errors, ...h.pageErrors], [], 'page errors');
  assert.deepEqual(h.dialogs, []);
  assert.deepEqual((await h.probe.scan()).problems, [], 'URLs or handlers in the DOM');
}

test('Markdown renders as elements; a code block is highlighted once its language loads', async () => {
  await load();
  const md = row(0).locator('.md');
  assert.equal(await md.locator('h2').innerText(), 'Plan for #0');
  assert.equal(await md.locator('strong').innerText(), 'bold');
  assert.equal(await md.locator('p code').innerText(), 'inline code');
  assert.deepEqual(await md.locator('ul > li').allInnerTexts(), ['first item', 'second item']);
  const code = md.locator('pre.md-code').first();
  // The language arrives as its own module (dynamic import under the CSP), then the row redraws.
  await code.locator('span.hljs-keyword').first().waitFor();
  assert.deepEqual(await code.locator('span.hljs-keyword').allInnerTexts(), [
    'const',
    'function',
    'return',
  ]);
  assert.equal(await code.locator('span.hljs-number').first().innerText(), '42');
  assert.equal(await code.locator('span.hljs-comment').innerText(), '// the answer');
  assert.equal(
    await code.innerText(),
    'const answer: number = 42; // the answer\nfunction twice(x: number) { return x * 2; }',
  );
  // The collapsed preview ends after 12 lines, before the second block; show the rest.
  assert.equal(await md.locator('pre.md-code').count(), 1);
  await row(0).locator('button.more').click();
  // An unknown language is plain text, and nothing is fetched for it.
  const plain = md.locator('pre.md-code').nth(1);
  await until(
    () => plain.innerText(),
    (text) => text === '++[>+<-]',
    'the whole second block',
  );
  assert.equal(await plain.innerText(), '++[>+<-]');
  assert.equal(await plain.locator('span').count(), 0);
  assert.deepEqual(languageRequests, ['/hljs/typescript.js']);
  // The user's prompt is Markdown too.
  assert.equal(await row(7).locator('.md strong').innerText(), 'fix');
  await h.shot('markdown');
  await assertClean();
});

test('links: https posts openExternal, a file path posts openFile, other schemes are text', async () => {
  await load();
  await h.probe.clearPosted();
  const links = row(1).locator('button.md-link');
  assert.deepEqual(await links.allInnerTexts(), [
    'the site',
    'https://linkified.example/x',
    'app.ts',
    'src/util.ts:7',
  ]);
  await links.nth(0).click();
  await links.nth(1).click();
  await links.nth(2).click();
  await links.nth(3).click();
  assert.deepEqual(await postedOf('openExternal'), [
    { type: 'openExternal', url: 'https://example.com/docs?a=1' },
    { type: 'openExternal', url: 'https://linkified.example/x' },
  ]);
  assert.deepEqual(await postedOf('openFile'), [
    { type: 'openFile', path: 'src/app.ts', line: 12 },
    { type: 'openFile', path: 'src/util.ts', line: 7 },
  ]);
  const text = await row(1).locator('.md').innerText();
  assert.match(text, /\[js\]\(javascript:alert\(1\)\)/);
  assert.match(text, /\[data\]\(data:text\/html,<b>x<\/b>\)/);
  assert.match(text, /<vbscript:msgbox\(1\)>/);
  assert.match(text, /mail rel diagram/);
  // Nothing in the row carries a URL: no anchors, no images, no href or src.
  for (const tag of ['a', 'img', 'iframe', 'object', 'embed']) {
    assert.equal(await row(1).locator(tag).count(), 0, tag);
  }
  assert.equal(await row(1).locator('.md-image').innerText(), 'diagram');
  await assertClean();
});

test('the Raw toggle shows the source text, and back', async () => {
  await load();
  const toggle = row(0).locator('button.raw-toggle');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await toggle.click();
  await until(
    () => row(0).locator('pre.text').count(),
    (n) => n === 1,
    'the source text',
  );
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  assert.equal(await row(0).locator('.md').count(), 0);
  const source = await row(0).locator('pre.text').innerText();
  assert.ok(source.startsWith('## Plan for #0\n\nSome **bold** text'), source);
  await toggle.click();
  await row(0).locator('.md h2').waitFor();
  assert.equal(await row(0).locator('pre.text').count(), 0);
});

test('Edit, Write and apply_patch calls are unified diffs with +/- counts', async () => {
  await load();
  const counts = async (index: number) =>
    (await row(index).locator('.head .diff-counts').innerText()).replace(/\s+/g, ' ');
  assert.equal(await counts(2), '+2 −1');
  assert.deepEqual(await row(2).locator('.dl.add').allInnerTexts(), [
    '+const b = 3;',
    '+const c = 4;',
  ]);
  assert.deepEqual(await row(2).locator('.dl.del').allInnerTexts(), ['-const b = 2;']);
  assert.equal(await row(2).locator('.diff-path').innerText(), '/work/src/app.ts');
  assert.equal(await row(2).locator('.dl.hunk').innerText(), '@@ -1,3 +1,4 @@');
  // The tool's raw input is one toggle away; its output stays collapsed.
  assert.doesNotMatch(await row(2).innerText(), /output #2/);
  await row(2).locator('button.raw-toggle').click();
  await until(
    () => row(2).locator('pre.code').first().innerText(),
    (text) => text.includes('"old_string"'),
    'the raw input',
  );
  assert.equal(await row(2).locator('.diff').count(), 0);

  assert.equal(await counts(3), '+3 −0');
  assert.match(await row(3).locator('.diff-file').innerText(), /whole file written/);
  // Codex apply_patch: two files, one of them deleted.
  assert.equal(await counts(4), '+1 −1');
  assert.deepEqual(await row(4).locator('.diff-path').allInnerTexts(), ['src/lib.rs', 'old.txt']);
  assert.match(await row(4).locator('.diff-file').nth(1).innerText(), /deleted/);
  // Each file of a multi-file patch has its own counts.
  assert.deepEqual(
    (await row(4).locator('.diff-file .diff-counts').allInnerTexts()).map((t) =>
      t.replace(/\s+/g, ' '),
    ),
    ['+1 −1', '+0 −0'],
  );
  await h.shot('markdown-diffs');
  await assertClean();
});

test('a cut edit input offers the whole input, then shows the diff; an unreadable one stays raw', async () => {
  await load();
  await h.probe.clearPosted();
  assert.match(await row(5).innerText(), /longer than the preview/);
  assert.equal(await row(5).locator('.diff').count(), 0);
  await row(5).locator('button.more', { hasText: 'diff' }).click();
  await row(5).locator('.head .diff-counts').waitFor();
  assert.deepEqual(
    (await postedOf('getFullText')).map((m) => `${m.index}:${m.part}`),
    ['5:input'],
  );
  assert.equal(
    (await row(5).locator('.head .diff-counts').innerText()).replace(/\s+/g, ' '),
    '+1 −0',
  );
  assert.deepEqual(await row(5).locator('.dl.add').allInnerTexts(), ['+added line']);
  // Not an edit we can read: no diff, no counts; expanding shows the raw input.
  assert.equal(await row(6).locator('.diff-counts').count(), 0);
  await row(6).locator('button.expander').click();
  await until(
    () => row(6).innerText(),
    (text) => text.includes('"old_string": 1'),
    'the raw input of an unreadable edit',
  );
  await assertClean();
});

test('a search match inside Markdown is marked, and code blocks show it too', async () => {
  await load();
  await h.probe.send({ type: 'reveal', index: 0, highlight: 'second' });
  await row(0).locator('mark').first().waitFor();
  assert.deepEqual(await row(0).locator('.md li mark').allInnerTexts(), ['second']);
  await h.probe.send({ type: 'reveal', index: 0, highlight: 'twice' });
  await row(0).locator('pre.md-code mark').waitFor();
  assert.equal(await row(0).locator('pre.md-code mark').innerText(), 'twice');
  await assertClean();
});

test('a revealed quote with Markdown markup is marked: the entry shows its source, the reader can switch back', async () => {
  await h.load();
  const text =
    'Steps:\n\n1. use `npm ci` then **build**\n2. ship it\n\nSee [the guide](https://example.com/g).';
  await h.probe.setTranscript({ entries: [{ ...base(0), kind: 'assistant', text }] });
  await row(0).locator('.md ol').waitFor();
  const toggle = row(0).locator('button.raw-toggle');
  // A comment's anchor quotes the source: its backticks and ** are not in any rendered run.
  await h.probe.send({ type: 'reveal', index: 0, highlight: 'use `npm ci` then **build**' });
  const mark = row(0).locator('mark');
  await mark.first().waitFor();
  assert.ok(await mark.first().isVisible());
  assert.deepEqual(await mark.allInnerTexts(), ['use `npm ci` then **build**']);
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  assert.equal(await row(0).locator('.md').count(), 0);
  // The reader switches back to the rendered text: it stays rendered.
  await toggle.click();
  await row(0).locator('.md ol').waitFor();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  // A quote that one rendered run holds is marked in the rendered text.
  await h.probe.send({ type: 'reveal', index: 0, highlight: 'ship it' });
  await row(0).locator('.md li mark').waitFor();
  assert.deepEqual(await row(0).locator('.md li mark').allInnerTexts(), ['ship it']);
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await assertClean();
});

/**
 * What the transcript may draw: its own elements, vscode-elements' internals, and the
 * Markdown elements markdownView.ts renders (the XSS suites' allow-list holds the same).
 */
const TRANSCRIPT_ELEMENTS = [
  ...['button', 'div', 'input', 'link', 'mark', 'option', 'p', 'pre', 'select', 'slot', 'span'],
  ...['vscode-button', 'vscode-icon', 'blockquote', 'br', 'code', 'em', 'hr', 'li', 'ol', 's'],
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'ul'],
  ...['table', 'tbody', 'td', 'th', 'thead', 'tr'],
];

/** Markdown built around the XSS corpus: payloads as link targets and texts, code, alt texts, table cells, headings. */
function hostileMarkdown(): TranscriptEntry[] {
  return XSS_PAYLOADS.map((p, i) => ({
    ...base(i),
    ...(i % 2 ? { kind: 'assistant' as const } : { kind: 'user' as const, variant: 'prompt' }),
    text: [
      `# ${p}`,
      `[${p}](${p}) [x](<${p}>) <${p}> ![${p}](${p}) \`${p}\``,
      `[link](https://example.com/${encodeURIComponent(p.toWellFormed())}) [f](${encodeURIComponent(p.toWellFormed())}:3)`,
      `| ${p} | b |`,
      '|---|---|',
      `| **${p}** | _${p}_ |`,
      '',
      `> - ${p}`,
      '',
      '```' + (i % 3 === 1 ? p : 'html'),
      p,
      '```',
    ].join('\n'),
  }));
}

test('Markdown around every XSS payload: only allowed elements, no URL, nothing runs (with and without CSP)', async () => {
  for (const csp of [true, false]) {
    const page = csp ? h : await openHarness({ csp: false });
    try {
      await page.load();
      await page.page.setViewportSize({ width: 1280, height: 3_000 });
      await page.probe.setTranscriptHeight(2_900);
      const list = hostileMarkdown();
      await page.probe.clearWatched();
      await page.probe.setTranscript({ entries: list });
      const walked = await page.probe.walkTranscript(list.length);
      assert.equal(walked.entries, list.length);
      // The html code blocks are highlighted (xml loaded on the way) with spans only.
      await page.page
        .locator('transcript-view pre.md-code span.hljs-tag')
        .first()
        .waitFor({ state: 'attached' });
      const health = await page.probe.health();
      assert.equal(health.xss, undefined);
      assert.deepEqual(health.violations, []);
      assert.deepEqual([...health.errors, ...page.pageErrors], []);
      assert.deepEqual(page.dialogs, []);
      const report = await page.probe.scan();
      assert.deepEqual(report.problems, []);
      const unexpected = (report.tags['transcript-view'] ?? []).filter(
        (t) => !TRANSCRIPT_ELEMENTS.includes(t),
      );
      assert.deepEqual(unexpected, [], 'elements outside the allow-list');
      for (const tag of ['h1', 'table', 'blockquote', 'code', 'strong', 'em', 'ul']) {
        assert.ok(report.tags['transcript-view']?.includes(tag), `renders <${tag}>`);
      }
      // Every element any row ever drew, not only the rows left at the end.
      const watched = await page.probe.watched();
      assert.deepEqual(watched.problems, []);
      const drawn = (watched.tags['transcript-view'] ?? []).filter(
        (t) => !TRANSCRIPT_ELEMENTS.includes(t),
      );
      assert.deepEqual(drawn, [], 'elements outside the allow-list, over the whole walk');
    } finally {
      if (!csp) await page.close();
    }
  }
});
