import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Marked } from 'marked';
import {
  LABEL_MAX_LENGTH,
  MESSAGE_MAX_LENGTH,
  markdownSurfaceText,
  plainSurfaceText,
} from '../../../src/domain/surfaceText.ts';

/*
 * VS Code's own parsers, as its workbench (1.139) runs them on extension text:
 * - LINKS: parseLinkedText (notifications, Notification progress, input prompts and
 *   validation messages): `[label](https://…|command:…|file:…)` becomes a clickable link.
 * - ICONS: renderLabelWithIcons (quick-pick labels, descriptions and details, status bar
 *   text, input prompts): `$(name)` becomes an icon; `\$(name)` stays text.
 * - Markdown hovers (MarkdownString tooltips; quick-pick descriptions and details are
 *   repeated in one) go through marked, the parser VS Code bundles, with GFM on.
 */
const LINKS = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const ICONS = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;
const links = (text: string) => [...text.matchAll(LINKS)];
const icons = (text: string) => [...text.matchAll(ICONS)].filter((m) => !m[1]);
const marked = new Marked({ gfm: true });
const render = (markdown: string) => marked.parse(markdown, { async: false });
/** What a hover shows: the rendered HTML's text. */
const shown = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[\da-f]+|[a-z]+);/gi, (entity, name: string) => {
      const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
      if (name in named) return named[name]!;
      if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return entity;
    })
    .trim();
/** VS Code's own escaping of quick-pick descriptions before its Markdown hover. */
const escapeHtml = (text: string) =>
  text.replace(/[<>&]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[c]!);

const COMMAND_LINK =
  '[click](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)';
const HOSTILE = [
  COMMAND_LINK,
  '[x](https://evil.example)',
  'see [docs](file:///etc/passwd "t") now',
  '![pixel](https://evil.example/p.png)',
  '$(alert) $(loading~spin) \\$(check)',
  '<img src=x onerror=alert(1)>',
  '<https://evil.example>',
  'https://evil.example/a_(b) and www.evil.example and ops@evil.example',
  'invoice\u202Egnp.exe',
  'a\u200Bb\u2066c\u2069d\uFEFFe',
  'lone \uD800 and \uDC00 surrogates',
  '\\[escaped\\]',
  'tag\u{E0041}\u{E0042}smuggled',
  'line one\nline two\r\nthree\u2028four\ttab\u0000nul\u001b[31mred',
  '&#x202E;&lt;b&gt; entity',
  '# heading\n- list\n1. one\n> quote\n| a | b |\n|---|---|\n***',
  '**bold** _em_ `code` ~~strike~~',
];
const invisible =
  /[\u00AD\u061C\u180E\u200B\u200E\u200F\u202A-\u202E\u2061-\u2064\u2066-\u206F\uFEFF]/u;

describe('plainSurfaceText', () => {
  it('notifications, progress titles, input prompts: no link of any scheme can form', () => {
    for (const payload of HOSTILE) {
      const text = plainSurfaceText(payload);
      assert.deepEqual(links(text), [], `${JSON.stringify(payload)} → ${JSON.stringify(text)}`);
    }
    // The text still reads as it was: the brackets are kept, only joined invisibly.
    assert.equal(
      plainSurfaceText('[x](https://evil.example)').replaceAll('\u2060', ''),
      '[x](https://evil.example)',
    );
    // Sanity: the parser does find the raw payload.
    assert.equal(links(COMMAND_LINK).length, 1);
  });

  it('quick picks, the status bar, input prompts: no icon from data', () => {
    for (const payload of HOSTILE) {
      assert.deepEqual(icons(plainSurfaceText(payload)), [], JSON.stringify(payload));
    }
    assert.equal(icons('$(alert) $(loading~spin)').length, 2);
    assert.equal(
      plainSurfaceText('$(alert) $(loading~spin)').replaceAll('\u2060', ''),
      '$(alert) $(loading~spin)',
    );
  });

  it("quick-pick descriptions and details: VS Code's Markdown hover of them links nothing", () => {
    for (const payload of HOSTILE) {
      const text = plainSurfaceText(payload, { breakUrls: true });
      const html = render(escapeHtml(text));
      assert.doesNotMatch(html, /<a |<img /, `${JSON.stringify(payload)} → ${html}`);
      assert.deepEqual(icons(html), [], JSON.stringify(payload));
    }
    // Without breakUrls a bare URL would be linked there (what breakUrls is for).
    assert.match(render(escapeHtml(plainSurfaceText('https://evil.example'))), /<a /);
  });

  it('tree labels, descriptions, tab titles: one line, nothing invisible, nothing reordered', () => {
    for (const payload of HOSTILE) {
      const text = plainSurfaceText(payload, { maxLength: LABEL_MAX_LENGTH });
      assert.doesNotMatch(text, invisible, JSON.stringify(payload));
      assert.doesNotMatch(text, /[\p{Cc}\u2028\u2029]/u, JSON.stringify(payload));
      assert.ok(text.isWellFormed(), JSON.stringify(payload));
      assert.ok(text.length <= LABEL_MAX_LENGTH);
    }
    assert.equal(plainSurfaceText('invoice\u202Egnp.exe'), 'invoicegnp.exe');
    assert.equal(plainSurfaceText('a\u200Bb\u2066c\u2069d\uFEFFe'), 'abcde');
    assert.equal(plainSurfaceText('lone \uD800 x'), 'lone \uFFFD x');
    assert.equal(plainSurfaceText('tag\u{E0041}smuggled'), 'tagsmuggled');
    assert.equal(
      plainSurfaceText('line one\nline two\r\nthree\u2028four\ttab\u0000nul'),
      'line one line two three four tabnul',
    );
    // Scripts and emoji that need joiners keep them.
    assert.equal(plainSurfaceText('👩\u200D💻 می\u200Cخواهم'), '👩\u200D💻 می\u200Cخواهم');
    // HTML is text on these surfaces and is left as it is.
    assert.equal(plainSurfaceText('<img src=x onerror=alert(1)>'), '<img src=x onerror=alert(1)>');
  });

  it('modal details: line breaks kept, everything else as on one line', () => {
    assert.equal(
      plainSurfaceText('one\r\ntwo\u2028three\u202E\n\tfour [x](command:y)', { multiline: true }),
      'one\ntwo\nthree\nfour [x]\u2060(command:y)',
    );
  });

  it('a 1 MB name is cut with an ellipsis, without splitting a surrogate pair', () => {
    const huge = `${'[x](https://evil.example) $(alert) '.repeat(10)}${'𝒜'.repeat(524_288)}`;
    assert.ok(huge.length > 1_000_000);
    const label = plainSurfaceText(huge, { maxLength: LABEL_MAX_LENGTH });
    assert.ok(label.length <= LABEL_MAX_LENGTH, `${label.length}`);
    assert.ok(label.endsWith('…'));
    assert.ok(label.isWellFormed());
    assert.deepEqual(links(label), []);
    assert.deepEqual(icons(label), []);
    const message = plainSurfaceText(huge);
    assert.ok(message.length <= MESSAGE_MAX_LENGTH && message.endsWith('…'));
    assert.ok(plainSurfaceText('𝒜'.repeat(60), { maxLength: 8 }).isWellFormed());
    // A long run of invisible characters still says that something was cut.
    assert.equal(plainSurfaceText(`${'\u200B'.repeat(5000)}abc`, { maxLength: 10 }), '…');
    // Short text is never cut.
    assert.equal(plainSurfaceText('a'.repeat(100), { maxLength: 100 }), 'a'.repeat(100));
    assert.equal(plainSurfaceText('a'.repeat(101), { maxLength: 100 }), `${'a'.repeat(99)}…`);
  });

  it('is idempotent and keeps ordinary text unchanged', () => {
    for (const payload of [...HOSTILE, `${'x '.repeat(800)}`]) {
      for (const options of [{}, { maxLength: 40 }, { multiline: true }, { breakUrls: true }]) {
        const once = plainSurfaceText(payload, options);
        assert.equal(plainSurfaceText(once, options), once, JSON.stringify([payload, options]));
      }
    }
    for (const ordinary of ['Fix the flaky retry (#412)', 'acme/web-app · main', 'C:\\Users\\x']) {
      assert.equal(plainSurfaceText(ordinary), ordinary);
    }
    assert.equal(plainSurfaceText(undefined), '');
    assert.equal(plainSurfaceText(42), '42');
  });
});

describe('markdownSurfaceText', () => {
  it('MarkdownString tooltips: renders as exactly the plain text, no markup, no links', () => {
    for (const payload of HOSTILE) {
      const markdown = markdownSurfaceText(payload);
      // As the tooltips use it: a bold heading line and "name: value" lines.
      for (const source of [`**${markdown}**\n\n`, `Name: ${markdown}  \n`, `- ${markdown}\n`]) {
        const html = render(source);
        assert.doesNotMatch(html, /<(?!\/?(?:p|strong|ul|li|br)>)/, `${source} → ${html}`);
        assert.deepEqual(icons(html), [], source);
      }
      const html = render(markdown);
      assert.equal(shown(html), plainSurfaceText(payload), `${JSON.stringify(payload)} → ${html}`);
      // No stray escape backslash: a backslash shows only where the text has one.
      assert.equal(shown(html).split('\\').length, plainSurfaceText(payload).split('\\').length);
    }
  });

  it('the escape keeps backslashes, URLs and ordinary text readable', () => {
    assert.equal(shown(render(markdownSurfaceText('\\[escaped\\]'))), '\\[escaped\\]');
    assert.equal(
      shown(render(markdownSurfaceText('<https://evil.example>'))),
      '<https://evil.example>',
    );
    assert.equal(
      shown(render(markdownSurfaceText('https://evil.example/a_(b)'))),
      'https://evil.example/a_(b)',
    );
    assert.equal(shown(render(markdownSurfaceText('1. not a list'))), '1. not a list');
    assert.ok(markdownSurfaceText('x'.repeat(5000), { maxLength: 300 }).length < 400);
  });
});
