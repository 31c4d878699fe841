/**
 * Streams a transcript through a renderer in windows of entries: each window's entries
 * get their cut parts back in full (TranscriptSource.fullText), are rendered and written,
 * and are dropped before the next window is read. A 200 MB transcript is never held whole,
 * neither as entries nor as output.
 */
import type { TextPart, TranscriptEntry, TranscriptSource } from '../transcript/model.ts';
import type { TranscriptRenderer } from './transcriptExport.ts';

/** Entries read per window. */
export const EXPORT_WINDOW = 200;

export interface ExportProgress {
  entriesDone: number;
  entriesTotal: number;
}

export interface ExportEntriesOptions {
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  /** Called with every entry that names a subagent transcript (its file key). */
  onSubagent?: (fileKey: string, label: string) => void;
}

/** Writes every entry of `source`; resolves with the number written. */
export async function exportEntries(
  source: TranscriptSource,
  renderer: TranscriptRenderer,
  write: (chunk: string) => Promise<void>,
  options: ExportEntriesOptions = {},
): Promise<number> {
  const { signal } = options;
  // A file still being indexed in the background: the export covers all of it.
  const indexed = (source as { whenIndexed?: () => Promise<void> }).whenIndexed;
  if (indexed) await indexed.call(source);
  let done = 0;
  for (;;) {
    signal?.throwIfAborted();
    const total = source.entryCount;
    if (done >= total) break;
    const window = await source.getWindow(done, EXPORT_WINDOW);
    if (window.entries.length === 0) break;
    let chunk = '';
    for (const entry of window.entries) {
      signal?.throwIfAborted();
      const whole = await withFullTexts(source, entry);
      chunk += renderer.entry(whole);
      const sub = subagentOf(whole);
      if (sub) options.onSubagent?.(sub.fileKey, sub.label);
    }
    await write(chunk);
    done = window.start + window.entries.length;
    options.onProgress?.({ entriesDone: done, entriesTotal: Math.max(total, done) });
  }
  return done;
}

/** The entry with each part that was cut for the window read again in full. */
export async function withFullTexts(
  source: TranscriptSource,
  entry: TranscriptEntry,
): Promise<TranscriptEntry> {
  const parts = entry.truncatedParts;
  if (!parts?.length) return entry;
  const copy = { ...entry } as TranscriptEntry & Record<string, unknown>;
  const left: TextPart[] = [];
  for (const part of parts) {
    const text = await source.fullText(entry.index, part);
    const field = fieldOf(entry, part);
    if (text === null || field === undefined) {
      left.push(part);
      continue;
    }
    copy[field] = text;
  }
  copy.truncatedParts = left.length ? left : undefined;
  copy.truncated = left.length > 0;
  return copy;
}

/** Which field of the entry holds a text part. */
function fieldOf(entry: TranscriptEntry, part: TextPart): string | undefined {
  if (part === 'input') return entry.kind === 'tool-call' ? 'input' : undefined;
  if (part === 'output') return entry.kind === 'tool-call' ? 'output' : undefined;
  switch (entry.kind) {
    case 'unknown':
      return 'raw';
    case 'error':
      return 'excerpt';
    case 'tool-call':
      return undefined;
    default:
      return 'text';
  }
}

function subagentOf(entry: TranscriptEntry): { fileKey: string; label: string } | undefined {
  if (entry.kind === 'subagent')
    return {
      fileKey: entry.fileKey,
      label: entry.description || entry.agentType || entry.agentId,
    };
  if (entry.kind === 'tool-call' && entry.subagent)
    return { fileKey: entry.subagent.fileKey, label: entry.summary || entry.subagent.agentId };
  return undefined;
}
