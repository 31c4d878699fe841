/**
 * A transcript written out as Markdown or as one self-contained HTML page, entry by entry,
 * so an exporter can stream a transcript of any size through it (see exportRunner.ts).
 *
 * Markdown: user and assistant text as written (a code fence it leaves open is closed after
 * it), everything else in fences that its own text cannot close. HTML: every text escaped,
 * no script, no external resource, a CSP that forbids anything but the inline style sheet;
 * light and dark themes follow the reader's system (prefers-color-scheme).
 */
import { createHash } from 'node:crypto';
import { diffOfChange, fileChangesOfToolCall, type FileDiff } from '../../shared/fileEdits.ts';
import type { TranscriptEntry, ToolCallEntry } from '../transcript/model.ts';
import { closeOpenFence, fenced, inlineCode, splitFences } from './markdownText.ts';

export type ExportFormat = 'markdown' | 'html';

/** What the export's header says about the session (every value is untrusted text). */
export interface ExportMeta {
  title: string;
  sessionId: string;
  /** Label/value rows: harness, model, project, status, started… (empty values are left out). */
  fields: [string, string][];
  /** ISO time of the export. */
  exportedAt: string;
  generator: string;
}

/** Streams one document: begin, then entries (and subagent sections), then end. */
export interface TranscriptRenderer {
  readonly format: ExportFormat;
  begin(meta: ExportMeta): string;
  /** A new part of the document: a subagent's transcript after its parent's. */
  section(title: string, note?: string): string;
  entry(entry: TranscriptEntry): string;
  /** A line of the exporter's own (a part that could not be read, a cut-short export). */
  note(text: string): string;
  end(): string;
}

export function rendererFor(format: ExportFormat): TranscriptRenderer {
  return format === 'html' ? new HtmlRenderer() : new MarkdownRenderer();
}

/** The whole document at once (tests, small transcripts). */
export function renderTranscript(
  format: ExportFormat,
  meta: ExportMeta,
  entries: Iterable<TranscriptEntry>,
): string {
  const renderer = rendererFor(format);
  let out = renderer.begin(meta);
  for (const entry of entries) out += renderer.entry(entry);
  return out + renderer.end();
}

/** File extension of each format. */
export const EXPORT_EXTENSION: Record<ExportFormat, string> = { markdown: 'md', html: 'html' };

/**
 * A file name for the export: `<title>-<id>.<ext>` with anything a file system could
 * object to replaced, and both parts cut short.
 */
export function exportFileName(title: string, sessionId: string, format: ExportFormat): string {
  const clean = (text: string, max: number) =>
    text
      .replace(
        // eslint-disable-next-line no-control-regex
        /[\u0000-\u001f\u007f-\u009f<>:"/\\|?*\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g,
        ' ',
      )
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/^\.+/, '')
      .slice(0, max)
      .trim()
      .replace(/\s/g, '-');
  // A local session's id is its file's path: its last segment is the id the harness uses.
  const id = clean(
    sessionId
      .split(/[\\/]/)
      .pop()!
      .replace(/\.jsonl$/i, ''),
    60,
  );
  const name = clean(title, 60);
  const base = [name, id].filter(Boolean).join('-') || 'transcript';
  return `${base}.${EXPORT_EXTENSION[format]}`;
}

/** What is said about one entry before its body: who, when, and a one-line summary. */
interface EntryHead {
  role: string;
  /** Class name of the entry in HTML. */
  css: string;
  detail?: string;
  time?: string;
}

function headOf(entry: TranscriptEntry): EntryHead {
  const time = entry.timestamp;
  switch (entry.kind) {
    case 'user':
      return {
        role: entry.variant === 'prompt' ? 'User' : `User (${entry.variant})`,
        css: 'user',
        time,
      };
    case 'assistant':
      return { role: 'Assistant', css: 'assistant', detail: entry.model, time };
    case 'thinking':
      return {
        role: 'Thinking',
        css: 'thinking',
        detail: entry.redacted ? 'redacted' : undefined,
        time,
      };
    case 'tool-call':
      return {
        role: `Tool call: ${entry.name}`,
        css: 'tool',
        detail: [entry.summary, entry.status].filter(Boolean).join(' · '),
        time,
      };
    case 'compaction':
      return { role: 'Compaction', css: 'system', detail: entry.trigger, time };
    case 'system':
      return { role: `System: ${entry.subtype}`, css: 'system', detail: entry.level, time };
    case 'subagent':
      return {
        role: 'Subagent',
        css: 'subagent',
        detail: [entry.agentType, entry.description, entry.status].filter(Boolean).join(' · '),
        time,
      };
    case 'error':
      return { role: 'Unreadable line', css: 'error', detail: entry.message, time };
    case 'unknown':
      return { role: `Unknown record: ${entry.type || '(no type)'}`, css: 'unknown', time };
  }
}

/** The unified diffs of a file-editing tool call (Edit, MultiEdit, Write, apply_patch). */
function diffsOf(entry: ToolCallEntry): FileDiff[] | undefined {
  if (entry.truncatedParts?.includes('input')) return undefined;
  const changes = fileChangesOfToolCall(entry.name, entry.input);
  return changes?.map((change) => diffOfChange(change));
}

function diffText(diff: FileDiff): string {
  const lines: string[] = [];
  for (const hunk of diff.hunks) {
    lines.push(hunk.header);
    for (const line of hunk.lines)
      lines.push(`${line.kind === 'add' ? '+' : line.kind === 'remove' ? '-' : ' '}${line.text}`);
  }
  return lines.join('\n');
}

function diffTitle(diff: FileDiff): string {
  const { change } = diff;
  const target = change.movedTo ? `${change.path} → ${change.movedTo}` : change.path;
  return `${change.kind} ${target} (+${diff.added} −${diff.removed})`;
}

/** What a truncated part says when its full text could not be read. */
function cutNote(entry: TranscriptEntry, part: 'text' | 'input' | 'output'): string | undefined {
  if (!entry.truncatedParts?.includes(part)) return undefined;
  const length = entry.fullLength?.[part];
  return `[cut: ${length === undefined ? 'longer' : `${length} characters`} in the transcript]`;
}

// ---------------------------------------------------------------------------- Markdown

/** One line of untrusted text for a heading: no newline, no Markdown that means anything. */
function mdLine(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`)
    .trim();
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

class MarkdownRenderer implements TranscriptRenderer {
  readonly format = 'markdown' as const;

  begin(meta: ExportMeta): string {
    const rows = meta.fields
      .filter(([, value]) => value !== '')
      .map(([name, value]) => `- ${mdLine(name)}: ${inlineCode(value)}`);
    return [
      `# ${mdLine(meta.title) || 'Transcript'}`,
      '',
      `- Session: ${inlineCode(meta.sessionId)}`,
      ...rows,
      `- Exported: ${inlineCode(meta.exportedAt)} by ${mdLine(meta.generator)}`,
      '',
      '',
    ].join('\n');
  }

  section(title: string, note?: string): string {
    return `\n---\n\n## ${mdLine(title)}\n\n${note ? `${mdLine(note)}\n\n` : ''}`;
  }

  note(text: string): string {
    return `> **${mdLine(text)}**\n\n`;
  }

  entry(entry: TranscriptEntry): string {
    const head = headOf(entry);
    const heading = [
      `### ${mdLine(head.role)}`,
      head.detail ? ` — ${mdLine(head.detail)}` : '',
      head.time ? ` · ${mdLine(head.time)}` : '',
    ].join('');
    return `${heading}\n\n${this.body(entry)}\n`;
  }

  private body(entry: TranscriptEntry): string {
    const cut = (part: 'text' | 'input' | 'output') => {
      const note = cutNote(entry, part);
      return note ? `\n_${mdLine(note)}_\n` : '';
    };
    switch (entry.kind) {
      case 'user':
      case 'assistant':
        return `${closeOpenFence(entry.text)}\n${cut('text')}`;
      case 'thinking':
        return entry.text ? `${quote(entry.text)}\n${cut('text')}` : '_(no text)_\n';
      case 'compaction':
      case 'system':
        return entry.text ? `${fenced(entry.text)}${cut('text')}` : '';
      case 'subagent':
        return `${entry.text ? fenced(entry.text) : ''}${cut('text')}`;
      case 'error':
        return fenced(entry.excerpt);
      case 'unknown':
        return `${fenced(entry.raw, 'json')}${cut('text')}`;
      case 'tool-call': {
        const diffs = diffsOf(entry);
        const parts: string[] = [];
        if (diffs?.length) {
          for (const diff of diffs)
            parts.push(`${inlineCode(diffTitle(diff))}\n\n${fenced(diffText(diff), 'diff')}`);
        } else {
          parts.push(
            `Input:\n\n${fenced(entry.input, entry.input.startsWith('{') ? 'json' : '')}${cut('input')}`,
          );
        }
        if (entry.output !== undefined)
          parts.push(
            `${entry.isError ? 'Error' : 'Output'}:\n\n${fenced(entry.output)}${cut('output')}`,
          );
        return parts.join('\n');
      }
    }
  }

  end(): string {
    return '';
  }
}

// ---------------------------------------------------------------------------- HTML

/** Every character HTML could read as markup or an attribute boundary, escaped. */
export function escapeHtml(text: string): string {
  return (
    text
      .replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`)
      // NUL is replaced by the parser anyway; lone surrogates cannot be encoded as UTF-8.
      // eslint-disable-next-line no-control-regex
      .replace(/\u0000/g, '\ufffd')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
  );
}

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0;
  --code: #f6f8fa; --user: #ddf4ff; --tool: #f6f8fa; --add: #dafbe1; --del: #ffebe9; --err: #cf222e; --accent: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --code: #151b23;
    --user: #0c2d4a; --tool: #151b23; --add: #033a16; --del: #4a0f14; --err: #f85149; --accent: #4493f8; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 24px 16px 64px; }
h1 { font-size: 22px; margin: 0 0 12px; overflow-wrap: anywhere; }
h2.part { font-size: 18px; margin: 40px 0 12px; padding-top: 16px; border-top: 2px solid var(--border); overflow-wrap: anywhere; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 24px; color: var(--muted); }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.entry { border: 1px solid var(--border); border-radius: 6px; margin: 12px 0; padding: 8px 12px; }
.entry.user { background: var(--user); }
.entry.tool, .entry.system, .entry.unknown { background: var(--tool); }
.entry.error { border-color: var(--err); }
.head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; font-size: 12px; color: var(--muted); }
.head .role { font-weight: 600; color: var(--fg); }
.head .detail { overflow-wrap: anywhere; }
.head time { margin-left: auto; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; }
pre { background: var(--code); border: 1px solid var(--border); border-radius: 6px; padding: 8px;
  overflow-x: auto; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre; }
details > summary { cursor: pointer; font-size: 12px; color: var(--muted); margin: 4px 0; }
.label { font-size: 12px; color: var(--muted); margin: 8px 0 2px; }
.label.error { color: var(--err); }
.cut, .note { font-size: 12px; color: var(--muted); font-style: italic; }
.diff { background: var(--code); border: 1px solid var(--border); border-radius: 6px; padding: 8px 0;
  overflow-x: auto; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.diff > div { white-space: pre; padding: 0 8px; min-height: 1.45em; width: max-content; min-width: 100%; }
.diff .add { background: var(--add); }
.diff .del { background: var(--del); }
.diff .hunk { color: var(--accent); }
.file { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 8px 0 2px; overflow-wrap: anywhere; }
footer { margin-top: 32px; font-size: 12px; color: var(--muted); }
`;

/**
 * Only our own <style> may apply, named by its hash (so a style element or attribute that
 * text somehow turned into markup would not): no script, image, font, frame, form or base.
 */
export const EXPORT_CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'`;

class HtmlRenderer implements TranscriptRenderer {
  readonly format = 'html' as const;

  begin(meta: ExportMeta): string {
    const rows = [['Session', meta.sessionId] as [string, string], ...meta.fields]
      .filter(([, value]) => value !== '')
      .map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`)
      .join('\n');
    return [
      '<!DOCTYPE html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`,
      '<meta name="referrer" content="no-referrer">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<meta name="generator" content="${escapeHtml(meta.generator)}">`,
      `<title>${escapeHtml(meta.title || 'Transcript')}</title>`,
      `<style>${STYLE}</style>`,
      '</head>',
      '<body>',
      '<main>',
      `<h1>${escapeHtml(meta.title || 'Transcript')}</h1>`,
      `<dl class="meta">\n${rows}\n<dt>Exported</dt><dd>${escapeHtml(meta.exportedAt)}</dd>\n</dl>`,
      '',
    ].join('\n');
  }

  section(title: string, note?: string): string {
    return `<h2 class="part">${escapeHtml(title)}</h2>\n${note ? `<p class="note">${escapeHtml(note)}</p>\n` : ''}`;
  }

  note(text: string): string {
    return `<p class="note">${escapeHtml(text)}</p>\n`;
  }

  entry(entry: TranscriptEntry): string {
    const head = headOf(entry);
    const header = [
      `<span class="role">${escapeHtml(head.role)}</span>`,
      head.detail ? `<span class="detail">${escapeHtml(head.detail)}</span>` : '',
      head.time ? `<time>${escapeHtml(head.time)}</time>` : '',
    ].join('');
    return `<section class="entry ${head.css}">\n<div class="head">${header}</div>\n${this.body(entry)}</section>\n`;
  }

  private body(entry: TranscriptEntry): string {
    const cut = (part: 'text' | 'input' | 'output') => {
      const note = cutNote(entry, part);
      return note ? `<p class="cut">${escapeHtml(note)}</p>\n` : '';
    };
    switch (entry.kind) {
      case 'user':
      case 'assistant':
        return `${prose(entry.text)}${cut('text')}`;
      case 'thinking':
        return `<details><summary>Thinking</summary>\n<div class="text">${escapeHtml(entry.text)}</div>\n${cut('text')}</details>\n`;
      case 'compaction':
      case 'system':
        return entry.text
          ? `<div class="text">${escapeHtml(entry.text)}</div>\n${cut('text')}`
          : '';
      case 'subagent':
        return entry.text
          ? `<details><summary>Task</summary>\n${pre(entry.text)}${cut('text')}</details>\n`
          : '';
      case 'error':
        return pre(entry.excerpt);
      case 'unknown':
        return `<details><summary>Record</summary>\n${pre(entry.raw)}${cut('text')}</details>\n`;
      case 'tool-call': {
        const diffs = diffsOf(entry);
        const parts: string[] = [];
        if (diffs?.length) {
          for (const diff of diffs)
            parts.push(`<div class="file">${escapeHtml(diffTitle(diff))}</div>\n${diffPre(diff)}`);
        } else {
          parts.push(
            `<details><summary>Input</summary>\n${pre(entry.input)}${cut('input')}</details>\n`,
          );
        }
        if (entry.output !== undefined) {
          const label = entry.isError ? 'Error' : 'Output';
          parts.push(
            `<details${entry.isError ? ' open' : ''}><summary>${label}</summary>\n${pre(entry.output)}${cut('output')}</details>\n`,
          );
        }
        return parts.join('');
      }
    }
  }

  end(): string {
    return '<footer>Exported by Agent Session Inspector.</footer>\n</main>\n</body>\n</html>\n';
  }
}

function pre(text: string, css = ''): string {
  return `<pre${css ? ` class="${css}"` : ''}>${escapeHtml(text)}</pre>\n`;
}

/** Prose as pre-wrapped text, its fenced code blocks as <pre> (everything escaped). */
function prose(text: string): string {
  return splitFences(text)
    .map((part) =>
      part.kind === 'code'
        ? pre(part.text)
        : part.text.trim() === ''
          ? ''
          : `<div class="text">${escapeHtml(part.text.replace(/^\n+|\n+$/g, ''))}</div>\n`,
    )
    .join('');
}

function diffPre(diff: FileDiff): string {
  const lines: string[] = [];
  for (const hunk of diff.hunks) {
    lines.push(`<div class="hunk">${escapeHtml(hunk.header)}</div>`);
    for (const line of hunk.lines) {
      const sign = line.kind === 'add' ? '+' : line.kind === 'remove' ? '-' : ' ';
      const css = line.kind === 'add' ? 'add' : line.kind === 'remove' ? 'del' : 'ctx';
      lines.push(`<div class="${css}">${escapeHtml(sign + line.text)}</div>`);
    }
  }
  return `<div class="diff">\n${lines.join('\n')}\n</div>\n`;
}
