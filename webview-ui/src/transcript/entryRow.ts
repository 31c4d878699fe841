import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import type {
  Attachment,
  FileRef,
  TextPart,
  TokenUsage,
} from '../../../src/domain/transcript/model.ts';
import type { TranscriptEntry } from '../../../src/shared/protocol.ts';
import { highlighted, textBlock } from './textBlock.ts';

/** Expandable blocks of a row: a text part's own "show more", or the row's body (thinking, tool call). */
export type BlockKey = TextPart | 'body';

/** What a row needs from the transcript view: expansion state, fetched texts, navigation. */
export interface RowContext {
  isExpanded(index: number, key: BlockKey): boolean;
  toggle(entry: TranscriptEntry, key: BlockKey): void;
  fullText(index: number, part: TextPart): string | null | undefined;
  highlight(index: number): string | undefined;
  openFile(file: FileRef): void;
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

const USER_LABELS: Record<string, string> = {
  prompt: 'User',
  meta: 'Context',
  command: 'Command',
  'compact-summary': 'Compaction summary',
  interrupt: 'Interrupted',
};

/** The row's accessible name: kind and position, plus the tool name for tool calls. */
export function entryLabel(entry: TranscriptEntry): string {
  const position = `entry ${entry.index + 1}`;
  switch (entry.kind) {
    case 'user':
      return `${USER_LABELS[entry.variant] ?? 'User'}, ${position}`;
    case 'assistant':
      return `${entry.apiError ? 'API error' : 'Assistant'}, ${position}`;
    case 'thinking':
      return `Thinking, ${position}`;
    case 'tool-call':
      return `Tool call ${short(entry.name, 80)}, ${entry.status}, ${position}`;
    case 'compaction':
      return `Context compacted, ${position}`;
    case 'system':
      return `System ${short(entry.subtype, 80)}, ${position}`;
    case 'subagent':
      return `Subagent, ${position}`;
    case 'error':
      return `Unreadable line ${entry.source.first}, ${position}`;
    case 'unknown':
      return `Unknown record, ${position}`;
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
    case 'user':
      return html`${head(entry, 'account', USER_LABELS[entry.variant] ?? 'User')}
      ${part(entry, ctx, 'text', entry.text, false, 'text')} ${attachments(entry.attachments)}
      ${usage(entry.usage)}`;
    case 'assistant':
      return html`${head(
        entry,
        entry.apiError ? 'error' : 'hubot',
        entry.apiError ? 'API error' : 'Assistant',
        entry.model ? html`<span class="meta">${short(entry.model, 120)}</span>` : nothing,
      )}
      ${part(entry, ctx, 'text', entry.text, entry.json === true, 'text')} ${usage(entry.usage)}`;
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
        `System · ${short(entry.subtype || 'message', 120)}`,
      )}
      ${part(entry, ctx, 'text', entry.text, false, 'text')} ${attachments(entry.attachments)}
      ${usage(entry.usage)}`;
    case 'subagent':
      return subagent(entry, ctx);
    case 'error':
      return html`${head(entry, 'error', `${lines(entry.source)}: ${short(entry.message, 500)}`)}
      ${part(entry, ctx, 'text', entry.excerpt, true, 'line')}`;
    case 'unknown':
      return html`${head(
        entry,
        'question',
        'Unknown record',
        entry.type ? html`<span class="meta">${short(entry.type, 120)}</span>` : nothing,
      )}
      ${part(entry, ctx, 'text', entry.raw, true, 'record')}`;
  }
}

function lines(source: { first: number; last: number }): string {
  return source.last > source.first
    ? `Lines ${source.first}–${source.last}`
    : `Line ${source.first}`;
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
  const date = new Date(timestamp);
  const text = Number.isNaN(date.getTime()) ? short(timestamp, 40) : date.toLocaleTimeString();
  return html`<span class="time" title=${short(timestamp, 100)}>${text}</span>`;
}

function part(
  entry: TranscriptEntry,
  ctx: RowContext,
  key: TextPart,
  text: string,
  code: boolean,
  label: string,
): unknown {
  return textBlock({
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
    ['input', tokens.input],
    ['output', tokens.output],
    ['cache read', tokens.cacheRead],
    ['cache write', tokens.cacheWrite],
    ['reasoning', tokens.reasoning],
  ];
  const shown = fields.filter((f): f is [string, number] => typeof f[1] === 'number');
  if (shown.length === 0) return nothing;
  return html`<div class="usage">
    Tokens: ${shown.map(([name, value]) => `${name} ${value.toLocaleString()}`).join(' · ')}
  </div>`;
}

function attachments(list: Attachment[] | undefined): unknown {
  if (!list?.length) return nothing;
  return html`<div class="attachments">
    ${list.map((a) => {
      const size =
        a.bytes === undefined ? '' : `, ${Math.ceil(a.bytes / 1024).toLocaleString()} KB`;
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
    html`<span class="who">Thinking</span>${
        entry.redacted ? html`<span class="meta">redacted</span>` : nothing
      }`,
  )}
  ${
    open
      ? entry.text
        ? part(entry, ctx, 'text', entry.text, false, 'thinking')
        : html`<div class="muted">The model's reasoning is encrypted.</div>`
      : nothing
  }
  ${usage(entry.usage)}`;
}

const TOOL_STATUS: Record<string, { icon: string; text: string }> = {
  ok: { icon: 'pass', text: '' },
  error: { icon: 'error', text: 'failed' },
  pending: { icon: 'clock', text: 'pending' },
};

function fileLabel(file: FileRef): string {
  const range = file.line ? `:${file.line}${file.endLine ? `–${file.endLine}` : ''}` : '';
  return `${short(file.path, 300)}${range}`;
}

function toolCall(entry: TranscriptEntry & { kind: 'tool-call' }, ctx: RowContext) {
  const open = ctx.isExpanded(entry.index, 'body');
  const status = TOOL_STATUS[entry.status] ?? { icon: 'question', text: entry.status };
  const notes = [
    status.text,
    entry.orphanResult ? 'result without call' : '',
    entry.client ? 'client tool' : '',
  ].filter(Boolean);
  const subagentRef = entry.subagent;
  return html`${expanderHead(
    entry,
    ctx,
    html`<vscode-icon class="status" name=${status.icon}></vscode-icon>
      <span class="who">${short(entry.name, 120)}</span>
      <span class="summary"
        >${highlighted(short(entry.summary), ctx.highlight(entry.index))}</span
      >`,
    notes.length ? html`<span class="badge">${notes.join(' · ')}</span>` : nothing,
  )}
  ${
    entry.files.length
      ? html`<div class="files">
          ${entry.files.map(
            (file) =>
              html`<button
                class="link file"
                title=${short(file.path, 1000)}
                @click=${() => ctx.openFile(file)}
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
          Open subagent transcript
        </button>`
      : nothing
  }
  ${
    open
      ? html`<div class="section">Input</div>
          ${part(entry, ctx, 'input', entry.input, true, 'input')}
          ${
            entry.status === 'pending'
              ? html`<div class="muted">No result yet.</div>`
              : html`<div class=${entry.status === 'error' ? 'section error' : 'section'}>
                    Output
                  </div>
                  ${part(entry, ctx, 'output', entry.output ?? '', true, 'output')}`
          }`
      : nothing
  }
  ${usage(entry.usage)}`;
}

function compaction(entry: TranscriptEntry & { kind: 'compaction' }, ctx: RowContext) {
  const details = [
    entry.trigger ? short(entry.trigger, 60) : '',
    entry.preTokens !== undefined ? `${entry.preTokens.toLocaleString()} tokens before` : '',
    entry.turnsCompacted !== undefined ? `${entry.turnsCompacted.toLocaleString()} turns` : '',
    entry.eventsCompacted !== undefined ? `${entry.eventsCompacted.toLocaleString()} events` : '',
  ].filter(Boolean);
  const label = html`<vscode-icon class="icon" name="fold"></vscode-icon>
    <span class="who">Context compacted</span>
    ${details.length ? html`<span class="meta">${details.join(' · ')}</span>` : nothing}`;
  if (!entry.text) {
    return html`<div class="head">${label} ${time(entry.timestamp)}</div>`;
  }
  return html`${expanderHead(entry, ctx, label)}
  ${
    ctx.isExpanded(entry.index, 'body')
      ? part(entry, ctx, 'text', entry.text, false, 'summary')
      : nothing
  }`;
}

function subagent(entry: TranscriptEntry & { kind: 'subagent' }, ctx: RowContext) {
  const facts = [
    entry.status ? short(entry.status, 60) : '',
    entry.totalTokens !== undefined ? `${entry.totalTokens.toLocaleString()} tokens` : '',
    entry.durationMs !== undefined ? `${(entry.durationMs / 1000).toFixed(1)} s` : '',
    entry.toolUseCount !== undefined ? `${entry.toolUseCount.toLocaleString()} tool uses` : '',
  ].filter(Boolean);
  return html`${head(
      entry,
      'type-hierarchy-sub',
      `Subagent${entry.agentType ? ` · ${short(entry.agentType, 120)}` : ''}`,
      entry.description ? html`<span class="meta">${short(entry.description)}</span>` : nothing,
    )}
    ${part(entry, ctx, 'text', entry.text, false, 'task')}
    ${facts.length ? html`<div class="usage">${facts.join(' · ')}</div>` : nothing}
    <button class="link" @click=${() => ctx.openSubagent(entry.fileKey)}>
      Open subagent transcript
    </button>`;
}
