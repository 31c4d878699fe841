import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type {
  Attachment,
  FileRef,
  TextPart,
  TokenUsage,
} from '../../../src/shared/transcriptEntries.ts';
import type { TranscriptEntry } from '../../../src/shared/protocol.ts';
import * as l10n from '@vscode/l10n';
import { formatNumber, formatSeconds, formatTime } from '../shared/l10n.ts';
import { diffCounts, diffView, editOf, isEditCall } from './editDiff.ts';
import { quoteHiddenWhenRendered } from './markdownView.ts';
import type { LinkActions } from './markdownView.ts';
import { highlighted, shownText, textBlock } from './textBlock.ts';

/**
 * Expandable blocks of a row: a text part's own "show more", the row's body (thinking,
 * tool call), or an edit's diff.
 */
export type BlockKey = TextPart | 'body' | 'diff';

/** What a row needs from the transcript view: expansion state, fetched texts, navigation. */
export interface RowContext extends LinkActions {
  isExpanded(index: number, key: BlockKey): boolean;
  toggle(entry: TranscriptEntry, key: BlockKey): void;
  /** The reader asked for the entry's source text instead of rendered Markdown or a diff. */
  isRaw(index: number): boolean;
  /**
   * The revealed entry may show its source on its own, when its quote spans Markdown markup
   * (until the reader switches it back to rendered).
   */
  autoRaw(index: number): boolean;
  /** `shownRaw`: what the toggle shows now (the reader's choice or the automatic one). */
  toggleRaw(entry: TranscriptEntry, shownRaw: boolean): void;
  fullText(index: number, part: TextPart): string | null | undefined;
  highlight(index: number): string | undefined;
  openSubagent(fileKey: string): void;
}

/** The block Enter/Space toggles when the row itself has focus. */
export function primaryBlock(entry: TranscriptEntry): BlockKey {
  return entry.kind === 'thinking' || entry.kind === 'tool-call' || entry.kind === 'compaction'
    ? 'body'
    : 'text';
}

/** Short untrusted labels (tool names, summaries, paths) are clipped so one row never lays out megabytes. */
function short(text: string, max = 300): string {
  if (text.length <= max) return text;
  let cut = max;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/** Who wrote a user-side entry, by variant. */
function userLabel(variant: string): string {
  switch (variant) {
    case 'meta':
      return l10n.t('Context');
    case 'command':
      return l10n.t('Command');
    case 'compact-summary':
      return l10n.t('Compaction summary');
    case 'interrupt':
      return l10n.t('Interrupted');
    default:
      return l10n.t('User');
  }
}

/** A tool call's status in words (empty when it succeeded). */
function toolStatusText(status: string): string {
  switch (status) {
    case 'ok':
      return '';
    case 'error':
      return l10n.t('failed');
    case 'pending':
      return l10n.t('pending');
    default:
      return status;
  }
}

/** The row's accessible name: kind and position, plus the tool name for tool calls. */
export function entryLabel(entry: TranscriptEntry): string {
  const n = formatNumber(entry.index + 1);
  switch (entry.kind) {
    case 'user':
      return l10n.t('{0}, entry {1}', userLabel(entry.variant), n);
    case 'assistant':
      return l10n.t(
        '{0}, entry {1}',
        entry.apiError ? l10n.t('API error') : l10n.t('Assistant'),
        n,
      );
    case 'thinking':
      return l10n.t('{0}, entry {1}', l10n.t('Thinking'), n);
    case 'tool-call':
      return l10n.t(
        'Tool call {0}, {1}, entry {2}',
        short(entry.name, 80),
        toolStatusText(entry.status) || l10n.t('done'),
        n,
      );
    case 'compaction':
      return l10n.t('{0}, entry {1}', l10n.t('Context compacted'), n);
    case 'system':
      return l10n.t('System {0}, entry {1}', short(entry.subtype, 80), n);
    case 'subagent':
      return l10n.t('{0}, entry {1}', l10n.t('Subagent'), n);
    case 'error':
      return l10n.t('Unreadable line {0}, entry {1}', formatNumber(entry.source.first), n);
    case 'unknown':
      return l10n.t('{0}, entry {1}', l10n.t('Unknown record'), n);
  }
}

/** Classes of the row element: kind, and the marks a reader scans for (errors, pending calls). */
export function rowClasses(entry: TranscriptEntry): string {
  const classes = ['entry', `kind-${entry.kind}`];
  const failed =
    entry.kind === 'error' ||
    (entry.kind === 'tool-call' && entry.status === 'error') ||
    (entry.kind === 'assistant' && entry.apiError === true) ||
    (entry.kind === 'system' && entry.level === 'error');
  if (failed) classes.push('failed');
  if (entry.kind === 'tool-call' && entry.status === 'pending') classes.push('pending');
  if (entry.kind === 'system') classes.push(entry.level === 'warning' ? 'warning' : 'muted');
  if (entry.sidechain) classes.push('sidechain');
  return classes.join(' ');
}

/** One entry's content, by kind. Every value is untrusted and bound as text. */
export function renderEntry(entry: TranscriptEntry, ctx: RowContext): TemplateResult {
  switch (entry.kind) {
    case 'user': {
      const markdown = entry.variant !== 'command' && entry.variant !== 'interrupt';
      return html`${head(
        entry,
        'account',
        userLabel(entry.variant),
        markdown ? rawToggle(entry, ctx) : nothing,
      )}
      ${part(entry, ctx, 'text', entry.text, false, l10n.t('text'), markdown)}
      ${attachments(entry.attachments)} ${usage(entry.usage)}`;
    }
    case 'assistant': {
      const markdown = entry.json !== true && entry.apiError !== true;
      return html`${head(
        entry,
        entry.apiError ? 'error' : 'hubot',
        entry.apiError ? l10n.t('API error') : l10n.t('Assistant'),
        html`${entry.model ? html`<span class="meta">${short(entry.model, 120)}</span>` : nothing}
        ${markdown ? rawToggle(entry, ctx) : nothing}`,
      )}
      ${part(entry, ctx, 'text', entry.text, entry.json === true, l10n.t('text'), markdown)}
      ${usage(entry.usage)}`;
    }
    case 'thinking':
      return thinking(entry, ctx);
    case 'tool-call':
      return toolCall(entry, ctx);
    case 'compaction':
      return compaction(entry, ctx);
    case 'system':
      return html`${head(
        entry,
        entry.level === 'error' ? 'error' : entry.level === 'warning' ? 'warning' : 'info',
        l10n.t('System · {0}', short(entry.subtype || l10n.t('message'), 120)),
      )}
      ${part(entry, ctx, 'text', entry.text, false, l10n.t('text'))}
      ${attachments(entry.attachments)} ${usage(entry.usage)}`;
    case 'subagent':
      return subagent(entry, ctx);
    case 'error':
      return html`${head(entry, 'error', `${lines(entry.source)}: ${short(entry.message, 500)}`)}
      ${part(entry, ctx, 'text', entry.excerpt, true, l10n.t('line'))}`;
    case 'unknown':
      return html`${head(
        entry,
        'question',
        l10n.t('Unknown record'),
        entry.type ? html`<span class="meta">${short(entry.type, 120)}</span>` : nothing,
      )}
      ${part(entry, ctx, 'text', entry.raw, true, l10n.t('record'))}`;
  }
}

function lines(source: { first: number; last: number }): string {
  return source.last > source.first
    ? l10n.t('Lines {0}–{1}', formatNumber(source.first), formatNumber(source.last))
    : l10n.t('Line {0}', formatNumber(source.first));
}

function head(
  entry: TranscriptEntry,
  icon: string,
  label: string,
  extra: unknown = nothing,
): TemplateResult {
  return html`<div class="head">
    <vscode-icon class="icon" name=${icon}></vscode-icon>
    <span class="who">${label}</span>
    ${extra} ${time(entry.timestamp)}
  </div>`;
}

/** A header whose label toggles the row's body (thinking, tool call, compaction summary). */
function expanderHead(
  entry: TranscriptEntry,
  ctx: RowContext,
  content: unknown,
  after: unknown = nothing,
): TemplateResult {
  const open = ctx.isExpanded(entry.index, 'body');
  return html`<div class="head">
    <button
      class="expander"
      aria-expanded=${open ? 'true' : 'false'}
      @click=${() => ctx.toggle(entry, 'body')}
    >
      <vscode-icon name=${open ? 'chevron-down' : 'chevron-right'}></vscode-icon>
      ${content}
    </button>
    ${after} ${time(entry.timestamp)}
  </div>`;
}

function time(timestamp: string | undefined): unknown {
  if (!timestamp) return nothing;
  const text = Number.isNaN(new Date(timestamp).getTime())
    ? short(timestamp, 40)
    : formatTime(timestamp);
  return html`<span class="time" title=${short(timestamp, 100)}>${text}</span>`;
}

/** The toggle between rendered text (Markdown, a diff) and the source. */
function rawToggle(entry: TranscriptEntry, ctx: RowContext): TemplateResult {
  const raw = rawShown(entry, ctx);
  return html`<button
    class="link raw-toggle"
    aria-pressed=${raw ? 'true' : 'false'}
    title=${raw ? l10n.t('Show as rendered') : l10n.t('Show the source text')}
    @click=${() => ctx.toggleRaw(entry, raw)}
  >
    ${l10n.t('Raw')}
  </button>`;
}

/**
 * Whether the entry shows its source: the reader asked for it, or a revealed quote (a
 * comment's anchor, a search hit, taken from the source) spans Markdown markup, so no run
 * of the rendered text could mark it. Only the Markdown text part decides; a diff's Raw
 * stays the reader's choice.
 */
function rawShown(entry: TranscriptEntry, ctx: RowContext): boolean {
  if (ctx.isRaw(entry.index)) return true;
  if (entry.kind === 'tool-call' || !ctx.autoRaw(entry.index)) return false;
  const text = 'text' in entry ? entry.text : undefined;
  const highlight = ctx.highlight(entry.index);
  if (typeof text !== 'string' || !highlight) return false;
  const { shown } = shownText({
    text,
    full: ctx.fullText(entry.index, 'text'),
    expanded: ctx.isExpanded(entry.index, 'text'),
    highlight,
  });
  return quoteHiddenWhenRendered(entry, 'text', shown, highlight);
}

function part(
  entry: TranscriptEntry,
  ctx: RowContext,
  key: TextPart,
  text: string,
  code: boolean,
  label: string,
  markdown = false,
): unknown {
  return textBlock({
    ...(markdown
      ? { markdown: { owner: entry, slot: key, actions: ctx, raw: rawShown(entry, ctx) } }
      : {}),
    text,
    full: ctx.fullText(entry.index, key),
    cut: entry.truncatedParts?.includes(key) ?? false,
    fullLength: entry.fullLength?.[key],
    expanded: ctx.isExpanded(entry.index, key),
    highlight: ctx.highlight(entry.index),
    code,
    label,
    onToggle: () => ctx.toggle(entry, key),
  });
}

function usage(tokens: TokenUsage | undefined): unknown {
  if (!tokens) return nothing;
  const fields: [string, number | undefined][] = [
    [l10n.t('input {0}'), tokens.input],
    [l10n.t('output {0}'), tokens.output],
    [l10n.t('cache read {0}'), tokens.cacheRead],
    [l10n.t('cache write {0}'), tokens.cacheWrite],
    [l10n.t('reasoning {0}'), tokens.reasoning],
  ];
  const shown = fields.filter((f): f is [string, number] => typeof f[1] === 'number');
  if (shown.length === 0) return nothing;
  const list = shown.map(([name, value]) => name.replace('{0}', formatNumber(value))).join(' · ');
  return html`<div class="usage">${l10n.t('Tokens: {0}', list)}</div>`;
}

function attachments(list: Attachment[] | undefined): unknown {
  if (!list?.length) return nothing;
  return html`<div class="attachments">
    ${list.map((a) => {
      const size =
        a.bytes === undefined
          ? ''
          : `, ${l10n.t('{0} KB', formatNumber(Math.ceil(a.bytes / 1024)))}`;
      return html`<span class="chip"
        >${short(a.name ?? a.type, 120)}${a.mediaType ? ` (${short(a.mediaType, 60)})` : ''}${size}</span
      >`;
    })}
  </div>`;
}

function thinking(entry: TranscriptEntry & { kind: 'thinking' }, ctx: RowContext) {
  const open = ctx.isExpanded(entry.index, 'body');
  return html`${expanderHead(
    entry,
    ctx,
    html`<span class="who">${l10n.t('Thinking')}</span>${
        entry.redacted ? html`<span class="meta">${l10n.t('redacted')}</span>` : nothing
      }`,
    open && entry.text ? rawToggle(entry, ctx) : nothing,
  )}
  ${
    open
      ? entry.text
        ? part(entry, ctx, 'text', entry.text, false, l10n.t('thinking'), true)
        : html`<div class="muted">${l10n.t("The model's reasoning is encrypted.")}</div>`
      : nothing
  }
  ${usage(entry.usage)}`;
}

const TOOL_STATUS_ICONS: Record<string, string> = { ok: 'pass', error: 'error', pending: 'clock' };

function fileLabel(file: FileRef): string {
  const range = file.line ? `:${file.line}${file.endLine ? `–${file.endLine}` : ''}` : '';
  return `${short(file.path, 300)}${range}`;
}

function toolCall(entry: TranscriptEntry & { kind: 'tool-call' }, ctx: RowContext) {
  const open = ctx.isExpanded(entry.index, 'body');
  const status = {
    icon: TOOL_STATUS_ICONS[entry.status] ?? 'question',
    text: toolStatusText(entry.status),
  };
  const notes = [
    status.text,
    entry.orphanResult ? l10n.t('result without call') : '',
    entry.client ? l10n.t('client tool') : '',
  ].filter(Boolean);
  const subagentRef = entry.subagent;
  const edit = editState(entry, ctx);
  const diff = edit?.state === 'diff' ? edit.view : undefined;
  return html`${expanderHead(
    entry,
    ctx,
    html`<vscode-icon class="status" name=${status.icon}></vscode-icon>
      <span class="who">${short(entry.name, 120)}</span>
      <span class="summary"
        >${highlighted(short(entry.summary), ctx.highlight(entry.index))}</span
      >`,
    html`${notes.length ? html`<span class="badge">${notes.join(' · ')}</span>` : nothing}
    ${diff ? html`${diffCounts(diff.added, diff.removed)} ${rawToggle(entry, ctx)}` : nothing}`,
  )}
  ${
    entry.files.length
      ? html`<div class="files">
          ${entry.files.map(
            (file) =>
              html`<button
                class="link file"
                title=${short(file.path, 1000)}
                @click=${() => ctx.openFile(file.path, file.line)}
              >
                ${fileLabel(file)}
              </button>`,
          )}
        </div>`
      : nothing
  }
  ${
    subagentRef
      ? html`<button class="link" @click=${() => ctx.openSubagent(subagentRef.fileKey)}>
          ${l10n.t('Open subagent transcript')}
        </button>`
      : nothing
  }
  ${edit ? editBody(entry, ctx, edit) : nothing}
  ${
    open
      ? html`${
          diff
            ? nothing
            : html`<div class="section">${l10n.t('Input')}</div>
                ${part(entry, ctx, 'input', entry.input, true, l10n.t('input'))}`
        }
        ${
          entry.status === 'pending'
            ? html`<div class="muted">${l10n.t('No result yet.')}</div>`
            : html`<div class=${entry.status === 'error' ? 'section error' : 'section'}>
                  ${l10n.t('Output')}
                </div>
                ${part(entry, ctx, 'output', entry.output ?? '', true, l10n.t('output'))}`
        }`
      : nothing
  }
  ${usage(entry.usage)}`;
}

type EditState =
  | { state: 'diff'; view: NonNullable<ReturnType<typeof editOf>> }
  /** The host cut the input: the diff needs the whole of it. */
  | { state: 'cut'; loading: boolean };

/** A file-editing call's diff, or why it has none yet; undefined for other calls (and unreadable edits). */
function editState(
  entry: TranscriptEntry & { kind: 'tool-call' },
  ctx: RowContext,
): EditState | undefined {
  if (!isEditCall(entry.name, entry.input)) return undefined;
  let input = entry.input;
  if (entry.truncatedParts?.includes('input')) {
    const full = ctx.fullText(entry.index, 'input');
    if (typeof full !== 'string') return { state: 'cut', loading: full === null };
    input = full;
  }
  const view = editOf(entry, entry.name, input);
  return view ? { state: 'diff', view } : undefined;
}

function editBody(
  entry: TranscriptEntry & { kind: 'tool-call' },
  ctx: RowContext,
  edit: EditState,
): unknown {
  if (edit.state === 'cut') {
    return html`<div class="muted">
        ${l10n.t('This edit is longer than the preview: its diff needs the whole input.')}
      </div>
      ${
        edit.loading
          ? html`<div class="muted" role="status">
              ${l10n.t('Loading the full {0}…', l10n.t('input'))}
            </div>`
          : html`<button
              class="link more"
              aria-expanded="false"
              @click=${() => ctx.toggle(entry, 'input')}
            >
              ${l10n.t('Show the edit as a diff')}
            </button>`
      }`;
  }
  if (ctx.isRaw(entry.index)) {
    return html`<div class="section">${l10n.t('Input')}</div>
      ${part(entry, ctx, 'input', entry.input, true, l10n.t('input'))}`;
  }
  return diffView(
    edit.view,
    ctx.isExpanded(entry.index, 'diff'),
    () => ctx.toggle(entry, 'diff'),
    (text) => short(text, 300),
  );
}

function compaction(entry: TranscriptEntry & { kind: 'compaction' }, ctx: RowContext) {
  const details = [
    entry.trigger ? short(entry.trigger, 60) : '',
    entry.preTokens !== undefined ? l10n.t('{0} tokens before', formatNumber(entry.preTokens)) : '',
    entry.turnsCompacted !== undefined
      ? l10n.t('{0} turns', formatNumber(entry.turnsCompacted))
      : '',
    entry.eventsCompacted !== undefined
      ? l10n.t('{0} events', formatNumber(entry.eventsCompacted))
      : '',
  ].filter(Boolean);
  const label = html`<vscode-icon class="icon" name="fold"></vscode-icon>
    <span class="who">${l10n.t('Context compacted')}</span>
    ${details.length ? html`<span class="meta">${details.join(' · ')}</span>` : nothing}`;
  if (!entry.text) {
    return html`<div class="head">${label} ${time(entry.timestamp)}</div>`;
  }
  const open = ctx.isExpanded(entry.index, 'body');
  return html`${expanderHead(entry, ctx, label, open ? rawToggle(entry, ctx) : nothing)}
  ${open ? part(entry, ctx, 'text', entry.text, false, l10n.t('summary'), true) : nothing}`;
}

function subagent(entry: TranscriptEntry & { kind: 'subagent' }, ctx: RowContext) {
  const facts = [
    entry.status ? short(entry.status, 60) : '',
    entry.totalTokens !== undefined ? l10n.t('{0} tokens', formatNumber(entry.totalTokens)) : '',
    entry.durationMs !== undefined ? formatSeconds(entry.durationMs / 1000) : '',
    entry.toolUseCount !== undefined
      ? l10n.t('{0} tool uses', formatNumber(entry.toolUseCount))
      : '',
  ].filter(Boolean);
  return html`${head(
      entry,
      'type-hierarchy-sub',
      entry.agentType ? l10n.t('Subagent · {0}', short(entry.agentType, 120)) : l10n.t('Subagent'),
      html`${entry.description ? html`<span class="meta">${short(entry.description)}</span>` : nothing}
      ${entry.text ? rawToggle(entry, ctx) : nothing}`,
    )}
    ${part(entry, ctx, 'text', entry.text, false, l10n.t('task'), true)}
    ${facts.length ? html`<div class="usage">${facts.join(' · ')}</div>` : nothing}
    <button class="link" @click=${() => ctx.openSubagent(entry.fileKey)}>
      ${l10n.t('Open subagent transcript')}
    </button>`;
}
