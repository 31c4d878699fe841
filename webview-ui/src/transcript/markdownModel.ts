/**
 * Transcript Markdown as a small tree of plain data, from markdown-it's tokens (raw HTML
 * off, so `<b>` is text). markdownView.ts draws the tree with Lit, binding every string as
 * text: no HTML string from the transcript ever reaches the DOM. No DOM here, so it is
 * unit-tested in Node.
 */
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { classifyLink, fileRefOfCode } from '../../../src/shared/links.ts';
import type { LinkTarget } from '../../../src/shared/links.ts';

/** Longer texts are shown as plain text: parsing is linear, but a row should not lay out megabytes of markup. */
export const MAX_MARKDOWN_CHARS = 100_000;

export type BlockTag =
  | 'p'
  | 'h1'
  | 'h2'
  | 'h3'
  | 'h4'
  | 'h5'
  | 'h6'
  | 'ul'
  | 'ol'
  | 'li'
  | 'blockquote'
  | 'table'
  | 'thead'
  | 'tbody'
  | 'tr'
  | 'th'
  | 'td';
export type InlineTag = 'strong' | 'em' | 's';
export type Align = 'left' | 'center' | 'right';

export type MdNode =
  | string
  | { el: BlockTag | InlineTag; children: MdNode[]; start?: number; align?: Align }
  | { link: LinkTarget; children: MdNode[] }
  /** A fenced or indented code block; `info` is the fence's info string. */
  | { codeBlock: string; info: string }
  /** Inline code; `file` when it names a file with a line (`src/a.ts:12`). */
  | { code: string; file?: LinkTarget & { kind: 'file' } }
  /** An image: never loaded, its alt text shown. */
  | { image: string }
  | { br: true }
  | { hr: true };

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
// Bare `main.rs` or `setup.py` are file names in a transcript, not links to .rs or .py sites:
// only links with a scheme (https://…) are recognised in plain text.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

const BLOCK_TAGS: Record<string, BlockTag | InlineTag | undefined> = {
  bullet_list_open: 'ul',
  ordered_list_open: 'ol',
  list_item_open: 'li',
  blockquote_open: 'blockquote',
  table_open: 'table',
  thead_open: 'thead',
  tbody_open: 'tbody',
  tr_open: 'tr',
  th_open: 'th',
  td_open: 'td',
  strong_open: 'strong',
  em_open: 'em',
  s_open: 's',
};

/** The Markdown of `text` as a tree. */
export function parseMarkdown(text: string): MdNode[] {
  return build(md.parse(text, {}));
}

type Container = MdNode & { children: MdNode[] };

/** The node a token opens, or undefined for a transparent one (tight list paragraphs, unknown tokens). */
function open(token: Token): Container | undefined {
  if (token.type === 'paragraph_open') return token.hidden ? undefined : { el: 'p', children: [] };
  if (token.type === 'heading_open') {
    return /^h[1-6]$/.test(token.tag)
      ? { el: token.tag as BlockTag, children: [] }
      : { el: 'p', children: [] };
  }
  if (token.type === 'link_open') {
    return { link: classifyLink(String(token.attrGet('href') ?? '')), children: [] };
  }
  const el = BLOCK_TAGS[token.type];
  if (!el) return undefined;
  const node: Container & { el: BlockTag | InlineTag } = { el, children: [] };
  if (el === 'ol') {
    const start = Number(token.attrGet('start'));
    if (Number.isInteger(start) && start >= 0 && start < 1e9 && start !== 1) node.start = start;
  }
  if (el === 'th' || el === 'td') {
    const style = String(token.attrGet('style') ?? '');
    const align = /text-align:(left|center|right)/.exec(style)?.[1];
    if (align) node.align = align as Align;
  }
  return node;
}

/** A token without children of its own, as nodes. */
function leaf(token: Token, into: MdNode[]): void {
  switch (token.type) {
    case 'inline':
      for (const node of build(token.children ?? [])) push(into, node);
      return;
    case 'softbreak':
    case 'hardbreak':
      into.push({ br: true });
      return;
    case 'hr':
      into.push({ hr: true });
      return;
    case 'fence':
    case 'code_block':
      into.push({
        codeBlock: token.content.endsWith('\n') ? token.content.slice(0, -1) : token.content,
        info: token.type === 'fence' ? token.info : '',
      });
      return;
    case 'code_inline': {
      const file = fileRefOfCode(token.content);
      into.push(file.kind === 'file' ? { code: token.content, file } : { code: token.content });
      return;
    }
    case 'image':
      into.push({ image: plainText(token.children ?? []) || token.content });
      return;
    default:
      // text, text_special, and anything else that carries text (html_* cannot occur with
      // html off; if it did, it would still be text).
      if (token.content) push(into, token.content);
  }
}

function build(tokens: Token[]): MdNode[] {
  const root: MdNode[] = [];
  const stack: MdNode[][] = [root];
  for (const token of tokens) {
    const top = stack[stack.length - 1]!;
    if (token.nesting === 1) {
      const node = open(token);
      if (node) {
        top.push(node);
        stack.push(node.children);
      } else {
        stack.push(top);
      }
    } else if (token.nesting === -1) {
      if (stack.length > 1) stack.pop();
    } else {
      leaf(token, top);
    }
  }
  return root;
}

/** Appends a node, joining adjacent strings (markdown-it splits text at every `*` or `&`). */
function push(into: MdNode[], node: MdNode): void {
  const last = into.length - 1;
  if (typeof node === 'string' && typeof into[last] === 'string') into[last] += node;
  else into.push(node);
}

function plainText(tokens: Token[]): string {
  let text = '';
  for (const token of tokens) {
    if (token.children) text += plainText(token.children);
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' ';
    else text += token.content;
  }
  return text;
}
