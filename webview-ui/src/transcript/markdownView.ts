/**
 * Draws markdownModel's tree with Lit: every string is bound as text, links are buttons
 * that post a message (no href: nothing in a transcript can navigate or load anything),
 * images show their alt text, code blocks are highlighted by class names only.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import * as l10n from '@vscode/l10n';
import type { LinkTarget } from '../../../src/shared/links.ts';
import { highlightCode, highlightVersion } from './codeHighlight.ts';
import type { HlNode } from './codeHighlight.ts';
import { MAX_MARKDOWN_CHARS, parseMarkdown } from './markdownModel.ts';
import type { MdNode } from './markdownModel.ts';

/** What a link may do: the row's context posts the messages. */
export interface LinkActions {
  openExternal(url: string): void;
  openFile(path: string, line: number | undefined): void;
}

/** Text with the search match marked (textBlock's `highlighted`). */
export type MarkText = (text: string) => unknown;

/** Parsed trees per entry object: they go with the window cache's entries. */
const parsed = new WeakMap<object, Map<string, { text: string; nodes: MdNode[] }>>();

/** `text` as a tree, parsed once per entry and slot (a part's preview or its whole text). */
export function markdownOf(owner: object, slot: string, text: string): MdNode[] {
  let slots = parsed.get(owner);
  if (!slots) parsed.set(owner, (slots = new Map()));
  const key = `${slot}:${text.length}`;
  const cached = slots.get(key);
  if (cached && cached.text === text) return cached.nodes;
  const nodes = parseMarkdown(text);
  slots.set(key, { text, nodes });
  return nodes;
}

/**
 * Whether `needle` is in the source `text` but in none of the runs its rendered Markdown
 * marks: a quote taken from the source (a comment's anchor, a search hit) that spans
 * markup, such as "use `npm ci` then **build**". Such an entry shows its source instead.
 */
export function quoteHiddenWhenRendered(
  owner: object,
  slot: string,
  text: string,
  needle: string | undefined,
): boolean {
  if (!needle || text.length > MAX_MARKDOWN_CHARS) return false;
  const lower = needle.toLowerCase();
  if (!text.toLowerCase().includes(lower)) return false;
  return !someRun(markdownOf(owner, slot, text), (run) => run.toLowerCase().includes(lower));
}

/** Whether a text run the view marks (text, inline code, a code block, an alt text) passes `test`. */
function someRun(nodes: MdNode[], test: (run: string) => boolean): boolean {
  return nodes.some((node) => {
    if (typeof node === 'string') return test(node);
    if ('children' in node) return someRun(node.children, test);
    if ('codeBlock' in node) return test(node.codeBlock);
    if ('code' in node) return test(node.code);
    if ('image' in node) return test(node.image);
    return false;
  });
}

/**
 * The rendered Markdown. Re-rendering a row whose tree, search match and loaded languages
 * did not change skips the whole tree (guard).
 */
export function markdownBlock(
  nodes: MdNode[],
  needle: string | undefined,
  mark: MarkText,
  actions: LinkActions,
): unknown {
  return guard([nodes, needle, highlightVersion()], () =>
    renderNodes(nodes, { mark: needle ? mark : (text) => text, plainCode: !!needle, actions }),
  );
}

interface Render {
  mark: MarkText;
  /** A search match to show: code blocks are drawn plain, with the match marked. */
  plainCode: boolean;
  actions: LinkActions;
}

function renderNodes(nodes: MdNode[], r: Render): unknown[] {
  return nodes.map((node) => renderNode(node, r));
}

function renderNode(node: MdNode, r: Render): unknown {
  if (typeof node === 'string') return r.mark(node);
  if ('el' in node) {
    const children = renderNodes(node.children, r);
    switch (node.el) {
      case 'p':
        return html`<p>${children}</p>`;
      case 'h1':
        return html`<h1>${children}</h1>`;
      case 'h2':
        return html`<h2>${children}</h2>`;
      case 'h3':
        return html`<h3>${children}</h3>`;
      case 'h4':
        return html`<h4>${children}</h4>`;
      case 'h5':
        return html`<h5>${children}</h5>`;
      case 'h6':
        return html`<h6>${children}</h6>`;
      case 'ul':
        return html`<ul>
          ${children}
        </ul>`;
      case 'ol':
        return html`<ol start=${node.start ?? nothing}>
          ${children}
        </ol>`;
      case 'li':
        return html`<li>${children}</li>`;
      case 'blockquote':
        return html`<blockquote>${children}</blockquote>`;
      case 'table':
        return html`<div class="md-table">
          <table>
            ${children}
          </table>
        </div>`;
      case 'thead':
        return html`<thead>
          ${children}
        </thead>`;
      case 'tbody':
        return html`<tbody>
          ${children}
        </tbody>`;
      case 'tr':
        return html`<tr>
          ${children}
        </tr>`;
      case 'th':
        return html`<th class=${node.align ? `align-${node.align}` : nothing}>${children}</th>`;
      case 'td':
        return html`<td class=${node.align ? `align-${node.align}` : nothing}>${children}</td>`;
      case 'strong':
        return html`<strong>${children}</strong>`;
      case 'em':
        return html`<em>${children}</em>`;
      case 's':
        return html`<s>${children}</s>`;
    }
  }
  if ('link' in node) return link(node.link, renderNodes(node.children, r), r.actions);
  if ('codeBlock' in node) return codeBlock(node.codeBlock, node.info, r);
  if ('code' in node) {
    const code = html`<code>${r.mark(node.code)}</code>`;
    return node.file ? link(node.file, code, r.actions) : code;
  }
  if ('image' in node) {
    return html`<span class="md-image" title=${l10n.t('Image (not loaded)')}
      >${node.image ? r.mark(node.image) : l10n.t('image')}</span
    >`;
  }
  if ('br' in node) return html`<br />`;
  return html`<hr />`;
}

function link(target: LinkTarget, content: unknown, actions: LinkActions): unknown {
  switch (target.kind) {
    case 'external':
      return html`<button
        class="md-link"
        role="link"
        title=${l10n.t('Open {0} in the browser', target.url)}
        @click=${() => actions.openExternal(target.url)}
      >
        ${content}
      </button>`;
    case 'file': {
      const where = target.line ? `${target.path}:${target.line}` : target.path;
      return html`<button
        class="md-link file"
        role="link"
        title=${l10n.t('Open {0} in the editor', where)}
        @click=${() => actions.openFile(target.path, target.line)}
      >
        ${content}
      </button>`;
    }
    case 'text':
      return content;
  }
}

function codeBlock(code: string, info: string, r: Render): TemplateResult {
  const tree = r.plainCode ? undefined : highlightCode(code, info);
  return html`<pre class="md-code"><code>${tree ? renderHl(tree) : r.mark(code)}</code></pre>`;
}

function renderHl(nodes: HlNode[]): unknown[] {
  return nodes.map((node) =>
    typeof node === 'string'
      ? node
      : html`<span class=${node.cls}>${renderHl(node.children)}</span>`,
  );
}
