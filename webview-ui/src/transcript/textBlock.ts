import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import * as l10n from '@vscode/l10n';
import { formatNumber } from '../shared/l10n.ts';
import { MAX_MARKDOWN_CHARS } from './markdownModel.ts';
import { markdownBlock, markdownOf } from './markdownView.ts';
import type { LinkActions } from './markdownView.ts';

/** A collapsed text shows at most this many characters… */
export const COLLAPSED_CHARS = 1_200;
/** …and at most this many lines. */
export const COLLAPSED_LINES = 12;
/** Matches marked per text: enough to see, bounded so a pathological text stays cheap. */
const MAX_MARKS = 200;
/** Highlighting scans at most this much of a text (an expanded 5 MB line stays fast). */
const MAX_HIGHLIGHT_SCAN = 200_000;

/**
 * Where the collapsed preview of `text` ends. Looks only at the first COLLAPSED_CHARS
 * characters, so a 5 MB single line costs no more than a short one, and never splits a
 * surrogate pair.
 */
export function previewEnd(text: string): number {
  const head = text.length > COLLAPSED_CHARS ? text.slice(0, COLLAPSED_CHARS) : text;
  let end = head.length;
  let pos = -1;
  for (let line = 0; line < COLLAPSED_LINES; line++) {
    pos = head.indexOf('\n', pos + 1);
    if (pos < 0) break;
    if (line === COLLAPSED_LINES - 1) end = pos;
  }
  if (end < text.length) {
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
  }
  return end;
}

/** `text` with every case-insensitive occurrence of `needle` wrapped in <mark>, as Lit text parts. */
export function highlighted(text: string, needle: string | undefined): unknown {
  if (!needle) return text;
  const pattern = new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  const scanned = text.length > MAX_HIGHLIGHT_SCAN ? text.slice(0, MAX_HIGHLIGHT_SCAN) : text;
  const parts: unknown[] = [];
  let last = 0;
  for (const match of scanned.matchAll(pattern)) {
    if (parts.length >= MAX_MARKS * 2) break;
    parts.push(text.slice(last, match.index), html`<mark>${match[0]}</mark>`);
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(last));
  return parts;
}

export interface TextBlockProps {
  /** The part as the entry carries it (host-capped at PREVIEW_CHARS when `cut`). */
  text: string;
  /** The whole part from getFullText: undefined = not asked, null = on its way. */
  full: string | null | undefined;
  /** The host cut this part (`truncatedParts`): the rest comes from getFullText. */
  cut: boolean;
  fullLength: number | undefined;
  expanded: boolean;
  highlight: string | undefined;
  /** Monospace for JSON, tool input and output. */
  code: boolean;
  /** What the text is, translated, for the show-more button's accessible name ("input", "output"). */
  label: string;
  onToggle: () => void;
  /**
   * Draw the text as Markdown (the entry owns the parsed tree's cache; `slot` names the
   * part), unless `raw` asks for the source or the text is too long to render.
   */
  markdown?: { owner: object; slot: string; actions: LinkActions; raw: boolean };
}

/**
 * A text part, collapsed to a preview unless expanded. Bound as text: whatever the
 * transcript holds shows as characters, never as markup.
 */
/**
 * The part of a text a block shows: its preview, or all of it when expanded or when the
 * highlight (a comment anchor, a search hit) reaches beyond the preview and the text is small.
 */
export function shownText(
  props: Pick<TextBlockProps, 'text' | 'full' | 'expanded' | 'highlight'>,
): { shown: string; source: string; end: number; open: boolean } {
  const { text, full, expanded, highlight } = props;
  const source = expanded && typeof full === 'string' ? full : text;
  const matchAt =
    highlight && source.length <= 50_000
      ? source.toLowerCase().indexOf(highlight.toLowerCase())
      : -1;
  const end = previewEnd(source);
  const open = expanded || (matchAt >= 0 && matchAt + (highlight?.length ?? 0) > end);
  return { shown: open ? source : source.slice(0, end), source, end, open };
}

export function textBlock(props: TextBlockProps): TemplateResult | typeof nothing {
  const { text, full, cut, expanded, highlight } = props;
  if (!text && !cut) return nothing;
  const { shown, end, open } = shownText(props);
  const total = props.fullLength ?? text.length;
  const collapsible = cut || end < text.length;
  const hidden = Math.max(0, total - shown.length);
  const markdown = props.markdown;
  const body =
    markdown && !markdown.raw && shown.length <= MAX_MARKDOWN_CHARS
      ? html`<div class="text md">
          ${markdownBlock(
            markdownOf(markdown.owner, markdown.slot, shown),
            highlight,
            (t) => highlighted(t, highlight),
            markdown.actions,
          )}${!open && collapsible ? html`<p class="more-hint">…</p>` : nothing}
        </div>`
      : html`<pre class=${props.code ? 'text code' : 'text'}>
${highlighted(shown, highlight)}${!open && collapsible ? '…' : nothing}</pre>`;
  return html`${body}
  ${
    expanded && cut && full === null
      ? html`<div class="muted" role="status">${l10n.t('Loading the full {0}…', props.label)}</div>`
      : nothing
  }
  ${
    collapsible
      ? html`<button
          class="link more"
          aria-expanded=${expanded ? 'true' : 'false'}
          aria-label=${
            expanded ? l10n.t('Show less {0}', props.label) : l10n.t('Show more {0}', props.label)
          }
          @click=${props.onToggle}
        >
          ${
            expanded
              ? l10n.t('Show less')
              : l10n.t('Show more ({0} more characters)', formatNumber(hidden))
          }
        </button>`
      : nothing
  }`;
}
