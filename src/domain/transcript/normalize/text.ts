/** Text helpers shared by the normalizers: capping, tolerant field access, content flattening. */
import type { Attachment, TextPart, TranscriptEntry } from '../model.ts';

type Truncatable = Pick<TranscriptEntry, 'truncated' | 'truncatedParts' | 'fullLength'>;

/**
 * `full` cut to `max` characters; records the cut on the entry (truncated flag, part,
 * full length) so the UI can offer "show all". Never splits a surrogate pair.
 */
export function clip(entry: Truncatable, part: TextPart, full: string, max: number): string {
  if (full.length <= max) return full;
  markTruncated(entry, part, full.length);
  let cut = Math.max(0, max);
  const code = full.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return full.slice(0, cut);
}

/** Records that `part` is shown cut from `length` characters. */
export function markTruncated(entry: Truncatable, part: TextPart, length: number): void {
  entry.truncated = true;
  const parts = (entry.truncatedParts ??= []);
  if (!parts.includes(part)) parts.push(part);
  (entry.fullLength ??= {})[part] = length;
}

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function obj(value: unknown): Json | undefined {
  return isObject(value) ? value : undefined;
}

/** Pretty JSON for display; strings stay as they are (already text). */
export function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

/** Decoded size of base64 data without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** An image/document block as an attachment (the data is dropped, its size kept). */
export function attachmentOf(block: Json): Attachment {
  const source = obj(block.source);
  const data = str(source?.data);
  const attachment: Attachment = { type: str(block.type) ?? 'unknown' };
  const mediaType = str(source?.media_type) ?? str(block.media_type) ?? str(block.mime_type);
  if (mediaType) attachment.mediaType = mediaType;
  if (data !== undefined) attachment.bytes = base64Bytes(data);
  const name = str(block.name) ?? str(block.title) ?? str(block.file_name);
  if (name) attachment.name = name;
  return attachment;
}

export function describeAttachment(a: Attachment): string {
  const size = a.bytes === undefined ? '' : `, ${formatBytes(a.bytes)}`;
  return `[${a.type}${a.mediaType ? ` ${a.mediaType}` : ''}${size}]`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * Tool-result style content (a string, or blocks of text/images) as one text: text blocks
 * joined by newlines, other blocks as a bracketed placeholder.
 */
export function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? '' : pretty(content);
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (isObject(block) && typeof block.text === 'string') parts.push(block.text);
    else if (isObject(block) && (block.type === 'image' || block.type === 'document'))
      parts.push(describeAttachment(attachmentOf(block)));
    else parts.push(pretty(block));
  }
  return parts.join('\n');
}

/** One short line for a collapsed row. */
export function oneLine(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
