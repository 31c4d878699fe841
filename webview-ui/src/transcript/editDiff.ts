/**
 * File-editing tool calls (Claude Code's Edit, MultiEdit and Write; Codex's apply_patch,
 * as a tool or through the shell) drawn as unified diffs with +/- counts, from the call's
 * input (src/shared/fileEdits.ts): what the agent asked for, not what the disk holds now.
 */
import { html, nothing } from 'lit';
import type { TemplateResult } from 'lit';
import * as l10n from '@vscode/l10n';
import { diffOfChange, fileChangesOfToolCall } from '../../../src/shared/fileEdits.ts';
import type { FileDiff } from '../../../src/shared/fileEdits.ts';
import { formatNumber } from '../shared/l10n.ts';

/** Diff lines a collapsed call shows… */
export const DIFF_PREVIEW_LINES = 12;
/** …and an expanded one at most (the rest is in the raw input). */
export const DIFF_MAX_LINES = 3_000;
/** A diff line is cut here (a minified file is one line of megabytes). */
const MAX_LINE_CHARS = 2_000;
/** Inputs beyond this are not read as edits: parsing and diffing would hold up the row. */
const MAX_EDIT_INPUT = 5_000_000;

export interface EditView {
  files: FileDiff[];
  added: number;
  removed: number;
  lines: number;
}

/** Tools whose input is an edit (apply_patch may also come through a shell call). */
export function isEditCall(name: string, input: string): boolean {
  return (
    name === 'Edit' ||
    name === 'MultiEdit' ||
    name === 'Write' ||
    name === 'apply_patch' ||
    input.includes('*** Begin Patch')
  );
}

const views = new WeakMap<object, { input: string; view: EditView | undefined }>();

/** The call's edits as diffs, computed once per entry and input (its preview or its whole text). */
export function editOf(owner: object, name: string, input: string): EditView | undefined {
  const cached = views.get(owner);
  if (cached && cached.input === input) return cached.view;
  const view = input.length > MAX_EDIT_INPUT ? undefined : compute(name, input);
  views.set(owner, { input, view });
  return view;
}

function compute(name: string, input: string): EditView | undefined {
  const changes = fileChangesOfToolCall(name, input);
  if (!changes?.length) return undefined;
  const files = changes.map((change) => diffOfChange(change));
  return {
    files,
    added: files.reduce((n, f) => n + f.added, 0),
    removed: files.reduce((n, f) => n + f.removed, 0),
    lines: files.reduce((n, f) => n + f.hunks.reduce((m, h) => m + 1 + h.lines.length, 0), 0),
  };
}

/** "+12 −3", with its meaning for screen readers. */
export function diffCounts(added: number, removed: number): TemplateResult {
  return html`<span
    class="diff-counts"
    role="img"
    aria-label=${l10n.t('{0} lines added, {1} removed', formatNumber(added), formatNumber(removed))}
    ><span class="added">+${formatNumber(added)}</span>
    <span class="removed">−${formatNumber(removed)}</span></span
  >`;
}

function clipLine(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  let cut = MAX_LINE_CHARS;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

function kindLabel(diff: FileDiff): string {
  switch (diff.change.kind) {
    case 'create':
      return l10n.t('new file');
    case 'write':
      return l10n.t('whole file written');
    case 'delete':
      return l10n.t('deleted');
    case 'update':
      return '';
  }
}

/**
 * The diffs, the first DIFF_PREVIEW_LINES lines unless expanded (then at most
 * DIFF_MAX_LINES). `clip` shortens untrusted paths; `onToggle` is "show more/less".
 */
export function diffView(
  view: EditView,
  expanded: boolean,
  onToggle: () => void,
  clip: (text: string) => string,
): TemplateResult {
  let budget = expanded ? DIFF_MAX_LINES : DIFF_PREVIEW_LINES;
  const files = view.files.map((file) => {
    const rows: TemplateResult[] = [];
    for (const hunk of file.hunks) {
      if (budget <= 0) break;
      rows.push(html`<span class="dl hunk">${hunk.header}</span>`);
      budget--;
      for (const { kind, text: whole } of hunk.lines) {
        if (budget <= 0) break;
        budget--;
        const text = clipLine(whole);
        rows.push(
          kind === 'add'
            ? html`<span class="dl add">${`+${text}`}</span>`
            : kind === 'remove'
              ? html`<span class="dl del">${`-${text}`}</span>`
              : html`<span class="dl">${` ${text}`}</span>`,
        );
      }
    }
    const kind = kindLabel(file);
    const moved = file.change.movedTo ? ` → ${clip(file.change.movedTo)}` : '';
    return html`<div class="diff-file">
        <span class="diff-path" title=${clip(file.change.path)}
          >${clip(file.change.path)}${moved}</span
        >
        ${kind ? html`<span class="meta">${kind}</span>` : nothing}
        ${view.files.length > 1 ? diffCounts(file.added, file.removed) : nothing}
      </div>
      ${rows.length ? html`<pre class="diff-body">${rows}</pre>` : nothing}`;
  });
  const hidden = Math.max(0, view.lines - (expanded ? DIFF_MAX_LINES : DIFF_PREVIEW_LINES));
  const collapsible = view.lines > DIFF_PREVIEW_LINES;
  return html`<div class="diff">${files}</div>
    ${
      expanded && hidden > 0
        ? html`<div class="muted">
            ${l10n.t('{0} more lines: see the raw input.', formatNumber(hidden))}
          </div>`
        : nothing
    }
    ${
      collapsible
        ? html`<button
            class="link more"
            aria-expanded=${expanded ? 'true' : 'false'}
            @click=${onToggle}
          >
            ${expanded ? l10n.t('Show less') : l10n.t('Show more ({0} more lines)', formatNumber(hidden))}
          </button>`
        : nothing
    }`;
}
