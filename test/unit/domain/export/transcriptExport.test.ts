/**
 * Transcript export: Markdown keeps text as written and fences it cannot break out of; HTML
 * escapes every text (the webview XSS corpus comes out inert), has no script and a CSP that
 * allows nothing but its inline style; edits render as diffs; the runner streams windows
 * and writes each cut part in full.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EXPORT_WINDOW, exportEntries } from '../../../../src/domain/export/exportRunner.ts';
import {
  closeOpenFence,
  fenced,
  inlineCode,
  splitFences,
} from '../../../../src/domain/export/markdownText.ts';
import {
  EXPORT_CSP,
  escapeHtml,
  exportFileName,
  rendererFor,
  renderTranscript,
  type ExportMeta,
} from '../../../../src/domain/export/transcriptExport.ts';
import { MemoryTranscript } from '../../../../src/domain/transcript/memoryTranscript.ts';
import type { TranscriptEntry, TranscriptSource } from '../../../../src/domain/transcript/model.ts';
import { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';
import { XSS_PAYLOADS } from '../../../webview/support/xssCorpus.ts';

const META: ExportMeta = {
  title: 'Fix the build',
  sessionId: 'e2c1f7a4-5b6d-4e8f-9a0b-1c2d3e4f5a6b',
  fields: [
    ['Harness', 'claude-code'],
    ['Model', ''],
  ],
  exportedAt: '2026-12-02T05:00:00.000Z',
  generator: 'Agent Session Inspector test',
};

let next = 0;
const base = () => ({ index: next++, source: { first: next, last: next }, truncated: false });

function user(text: string): TranscriptEntry {
  return { ...base(), kind: 'user', text, variant: 'prompt' };
}
function assistant(text: string): TranscriptEntry {
  return { ...base(), kind: 'assistant', text };
}
function tool(name: string, input: string, output?: string): TranscriptEntry {
  return {
    ...base(),
    kind: 'tool-call',
    callId: `c${next}`,
    name,
    input,
    summary: name,
    files: [],
    status: 'ok',
    output,
  };
}

/** Every entry kind, each text field carrying `payload`. */
function everyKind(payload: string): TranscriptEntry[] {
  return [
    user(payload),
    assistant(`${payload}\n\n\`\`\`js\n${payload}\n\`\`\`\n`),
    { ...base(), kind: 'thinking', text: payload, collapsed: true },
    tool(payload, payload, payload),
    tool('Edit', JSON.stringify({ file_path: payload, old_string: payload, new_string: 'x' })),
    { ...base(), kind: 'compaction', text: payload, trigger: payload },
    { ...base(), kind: 'system', subtype: payload, text: payload },
    {
      ...base(),
      kind: 'subagent',
      text: payload,
      agentId: payload,
      fileKey: `subagent:${payload}`,
      description: payload,
    },
    { ...base(), kind: 'error', message: payload, excerpt: payload },
    { ...base(), kind: 'unknown', type: payload, raw: payload },
  ];
}

/** The tags of a document as the HTML tokenizer would see them (text is escaped, so no `<` in it). */
function tagsOf(html: string): string[] {
  return html.match(/<[^>]*>/g) ?? [];
}

describe('HTML export', () => {
  test('every XSS corpus payload, in every field of every entry kind, comes out as text', () => {
    for (const payload of XSS_PAYLOADS) {
      const html = renderTranscript(
        'html',
        { ...META, title: payload, sessionId: payload },
        everyKind(payload),
      );
      assert.doesNotMatch(html, /<script/i, payload);
      for (const tag of tagsOf(html)) {
        // Our own tags only: no event handler, no javascript:/data: URL, no src/href at all.
        assert.doesNotMatch(tag, /\son[a-z]+\s*=/i, `${payload} → ${tag}`);
        assert.doesNotMatch(tag, /javascript:|vbscript:|data:/i, `${payload} → ${tag}`);
        assert.doesNotMatch(
          tag,
          /\s(src|href|action|formaction|srcdoc)\s*=/i,
          `${payload} → ${tag}`,
        );
        assert.match(
          tag,
          /^<\/?(!DOCTYPE|html|head|meta|title|style|body|main|h1|h2|dl|dt|dd|section|div|span|time|details|summary|pre|p|footer)[\s>]/i,
          `${payload} → unexpected tag ${tag.slice(0, 80)}`,
        );
      }
      // The payload's text is there, escaped (the lone surrogate one is repaired).
      if (!/[\ud800-\udfff]/.test(payload)) assert.ok(html.includes(escapeHtml(payload)), payload);
    }
  });

  test('one self-contained page: a CSP that allows only its own style sheet (by hash), no script, themed CSS', () => {
    const html = renderTranscript('html', META, [user('hi'), assistant('hello')]);
    assert.match(html, /^<!DOCTYPE html>/);
    assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`));
    assert.equal((html.match(/<style>/g) ?? []).length, 1);
    // The CSP names exactly the page's one style sheet by its hash; nothing else may style it.
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(css).digest('base64');
    assert.equal(
      EXPORT_CSP,
      `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`,
    );
    assert.match(html, /@media \(prefers-color-scheme: dark\)/);
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|url\(/i);
    assert.ok(html.trimEnd().endsWith('</html>'));
  });

  test('fenced code in assistant text is a <pre>; thinking is a collapsed <details>', () => {
    next = 0;
    const html = renderTranscript('html', META, [
      assistant('Run this:\n\n```sh\nnpm test && echo "<ok>"\n```\nDone.'),
      { ...base(), kind: 'thinking', text: 'Let me think', collapsed: true },
    ]);
    assert.ok(html.includes('<pre>npm test &#38;&#38; echo &#34;&#60;ok&#62;&#34;</pre>'));
    assert.ok(html.includes('<div class="text">Run this:</div>'));
    assert.ok(html.includes('<div class="text">Done.</div>'));
    assert.match(
      html,
      /<details><summary>Thinking<\/summary>\n<div class="text">Let me think<\/div>/,
    );
  });

  test('Edit, Write and apply_patch render as diffs with +/- counts', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.txt',
      '@@',
      '-old',
      '+new',
      '*** End Patch',
    ].join('\n');
    const html = renderTranscript('html', META, [
      tool(
        'Edit',
        JSON.stringify({
          file_path: '/p/a.ts',
          old_string: 'let a = 1;',
          new_string: 'let a = 2;',
        }),
      ),
      tool('Write', JSON.stringify({ file_path: '/p/b.ts', content: 'x\ny\n' })),
      tool('apply_patch', patch),
    ]);
    assert.ok(html.includes('update /p/a.ts (+1 −1)'));
    assert.ok(html.includes('<div class="del">-let a &#61; 1;</div>'));
    assert.ok(html.includes('<div class="add">+let a &#61; 2;</div>'));
    assert.ok(html.includes('write /p/b.ts (+2 −0)'));
    assert.ok(html.includes('update a.txt (+1 −1)'));
    assert.ok(html.includes('<div class="add">+new</div>'));
  });
});

describe('Markdown export', () => {
  test('user and assistant text as written; tool calls fenced with input and output', () => {
    next = 0;
    const md = renderTranscript('markdown', META, [
      user('Fix **the** build'),
      assistant('Done: see `src/a.ts`.'),
      tool('Bash', '{\n  "command": "npm test"\n}', 'ok\n2 passing'),
    ]);
    assert.ok(md.startsWith('# Fix the build\n'));
    assert.ok(md.includes('- Session: `e2c1f7a4-5b6d-4e8f-9a0b-1c2d3e4f5a6b`'));
    assert.ok(md.includes('- Harness: `claude-code`'));
    assert.ok(!md.includes('Model'), 'empty fields are left out');
    assert.ok(md.includes('### User\n\nFix **the** build\n'));
    assert.ok(md.includes('Done: see `src/a.ts`.'));
    assert.ok(md.includes('Input:\n\n```json\n{\n  "command": "npm test"\n}\n```\n'));
    assert.ok(md.includes('Output:\n\n```\nok\n2 passing\n```\n'));
  });

  test('a tool output containing ``` stays inside its fence', () => {
    const output = 'before\n```\n# not a heading\n````\nafter';
    const md = renderTranscript('markdown', META, [tool('Bash', 'cat x', output), user('next')]);
    // A fence longer than any backtick run inside: five backticks here.
    assert.ok(md.includes(`Output:\n\n\`\`\`\`\`\n${output}\n\`\`\`\`\`\n`));
    const parts = splitFences(md);
    const code = parts.filter((p) => p.kind === 'code').map((p) => p.text);
    assert.ok(code.includes(output), 'the output is one code block, whole');
    assert.ok(
      parts.every((p) => !p.open),
      'no fence is left open',
    );
    assert.ok(parts.some((p) => p.kind === 'text' && p.text.includes('### User')));
  });

  test('an assistant message that leaves a fence open is closed after it, so the next entry is not code', () => {
    const md = renderTranscript('markdown', META, [
      assistant('Here:\n````ts\nconst a = "```";\n'),
      user('Thanks'),
    ]);
    const parts = splitFences(md);
    assert.ok(parts.every((p) => !p.open));
    const last = parts.findLast((p) => p.kind === 'text');
    assert.ok(last?.text.includes('Thanks'));
    assert.ok(last?.text.includes('### User'));
  });

  test('thinking is a blockquote; edits are diff blocks; headings cannot be hijacked', () => {
    next = 0;
    const md = renderTranscript('markdown', META, [
      { ...base(), kind: 'thinking', text: 'step one\n\nstep two', collapsed: true },
      tool('Edit', JSON.stringify({ file_path: '/p/a.ts', old_string: 'a', new_string: 'b' })),
      tool('Evil\n# Heading [x](javascript:alert(1))', '{}'),
    ]);
    assert.ok(md.includes('> step one\n>\n> step two'));
    assert.ok(md.includes('`update /p/a.ts (+1 −1)`\n\n```diff\n@@ -1,1 +1,1 @@\n-a\n+b\n```'));
    assert.ok(md.includes('### Tool call: Evil \\# Heading \\[x\\]\\(javascript:alert\\(1\\)\\)'));
    assert.doesNotMatch(md, /^# Heading/m);
  });

  test('helpers: fences, inline code, closing an open fence', () => {
    assert.equal(fenced('a ``` b'), '````\na ``` b\n````\n');
    assert.equal(inlineCode('a `b` c'), '``a `b` c``');
    assert.equal(inlineCode('`x'), '`` `x ``');
    assert.equal(closeOpenFence('x\n```\ncode'), 'x\n```\ncode\n```');
    assert.equal(closeOpenFence('x\n```\ncode\n```'), 'x\n```\ncode\n```');
    assert.equal(closeOpenFence('~~~~\na\n~~~'), '~~~~\na\n~~~\n~~~~');
  });
});

describe('export file names', () => {
  test('<title>-<id>.<ext>, with nothing a file system objects to', () => {
    assert.equal(
      exportFileName('Fix the build', '/home/u/.claude/projects/-p/e2c1f7a4.jsonl', 'markdown'),
      'Fix-the-build-e2c1f7a4.md',
    );
    assert.equal(exportFileName('a/b:c*?"<>|\u202e', 'SES-1', 'html'), 'a-b-c-SES-1.html');
    assert.equal(exportFileName('...', '', 'html'), 'transcript.html');
  });
});

describe('streaming export', () => {
  test('windows are read in turn and cut parts are written in full', async () => {
    next = 0;
    const long = `${'x'.repeat(30_000)}END`;
    const entries: TranscriptEntry[] = [];
    for (let i = 0; i < EXPORT_WINDOW * 2 + 5; i++) entries.push(user(`prompt ${i}`));
    entries.push(tool('Bash', long, long));
    entries.forEach((e, i) => (e.index = i));
    const source = new MemoryTranscript('rest-events', entries, { previewChars: 1_000 });
    const windows: number[] = [];
    const spy: TranscriptSource = {
      get entryCount() {
        return source.entryCount;
      },
      info: () => source.info(),
      getWindow: (start, count) => {
        windows.push(start);
        return source.getWindow(start, count);
      },
      search: (q, o) => source.search(q, o),
      nextError: (f, d) => source.nextError(f, d),
      fullText: (i, p) => source.fullText(i, p),
    };
    const chunks: string[] = [];
    const progress: number[] = [];
    const count = await exportEntries(
      spy,
      rendererFor('markdown'),
      async (c) => void chunks.push(c),
      {
        onProgress: (p) => progress.push(p.entriesDone),
      },
    );
    assert.equal(count, entries.length);
    assert.deepEqual(windows, [0, EXPORT_WINDOW, EXPORT_WINDOW * 2]);
    assert.deepEqual(progress, [EXPORT_WINDOW, EXPORT_WINDOW * 2, entries.length]);
    assert.equal(chunks.length, 3, 'one write per window');
    const md = chunks.join('');
    assert.ok(md.includes(`prompt ${EXPORT_WINDOW * 2 + 4}`));
    assert.equal(md.split(long).length - 1, 2, 'input and output in full');
    assert.doesNotMatch(md, /\[cut:/);
  });

  test('a JSONL transcript file exports whole; a cancelled export stops', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asi-export-'));
    try {
      const file = join(dir, 's.jsonl');
      const big = `${'y'.repeat(50_000)}TAIL`;
      const lines = [
        {
          type: 'user',
          uuid: 'u1',
          timestamp: '2026-06-01T09:00:00Z',
          message: { role: 'user', content: 'hello <b>' },
        },
        {
          type: 'assistant',
          uuid: 'a1',
          timestamp: '2026-06-01T09:00:01Z',
          message: {
            id: 'm1',
            role: 'assistant',
            model: 'claude',
            content: [{ type: 'text', text: big }],
          },
        },
      ];
      await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const doc = await TranscriptDocument.open(file);
      try {
        let out = '';
        const renderer = rendererFor('html');
        out += renderer.begin(META);
        const n = await exportEntries(doc, renderer, async (c) => void (out += c));
        out += renderer.end();
        assert.equal(n, 2);
        assert.ok(out.includes('hello &#60;b&#62;'));
        assert.ok(
          out.includes(`${'y'.repeat(100)}`) && out.includes('TAIL'),
          'the long text in full',
        );
        const abort = new AbortController();
        abort.abort();
        await assert.rejects(
          exportEntries(doc, renderer, async () => undefined, { signal: abort.signal }),
          { name: 'AbortError' },
        );
      } finally {
        await doc.close();
      }
      await readFile(file); // the transcript is untouched
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
